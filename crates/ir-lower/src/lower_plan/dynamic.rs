//! Polars' `group_by_dynamic` of time windows as a plain group-by: each row's window the truncation of its time, a check that the times are sorted and valid (else Polars raises), and the group-by by the windows in order.

use polars::prelude::{ClosedWindow, DynamicGroupOptions, Label, StartBy};

use super::*;
use crate::expr::{AggOp, CastMode, Scalar, Truncation};
use crate::lower_expr::{raising_where, truncation};

impl PlanLowering<'_> {
    /// A `group_by_dynamic` (`dynamic`) of `aggs` over `input_node`, with
    /// windows as long as they are apart (`period` = `every`), from the
    /// time's truncation moved by a fixed `offset`, closed on the left or
    /// the right, labelled by their start, their end or their first time,
    /// no boundary columns, no `group_by` keys, on a date or timestamp
    /// column: the windows as a column the group-by takes (in order: the
    /// times are sorted), named as the time column. A time's window starts
    /// at the truncation of the time less the offset (less one tick, for
    /// windows closed on the right), plus the offset: the window Polars
    /// finds for it (the first window of data; empty windows are not
    /// given).
    pub(super) fn dynamic_group_by(
        &mut self,
        node: Node,
        input_node: Node,
        (keys, aggs): (&[ExprIR], &[ExprIR]),
        dynamic: &DynamicGroupOptions,
    ) -> Lowered {
        let fixed = |d: &polars::prelude::Duration| d.months() == 0;
        let plain = keys.is_empty()
            && dynamic.every == dynamic.period
            && !dynamic.every.negative()
            && !dynamic.every.is_zero()
            && (dynamic.offset.is_zero() || (fixed(&dynamic.every) && fixed(&dynamic.offset)))
            && matches!(
                dynamic.closed_window,
                ClosedWindow::Left | ClosedWindow::Right
            )
            && !dynamic.include_boundaries
            && dynamic.start_by == StartBy::WindowBound;
        if !plain {
            return self.refuse(
                node,
                "group_by_dynamic with `group_by` keys, a period other than `every`, an \
                 offset of months or by months, boundaries, windows closed on both sides or \
                 neither, or a start other than the window's is not supported on the GPU",
            );
        }
        let input = self.node(input_node);
        let input_schema = self.schema_of(input_node);
        let name = dynamic.index_column.as_str();
        let index = self.positions(node, &input_schema, &[name])?[0];
        let dtype = GpuDtype::from_polars(input_schema.get_at_index(index)?.1).ok()?;
        let Some(every) = truncation(&dynamic.every, dtype, false) else {
            return self.refuse(
                node,
                format!(
                    "group_by_dynamic of {dtype} every {} is not supported on the GPU",
                    dynamic.every
                ),
            );
        };
        let aggs = self.named_exprs_in(aggs, input_node, true);
        let (input, aggs) = (input?, aggs?);
        let time = GpuExpr::column(index, name.to_string(), dtype);
        // Ticks of the type (days of dates) in a duration of no months.
        let per_day = match dtype {
            GpuDtype::Datetime(unit) => unit.per_day(),
            _ => 1,
        };
        let ticks = |d: &polars::prelude::Duration| -> Option<i64> {
            match truncation(d, dtype, false)? {
                Truncation::Fixed(ticks) => Some(ticks),
                Truncation::Weeks(weeks) => weeks.checked_mul(7 * per_day),
                Truncation::Months(_) => None,
            }
        };
        let offset = if dynamic.offset.is_zero() {
            0
        } else {
            // (The duration's parts are magnitudes, its sign apart.)
            let Some(magnitude) = ticks(&dynamic.offset) else {
                return self.refuse(
                    node,
                    format!("group_by_dynamic of {dtype} offset by {}", dynamic.offset),
                );
            };
            if dynamic.offset.negative() {
                -magnitude
            } else {
                magnitude
            }
        };
        let closed_right = dynamic.closed_window == ClosedWindow::Right;
        let moved = |value: GpuExpr, by: i64| {
            if by == 0 {
                return value;
            }
            let int64 = GpuDtype::Int64;
            value
                .cast(int64, CastMode::NonStrict)
                .binary(
                    BinaryOp::Plus,
                    GpuExpr::literal(Scalar::Int(by), int64),
                    int64,
                )
                .cast(dtype, CastMode::NonStrict)
        };
        let truncated = GpuExpr {
            kind: ExprKind::Truncate {
                input: Box::new(moved(time.clone(), -offset - i64::from(closed_right))),
                every,
            },
            dtype,
        };
        let window = moved(truncated, offset);
        // Labelled by its end: as one-to-one with the windows as their starts.
        let window = match dynamic.label {
            Label::Right => {
                let Some(every) = ticks(&dynamic.every) else {
                    return self.refuse(
                        node,
                        format!(
                            "group_by_dynamic of {dtype} every {} labelled by the windows' ends \
                             is not supported on the GPU",
                            dynamic.every
                        ),
                    );
                };
                moved(window, every)
            }
            _ => window,
        };
        let check = sorted_check(time);
        let width = input.schema().len();
        let mut with_window = input.schema().clone();
        for (name, dtype) in [("__gpu_window", dtype), ("__gpu_sorted", GpuDtype::UInt8)] {
            with_window.push(OutputColumn {
                name: name.to_string(),
                dtype,
            });
        }
        let windows = PlanNode::WithColumns {
            input: Box::new(input),
            exprs: vec![
                NamedExpr {
                    name: "__gpu_window".into(),
                    expr: window,
                },
                NamedExpr {
                    name: "__gpu_sorted".into(),
                    expr: check,
                },
            ],
            broadcast: true,
            schema: with_window,
        };
        let keys = vec![NamedExpr {
            name: name.to_string(),
            expr: GpuExpr::column(width, name.to_string(), dtype),
        }];
        let schema = self.output_schema(node)?;
        self.types_agree(node, &keys, &schema)?;
        self.types_agree(node, &aggs, &schema)?;
        if dynamic.label != Label::DataPoint {
            return Some(PlanNode::GroupBy {
                // (Polars runs time windows its own way.)
                polars_partitions_from: None,
                input: Box::new(windows),
                keys,
                aggs,
                maintain_order: true,
                slice: None,
                schema,
            });
        }
        // Labelled by each window's first time: that time taken per window,
        // then put in the window's place.
        let first = "__gpu_first_time";
        let mut grouped_schema = schema.clone();
        grouped_schema.push(OutputColumn {
            name: first.into(),
            dtype,
        });
        let mut grouped_aggs = aggs;
        grouped_aggs.push(NamedExpr {
            name: first.into(),
            expr: GpuExpr::column(index, name.to_string(), dtype).aggregated(AggOp::First, dtype),
        });
        let grouped = PlanNode::GroupBy {
            polars_partitions_from: None,
            input: Box::new(windows),
            keys,
            aggs: grouped_aggs,
            maintain_order: true,
            slice: None,
            schema: grouped_schema.clone(),
        };
        let last = grouped_schema.len() - 1;
        let exprs = std::iter::once(NamedExpr {
            name: name.to_string(),
            expr: GpuExpr::column(last, first, dtype),
        })
        .chain(
            schema
                .iter()
                .enumerate()
                .skip(1)
                .map(|(i, column)| NamedExpr {
                    name: column.name.clone(),
                    expr: GpuExpr::column(i, column.name.clone(), column.dtype),
                }),
        )
        .collect();
        Some(PlanNode::Select {
            input: Box::new(grouped),
            exprs,
            schema,
        })
    }
}

/// A check that `time` is sorted and holds no null, as Polars' time windows
/// need (it raises otherwise; see [`raising_where`]).
pub(super) fn sorted_check(time: GpuExpr) -> GpuExpr {
    let boolean = GpuDtype::Boolean;
    let previous = time.clone().shifted(1);
    raising_where(time.clone().is_null().binary(
        BinaryOp::Or,
        time.binary(BinaryOp::Lt, previous, boolean),
        boolean,
    ))
}
