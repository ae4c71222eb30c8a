//! Nodes in steps over partitions: windows sharing no key (each set sharing a key in a step of its own, by buckets, then the rest row-wise), sorts and group-bys by keys reading other rows (the keys first).

use ir_lower::PlanNode;

use super::aggregate::plan_runs;
use super::{Data, Partitioned, cut_allowed};
use crate::error::ExecError;

impl Partitioned<'_> {
    /// A node in steps (`Partitioning::Stepped`): the plan of its steps
    /// over its input (see `PlanNode::steps`), each of which runs over
    /// partitions: with_columns of windows sharing a key by buckets of it,
    /// or of keys reading other rows, then the node over their columns.
    pub(super) fn stepped(&mut self, node: &PlanNode) -> Result<Data, ExecError> {
        let input = node.inputs()[0];
        if !cut_allowed(node, input) {
            return self.on_whole_inputs(node);
        }
        match node.steps(input.clone()) {
            Some(plan) if plan_runs(&plan) => self.run(&plan),
            _ => self.on_whole_inputs(node),
        }
    }
}
