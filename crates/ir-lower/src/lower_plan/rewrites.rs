//! Lowered nodes rewritten into plans the executor runs as they are: sort and group-by keys with an aggregation inside computed first, windows inside a window's function computed first, distinct values of an expression (sorted too) as distinct rows of its values, spreads per group of a key Polars holds sorted taken as it takes them.

use polars::series::IsSorted;

use crate::expr::{AggOp, ExprKind, GpuExpr, NamedExpr};
use crate::plan::{PlanNode, SortKey};

/// The start of the names of the columns of windows inside a window's
/// function, computed first (their place among the input's columns,
/// counting on past the last, follows).
const INNER_WINDOW: &str = "__polars_gpu_inner_window_";

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

/// `node`, a select, with_columns or filter whose expressions hold windows
/// inside a window's function (which the lowering partitions by the outer
/// window's keys too: `(x - x.mean().over("g")).max().over("k")` computes
/// the inner one within each partition of `k`), as those inner windows
/// computed first by a with_columns of columns of their own, then the node
/// reading them there, their columns projected away; any other node as it
/// is.
pub(super) fn inner_windows_first(node: PlanNode) -> PlanNode {
    let nested = |e: &GpuExpr| {
        e.any(&|w| matches!(&w.kind, ExprKind::Window { function, .. } if function.has_window()))
    };
    let exprs: Vec<&GpuExpr> = match &node {
        PlanNode::Select { exprs, .. } | PlanNode::WithColumns { exprs, .. } => {
            exprs.iter().map(|named| &named.expr).collect()
        }
        PlanNode::Filter { predicate, .. } => vec![predicate],
        _ => return node,
    };
    if !exprs.into_iter().any(nested) {
        return node;
    }
    let in_schema = node.inputs()[0].schema().clone();
    let first = in_schema.len();
    let mut inner: Vec<GpuExpr> = Vec::new();
    let name = |i: usize| format!("{INNER_WINDOW}{}", first + i);
    let mut lift = |expr: &mut GpuExpr| {
        expr.visit_mut(&mut |e| {
            if let ExprKind::Window { function, .. } = &mut e.kind {
                function.visit_mut(&mut |w| {
                    if matches!(w.kind, ExprKind::Window { .. }) {
                        let i = inner
                            .iter()
                            .position(|known| known == w)
                            .unwrap_or_else(|| {
                                inner.push(w.clone());
                                inner.len() - 1
                            });
                        *w = GpuExpr::column(first + i, name(i), w.dtype);
                    }
                });
            }
        });
    };
    let mut node = node;
    match &mut node {
        PlanNode::Select { exprs, .. } | PlanNode::WithColumns { exprs, .. } => {
            exprs.iter_mut().for_each(|named| lift(&mut named.expr));
        }
        PlanNode::Filter { predicate, .. } => lift(predicate),
        _ => {}
    }
    let windows: Vec<NamedExpr> = (inner.into_iter().enumerate())
        .map(|(i, expr)| NamedExpr {
            name: name(i),
            expr,
        })
        .collect();
    let mut extended = in_schema.clone();
    extended.extend(windows.iter().map(NamedExpr::output_column));
    let input = node.inputs()[0].clone();
    *node.inputs_mut()[0] = PlanNode::WithColumns {
        input: Box::new(input),
        exprs: windows,
        broadcast: true,
        schema: extended.clone(),
    };
    // (A select's columns are its expressions'; a filter's and a
    // with_columns' the input's too: the windows' projected away.)
    let (own, schema) = match &mut node {
        PlanNode::Filter { schema, .. } => {
            let own = std::mem::replace(schema, extended);
            (own, schema.clone())
        }
        PlanNode::WithColumns { exprs, schema, .. } => {
            let mut wider = extended;
            for named in exprs.iter() {
                match wider.iter().position(|column| column.name == named.name) {
                    Some(at) => wider[at] = named.output_column(),
                    None => wider.push(named.output_column()),
                }
            }
            let own = std::mem::replace(schema, wider);
            (own, schema.clone())
        }
        _ => return node,
    };
    let columns: Option<Vec<usize>> = (own.iter())
        .map(|column| schema.iter().position(|c| c.name == column.name))
        .collect();
    match columns {
        Some(columns) => PlanNode::SimpleProjection {
            input: Box::new(node),
            columns,
            schema: own,
        },
        None => node,
    }
}

/// `node` with the spreads (`var`, `std`) it takes per group of one key
/// that Polars holds marked sorted ([`held_sorted`]) marked `in_chunks`:
/// Polars takes the groups of such a key as slices of rows (a group-by
/// keeping the groups' order, a window without an order), each group's
/// spread as it takes a column's, in chunks (otherwise by Welford's steps).
pub(super) fn spreads_of_sorted_keys(mut node: PlanNode) -> PlanNode {
    // One key, a column Polars holds sorted.
    fn sorted_key<'e>(input: &PlanNode, mut keys: impl Iterator<Item = &'e GpuExpr>) -> bool {
        match (keys.next(), keys.next()) {
            (
                Some(GpuExpr {
                    kind: ExprKind::Column { index, .. },
                    ..
                }),
                None,
            ) => held_sorted(input, *index),
            _ => false,
        }
    }
    match &mut node {
        PlanNode::GroupBy {
            input,
            keys,
            aggs,
            maintain_order: true,
            ..
        } if sorted_key(input, keys.iter().map(|key| &key.expr)) => {
            aggs.iter_mut()
                .for_each(|agg| spreads_in_chunks(&mut agg.expr));
        }
        PlanNode::Select { input, exprs, .. } | PlanNode::WithColumns { input, exprs, .. } => {
            let input: &PlanNode = input;
            for named in exprs.iter_mut() {
                named.expr.visit_mut(&mut |e| {
                    if let ExprKind::Window {
                        function,
                        partition_by,
                        order_by: None,
                    } = &mut e.kind
                        && sorted_key(input, partition_by.iter())
                    {
                        spreads_in_chunks(function);
                    }
                });
            }
        }
        _ => {}
    }
    node
}

/// `expr` with its spreads marked `in_chunks`.
fn spreads_in_chunks(expr: &mut GpuExpr) {
    expr.visit_mut(&mut |e| {
        if let ExprKind::Agg {
            op: AggOp::Std { in_chunks, .. } | AggOp::Var { in_chunks, .. },
            ..
        } = &mut e.kind
        {
            *in_chunks = true;
        }
    });
}

/// Whether Polars holds column `index` of `node`'s result marked sorted:
/// the first key of a sort, kept so through filters, slices, projections
/// and columns passed on as they are, or a column of an in-memory frame
/// so marked. (Elsewhere, as after a join or of a computed key, it does
/// not.)
fn held_sorted(node: &PlanNode, index: usize) -> bool {
    let column_of = |expr: &GpuExpr| match expr.kind {
        ExprKind::Column { index, .. } => Some(index),
        _ => None,
    };
    match node {
        PlanNode::Sort { keys, .. } => {
            keys.first().and_then(|key| column_of(&key.expr)) == Some(index)
        }
        PlanNode::Filter { input, .. }
        | PlanNode::Slice { input, .. }
        | PlanNode::Cache { input, .. } => held_sorted(input, index),
        PlanNode::SimpleProjection { input, columns, .. } => {
            columns.get(index).is_some_and(|&at| held_sorted(input, at))
        }
        PlanNode::Select { input, exprs, .. } => exprs
            .get(index)
            .and_then(|named| column_of(&named.expr))
            .is_some_and(|at| held_sorted(input, at)),
        PlanNode::WithColumns {
            input,
            exprs,
            schema,
            ..
        } => {
            let Some(name) = schema.get(index).map(|column| &column.name) else {
                return false;
            };
            match exprs.iter().find(|named| &named.name == name) {
                Some(named) => column_of(&named.expr).is_some_and(|at| held_sorted(input, at)),
                None => (input.schema().iter())
                    .position(|column| &column.name == name)
                    .is_some_and(|at| held_sorted(input, at)),
            }
        }
        PlanNode::DataFrameScan { df, projection, .. } => projection
            .get(index)
            .and_then(|&at| df.columns().get(at))
            .is_some_and(|column| column.is_sorted_flag() != IsSorted::Not),
        _ => false,
    }
}
