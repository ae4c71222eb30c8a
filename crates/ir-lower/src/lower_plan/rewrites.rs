//! Lowered nodes rewritten into plans the executor runs as they are: sort and group-by keys with an aggregation inside computed first, distinct values of an expression as distinct rows of its values.

use crate::expr::{ExprKind, GpuExpr};
use crate::plan::PlanNode;

/// `node`, a sort or group-by by keys with an aggregation inside
/// (`sort_by(x - x.mean())`, `group_by(x > x.median())`), as those keys
/// computed first, by a with_columns (which takes aggregations over the
/// whole frame, as Polars computes such keys), then the node by their
/// columns (see [`PlanNode::keys_computed_first`]); any other node as it
/// is.
pub(super) fn aggregated_keys_first(node: PlanNode) -> PlanNode {
    let aggregated = |key: &GpuExpr| key.has_aggregation() && !key.by_chunks();
    let keys: Vec<&GpuExpr> = match &node {
        PlanNode::Sort { keys, .. } => keys.iter().map(|key| &key.expr).collect(),
        PlanNode::GroupBy { keys, .. } => keys.iter().map(|key| &key.expr).collect(),
        _ => return node,
    };
    if !keys.into_iter().any(aggregated) {
        return node;
    }
    let input = node.inputs()[0].clone();
    node.keys_computed_first(input, aggregated).unwrap_or(node)
}

/// `node`, a select of only the distinct values of a row-wise expression
/// that is not a column (`select((x % 4).unique())`), as a select of the
/// expression's values, then their distinct rows (in the order of their
/// first rows where it keeps that order); any other node as it is. (The
/// executor takes distinct values of a column alone.)
pub(super) fn distinct_values_as_rows(node: PlanNode) -> PlanNode {
    match node.unique_selected() {
        Some((values, maintain_order))
            if !matches!(values.expr.kind, ExprKind::Column { .. })
                && values.expr.is_row_wise() =>
        {
            let input = node.inputs()[0].clone();
            PlanNode::distinct_rows_of(input, values, maintain_order)
        }
        _ => node,
    }
}
