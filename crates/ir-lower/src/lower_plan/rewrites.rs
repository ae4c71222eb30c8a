//! Lowered nodes rewritten into plans the executor runs as they are: sort and group-by keys with an aggregation inside computed first, distinct values of an expression (sorted too) as distinct rows of its values.

use crate::expr::{ExprKind, GpuExpr, NamedExpr};
use crate::plan::{PlanNode, SortKey};

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
    if let Some(sorted) = sorted_distinct_values(&node) {
        return sorted;
    }
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

/// A select of only the distinct values of a row-wise expression sorted by
/// themselves (`select(x.unique().sort())`), as its values' distinct rows,
/// then a sort of them; `None` for other nodes, and of floats (which of
/// equal zeros Polars keeps is its own).
fn sorted_distinct_values(node: &PlanNode) -> Option<PlanNode> {
    let PlanNode::Select {
        input,
        exprs,
        schema,
    } = node
    else {
        return None;
    };
    let ([only], [output]) = (exprs.as_slice(), schema.as_slice()) else {
        return None;
    };
    let ExprKind::SortedBy {
        input: sorted,
        order,
        ..
    } = &only.expr.kind
    else {
        return None;
    };
    let (ExprKind::Unique { input: values, .. }, [order]) = (&sorted.kind, order.as_slice()) else {
        return None;
    };
    if order.key != *sorted || !values.is_row_wise() || values.dtype.is_float() {
        return None;
    }
    let values = NamedExpr {
        name: output.name.clone(),
        expr: values.as_ref().clone(),
    };
    let distinct = PlanNode::distinct_rows_of(input.as_ref().clone(), values, false);
    Some(PlanNode::Sort {
        input: Box::new(distinct),
        keys: vec![SortKey {
            expr: GpuExpr::column(0, output.name.clone(), output.dtype),
            descending: order.descending,
            nulls_last: order.nulls_last,
        }],
        stable: false,
        slice: None,
        schema: schema.clone(),
    })
}
