//! Group-bys whose aggregations add up, over partitions: each partition aggregated, the partial results merged, then finished.

use ir_lower::{GpuPlan, PartialAggregation, PlanNode};
use polars::prelude::DataFrame;

use std::ops::ControlFlow;

use super::{Data, Partitioned, over, sliced_result};
use crate::error::ExecError;
use crate::execute::{typed_null_over_no_groups, unsupported};

impl Partitioned<'_> {
    /// A group-by of aggregations that add up (sums, counts, lengths,
    /// extremes, firsts, lasts, means; see `PlanNode::partial_aggregation`):
    /// each partition's partial aggregation on the device (its groups in
    /// order of first appearance), the partial results merged by the keys
    /// (in buckets where they are more than a partition), then finished
    /// (means divided) and sliced. The groups come in the order of their
    /// first rows. Sums and means of floats add in another order than the
    /// in-memory executor's, within the bound docs/operations.md gives.
    pub(super) fn aggregated(&mut self, node: &PlanNode) -> Result<Data, ExecError> {
        let (Some(plans), PlanNode::GroupBy { input, slice, .. }) =
            (node.partial_aggregation(), node)
        else {
            return self.bucketed(node);
        };
        let runs = |plan: &PlanNode| unsupported(&GpuPlan { root: plan.clone() }).is_empty();
        if !(runs(&plans.partial) && runs(&plans.merge) && runs(&plans.finish)) {
            return self.bucketed(node);
        }
        let mut parts = match self.input_stream(node, input)? {
            ControlFlow::Continue(parts) => parts,
            ControlFlow::Break(done) => return Ok(done),
        };
        // A partition of no rows adds nothing (and a group-by of no groups
        // is Polars' own where it aggregates literals): the node runs over
        // no rows only where every partition is empty. (Each partition is
        // aggregated as it comes: of a file scan, the host holds one.)
        let (mut empty, mut partials) = (None, Vec::new());
        let PlanNode::GroupBy { aggs, .. } = &plans.partial else {
            return Err(ExecError::Unsupported(
                "a partial aggregation that is no group-by".into(),
            ));
        };
        if !aggs.iter().any(|agg| typed_null_over_no_groups(&agg.expr)) {
            // Without such aggregations, each partition is aggregated in
            // the device run that makes it (a chain's), and where all are
            // empty the merge and the finish run over an empty partial
            // result, whose groups are none as the node's would be.
            let mut parts = parts.then_each(&plans.partial);
            while let Some(partial) = self.next_part(&mut parts) {
                let partial = partial?;
                if partial.height() == 0 {
                    empty.get_or_insert(partial);
                    continue;
                }
                partials.push(partial);
            }
            partials.extend(empty.filter(|_| partials.is_empty()));
            if partials.is_empty() {
                return Err(ExecError::Unsupported(
                    "a group-by's input of no partitions".into(),
                ));
            }
            return self.merged(&plans, partials, *slice);
        }
        while let Some(part) = self.next_part(&mut parts) {
            let part = part?;
            if part.height() == 0 {
                empty.get_or_insert(part);
                continue;
            }
            partials.push(self.on_device(over(&plans.partial, vec![part]))?);
        }
        if partials.is_empty() {
            let empty = empty.ok_or_else(|| {
                ExecError::Unsupported("a group-by's input of no partitions".into())
            })?;
            return self.on_device(over(node, vec![empty])).map(Data::Whole);
        }
        self.merged(&plans, partials, *slice)
    }

    /// A group-by from the `partials` of its partitions: merged by the
    /// keys, finished and sliced.
    fn merged(
        &mut self,
        plans: &PartialAggregation,
        partials: Vec<DataFrame>,
        slice: Option<(i64, usize)>,
    ) -> Result<Data, ExecError> {
        let total: usize = partials.iter().map(DataFrame::height).sum();
        let merged = if total > self.rows {
            let PlanNode::GroupBy { keys, .. } = &plans.merge else {
                return Err(ExecError::Unsupported("a merge that is no group-by".into()));
            };
            let keys: Vec<_> = keys.iter().map(|k| k.expr.clone()).collect();
            self.buckets_over(&plans.merge, &keys, partials)?.whole()?
        } else {
            let partials = Data::Parts(partials).whole()?;
            self.on_device(over(&plans.merge, vec![partials]))?
        };
        let finished = self.on_device(over(&plans.finish, vec![merged]))?;
        Ok(self.parted(sliced_result(finished, slice, true)?))
    }
}
