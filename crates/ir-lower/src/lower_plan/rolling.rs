//! Polars' rolling group-by (`rolling(index_column, period, offset, group_by)`) as a select of windows by times: one row per input row (with keys, each key's rows together, ordered as Polars orders them), its keys, index and each aggregation over the rows of its window, as the `rolling_*_by` functions compute them; a check that the times are sorted and valid (else Polars raises).

use polars::prelude::{ClosedWindow, RollingGroupOptions};

use super::dynamic::KeyedRows;
use super::*;
use crate::expr::{AggOp, CastMode, Closed, HostFunction, RollingFunction, RollingWindow};
use crate::lower_expr::{mean_of_f32, rolling_input, times_of, window_ticks};

impl PlanLowering<'_> {
    /// A rolling group-by (`rolling`) of `aggs` over `input_node`: each
    /// row's window the rows whose time (of the index column: dates,
    /// timestamps, integers but u64) lies in the `period` from its own plus
    /// the `offset` (by default `-period`: the period before it), closed as
    /// asked, within the rows of each `group_by` key (integers, booleans,
    /// temporal values, texts). Polars aggregates such overlapping
    /// windows with its rolling windows' kernels, so each aggregation is
    /// the matching window by times (see [`rolled`]): the results are
    /// Polars' to the bit.
    pub(super) fn rolling_group_by(
        &mut self,
        node: Node,
        input_node: Node,
        (keys, aggs): (&[ExprIR], &[ExprIR]),
        rolling: &RollingGroupOptions,
    ) -> Lowered {
        if self.keys_of_one_value(keys, "rolling group-by") {
            return None;
        }
        let input = self.node(input_node);
        let keys = self.named_exprs(keys, input_node);
        let input_schema = self.schema_of(input_node);
        let name = rolling.index_column.as_str();
        let index = self.positions(node, &input_schema, &[name])?[0];
        let dtype = GpuDtype::from_polars(input_schema.get_at_index(index)?.1).ok()?;
        let time = GpuExpr::column(index, name.to_string(), dtype);
        let times = times_of(time.clone(), &rolling.period);
        let offset = window_ticks(dtype, &rolling.offset);
        let (Some((by, period)), Some(offset)) = (times, offset) else {
            return self.refuse(
                node,
                format!(
                    "rolling group-bys by {dtype} in windows of {} offset by {} are not \
                     supported on the GPU",
                    rolling.period, rolling.offset
                ),
            );
        };
        let regrouped: Vec<bool> = aggs.iter().map(|agg| self.regroups(agg.node())).collect();
        // Each aggregation as the user wrote it, for the reasons.
        let written: Vec<String> = aggs
            .iter()
            .map(|agg| crate::refusal::written(agg.node(), self.expr_arena))
            .collect();
        let aggs = self.named_exprs_in(aggs, input_node, true);
        let (input, keys, aggs) = (input?, keys?, aggs?);
        let keyed = KeyedRows::of(&keys);
        let input = self.keyed(node, input, &keys, "a rolling group-by")?;
        let window = RollingWindow::Times {
            by: Box::new(by),
            period,
            offset,
            min_periods: 0,
            closed: match rolling.closed_window {
                ClosedWindow::Both => Closed::Both,
                ClosedWindow::Left => Closed::Left,
                ClosedWindow::Right => Closed::Right,
                ClosedWindow::None => Closed::None,
            },
        };
        let mut exprs = keys.clone();
        exprs.push(NamedExpr {
            name: name.to_string(),
            expr: time.clone(),
        });
        let mut refused = false;
        for ((agg, written), regrouped) in aggs.into_iter().zip(written).zip(regrouped) {
            // Polars aggregates each window of an aggregation over rows a
            // filter, slice, gather or sort keeps by its own per-group path,
            // not by its windows' kernels: of floats, a maximum ignoring
            // NaN, sums and spreads in another order.
            let of_floats = |e: &GpuExpr| matches!(&e.kind, ExprKind::Agg { input, .. } if input.dtype.is_float());
            if regrouped && agg.expr.any(&of_floats) {
                self.refuse(
                    node,
                    format!(
                        "`{written}` in a rolling group-by (an aggregation of floats a filter, \
                         slice, gather or sort keeps: Polars aggregates each window by its own \
                         path there) is not supported on the GPU"
                    ),
                );
                refused = true;
                continue;
            }
            match rolled(&agg.expr, &window) {
                // (Text made of windows within each key's rows: the
                // executor's windows make no text of other rows.)
                Ok(expr)
                    if !keys.is_empty()
                        && expr.dtype == GpuDtype::String
                        && expr.any(&GpuExpr::reads_other_rows) =>
                {
                    self.refuse(
                        node,
                        format!(
                            "`{written}` (text of windows) in a rolling group-by with keys is \
                             not supported on the GPU"
                        ),
                    );
                    refused = true;
                }
                Ok(expr) => exprs.push(NamedExpr {
                    name: agg.name,
                    expr: keyed.within(expr),
                }),
                Err(()) => {
                    self.refuse(
                        node,
                        format!("`{written}` in a rolling group-by is not supported on the GPU"),
                    );
                    refused = true;
                }
            }
        }
        if refused {
            return None;
        }
        let schema = self.output_schema(node)?;
        self.types_agree(node, &exprs, &schema)?;
        let mut checked_schema = input.schema().clone();
        checked_schema.push(OutputColumn {
            name: "__gpu_sorted".into(),
            dtype: GpuDtype::UInt8,
        });
        let checked = PlanNode::WithColumns {
            input: Box::new(input),
            exprs: vec![NamedExpr {
                name: "__gpu_sorted".into(),
                expr: keyed.sorted_check(time),
            }],
            broadcast: true,
            schema: checked_schema,
        };
        Some(PlanNode::Select {
            input: Box::new(checked),
            exprs,
            schema,
        })
    }
}

impl PlanLowering<'_> {
    /// Whether the expression at `node` keeps or reorders its groups' rows
    /// before it aggregates them (a filter, slice, gather or sort, `drop_nulls`,
    /// `drop_nans`), so that Polars no longer takes its groups as windows.
    pub(super) fn regroups(&self, node: Node) -> bool {
        use polars_plan::plans::{ArenaExprIter, IRFunctionExpr};
        self.expr_arena.iter(node).any(|(_, e)| {
            matches!(
                e,
                AExpr::Filter { .. }
                    | AExpr::Slice { .. }
                    | AExpr::Gather { .. }
                    | AExpr::Sort { .. }
                    | AExpr::SortBy { .. }
                    | AExpr::Function {
                        function: IRFunctionExpr::DropNulls | IRFunctionExpr::DropNans,
                        ..
                    }
            )
        })
    }
}

/// `expr`, an aggregation of a rolling group-by's groups (or an expression
/// of such; or of a `group_by_dynamic`'s overlapping groups, `window` the
/// groups themselves), as the same over each row's `window`: sums, means, minima and
/// maxima (NaN propagating, as Polars' window kernels take them), variances
/// and standard deviations (the variance's `powf(0.5)`, on the host),
/// medians and quantiles (of numbers, as Polars' rolling quantile places them),
/// counts of values (`len()` too), first and last values, of row-wise
/// values; an error where it holds anything else (the caller names the
/// aggregation as the user wrote it).
pub(super) fn rolled(expr: &GpuExpr, window: &RollingWindow) -> Result<GpuExpr, ()> {
    let roll = |input: GpuExpr, function| GpuExpr {
        kind: ExprKind::Rolling {
            input: Box::new(input),
            function,
            window: window.clone(),
        },
        dtype: expr.dtype,
    };
    // True at every row of `of` (null or not), as the expression's type: a
    // count of rows.
    let every_row = |of: &GpuExpr| {
        of.clone()
            .is_null()
            .binary(BinaryOp::Or, of.clone().is_not_null(), GpuDtype::Boolean)
            .cast(expr.dtype, CastMode::NonStrict)
    };
    // A mean of f32 (lowered as of f64): Polars' mean windows sum f32 in
    // f64 themselves.
    if let Some(values) = mean_of_f32(expr) {
        let mean = GpuExpr {
            kind: ExprKind::Agg {
                op: AggOp::Mean,
                input: Box::new(values.clone()),
            },
            dtype: expr.dtype,
        };
        return rolled(&mean, window);
    }
    match &expr.kind {
        ExprKind::Len => {
            let (RollingWindow::Times { by, .. } | RollingWindow::Slices { place: by }) = window
            else {
                return Err(());
            };
            Ok(roll(every_row(by), RollingFunction::Sum))
        }
        ExprKind::Agg { op, input } => {
            let row_wise = !input.has_aggregation()
                && !input.has_window()
                && !input.has_part_reading_other_rows()
                && !input
                    .any(&|e| matches!(e.kind, ExprKind::Where { .. } | ExprKind::Unique { .. }));
            let function = match op {
                AggOp::Sum => RollingFunction::Sum,
                AggOp::Mean => RollingFunction::Mean,
                AggOp::Min {
                    propagate_nans: false,
                } => RollingFunction::Min,
                AggOp::Max {
                    propagate_nans: false,
                } => RollingFunction::Max,
                AggOp::Var { ddof, .. } => RollingFunction::Var { ddof: *ddof },
                AggOp::Median => RollingFunction::Quantile {
                    quantile: 0.5,
                    method: "linear",
                },
                AggOp::Quantile { quantile, method } => RollingFunction::Quantile {
                    quantile: *quantile,
                    method,
                },
                AggOp::First => RollingFunction::First,
                AggOp::Last => RollingFunction::Last,
                AggOp::Count { include_nulls } if row_wise => {
                    let counted = match include_nulls {
                        true => every_row(input),
                        false => input
                            .as_ref()
                            .clone()
                            .is_not_null()
                            .cast(expr.dtype, CastMode::NonStrict),
                    };
                    return Ok(roll(counted, RollingFunction::Sum));
                }
                // Polars takes a standard deviation as the variance's
                // `powf(0.5)`, not its square root: on the host.
                AggOp::Std { ddof, .. } => {
                    let variance = GpuExpr {
                        kind: ExprKind::Agg {
                            op: AggOp::Var {
                                ddof: *ddof,
                                in_chunks: false,
                            },
                            input: input.clone(),
                        },
                        dtype: expr.dtype,
                    };
                    return Ok(GpuExpr {
                        kind: ExprKind::OnHost {
                            function: HostFunction::Pow { exponent: 0.5 },
                            input: Box::new(rolled(&variance, window)?),
                            other: None,
                        },
                        dtype: expr.dtype,
                    });
                }
                _ => return Err(()),
            };
            let taken = rolling_input(function, input.dtype, expr.dtype)
                .filter(|_| row_wise)
                .ok_or(())?;
            let input = match taken == input.dtype {
                true => input.as_ref().clone(),
                false => input.as_ref().clone().cast(taken, CastMode::NonStrict),
            };
            Ok(roll(input, function))
        }
        // Values left as they are (a list per window), and what reads
        // other rows than its own (within each window, in Polars).
        ExprKind::Column { .. } | ExprKind::Window { .. } => Err(()),
        _ if expr.reads_other_rows()
            || matches!(expr.kind, ExprKind::Where { .. } | ExprKind::Unique { .. }) =>
        {
            Err(())
        }
        _ => {
            let mut rolled_expr = expr.clone();
            for (child, original) in rolled_expr.children_mut().into_iter().zip(expr.children()) {
                *child = rolled(original, window)?;
            }
            Ok(rolled_expr)
        }
    }
}
