//! The select operator: one-row aggregations, a column's unique values, projections and row-wise expressions.

use super::*;

pub(crate) use ir_lower::support::{aggregating_select, reads_rows};

/// The columns of `input` that Polars holds at one row: those a with_columns
/// without broadcasting (Polars' common subexpressions) computes by
/// whole-column aggregations. The executor holds them repeated on every row.
pub(crate) fn one_row_columns(input: &PlanNode) -> Vec<usize> {
    let (computed, _) = one_row_computed(input);
    computed.into_iter().map(|(index, _)| index).collect()
}

/// The one-row columns of `input` (see [`one_row_columns`]) whose
/// aggregation reads only columns the with_columns keeps as they are (at
/// the same places), with that aggregation: over the with_columns' output
/// it gives the same value.
pub(crate) fn one_row_definitions(input: &PlanNode) -> Vec<(usize, &GpuExpr)> {
    let (computed, kept) = one_row_computed(input);
    computed
        .into_iter()
        .filter(|(_, definition)| {
            let mut reads_kept = true;
            definition.visit(&mut |e| {
                if let ExprKind::Column { index, .. } = e.kind {
                    reads_kept &= kept.contains(&index);
                }
            });
            reads_kept
        })
        .collect()
}

/// Each one-row column of `input` with the aggregation that computes it;
/// and the columns the with_columns keeps as they are (at the same places).
pub(crate) fn one_row_computed(input: &PlanNode) -> (Vec<(usize, &GpuExpr)>, Vec<usize>) {
    let PlanNode::WithColumns {
        input: below,
        exprs: computed,
        broadcast: false,
        schema,
    } = input
    else {
        return (Vec::new(), Vec::new());
    };
    let kept = below
        .schema()
        .iter()
        .enumerate()
        .filter(|(index, column)| {
            schema
                .get(*index)
                .is_some_and(|out| out.name == column.name)
                && !computed.iter().any(|c| c.name == column.name.as_str())
        })
        .map(|(index, _)| index)
        .collect();
    let one_row = schema
        .iter()
        .enumerate()
        .filter_map(|(index, output)| {
            let definition = computed
                .iter()
                .find(|c| c.name == output.name.as_str() && split_aggregations(&c.expr).is_ok())?;
            Some((index, &definition.expr))
        })
        .collect();
    (one_row, kept)
}

/// The columns of `input` that Polars holds as one value: those a
/// with_columns without broadcasting keeps at one row ([`one_row_columns`]),
/// and those it holds as a scalar column repeated on every row
/// ([`crate::one_value_columns`]: a select's or a with_columns' of one
/// value, a group-by's aggregation of literals), through projections.
pub(crate) fn scalar_columns(input: &PlanNode) -> Vec<usize> {
    if let PlanNode::SimpleProjection {
        input: below,
        columns,
        ..
    } = input
    {
        let below = scalar_columns(below);
        return (0..columns.len())
            .filter(|&i| below.contains(&columns[i]))
            .collect();
    }
    let mut columns = one_row_columns(input);
    let schema = input.schema();
    columns.extend(
        crate::one_value_columns(input)
            .filter_map(|named| schema.iter().position(|output| output.name == named.name)),
    );
    columns
}

/// `expr` over `input` with its reads of the columns Polars holds as one
/// value (see [`scalar_columns`]) marked [`Held::Once`], which Polars'
/// arithmetic treats as scalars (where the other operand has more than
/// one row).
pub(crate) fn marking_one_row_reads<'e>(expr: &'e GpuExpr, input: &PlanNode) -> Cow<'e, GpuExpr> {
    let one_row = scalar_columns(input);
    if one_row.is_empty() {
        return Cow::Borrowed(expr);
    }
    let mut marked = expr.clone();
    mark_held(&mut marked, Held::Once, |index| one_row.contains(&index));
    Cow::Owned(marked)
}

/// Marks the reads in `expr` of the columns `marked` picks as `held`.
pub(crate) fn mark_held(expr: &mut GpuExpr, held: Held, marked: impl Fn(usize) -> bool) {
    expr.visit_mut(&mut |e| {
        if let ExprKind::Column { index, held: h, .. } = &mut e.kind
            && marked(*index)
        {
            *h = held;
        }
    });
}

/// The expressions of a select over `input` as they must run. A
/// with_columns without broadcasting (Polars' common subexpressions) keeps
/// a column computed by whole-column aggregations at one row, which the
/// executor holds repeated on every row. When every expression reads such
/// columns only (outside aggregations), the select is one row: those reads
/// become `first(column)` (`Owned`). `Err` when that row cannot be made
/// (an expression of literals only beside them).
pub(crate) fn select_exprs<'e>(
    exprs: &'e [NamedExpr],
    input: &PlanNode,
) -> Result<Cow<'e, [NamedExpr]>, String> {
    let whole_column = |expr: &GpuExpr| split_aggregations(expr).is_ok();
    let scalar = one_row_columns(input);
    if scalar.is_empty() {
        return Ok(Cow::Borrowed(exprs));
    }
    let definitions = one_row_definitions(input);
    let first_of_scalars = |expr: &mut GpuExpr| {
        fn walk(expr: &mut GpuExpr, scalar: &[usize], definitions: &[(usize, &GpuExpr)]) {
            match &expr.kind {
                // Inside an aggregation a column is read row by row.
                ExprKind::Agg { .. } | ExprKind::Len => return,
                ExprKind::Column { index, .. } if scalar.contains(index) => {
                    let index = *index;
                    // Its aggregation again (of no rows too, which gives
                    // a value: the first of no rows would be null), else
                    // its first row.
                    *expr = match definitions.iter().find(|(i, _)| *i == index) {
                        Some((_, definition)) => (*definition).clone(),
                        None => expr.clone().aggregated(AggOp::First, expr.dtype),
                    };
                    return;
                }
                _ => {}
            }
            for child in expr.children_mut() {
                walk(child, scalar, definitions);
            }
        }
        walk(expr, &scalar, &definitions);
    };
    let rewritten: Vec<NamedExpr> = exprs
        .iter()
        .map(|named| {
            let mut named = named.clone();
            first_of_scalars(&mut named.expr);
            named
        })
        .collect();
    if rewritten.iter().any(|named| reads_rows(&named.expr)) {
        // Row-wise: the one-row columns broadcast, as the executor holds them.
        return Ok(Cow::Borrowed(exprs));
    }
    if rewritten.iter().all(|named| whole_column(&named.expr)) {
        Ok(Cow::Owned(rewritten))
    } else {
        Err("a select of literals beside common subexpressions".into())
    }
}

/// A select of only `unique(column)`: the column and whether the values keep
/// the order of their first appearance.
pub(crate) fn unique_of_column(exprs: &[NamedExpr]) -> Option<(&GpuExpr, bool)> {
    match exprs {
        [named] => match &named.expr.kind {
            ExprKind::Unique {
                input,
                maintain_order,
            } if is_column(input) => Some((input, *maintain_order)),
            _ => None,
        },
        _ => None,
    }
}

impl Executor<'_> {
    /// A select of one row: aggregations (one group of every row).
    pub(crate) fn aggregated_select(
        &self,
        input: &PlanNode,
        exprs: &[NamedExpr],
    ) -> Result<DeviceFrame, ExecError> {
        // Whole-column aggregations: one group of every row.
        let exprs =
            select_exprs(exprs, input).map_err(|why| ExecError::Unsupported(not_yet(why)))?;
        let frame = self.run(input)?;
        let (rows, starts) = self.one_group(frame.height)?;
        let columns = exprs
            .iter()
            .map(|named| {
                let mut column =
                    self.aggregate_expr(&frame, &named.expr, (&rows, &starts), true)?;
                column.name = named.name.as_str().into();
                Ok(column)
            })
            .collect::<Result<_, ExecError>>()?;
        Ok(DeviceFrame { columns, height: 1 })
    }

    /// A select of one column's distinct values (`unique`).
    pub(crate) fn unique_select(
        &self,
        input: &PlanNode,
        exprs: &[NamedExpr],
    ) -> Result<DeviceFrame, ExecError> {
        let frame = self.run(input)?;
        let (key, maintain_order) =
            unique_of_column(exprs).ok_or_else(|| ExecError::Unsupported(not_yet("unique")))?;
        let ops = self.ops();
        let Groups { first_rows, .. } = self.groups(&frame, &[key])?;
        let first_rows = if maintain_order {
            // In the order of first appearance.
            let order = ops.sorted_rows(&first_rows, None, false, false)?;
            ops.gather(&first_rows, None, &ops.widen(&order)?)?.0
        } else {
            first_rows
        };
        let mut column = self.gather_column(column_at(&frame, column_index(key)?)?, &first_rows)?;
        column.name = exprs[0].name.as_str().into();
        Ok(DeviceFrame {
            height: column.len(),
            columns: vec![column],
        })
    }

    /// A select of row-wise expressions and input columns.
    pub(crate) fn projected_select(
        &self,
        input: &PlanNode,
        exprs: &[NamedExpr],
    ) -> Result<DeviceFrame, ExecError> {
        let frame = self.run(input)?;
        // Computed columns first, while every input column is still there.
        let mut computed = Vec::new();
        let mut moved = Vec::new();
        for (position, named) in exprs.iter().enumerate() {
            match named.expr.kind {
                ExprKind::Column { index, .. } if !moved.contains(&index) => moved.push(index),
                _ => {
                    let expr = marking_one_row_reads(&named.expr, input);
                    computed.push((position, self.evaluate(&frame, &expr, &named.name)?))
                }
            }
        }
        let height = frame.height;
        let mut slots: Vec<Option<DeviceColumn>> = frame.columns.into_iter().map(Some).collect();
        let mut computed = computed.into_iter().peekable();
        let mut columns = Vec::with_capacity(exprs.len());
        for (position, named) in exprs.iter().enumerate() {
            if computed.peek().is_some_and(|(p, _)| *p == position) {
                columns.extend(computed.next().map(|(_, c)| c));
                continue;
            }
            let ExprKind::Column { index, .. } = named.expr.kind else {
                return Err(ExecError::Unsupported(not_yet(format_args!(
                    "`{}`",
                    named.expr
                ))));
            };
            let mut column = slots.get_mut(index).and_then(Option::take).ok_or_else(|| {
                ExecError::Unsupported(format!("column #{index} taken twice or missing"))
            })?;
            column.name = named.name.as_str().into();
            columns.push(column);
        }
        Ok(DeviceFrame { columns, height })
    }
}
