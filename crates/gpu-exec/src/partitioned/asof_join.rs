//! As-of joins over partitions: the left input in partitions against the whole right one, or both in buckets by the `by` groups.
//!
//! A `join_asof` gives each left row, in order, the right row its key
//! matches among the right keys (of its group, by groups): one output row
//! per left row, found from the left row's key and the whole right input
//! (of its group) alone. The executor checks that the keys are sorted as
//! Polars reads them (where not, Polars answers); over partitions the
//! left key's order must hold across them too.
//!
//! - Without groups, each left partition is joined with the whole right
//!   input (uploaded once), behind the last row with a valid key of the
//!   partitions before it (carried, its output row dropped): the check of
//!   each partition's order then covers the step from one partition to
//!   the next, nulls included.
//! - By groups, both inputs go to buckets by a hash of their `by` columns
//!   (every row of a group in one bucket, on both sides); each bucket's
//!   left rows are joined with its right rows (none: they match nothing),
//!   each left row keeping its number, and the rows are put back in the
//!   left input's order. The order is checked within each group, as over
//!   the whole.

use std::ops::ControlFlow;
use std::sync::Arc;

use ir_lower::{GpuDtype, GpuExpr, NamedExpr, OutputColumn, OutputSchema, PlanNode};
use polars::prelude::{DataFrame, SortMultipleOptions};

use super::buckets::ROW;
use super::join::sliced_parts;
use super::{Data, Partitioned, cut_allowed, over, shared_scan};
use crate::error::ExecError;
use crate::execute::Resident;

/// The column telling whether a left row's key is valid (not null), made
/// beside each partition's left rows and carried to the join's output.
const KEY_VALID: &str = "__polars_gpu_partition_key_valid";

impl Partitioned<'_> {
    /// The as-of join `node` over partitions (see the module's comment),
    /// then its slice.
    pub(super) fn asof_join(&mut self, node: &PlanNode) -> Result<Data, ExecError> {
        let PlanNode::AsofJoin {
            left,
            right,
            by,
            slice,
            ..
        } = node
        else {
            return self.on_whole_inputs(node);
        };
        if !cut_allowed(node, left) || !cut_allowed(node, right) {
            return self.on_device(node.clone()).map(Data::Whole);
        }
        let mut unsliced = node.clone();
        if let PlanNode::AsofJoin { slice, .. } = &mut unsliced {
            *slice = None;
        }
        let out = match by.is_empty() {
            true => match self.asof_parts(node, &unsliced)? {
                ControlFlow::Break(whole) => return Ok(Data::Whole(whole)),
                ControlFlow::Continue(out) => out,
            },
            false => self.asof_buckets(node, &unsliced)?,
        };
        sliced_parts(out, *slice)
    }

    /// The as-of join `unsliced` (`node` without its slice, of no groups)
    /// of each left partition, behind the last left row with a valid key
    /// before it, with the whole right input; or (`Break`) `node`'s result
    /// where the left input came whole.
    fn asof_parts(
        &mut self,
        node: &PlanNode,
        unsliced: &PlanNode,
    ) -> Result<ControlFlow<DataFrame, Vec<DataFrame>>, ExecError> {
        let PlanNode::AsofJoin {
            left,
            right,
            left_on,
            ..
        } = unsliced
        else {
            return Err(ExecError::Unsupported(
                "an as-of join of another node".into(),
            ));
        };
        let right_df = Arc::new(self.run(right)?.whole()?);
        let mut parts = match self.stream(left)? {
            ControlFlow::Break(left_df) => {
                let inputs = vec![left_df, Arc::unwrap_or_clone(right_df)];
                return Ok(ControlFlow::Break(self.on_device(over(node, inputs))?));
            }
            ControlFlow::Continue(parts) => parts,
        };
        // Uploaded once for every partition's run (where it cannot be,
        // each run uploads it).
        let resident = Resident::upload(right_df.clone(), self.ctx, true).ok();
        let valid = NamedExpr {
            name: KEY_VALID.into(),
            expr: left_on.clone().is_not_null(),
        };
        let flag = OutputColumn {
            name: KEY_VALID.into(),
            dtype: GpuDtype::Boolean,
        };
        let (left_schema, right_schema) = (left.schema().clone(), right.schema().clone());
        let flagged_schema = with_column(&left_schema, flag.clone());
        let each = with_left_column(unsliced, &left_schema, flag);
        let mut carried: Option<DataFrame> = None;
        let mut out = Vec::new();
        while let Some(part) = self.next_part(&mut parts) {
            let part = part?;
            let behind = carried.is_some();
            let rows = match carried.take() {
                Some(mut rows) => {
                    rows.vstack_mut_owned(part)?;
                    rows
                }
                None => part,
            };
            let rows = Arc::new(rows);
            let mut plan = each.clone();
            if let PlanNode::AsofJoin {
                left: left_input,
                right: right_input,
                ..
            } = &mut plan
            {
                **left_input = PlanNode::WithColumns {
                    input: Box::new(shared_scan(rows.clone(), left_schema.clone())),
                    exprs: vec![valid.clone()],
                    broadcast: true,
                    schema: flagged_schema.clone(),
                };
                **right_input = shared_scan(right_df.clone(), right_schema.clone());
            }
            let mut joined = self.on_device_with(plan, &resident.iter().collect::<Vec<_>>())?;
            let flags = joined.drop_in_place(KEY_VALID)?;
            let last_valid = flags
                .bool()?
                .iter()
                .enumerate()
                .rev()
                .find_map(|(row, valid)| valid.unwrap_or(false).then_some(row));
            // (None only where no left key so far was valid.)
            carried = last_valid.map(|row| rows.slice(row as i64, 1));
            if behind {
                joined = joined.slice(1, joined.height().saturating_sub(1));
            }
            out.push(joined);
        }
        if out.is_empty() {
            return Err(ExecError::Unsupported(
                "an as-of join of no left partitions".into(),
            ));
        }
        Ok(ControlFlow::Continue(out))
    }

    /// The as-of join `unsliced` (`node` without its slice, by groups) of
    /// each bucket of both inputs' rows by a hash of their `by` columns,
    /// its rows put back in the left input's order.
    fn asof_buckets(
        &mut self,
        node: &PlanNode,
        unsliced: &PlanNode,
    ) -> Result<Vec<DataFrame>, ExecError> {
        let PlanNode::AsofJoin {
            left, right, by, ..
        } = node
        else {
            return Err(ExecError::Unsupported(
                "an as-of join of another node".into(),
            ));
        };
        let (left_data, right_data) = (self.run(left)?, self.run(right)?);
        let rows = left_data.height().max(right_data.height());
        let (left_parts, right_parts) = (left_data.into_parts(), right_data.into_parts());
        let (mut no_left, no_right) = (left_parts[0].clear(), right_parts[0].clear());
        let buckets = self.bucket_count(rows);
        let (left_by, right_by): (Vec<GpuExpr>, Vec<GpuExpr>) = by.iter().cloned().unzip();
        let lefts = self.bucket_rows(left_parts, left.schema(), &left_by, buckets)?;
        let rights = self.bucket_rows(right_parts, right.schema(), &right_by, buckets)?;
        let number = OutputColumn {
            name: ROW.into(),
            dtype: GpuDtype::Int64,
        };
        let each = with_left_column(unsliced, left.schema(), number);
        let mut out = Vec::new();
        for (l, r) in lefts.into_iter().zip(rights) {
            // A bucket of right rows alone gives nothing.
            let Some(l) = l else { continue };
            let r = match r {
                Some(mut r) => {
                    let _ = r.drop_in_place(ROW)?;
                    r
                }
                None => no_right.clone(),
            };
            out.push(self.on_device(over(&each, vec![l, r]))?);
        }
        if out.is_empty() {
            // No left rows: the join of none.
            no_left.with_column(polars::prelude::Column::new(ROW.into(), Vec::<i64>::new()))?;
            out.push(self.on_device(over(&each, vec![no_left, no_right]))?);
        }
        let mut joined = Data::Parts(out).whole()?;
        joined = joined.sort([ROW], SortMultipleOptions::default())?;
        let _ = joined.drop_in_place(ROW)?;
        Ok(self.parted(joined).into_parts())
    }
}

/// `schema` with `column` last.
fn with_column(schema: &OutputSchema, column: OutputColumn) -> OutputSchema {
    let mut schema = schema.clone();
    schema.push(column);
    schema
}

/// The as-of join `unsliced` over a left input of `left`'s columns and
/// `column` last, which it carries to its output after the left columns
/// (its left input a placeholder of that schema, to be replaced).
fn with_left_column(unsliced: &PlanNode, left: &OutputSchema, column: OutputColumn) -> PlanNode {
    let mut join = unsliced.clone();
    if let PlanNode::AsofJoin {
        left: left_input,
        schema,
        ..
    } = &mut join
    {
        **left_input = shared_scan(
            Arc::new(DataFrame::empty()),
            with_column(left, column.clone()),
        );
        schema.insert(left.len(), column);
    }
    join
}
