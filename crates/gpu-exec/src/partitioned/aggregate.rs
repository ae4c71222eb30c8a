//! Group-bys whose aggregations add up, over partitions: each partition aggregated, the partial results merged, then finished.

use ir_lower::{GpuPlan, PartialAggregation, PlanNode};
use polars::prelude::DataFrame;

use std::ops::ControlFlow;

use super::{Data, Partitioned, Stream, over, sliced_result};
use crate::error::ExecError;
use crate::execute::{typed_null_over_no_groups, unsupported};

/// Whether the executor runs each of a partial aggregation's plans.
pub(super) fn runs(plans: &PartialAggregation) -> bool {
    plan_runs(&plans.partial) && plan_runs(&plans.merge) && plan_runs(&plans.finish)
}

/// Whether the executor runs the plan of `root` (its last check finds
/// nothing it cannot compute).
pub(super) fn plan_runs(root: &PlanNode) -> bool {
    unsupported(&GpuPlan { root: root.clone() }).is_empty()
}

impl Partitioned<'_> {
    /// A group-by of aggregations that add up (sums, counts, lengths,
    /// extremes, firsts, lasts, means, spreads; see
    /// `PlanNode::partial_aggregation`): each partition's partial
    /// aggregation on the device (its groups in order of first
    /// appearance), the partial results merged by the keys (in buckets
    /// where they are more than a partition), then finished (means
    /// divided, spreads of the merged moments) and sliced. The groups come
    /// in the order of their first rows. Sums, means and spreads of floats
    /// add in another order than the in-memory executor's, within the
    /// bound docs/operations.md gives.
    pub(super) fn aggregated(&mut self, node: &PlanNode) -> Result<Data, ExecError> {
        let (input, slice) = match node {
            PlanNode::GroupBy { input, slice, .. } => (input, *slice),
            // (Aggregations over the whole frame.)
            PlanNode::Select { input, .. } => (input, None),
            _ => return self.bucketed(node),
        };
        let Some(plans) = node.partial_aggregation() else {
            return self.bucketed(node);
        };
        if !runs(&plans) {
            return self.bucketed(node);
        }
        let parts = match self.input_stream(node, input)? {
            ControlFlow::Continue(parts) => parts,
            ControlFlow::Break(done) => return Ok(done),
        };
        self.aggregated_over(node, &plans, parts, slice)
    }

    /// A group-by counting the distinct values of one expression beside
    /// aggregations that add up (`PlanNode::distinct_counts`): the
    /// distinct pairs of keys and value with the others' partial results,
    /// aggregated over the partitions as group-bys that add up are (and
    /// merged in buckets of pairs, not of keys: a key of many rows is in
    /// many buckets), then the pairs counted per key and the partial
    /// results merged, the same way.
    pub(super) fn counted(&mut self, node: &PlanNode) -> Result<Data, ExecError> {
        let (Some(stages), PlanNode::GroupBy { input, slice, .. }) = (node.distinct_counts(), node)
        else {
            return self.bucketed(node);
        };
        let (Some(pair_plans), Some(count_plans)) = (
            stages.pairs.partial_aggregation(),
            stages.counts.partial_aggregation(),
        ) else {
            return self.bucketed(node);
        };
        if !(runs(&pair_plans) && runs(&count_plans)) {
            return self.bucketed(node);
        }
        let parts = match self.input_stream(node, input)? {
            ControlFlow::Continue(parts) => parts,
            ControlFlow::Break(done) => return Ok(done),
        };
        let pairs = self.aggregated_over(&stages.pairs, &pair_plans, parts, None)?;
        let pairs = Stream::Parts(pairs.into_parts().into_iter());
        // (The counts carry the group-by's slice.)
        self.aggregated_over(&stages.counts, &count_plans, pairs, *slice)
    }

    /// The group-by or select of aggregations `node` (of the partial
    /// aggregation `plans`) over the partitions `parts` of its input,
    /// sliced by `slice`.
    pub(super) fn aggregated_over(
        &mut self,
        node: &PlanNode,
        plans: &PartialAggregation,
        mut parts: Stream,
        slice: Option<(i64, usize)>,
    ) -> Result<Data, ExecError> {
        // A partition of no rows adds nothing (and a group-by of no groups
        // is Polars' own where it aggregates literals): the node runs over
        // no rows only where every partition is empty. (Each partition is
        // aggregated as it comes: of a file scan, the host holds one.)
        let (mut empty, mut partials) = (None, Vec::new());
        let aggs = match &plans.partial {
            PlanNode::GroupBy { aggs, .. } | PlanNode::Select { exprs: aggs, .. } => aggs,
            _ => {
                return Err(ExecError::Unsupported(
                    "a partial aggregation that is no group-by or select".into(),
                ));
            }
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
            return self.merged(plans, partials, slice);
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
        self.merged(plans, partials, slice)
    }

    /// A group-by from the `partials` of its partitions: merged by the
    /// keys, finished and sliced. (The finish is row-wise: of the merged
    /// groups partition by partition, where they are more than one.)
    fn merged(
        &mut self,
        plans: &PartialAggregation,
        partials: Vec<DataFrame>,
        slice: Option<(i64, usize)>,
    ) -> Result<Data, ExecError> {
        let total: usize = partials.iter().map(DataFrame::height).sum();
        // (A select's partial results are a row a partition: merged whole.)
        let merged =
            if let (true, PlanNode::GroupBy { keys, .. }) = (total > self.rows, &plans.merge) {
                let keys: Vec<_> = keys.iter().map(|k| k.expr.clone()).collect();
                self.buckets_over(&plans.merge, &keys, partials)?
            } else {
                let partials = Data::Parts(partials).whole()?;
                Data::Whole(self.on_device(over(&plans.merge, vec![partials]))?)
            };
        let mut finished = Vec::new();
        for merged in merged.into_parts() {
            finished.push(self.on_device(over(&plans.finish, vec![merged]))?);
        }
        let finished = Data::Parts(finished).whole()?;
        Ok(self.parted(sliced_result(finished, slice, true)?))
    }
}
