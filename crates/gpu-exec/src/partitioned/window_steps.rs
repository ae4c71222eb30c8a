//! Windows of keys no one key is common to, over partitions: each set of windows sharing a key in a step of its own, by buckets, then the rest row-wise.

use ir_lower::PlanNode;

use super::aggregate::plan_runs;
use super::{Data, Partitioned, cut_allowed};
use crate::error::ExecError;

impl Partitioned<'_> {
    /// A filter, select or with_columns whose expressions read other rows
    /// only in windows that share no key (`Partitioning::Stepped`): the
    /// plan of its steps over its input (see `PlanNode::window_steps`),
    /// each with_columns of windows sharing a key run by buckets of it,
    /// the rows in the input's order, then the node over their columns,
    /// row-wise.
    pub(super) fn stepped(&mut self, node: &PlanNode) -> Result<Data, ExecError> {
        let input = node.inputs()[0];
        if !cut_allowed(node, input) {
            return self.on_whole_inputs(node);
        }
        match node.window_steps(input.clone()) {
            Some(plan) if plan_runs(&plan) => self.run(&plan),
            _ => self.on_whole_inputs(node),
        }
    }
}
