//! Joins over partitions: each partition of the left input against the whole right one.

use ir_lower::PlanNode;

use super::{Data, Partitioned, cut_allowed, over, slice_data};
use crate::error::ExecError;

impl Partitioned<'_> {
    /// A join whose rows follow the left input's (inner, left, semi, anti,
    /// cross; see `Partitioning::LeftPartitioned`): each left partition
    /// joined with the whole right input, the results in order, then the
    /// join's slice.
    pub(super) fn left_partitioned(&mut self, node: &PlanNode) -> Result<Data, ExecError> {
        let PlanNode::Join {
            left, right, slice, ..
        } = node
        else {
            return self.on_whole_inputs(node);
        };
        if !cut_allowed(node, left) || !cut_allowed(node, right) {
            return self.on_device(node.clone()).map(Data::Whole);
        }
        let parts = match self.run(left)? {
            Data::Whole(df) => {
                return self.on_whole_inputs(node).or_else(|_| {
                    let right = self.run(right)?.whole()?;
                    self.on_device(over(node, vec![df, right])).map(Data::Whole)
                });
            }
            Data::Parts(parts) => parts,
        };
        let right = self.run(right)?.whole()?;
        let mut unsliced = node.clone();
        if let PlanNode::Join { slice, .. } = &mut unsliced {
            *slice = None;
        }
        let mut out = Vec::with_capacity(parts.len());
        for part in parts {
            out.push(self.on_device(over(&unsliced, vec![part, right.clone()]))?);
        }
        match slice {
            Some((offset, len)) => slice_data(Data::Parts(out), *offset, *len),
            None => Ok(Data::Parts(out)),
        }
    }
}
