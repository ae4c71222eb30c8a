//! Joins over partitions: each left partition against the whole right input, or both sides in buckets by their keys.

use ir_lower::{JoinKind, JoinOrder, PlanNode};
use polars::prelude::DataFrame;

use super::buckets::ROW;
use super::{Data, Partitioned, cut_allowed, over, slice_data};
use crate::error::ExecError;

impl Partitioned<'_> {
    /// A join whose rows follow the left input's (inner, left, semi, anti,
    /// cross; see `Partitioning::LeftPartitioned`), then its slice. Where
    /// the right input fits a partition (or the join keeps an order, or is
    /// a cross join): each left partition joined with the whole right
    /// input, the results in order. Else, for a join in no order of the
    /// query's: both inputs (the left one whole or not) in buckets by a
    /// hash of their keys (rows of equal keys in one bucket on both sides,
    /// nulls too), the buckets joined pair by pair.
    pub(super) fn left_partitioned(&mut self, node: &PlanNode) -> Result<Data, ExecError> {
        let PlanNode::Join {
            left,
            right,
            left_on,
            right_on,
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
        let right_rows = right_data.height();
        let hashed = right_rows > self.rows
            && *order == JoinOrder::None
            && *kind != JoinKind::Cross
            && !left.schema().iter().any(|c| c.name == ROW)
            && !right.schema().iter().any(|c| c.name == ROW);
        let left_parts = match left_data {
            Data::Whole(df) if !hashed => {
                let right = right_data.whole()?;
                return self.on_device(over(node, vec![df, right])).map(Data::Whole);
            }
            data => data.into_parts(),
        };
        let mut unsliced = node.clone();
        if let PlanNode::Join { slice, .. } = &mut unsliced {
            *slice = None;
        }
        let mut out = Vec::new();
        if hashed {
            let right_parts = right_data.into_parts();
            let left_rows: usize = left_parts.iter().map(DataFrame::height).sum();
            let buckets = self.bucket_count(left_rows.max(right_rows));
            let (empty_left, empty_right) = (left_parts[0].clear(), right_parts[0].clear());
            let lefts = self.bucket_rows(left_parts, left.schema(), left_on, buckets)?;
            let rights = self.bucket_rows(right_parts, right.schema(), right_on, buckets)?;
            for (l, r) in lefts.into_iter().zip(rights) {
                // A bucket of no left rows joins to none, of any kind.
                let Some(mut l) = l else { continue };
                let r = match r {
                    Some(mut r) => {
                        let _ = r.drop_in_place(ROW)?;
                        r
                    }
                    None if matches!(kind, JoinKind::Inner | JoinKind::Semi) => continue,
                    None => empty_right.clone(),
                };
                let _ = l.drop_in_place(ROW)?;
                out.push(self.on_device(over(&unsliced, vec![l, r]))?);
            }
            if out.is_empty() {
                // No bucket joined: the join of no rows, for its columns.
                let none = vec![empty_left, empty_right];
                out.push(self.on_device(over(&unsliced, none))?);
            }
        } else {
            let right = right_data.whole()?;
            for part in left_parts {
                out.push(self.on_device(over(&unsliced, vec![part, right.clone()]))?);
            }
        }
        match slice {
            Some((offset, len)) => slice_data(Data::Parts(out), *offset, *len),
            None => Ok(Data::Parts(out)),
        }
    }
}
