//! A top-k of a stable sort over partitions: the first rows of each partition, then the first of those.

use ir_lower::PlanNode;

use std::ops::ControlFlow;

use super::{Data, Partitioned, over};
use crate::error::ExecError;

impl Partitioned<'_> {
    /// A stable sort keeping rows `offset..offset + len` (a positive
    /// offset): each partition's first `offset + len` rows in that order,
    /// put together in the order of the partitions (so ties keep the order
    /// of the input), then the sort of those.
    pub(super) fn top_k(&mut self, node: &PlanNode) -> Result<Data, ExecError> {
        let PlanNode::Sort {
            input,
            slice: Some((offset, len)),
            ..
        } = node
        else {
            return self.on_whole_inputs(node);
        };
        let parts = match self.input_stream(node, input)? {
            ControlFlow::Continue(parts) => parts,
            ControlFlow::Break(done) => return Ok(done),
        };
        let first = usize::try_from(*offset).unwrap_or(0).saturating_add(*len);
        let mut of_each = node.clone();
        if let PlanNode::Sort { slice, .. } = &mut of_each {
            *slice = Some((0, first));
        }
        // Each partition's first rows, in the device run that makes it.
        let mut parts = parts.then_each(&of_each);
        let mut candidates = Vec::new();
        while let Some(part) = self.next_part(&mut parts) {
            candidates.push(part?);
        }
        let candidates = Data::Parts(candidates).whole()?;
        self.on_device(over(node, vec![candidates]))
            .map(Data::Whole)
    }
}
