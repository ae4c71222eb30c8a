//! Row-wise expressions beside aggregations over the whole frame, over partitions: the aggregations into one row first, then each partition with that row's values beside it.

use std::ops::ControlFlow;

use ir_lower::PlanNode;

use super::aggregate::plan_runs;
use super::{Data, Partitioned, Stream, over};
use crate::error::ExecError;

impl Partitioned<'_> {
    /// A filter, select or with_columns whose expressions read other rows
    /// only through aggregations over the whole frame
    /// (`Partitioning::BesideAggregations`): the aggregations over the
    /// partitions of its input (as a select of them runs: partial
    /// aggregations merged, quantiles by ranks), one row, then each
    /// partition with the row's values as columns beside its own, the
    /// node's expressions reading them there (row-wise, or, where they
    /// read rows around their own or run from the first row, as
    /// [`Partitioned::around`] runs them).
    pub(super) fn beside_aggregations(&mut self, node: &PlanNode) -> Result<Data, ExecError> {
        let Some(plan) = node.frame_aggregations() else {
            return self.on_whole_inputs(node);
        };
        if !plan_runs(&plan.rows) {
            return self.on_whole_inputs(node);
        }
        let input = node.inputs()[0];
        let parts = match self.input_parts(node, input)? {
            ControlFlow::Continue(parts) => parts,
            ControlFlow::Break(done) => return Ok(done),
        };
        // (The aggregations over the input put together, which the run
        // cuts into partitions again: as a select of them runs.)
        let input = Data::Parts(parts.clone()).whole()?;
        let row = self.run(&over(&plan.aggregations, vec![input]))?.whole()?;
        if row.height() != 1 {
            return Err(ExecError::Unsupported(format!(
                "aggregations over the whole frame in {} rows",
                row.height()
            )));
        }
        let mut beside = Vec::with_capacity(parts.len());
        for mut part in parts {
            let height = part.height();
            for column in row.columns() {
                part.with_column(column.new_from_index(0, height))?;
            }
            beside.push(part);
        }
        if plan.rows.rows_around().is_some() {
            // Reading the rows around each row, or running from the first:
            // around each partition of them (put together, cut again).
            let rows = Data::Parts(beside).whole()?;
            return self.around(&over(&plan.rows, vec![rows]));
        }
        let rows = Stream::chain(plan.rows, plan.depth, Stream::Parts(beside.into_iter()));
        Ok(Data::Parts(self.all_parts(rows)?))
    }
}
