//! Group-by, distinct and windows over partitions: rows to buckets by a hash of their keys, each bucket run whole.
//!
//! Each partition goes to the device, gets a column numbering its rows in
//! the order of the whole input, and comes back sorted by bucket (a hash
//! of the keys modulo the buckets, computed on the device: equal keys,
//! as the group-by counts them equal, have one bucket). Each bucket, its
//! rows from every partition in order, runs the node whole with the first
//! row number of each group kept beside; the results, put together, are
//! sorted by it: groups in the order of their first rows, as the
//! in-memory executor gives them with `maintain_order` (and in some order
//! without). A filter, select or with_columns of windows (and tests of
//! distinctness, windows by their value) by common keys
//! (`PlanNode::window_keys`) runs the same way, each row keeping its
//! number: its rows come back in the order of the input.

use std::sync::Arc;

use ir_lower::{
    AggOp, CastMode, GpuDtype, GpuExpr, GpuPlan, NamedExpr, OutputColumn, OutputSchema, PlanNode,
};
use polars::prelude::{DataFrame, SortMultipleOptions};

use std::ops::ControlFlow;

use super::{Data, Partitioned, over, scan, sliced_result};
use crate::column::{DeviceColumn, DeviceFrame, Values};
use crate::error::ExecError;
use crate::execute::{Executor, cast_to, run_plan};

/// The column numbering the rows of a bucketed input in the order of the whole.
pub(super) const ROW: &str = "__polars_gpu_partition_row";

/// Most buckets a node's rows go to.
const MAX_BUCKETS: usize = 1 << 16;

impl Partitioned<'_> {
    /// A group-by, a distinct, or a node of windows by common keys, bucket by bucket.
    pub(super) fn bucketed(&mut self, node: &PlanNode) -> Result<Data, ExecError> {
        let input = node.inputs()[0];
        let in_schema = input.schema();
        let keys: Vec<GpuExpr> = match node {
            PlanNode::GroupBy { keys, .. } => keys.iter().map(|k| k.expr.clone()).collect(),
            PlanNode::Distinct { subset, .. } => subset
                .clone()
                .unwrap_or_else(|| (0..in_schema.len()).collect())
                .into_iter()
                .map(|i| GpuExpr::column(i, in_schema[i].name.clone(), in_schema[i].dtype))
                .collect(),
            _ => match node.window_keys() {
                Some(keys) => keys,
                None => return self.on_whole_inputs(node),
            },
        };
        // (Windows walked from group to group, `RollingWindow::Slices`,
        // are walked over all the groups at once.)
        let walks = |e: &GpuExpr| {
            matches!(
                e.kind,
                ir_lower::ExprKind::Rolling {
                    window: ir_lower::RollingWindow::Slices { .. },
                    ..
                }
            )
        };
        let walked = match node {
            PlanNode::GroupBy { aggs, .. } => aggs.iter().any(|agg| agg.expr.any(&walks)),
            _ => false,
        };
        if walked || in_schema.iter().any(|c| c.name == ROW) {
            return self.on_device(node.clone()).map(Data::Whole);
        }
        let parts = match self.input_parts(node, input)? {
            ControlFlow::Continue(parts) => parts,
            ControlFlow::Break(done) => return Ok(done),
        };
        self.buckets_over(node, &keys, parts)
    }

    /// A group-by, distinct or node of windows (`node`, by `keys`) over
    /// `parts` of its input, bucket by bucket.
    pub(super) fn buckets_over(
        &mut self,
        node: &PlanNode,
        keys: &[GpuExpr],
        parts: Vec<DataFrame>,
    ) -> Result<Data, ExecError> {
        let in_schema = node.inputs()[0].schema();
        let total: usize = parts.iter().map(DataFrame::height).sum();
        if total == 0 {
            return self
                .on_device(over(node, vec![parts[0].clone()]))
                .map(Data::Whole);
        }
        let buckets = self.bucket_count(total);
        let mut numbered = in_schema.clone();
        numbered.push(OutputColumn {
            name: ROW.into(),
            dtype: GpuDtype::Int64,
        });
        let each_bucket = bucket_node(node, numbered);
        // (A bucket of one row joins another: the node's expressions see
        // parts of its input of two rows at least, as in partitions.)
        let rows = self.bucket_rows(parts, in_schema, keys, buckets)?;
        let rows = Data::Parts(rows.into_iter().flatten().collect()).coalesced()?;
        let mut results = Vec::new();
        for rows in rows.into_parts() {
            results.push(self.on_device(over(&each_bucket, vec![rows]))?);
        }
        let mut merged = Data::Parts(results).whole()?;
        merged = merged.sort([ROW], SortMultipleOptions::default())?;
        let _ = merged.drop_in_place(ROW)?;
        let slice = match node {
            PlanNode::GroupBy { slice, .. } | PlanNode::Distinct { slice, .. } => *slice,
            _ => None,
        };
        let group_by = matches!(node, PlanNode::GroupBy { .. });
        Ok(self.parted(sliced_result(merged, slice, group_by)?))
    }
}

impl Partitioned<'_> {
    /// How many buckets `rows` rows go to: a partition's rows each, up to
    /// [`MAX_BUCKETS`].
    pub(super) fn bucket_count(&self, rows: usize) -> usize {
        rows.div_ceil(self.rows).clamp(1, MAX_BUCKETS)
    }

    /// The rows of `parts` (of `schema`) in `buckets` buckets by a hash of
    /// `keys` (row-wise expressions over them), hashed on the device: each
    /// bucket's rows from every part, in the order of the parts, with the
    /// number of each row in the whole as a last column ([`ROW`]); `None`
    /// for a bucket of no rows.
    pub(super) fn bucket_rows(
        &mut self,
        parts: Vec<DataFrame>,
        schema: &OutputSchema,
        keys: &[GpuExpr],
        buckets: usize,
    ) -> Result<Vec<Option<DataFrame>>, ExecError> {
        // Each partition sorted by bucket, and where each bucket starts in it.
        let mut sorted = Vec::with_capacity(parts.len());
        for (index, part) in parts.into_iter().enumerate() {
            let first_row = (index as i64) << 32;
            let plan = GpuPlan {
                root: scan(part, schema.clone()),
            };
            self.device_runs += 1;
            let (df, starts, counts) = run_plan(&plan, self.ctx, &[], |executor, frame| {
                executor.to_buckets(frame, keys, first_row, buckets)
            })?;
            self.spilled = self.spilled.plus(counts.spilled);
            sorted.push((df, starts));
        }
        let mut out = Vec::with_capacity(buckets);
        for bucket in 0..buckets {
            let mut rows: Option<DataFrame> = None;
            for (df, starts) in &sorted {
                let (start, end) = (starts[bucket], starts[bucket + 1]);
                if end > start {
                    let piece = df.slice(start as i64, end - start);
                    match &mut rows {
                        Some(rows) => {
                            rows.vstack_mut_owned(piece)?;
                        }
                        None => rows = Some(piece),
                    }
                }
            }
            if let Some(rows) = &mut rows {
                rows.rechunk_mut_par();
            }
            out.push(rows);
        }
        Ok(out)
    }
}

/// `node` as it runs over one bucket of rows of `numbered` columns (the
/// input's, then [`ROW`]): without a slice or an order of its own, keeping
/// [`ROW`] (a group's first; the row a distinct keeps; each row's, of
/// windows) as its last column.
fn bucket_node(node: &PlanNode, numbered: Vec<OutputColumn>) -> PlanNode {
    let mut node = node.clone();
    let row = OutputColumn {
        name: ROW.into(),
        dtype: GpuDtype::Int64,
    };
    match &mut node {
        PlanNode::GroupBy {
            aggs,
            maintain_order,
            slice,
            schema,
            ..
        } => {
            let first = GpuExpr::column(numbered.len() - 1, ROW, GpuDtype::Int64)
                .aggregated(AggOp::First, GpuDtype::Int64);
            aggs.push(NamedExpr {
                name: ROW.into(),
                expr: first,
            });
            (*maintain_order, *slice) = (false, None);
            schema.push(row);
        }
        PlanNode::Distinct {
            subset,
            maintain_order,
            slice,
            schema,
            ..
        } => {
            if subset.is_none() {
                *subset = Some((0..numbered.len() - 1).collect());
            }
            (*maintain_order, *slice) = (false, None);
            schema.push(row);
        }
        // Windows: each row keeps its number (a with_columns and a filter
        // keep the input's columns).
        PlanNode::Select { exprs, schema, .. } => {
            exprs.push(NamedExpr {
                name: ROW.into(),
                expr: GpuExpr::column(numbered.len() - 1, ROW, GpuDtype::Int64),
            });
            schema.push(row);
        }
        PlanNode::WithColumns { schema, .. } | PlanNode::Filter { schema, .. } => {
            schema.push(row);
        }
        _ => {}
    }
    if let Some(input) = node.inputs_mut().into_iter().next() {
        *input = PlanNode::DataFrameScan {
            df: Arc::new(DataFrame::empty()),
            projection: Vec::new(),
            schema: numbered,
        };
    }
    node
}

impl Executor<'_> {
    /// `frame` (a partition; its rows numbered from `first_row` in a last
    /// column) on the host sorted by bucket (of `buckets`: a hash of the
    /// `keys`, row-wise expressions over it), with where each bucket
    /// starts (and the end).
    pub(crate) fn to_buckets(
        &self,
        mut frame: DeviceFrame,
        keys: &[GpuExpr],
        first_row: i64,
        buckets: usize,
    ) -> Result<(DataFrame, Vec<usize>), ExecError> {
        let ops = self.ops();
        let n = frame.height;
        let hashes = ops.partition_hashes(n)?;
        // A struct key by its fields: equal structs, equal fields (a null
        // struct's fields are null).
        let keys: Vec<GpuExpr> = keys
            .iter()
            .flat_map(|key| match key.dtype {
                GpuDtype::Struct(of) => crate::execute::struct_fields(key, of),
                _ => vec![key.clone()],
            })
            .collect();
        for key in &keys {
            if key.dtype == GpuDtype::String {
                let column = self.evaluate(&frame, key, "")?;
                let (Values::Str { offsets, bytes }, validity) = column.into_parts() else {
                    return Err(ExecError::Unsupported(format!(
                        "a text key `{key}` of other values"
                    )));
                };
                ops.partition_mix_strings(&hashes, (&offsets, &bytes, validity.as_ref()))?;
                continue;
            }
            let (words, validity) = if key.dtype.is_float() {
                self.float_keys(&frame, key)?
            } else {
                // Equal values, equal words: integers (and the numbers of
                // temporal values) widened to 64 bits, then as u64.
                let wide = if key.dtype.is_unsigned() || key.dtype == GpuDtype::Boolean {
                    cast_to(key, GpuDtype::UInt64)
                } else {
                    cast_to(key, GpuDtype::Int64).cast(GpuDtype::UInt64, CastMode::Wrapping)
                };
                let (values, validity) = self.evaluate(&frame, &wide, "")?.into_parts();
                let Values::U64(words) = values else {
                    return Err(ExecError::Unsupported(format!(
                        "a key `{key}` of other words"
                    )));
                };
                (words, validity)
            };
            ops.partition_mix_words(&hashes, &words, validity.as_ref())?;
        }
        let bucket_count = u32::try_from(buckets)
            .map_err(|_| ExecError::Unsupported(format!("{buckets} buckets")))?;
        let bucket_of_row = ops.partition_buckets(&hashes, bucket_count)?;
        frame.columns.push(DeviceColumn::from_parts(
            ROW.into(),
            GpuDtype::Int64,
            n,
            Values::I64(ops.iota(n, first_row)?),
            None,
        ));
        let order = ops.sorted_rows(&bucket_of_row, None, false, false)?;
        let sorted = self.gather_frame(&frame, &ops.widen(&order)?)?;
        let mut starts = vec![0usize; buckets + 1];
        for bucket in bucket_of_row.to_host()? {
            starts[bucket as usize + 1] += 1;
        }
        for b in 0..buckets {
            starts[b + 1] += starts[b];
        }
        Ok((sorted.to_dataframe()?, starts))
    }
}
