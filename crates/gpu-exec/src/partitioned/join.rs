//! Joins over partitions: one input in partitions against the whole other, or both inputs in buckets by their keys.

use ir_lower::{JoinKind, JoinOrder, PlanNode};
use polars::prelude::DataFrame;

use super::buckets::ROW;
use super::{Data, Partitioned, cut_allowed, over, slice_data};
use crate::error::ExecError;

/// Which input of a join goes in partitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum JoinSide {
    /// The left one (`Partitioning::LeftPartitioned`).
    Left,
    /// The right one (`Partitioning::RightPartitioned`).
    Right,
    /// Both, in buckets (`Partitioning::BothBucketed`).
    Both,
}

impl Partitioned<'_> {
    /// A join with its `partitioned` input in partitions, then its slice.
    /// Where the other input fits a partition (or the join keeps an order,
    /// or is a cross join): each partition joined with the whole other
    /// input, the results in order (the rows of each partition's join
    /// follow its rows, as over the whole). Else, for a join in no order
    /// of the query's (and always for a full join): both inputs in
    /// buckets by a hash of their keys (rows of equal keys in one bucket
    /// on both sides, nulls too), the buckets joined pair by pair.
    pub(super) fn join(
        &mut self,
        node: &PlanNode,
        partitioned: JoinSide,
    ) -> Result<Data, ExecError> {
        let PlanNode::Join {
            left,
            right,
            kind,
            order,
            slice,
            ..
        } = node
        else {
            return self.on_whole_inputs(node);
        };
        if !cut_allowed(node, left) || !cut_allowed(node, right) {
            return self.on_device(node.clone()).map(Data::Whole);
        }
        let left_data = self.run(left)?;
        let right_data = self.run(right)?;
        let numbered = [left, right]
            .iter()
            .any(|input| input.schema().iter().any(|c| c.name == ROW));
        let both_whole =
            matches!(left_data, Data::Whole(_)) && matches!(right_data, Data::Whole(_));
        let hashed = !numbered
            && !both_whole
            && *order == JoinOrder::None
            && *kind != JoinKind::Cross
            && match partitioned {
                JoinSide::Left => right_data.height() > self.rows,
                JoinSide::Right => left_data.height() > self.rows,
                JoinSide::Both => true,
            };
        let mut unsliced = node.clone();
        if let PlanNode::Join { slice, .. } = &mut unsliced {
            *slice = None;
        }
        let out = if hashed {
            self.join_buckets(node, &unsliced, left_data, right_data)?
        } else {
            let (parts, whole) = match partitioned {
                JoinSide::Left => (left_data, right_data),
                JoinSide::Right => (right_data, left_data),
                // A full join whose inputs are whole, or may not go to buckets.
                JoinSide::Both => (Data::Whole(left_data.whole()?), right_data),
            };
            let whole = whole.whole()?;
            let pair = |part: DataFrame| match partitioned {
                JoinSide::Right => vec![whole.clone(), part],
                _ => vec![part, whole.clone()],
            };
            match parts {
                Data::Whole(part) => {
                    return self.on_device(over(node, pair(part))).map(Data::Whole);
                }
                Data::Parts(parts) => {
                    let mut out = Vec::with_capacity(parts.len());
                    for part in parts {
                        out.push(self.on_device(over(&unsliced, pair(part)))?);
                    }
                    out
                }
            }
        };
        match slice {
            Some((offset, len)) => slice_data(Data::Parts(out), *offset, *len),
            None => Ok(Data::Parts(out)),
        }
    }

    /// The results of `unsliced` (the join `node` without its slice) over
    /// each pair of buckets of its inputs' rows, by a hash of their keys.
    /// A bucket of no rows on one side joins to nothing, or to the other
    /// side's rows alone, as the join's kind says.
    fn join_buckets(
        &mut self,
        node: &PlanNode,
        unsliced: &PlanNode,
        left_data: Data,
        right_data: Data,
    ) -> Result<Vec<DataFrame>, ExecError> {
        let PlanNode::Join {
            left,
            right,
            left_on,
            right_on,
            kind,
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
        let (empty_left, empty_right) = (left_parts[0].clear(), right_parts[0].clear());
        let lefts = self.bucket_rows(left_parts, left.schema(), left_on, buckets)?;
        let rights = self.bucket_rows(right_parts, right.schema(), right_on, buckets)?;
        let keeps_left = matches!(kind, JoinKind::Left | JoinKind::Anti | JoinKind::Full);
        let keeps_right = matches!(kind, JoinKind::Right | JoinKind::Full);
        let mut out = Vec::new();
        for (l, r) in lefts.into_iter().zip(rights) {
            let (l, r) = match (l, r) {
                (Some(l), Some(r)) => (l, r),
                (Some(l), None) if keeps_left => (l, empty_right.clone()),
                (None, Some(r)) if keeps_right => (empty_left.clone(), r),
                // Nothing of this bucket is in the join.
                _ => continue,
            };
            let (mut l, mut r) = (l, r);
            for side in [&mut l, &mut r] {
                if side.get_column_index(ROW).is_some() {
                    let _ = side.drop_in_place(ROW)?;
                }
            }
            out.push(self.on_device(over(unsliced, vec![l, r]))?);
        }
        if out.is_empty() {
            // No bucket joined: the join of no rows, for its columns.
            let none = vec![empty_left, empty_right];
            out.push(self.on_device(over(unsliced, none))?);
        }
        Ok(out)
    }
}
