//! Joins over partitions: one input in partitions against the whole other, or both inputs in buckets by their keys.

use std::ops::ControlFlow;
use std::sync::Arc;

use ir_lower::{GpuDtype, JoinKind, JoinOrder, OutputColumn, OutputSchema, PlanNode};
use polars::prelude::{Column, DataFrame, SortMultipleOptions};

use super::buckets::ROW;
use super::{Data, Partitioned, Stream, cut_allowed, over, slice_data};
use crate::error::ExecError;
use crate::execute::Resident;
use gpu_runtime::RuntimeError;

/// Which input of a join goes in partitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum JoinSide {
    /// The left one (`Partitioning::LeftPartitioned`).
    Left,
    /// The right one (`Partitioning::RightPartitioned`).
    Right,
    /// Both, in buckets (`Partitioning::BothBucketed`).
    Both,
}

impl Partitioned<'_> {
    /// A join with its `partitioned` input in partitions, then its slice.
    /// Where the other input fits a partition (or the join is a cross
    /// join): each partition joined with the whole other input as it comes
    /// (as a file scan is read, as a chain of row-wise nodes makes it), the
    /// results in order (the rows of each partition's join follow its
    /// rows, as over the whole). Else (and always for a full join): both
    /// inputs in buckets by a hash of their keys (rows of equal keys in
    /// one bucket on both sides, nulls too), the buckets joined pair by
    /// pair, and put back in the order the join keeps, if any (where the
    /// rows can be: see `join_buckets`; else the other input whole).
    pub(super) fn join(
        &mut self,
        node: &PlanNode,
        partitioned: JoinSide,
    ) -> Result<Data, ExecError> {
        let slice = match node {
            PlanNode::Join { slice, .. } => *slice,
            _ => None,
        };
        match self.joined(node, partitioned)? {
            ControlFlow::Break(data) => Ok(data),
            ControlFlow::Continue(parts) => sliced_parts(self.all_parts(parts)?, slice),
        }
    }

    /// As [`Partitioned::join`] (of a join without a slice, whose rows the
    /// nodes above may take as they come), the partitions of a join of
    /// each partition with the whole other input as they are made, or
    /// (`Break`) the result whole where it came whole.
    pub(super) fn join_stream(
        &mut self,
        node: &PlanNode,
        partitioned: JoinSide,
    ) -> Result<ControlFlow<DataFrame, Stream>, ExecError> {
        Ok(match self.joined(node, partitioned)? {
            ControlFlow::Break(Data::Whole(df)) => ControlFlow::Break(df),
            ControlFlow::Break(Data::Parts(parts)) => {
                ControlFlow::Continue(Stream::Parts(parts.into_iter()))
            }
            ControlFlow::Continue(parts) => ControlFlow::Continue(parts),
        })
    }

    /// The join `node`'s result (`Break`: whole, or by buckets, its slice
    /// taken), or the stream of its partitions joined one by one with the
    /// whole other input (its slice left to the caller).
    fn joined(
        &mut self,
        node: &PlanNode,
        partitioned: JoinSide,
    ) -> Result<ControlFlow<Data, Stream>, ExecError> {
        let PlanNode::Join {
            left,
            right,
            kind,
            order,
            slice,
            ..
        } = node
        else {
            return self.on_whole_inputs(node).map(ControlFlow::Break);
        };
        if !cut_allowed(node, left) || !cut_allowed(node, right) {
            let whole = self.on_device(node.clone())?;
            return Ok(ControlFlow::Break(Data::Whole(whole)));
        }
        let numbered = [left, right].iter().any(|input| {
            input
                .schema()
                .iter()
                .any(|c| [ROW, ROW_RIGHT].contains(&&*c.name))
        });
        // Polars' engine gives a left join's rows in its left input's order
        // where the query asks for no order too (a step after may read it:
        // a group's first value): so do the buckets.
        let order = match (order, kind) {
            (JoinOrder::None, JoinKind::Left) => &JoinOrder::Left,
            _ => order,
        };
        // Whose rows' order comes first where the rows are put back.
        let first = match order {
            JoinOrder::Left | JoinOrder::LeftRight => JoinSide::Left,
            _ => JoinSide::Right,
        };
        // A join keeping an order goes by buckets where its rows can be
        // put back in that order: numbered in both inputs, each output row
        // carries its rows' numbers (see `join_buckets`).
        let keeps_left_order = |kind: &JoinKind| {
            matches!(
                kind,
                JoinKind::Inner | JoinKind::Left | JoinKind::Semi | JoinKind::Anti
            )
        };
        let keeps_right_order = |kind: &JoinKind| matches!(kind, JoinKind::Inner | JoinKind::Right);
        let put_back = *order != JoinOrder::None
            && match partitioned {
                JoinSide::Left => keeps_left_order(kind),
                JoinSide::Right => keeps_right_order(kind),
                // (And a join validating the side whose order it keeps.)
                JoinSide::Both => {
                    *kind == JoinKind::Full
                        || (first == JoinSide::Left && keeps_left_order(kind))
                        || (first == JoinSide::Right && keeps_right_order(kind))
                }
            };
        // Whether the join goes by buckets, where the input it does not
        // take in partitions (either, for `Both`) is `large`. (An input may
        // come whole and still be large: a node run whole.)
        // (Not where a bucket of one row would compute the keys otherwise
        // than the whole input: see `rows::reads_one_row_scalars`.)
        let keys_read_scalars = super::rows::reads_one_row_scalars(node);
        let hashed = |large: bool| {
            !numbered
                && !keys_read_scalars
                && *kind != JoinKind::Cross
                && large
                && (*order == JoinOrder::None || put_back)
        };
        let put_back = put_back.then_some(first);
        let mut unsliced = node.clone();
        if let PlanNode::Join { slice, .. } = &mut unsliced {
            *slice = None;
        }
        let (parted, other) = match partitioned {
            JoinSide::Left => (left, right),
            JoinSide::Right => (right, left),
            JoinSide::Both => {
                let (left_data, right_data) = (self.run(left)?, self.run(right)?);
                if !hashed(left_data.height().max(right_data.height()) > self.rows) {
                    // A full join of small inputs, or of inputs that may
                    // not go to buckets: whole.
                    let inputs = vec![left_data.whole()?, right_data.whole()?];
                    let whole = self.on_device(over(node, inputs))?;
                    return Ok(ControlFlow::Break(Data::Whole(whole)));
                }
                let out = self.join_buckets(node, &unsliced, left_data, right_data, put_back)?;
                return sliced_parts(out, *slice).map(ControlFlow::Break);
            }
        };
        // The other input first: its size decides how the join goes.
        let other_data = self.run(other)?;
        if hashed(other_data.height() > self.rows) {
            let parted_data = self.run(parted)?;
            let (left_data, right_data) = match partitioned {
                JoinSide::Right => (other_data, parted_data),
                _ => (parted_data, other_data),
            };
            let out = self.join_buckets(node, &unsliced, left_data, right_data, put_back)?;
            return sliced_parts(out, *slice).map(ControlFlow::Break);
        }
        // Each partition joined with the whole other input as it comes
        // (a file scan's as it is read).
        let other = other_data.whole()?;
        Ok(match self.stream(parted)? {
            ControlFlow::Break(part) => {
                let inputs = match partitioned {
                    JoinSide::Right => vec![other, part],
                    _ => vec![part, other],
                };
                ControlFlow::Break(Data::Whole(self.on_device(over(node, inputs))?))
            }
            ControlFlow::Continue(parts) => {
                // Uploaded once for every partition's run (where it cannot
                // be, each run uploads it).
                let other = Arc::new(other);
                let resident = Resident::upload(other.clone(), self.ctx, true).ok();
                // (A partition's join may give a row or none.)
                let joined = Stream::Join {
                    join: Box::new(unsliced),
                    other,
                    resident,
                    side: partitioned,
                    source: Box::new(parts),
                    ahead: None,
                };
                ControlFlow::Continue(joined.coalesced())
            }
        })
    }

    /// The results of `unsliced` (the join `node` without its slice) over
    /// each pair of buckets of its inputs' rows, by a hash of their keys.
    /// A bucket of no rows on one side joins to nothing, or to the other
    /// side's rows alone, as the join's kind says. With `put_back`, the
    /// rows are put back in the order of that input's rows, then of the
    /// other's, a row matching nothing last (a join keeping an order): each bucket's rows keep their
    /// numbers in the whole input, the left ones as a last left column
    /// ([`ROW`]), the right ones as a last column ([`ROW_RIGHT`]), which
    /// the join carries to its output (after the left columns, and last),
    /// and the joined rows, put together, are sorted by them on the host.
    fn join_buckets(
        &mut self,
        node: &PlanNode,
        unsliced: &PlanNode,
        left_data: Data,
        right_data: Data,
        put_back: Option<JoinSide>,
    ) -> Result<Vec<DataFrame>, ExecError> {
        let PlanNode::Join {
            left,
            right,
            left_on,
            right_on,
            kind,
            unique: (left_unique, right_unique),
            ..
        } = node
        else {
            return Err(ExecError::Unsupported(
                "buckets of another node than a join".into(),
            ));
        };
        let rows = left_data.height().max(right_data.height());
        let (left_parts, right_parts) = (left_data.into_parts(), right_data.into_parts());
        let buckets = self.bucket_count(rows);
        let (mut empty_left, mut empty_right) = (left_parts[0].clear(), right_parts[0].clear());
        let lefts = self.bucket_rows(left_parts, left.schema(), left_on, buckets)?;
        let rights = self.bucket_rows(right_parts, right.schema(), right_on, buckets)?;
        let each = match put_back {
            Some(_) => {
                let numbers = |name: &str| Column::new(name.into(), Vec::<i64>::new());
                empty_left.with_column(numbers(ROW))?;
                empty_right.with_column(numbers(ROW_RIGHT))?;
                numbered_join(unsliced, left.schema(), right.schema(), *kind)
            }
            None => unsliced.clone(),
        };
        // Whether a bucket of one side's rows alone runs: where the join
        // keeps them, and for the side that must be unique (its keys are
        // checked, as over the whole side).
        let left_alone =
            *left_unique || matches!(kind, JoinKind::Left | JoinKind::Anti | JoinKind::Full);
        let right_alone = *right_unique || matches!(kind, JoinKind::Right | JoinKind::Full);
        let mut out = Vec::new();
        for (l, r) in lefts.into_iter().zip(rights) {
            let (l, r) = match (l, r) {
                (Some(l), Some(r)) => (l, r),
                (Some(l), None) if left_alone => (l, empty_right.clone()),
                (None, Some(r)) if right_alone => (empty_left.clone(), r),
                // Nothing of this bucket is in the join.
                _ => continue,
            };
            let (mut l, mut r) = (l, r);
            if put_back.is_some() {
                if r.get_column_index(ROW).is_some() {
                    r.rename(ROW, ROW_RIGHT.into())?;
                }
            } else {
                for side in [&mut l, &mut r] {
                    if side.get_column_index(ROW).is_some() {
                        let _ = side.drop_in_place(ROW)?;
                    }
                }
            }
            out.extend(self.join_pair(&each, *kind, l, r)?);
        }
        if out.is_empty() {
            // No bucket joined: the join of no rows, for its columns.
            let none = vec![empty_left, empty_right];
            out.push(self.on_device(over(&each, none))?);
        }
        let Some(side) = put_back else {
            return Ok(out);
        };
        let mut joined = Data::Parts(out).whole()?;
        let mut by = vec![ROW];
        if joined.get_column_index(ROW_RIGHT).is_some() {
            by.push(ROW_RIGHT);
        }
        if side == JoinSide::Right {
            by.reverse();
        }
        joined = joined.sort(by, SortMultipleOptions::default().with_nulls_last(true))?;
        for name in [ROW, ROW_RIGHT] {
            if joined.get_column_index(name).is_some() {
                let _ = joined.drop_in_place(name)?;
            }
        }
        Ok(self.parted(joined).into_parts())
    }
}

impl Partitioned<'_> {
    /// The join `each` (of kind `kind`) of one pair of buckets, `l` and
    /// `r`. Where the device runs out of memory (a key too frequent for
    /// one bucket: every bucket holds all the rows of its keys), the
    /// larger of the sides the join's kind lets go in slices is joined a
    /// half at a time, and so on while a half still runs out: left rows of
    /// inner, left, semi and anti joins and right rows of inner and right
    /// joins meet every row of the other side in each slice, so the slices'
    /// results together are the pair's (in the order of the slices; a join
    /// keeping an order puts them back in it after). A full join's rows
    /// matching nothing need both sides whole: it is not split.
    fn join_pair(
        &mut self,
        each: &PlanNode,
        kind: JoinKind,
        l: DataFrame,
        r: DataFrame,
    ) -> Result<Vec<DataFrame>, ExecError> {
        let error = match self.on_device(over(each, vec![l.clone(), r.clone()])) {
            Err(error @ ExecError::Runtime(RuntimeError::OutOfMemory { .. })) => error,
            done => return done.map(|df| vec![df]),
        };
        // (Not the side that must be unique, whose halves would be checked
        // apart.)
        let (left_unique, right_unique) = match each {
            PlanNode::Join { unique, .. } => *unique,
            _ => (true, true),
        };
        let left = matches!(
            kind,
            JoinKind::Inner | JoinKind::Left | JoinKind::Semi | JoinKind::Anti
        ) && l.height() > 1
            && !left_unique;
        let right =
            matches!(kind, JoinKind::Inner | JoinKind::Right) && r.height() > 1 && !right_unique;
        let split_left = match (left, right) {
            (true, true) => l.height() >= r.height(),
            (left, right) if left || right => left,
            _ => return Err(error),
        };
        let halves = |df: &DataFrame| {
            let half = df.height() / 2;
            [df.slice(0, half), df.slice(half as i64, df.height() - half)]
        };
        let mut out = Vec::new();
        if split_left {
            for half in halves(&l) {
                out.extend(self.join_pair(each, kind, half, r.clone())?);
            }
        } else {
            for half in halves(&r) {
                out.extend(self.join_pair(each, kind, l.clone(), half)?);
            }
        }
        Ok(out)
    }
}

/// The column numbering the right rows of a join in buckets that puts its rows back in order.
const ROW_RIGHT: &str = "__polars_gpu_partition_row_right";

/// The join `unsliced` (an inner, left, right, semi, anti or full join)
/// over inputs of `left` and `right`'s columns with their rows' numbers
/// last ([`ROW`], [`ROW_RIGHT`]): its output carries them, the left one
/// after the left columns, the right one last (where the join gives right
/// columns). The join gives the left columns, then the right ones: every
/// left column (a full join's coalesced keys in their left places) but a
/// right join's coalesced keys, every right column of a right join.
fn numbered_join(
    unsliced: &PlanNode,
    left: &OutputSchema,
    right: &OutputSchema,
    kind: JoinKind,
) -> PlanNode {
    let number = |name: &str| OutputColumn {
        name: name.into(),
        dtype: GpuDtype::Int64,
    };
    let placeholder = |schema: &OutputSchema, name: &str| {
        let mut schema = schema.clone();
        schema.push(number(name));
        PlanNode::DataFrameScan {
            df: Arc::new(DataFrame::empty()),
            projection: Vec::new(),
            schema,
        }
    };
    let mut join = unsliced.clone();
    if let PlanNode::Join {
        left: left_input,
        right: right_input,
        schema,
        ..
    } = &mut join
    {
        **left_input = placeholder(left, ROW);
        **right_input = placeholder(right, ROW_RIGHT);
        let left_columns = match kind {
            JoinKind::Right => schema.len().saturating_sub(right.len()),
            _ => left.len(),
        };
        schema.insert(left_columns, number(ROW));
        if matches!(
            kind,
            JoinKind::Inner | JoinKind::Left | JoinKind::Right | JoinKind::Full
        ) {
            schema.push(number(ROW_RIGHT));
        }
    }
    join
}

/// A join's results, in partitions, cut to its `slice`.
pub(super) fn sliced_parts(
    out: Vec<DataFrame>,
    slice: Option<(i64, usize)>,
) -> Result<Data, ExecError> {
    if out.is_empty() {
        return Err(ExecError::Unsupported(
            "a partitioned join of no partitions".into(),
        ));
    }
    match slice {
        Some((offset, len)) => slice_data(Data::Parts(out), offset, len),
        None => Ok(Data::Parts(out)),
    }
}
