//! Row-wise expressions beside aggregations over the whole frame (`x - x.mean()`, `filter(x > x.mean())`) over partitions: the aggregations first, as a select that adds up, then the rows with their results beside.
//!
//! An aggregation over the whole frame is one value on every row. Where a
//! filter's, select's or with_columns' expressions read other rows only
//! through such aggregations, and those add up over partitions (see
//! [`PlanNode::partial_aggregation`]; or are medians and quantiles, or
//! counts of distinct values, which run in steps), the node runs in two
//! steps: the aggregations, merged from every partition into one row; then each
//! partition with that row's values as columns of its own, the node's
//! expressions reading them there: row-wise, or, in a select or
//! with_columns, between the rows around each partition and running on
//! from the partitions before (`x.cum_sum() / x.sum()`, and a `cum_sum`
//! or `cum_count` from the end, which the lowering makes the whole
//! frame's less the running one before each row; see `around.rs`).

use crate::expr::{ExprKind, GpuExpr, NamedExpr};
use crate::plan::{OutputSchema, PlanNode};

use super::{Partitioning, named, placeholder};

/// A node of row-wise expressions beside aggregations over the whole frame
/// as two plans over placeholder inputs (see
/// [`PlanNode::frame_aggregations`]).
#[derive(Debug, Clone)]
pub struct FrameAggregations {
    /// A select over the node's input of its aggregations (each once, in
    /// the order they come, named [`FRAME_AGGREGATION`] and their place),
    /// which runs over partitions (`Partitioning::Aggregated`, `Ranked`,
    /// or `Stepped`: counts of distinct values).
    pub aggregations: PlanNode,
    /// The node over its input with the aggregations' results beside, as
    /// its last columns (each row the one value): each aggregation read
    /// from its column, so row-wise, or (a select or with_columns) reading
    /// the rows around each row or running from the first row, as
    /// `Partitioning::Around` runs it; of the node's columns.
    pub rows: PlanNode,
    /// How many nodes `rows` is (a filter's is put under a projection of
    /// the input's columns).
    pub depth: usize,
}

/// The start of the names of [`FrameAggregations::aggregations`]' columns.
pub const FRAME_AGGREGATION: &str = "__polars_gpu_frame_aggregation_";

impl PlanNode {
    /// A filter, a select of a value per row or a with_columns whose
    /// expressions read other rows than their own only through
    /// aggregations over the whole frame, whose select runs over
    /// partitions, as [`FrameAggregations`]. `None` for other nodes, and where no
    /// aggregation is.
    pub fn frame_aggregations(&self) -> Option<FrameAggregations> {
        let exprs = self.expressions_per_row()?;
        let input = self.inputs()[0];
        let in_schema = input.schema();
        let first = in_schema.len();
        let mut aggregations = Vec::new();
        let rewritten = exprs
            .iter()
            .map(|expr| read_beside(expr, first, &mut aggregations))
            .collect::<Option<Vec<_>>>()?;
        // (A select of aggregations alone gives one row: not row-wise.)
        let reads_input = |e: &GpuExpr| {
            e.any(&|part| matches!(part.kind, ExprKind::Column { index, .. } if index < first))
        };
        if aggregations.is_empty()
            || (matches!(self, PlanNode::Select { .. }) && !rewritten.iter().any(reads_input))
        {
            return None;
        }
        let row_wise = rewritten.iter().all(GpuExpr::is_row_wise);
        let named_aggregations: Vec<NamedExpr> = aggregations
            .iter()
            .enumerate()
            .map(|(i, agg)| named(format!("{FRAME_AGGREGATION}{i}"), agg.clone()))
            .collect();
        let beside: OutputSchema = named_aggregations
            .iter()
            .map(NamedExpr::output_column)
            .collect();
        let aggregations = PlanNode::Select {
            input: Box::new(placeholder(in_schema.clone())),
            exprs: named_aggregations,
            schema: beside.clone(),
        };
        // (Aggregations that add up, medians and quantiles beside them, or
        // counts of distinct values in steps.)
        if !matches!(
            aggregations.partitioning(),
            Partitioning::Aggregated | Partitioning::Ranked | Partitioning::Stepped
        ) {
            return None;
        }
        let mut extended = in_schema.clone();
        extended.extend(beside);
        let extended_input = Box::new(placeholder(extended.clone()));
        let renamed = |exprs: &[NamedExpr]| -> Vec<NamedExpr> {
            exprs
                .iter()
                .zip(&rewritten)
                .map(|(named_expr, expr)| named(named_expr.name.clone(), expr.clone()))
                .collect()
        };
        let (rows, depth) = match self {
            PlanNode::Filter { .. } => (
                PlanNode::SimpleProjection {
                    input: Box::new(PlanNode::Filter {
                        input: extended_input,
                        predicate: rewritten[0].clone(),
                        schema: extended,
                    }),
                    columns: (0..first).collect(),
                    schema: in_schema.clone(),
                },
                1,
            ),
            PlanNode::Select { exprs, schema, .. } => (
                PlanNode::Select {
                    input: extended_input,
                    exprs: renamed(exprs),
                    schema: schema.clone(),
                },
                0,
            ),
            PlanNode::WithColumns { exprs, schema, .. } => (
                // (The aggregations' columns, not in the schema, are left
                // out.)
                PlanNode::WithColumns {
                    input: extended_input,
                    exprs: renamed(exprs),
                    broadcast: true,
                    schema: schema.clone(),
                },
                0,
            ),
            _ => return None,
        };
        // (Else a select or with_columns reading a bounded number of rows
        // around its own, or running from the first row, beside them:
        // `x.cum_sum() / x.sum()`, a `cum_sum` from the end of integers.)
        if !row_wise && (depth > 0 || rows.rows_around().is_none()) {
            return None;
        }
        Some(FrameAggregations {
            aggregations,
            rows,
            depth,
        })
    }
}

/// `expr` with each aggregation over the whole frame in it (an
/// aggregation or a length, outside windows) read from a column beside
/// the input's (the `i`-th of `aggregations` from column `first + i`),
/// added to `aggregations` where new. `None` where a window is.
fn read_beside(expr: &GpuExpr, first: usize, aggregations: &mut Vec<GpuExpr>) -> Option<GpuExpr> {
    match &expr.kind {
        ExprKind::Agg { .. } | ExprKind::Len => {
            let i = match aggregations.iter().position(|agg| agg == expr) {
                Some(i) => i,
                None => {
                    aggregations.push(expr.clone());
                    aggregations.len() - 1
                }
            };
            let name = format!("{FRAME_AGGREGATION}{i}");
            Some(GpuExpr::column(first + i, name, expr.dtype))
        }
        ExprKind::Window { .. } => None,
        _ => {
            let mut outer = expr.clone();
            for child in outer.children_mut() {
                *child = read_beside(child, first, aggregations)?;
            }
            Some(outer)
        }
    }
}
