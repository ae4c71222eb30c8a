//! Polars' `group_by_dynamic` of time windows that tile the times as a plain group-by (of other windows see `sliding_windows`): each row's window the truncation of its time, a check that the times are sorted and valid (else Polars raises), and the group-by by the keys and windows in order; the order Polars gives the keys of time windows (also a rolling group-by's).

use polars::prelude::{ClosedWindow, DynamicGroupOptions, Label, StartBy};

use super::sliding_windows::{SlidingWindows, written};
use super::*;
use crate::expr::{AggOp, CastMode, Scalar, StringOp, Truncation};
use crate::lower_expr::{raising_where, truncation};

impl PlanLowering<'_> {
    /// A `group_by_dynamic` (`dynamic`) of `aggs` over `input_node`, with
    /// windows as long as they are apart (`period` = `every`), from the
    /// time's truncation moved by a fixed `offset`, closed on the left or
    /// the right, labelled by their start, their end or their first time,
    /// with or without boundary columns (each window's start, and its start
    /// plus the period: not by months, not of dates), on a date or
    /// timestamp column (or one of i32 or
    /// i64, by durations of integers, as timestamps of nanoseconds as
    /// Polars takes it), within the rows
    /// of each `group_by` key (integers, booleans, temporal values, texts):
    /// the windows as a column the group-by takes after the keys (in order:
    /// the times are sorted, within each key's rows), named as the time
    /// column. A time's window starts
    /// at the truncation of the time less the offset (less one tick, for
    /// windows closed on the right), plus the offset: the window Polars
    /// finds for it (the first window of data; empty windows are not
    /// given). Windows of other periods (of no months), closed on both
    /// sides or neither, or from the first time (`start_by="datapoint"`)
    /// or a weekday run as [`Self::sliding_windows`] says.
    pub(super) fn dynamic_group_by(
        &mut self,
        node: Node,
        input_node: Node,
        (keys, aggs): (&[ExprIR], &[ExprIR]),
        dynamic: &DynamicGroupOptions,
    ) -> Lowered {
        let fixed = |d: &polars::prelude::Duration| d.months() == 0;
        let forward = |d: &polars::prelude::Duration| !d.negative() && !d.is_zero();
        let tiled = dynamic.every == dynamic.period
            && forward(&dynamic.every)
            && (dynamic.offset.is_zero() || (fixed(&dynamic.every) && fixed(&dynamic.offset)))
            && matches!(
                dynamic.closed_window,
                ClosedWindow::Left | ClosedWindow::Right
            )
            && (!dynamic.include_boundaries || fixed(&dynamic.every))
            && dynamic.start_by == StartBy::WindowBound;
        // Windows of any period, from the first time's window, the first
        // time itself or a weekday: see `sliding_windows`.
        let sliding = [&dynamic.every, &dynamic.period, &dynamic.offset]
            .into_iter()
            .all(fixed)
            && forward(&dynamic.every)
            && forward(&dynamic.period);
        if !tiled && !sliding {
            let why = if !forward(&dynamic.every) || !forward(&dynamic.period) {
                "group_by_dynamic with a period or `every` not above zero is not supported on \
                 the GPU"
            } else {
                "group_by_dynamic by months (or with an offset of months) of a period other than \
                 `every`, closed on both sides or neither, started by the first time or a \
                 weekday, or with boundaries, is not supported on the GPU"
            };
            return self.refuse(node, why);
        }
        if self.keys_of_one_value(keys, "group_by_dynamic") {
            return None;
        }
        // Boundaries named as another column of the result: Polars raises
        // (a duplicate column).
        let bounds = ["_lower_boundary", "_upper_boundary"];
        let clash = keys
            .iter()
            .chain(aggs)
            .map(|e| e.output_name().as_str())
            .chain([dynamic.index_column.as_str()])
            .find(|name| bounds.contains(name));
        if let Some(name) = clash.filter(|_| dynamic.include_boundaries) {
            return self.refuse(
                node,
                format!(
                    "group_by_dynamic with boundaries and a column named `{name}` (Polars raises: \
                     a duplicate column)"
                ),
            );
        }
        let input = self.node(input_node);
        let keys = self.named_exprs(keys, input_node);
        let input_schema = self.schema_of(input_node);
        let name = dynamic.index_column.as_str();
        let index = self.positions(node, &input_schema, &[name])?[0];
        let stored = GpuDtype::from_polars(input_schema.get_at_index(index)?.1).ok()?;
        // Integers (i32, i64) as Polars takes them: as timestamps of
        // nanoseconds, by durations of integers (`"2i"`); times by
        // durations of time (else Polars raises).
        let integer = matches!(stored, GpuDtype::Int32 | GpuDtype::Int64);
        let durations = [&dynamic.every, &dynamic.period, &dynamic.offset];
        let matching = durations.iter().all(|d| match integer {
            true => d.parsed_int || d.is_zero(),
            false => !d.parsed_int,
        });
        let dtype = match integer {
            true => GpuDtype::Datetime(crate::TimeUnit::Nanoseconds),
            false => stored,
        };
        let every = truncation(&dynamic.every, dtype, false).filter(|_| matching);
        let Some(every) = every else {
            return self.refuse(
                node,
                format!(
                    "group_by_dynamic of {stored} every {} is not supported on the GPU",
                    written(&dynamic.every)
                ),
            );
        };
        if dynamic.include_boundaries && stored == GpuDtype::Date {
            return self.refuse(
                node,
                "group_by_dynamic of dates with boundaries is not supported on the GPU (Polars' \
                 plan types the boundaries as dates, its engine gives timestamps)",
            );
        }
        let polars_aggs = aggs;
        let aggs = self.named_exprs_in(aggs, input_node, true);
        let (input, keys, aggs) = (input?, keys?, aggs?);
        // The first aggregation holding a part `found` finds, as the user
        // wrote it.
        let arena = self.expr_arena;
        let shown = |found: &dyn Fn(&GpuExpr) -> bool| {
            let at = aggs.iter().position(|agg| agg.expr.any(&found))?;
            let agg = polars_aggs.get(at)?.node();
            Some(crate::refusal::written(agg, arena))
        };
        if let Some(found) = shown(&crate::expr::is_mode) {
            return self.refuse(
                node,
                format!("`{found}` in a group_by_dynamic is not supported on the GPU"),
            );
        }
        let keyed = KeyedRows::of(&keys);
        let input = self.keyed(node, input, &keys, "a group_by_dynamic")?;
        // With keys, Polars holds the windows as slices of rows or by
        // index by its own bookkeeping, and answers a window of no valid
        // value by that path (a place of an extreme 0 or null, and so the
        // value at it; a spread 0.0 or null), which the device cannot
        // follow.
        let extreme = |e: &GpuExpr| {
            matches!(
                e.kind,
                ExprKind::Agg {
                    op: AggOp::Min { .. } | AggOp::Max { .. },
                    ..
                }
            )
        };
        let by_path = |e: &GpuExpr| match &e.kind {
            ExprKind::Agg {
                op: AggOp::ArgMin | AggOp::ArgMax | AggOp::Std { .. } | AggOp::Var { .. },
                ..
            } => true,
            // The first value where a key is its extreme (`x.filter(k ==
            // k.min()).first()`; `x.get(k.arg_min())` lowers through
            // `arg_min`, above).
            ExprKind::Where { by, .. } => by.any(&extreme),
            _ => false,
        };
        if !keys.is_empty()
            && let Some(found) = shown(&by_path)
        {
            return self.refuse(
                node,
                format!(
                    "`{found}` in a group_by_dynamic with keys is not supported on the GPU (of a \
                     window with no valid value Polars answers by how it holds the windows)"
                ),
            );
        }
        let stored_time = GpuExpr::column(index, name.to_string(), stored);
        let time = match integer {
            true => stored_time
                .clone()
                .cast(GpuDtype::Int64, CastMode::NonStrict)
                .cast(dtype, CastMode::NonStrict),
            false => stored_time.clone(),
        };
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
        if !tiled {
            let (Some(every_ticks), Some(period)) = (ticks(&dynamic.every), ticks(&dynamic.period))
            else {
                return self.refuse(
                    node,
                    format!(
                        "group_by_dynamic of {stored} every {} in windows of {} is not supported \
                         on the GPU",
                        written(&dynamic.every),
                        written(&dynamic.period)
                    ),
                );
            };
            let windows = SlidingWindows {
                every: (every, every_ticks),
                period,
                offset,
                time: (stored_time, time, integer),
                keyed,
            };
            return self.sliding_windows(
                node,
                (input, keys, aggs),
                dynamic,
                (windows, polars_aggs),
            );
        }
        let truncated = GpuExpr {
            kind: ExprKind::Truncate {
                input: Box::new(moved(time.clone(), -offset - i64::from(closed_right))),
                every,
            },
            dtype,
        };
        let window = moved(truncated, offset);
        let start = window.clone();
        // Labelled by its end: as one-to-one with the windows as their starts.
        let window = match dynamic.label {
            Label::Right => {
                let Some(every) = ticks(&dynamic.every) else {
                    return self.refuse(
                        node,
                        format!(
                            "group_by_dynamic of {stored} every {} labelled by the windows' ends \
                             is not supported on the GPU",
                            dynamic.every
                        ),
                    );
                };
                moved(window, every)
            }
            _ => window,
        };
        // (Integers back from the timestamps.)
        let window = match integer {
            true => window
                .cast(GpuDtype::Int64, CastMode::NonStrict)
                .cast(stored, CastMode::NonStrict),
            false => window,
        };
        let check = keyed.sorted_check(stored_time.clone());
        let width = input.schema().len();
        let start_name = "__gpu_start";
        let mut columns = vec![("__gpu_window", window), ("__gpu_sorted", check)];
        if dynamic.include_boundaries {
            columns.push((start_name, start));
        }
        let windows = super::sliding_windows::with_columns(input, columns);
        // The user's keys, then the windows.
        let time_at = keys.len();
        let mut keys = keys;
        keys.push(NamedExpr {
            name: name.to_string(),
            expr: GpuExpr::column(width, name.to_string(), stored),
        });
        let schema = self.output_schema(node)?;
        // Polars' columns but the windows' boundaries: the group-by's.
        let bounds = ["_lower_boundary", "_upper_boundary"];
        let is_bound = |name: &str| dynamic.include_boundaries && bounds.contains(&name);
        let mut grouped_schema: OutputSchema = schema
            .iter()
            .filter(|c| !is_bound(&c.name))
            .cloned()
            .collect();
        self.types_agree(node, &keys, &grouped_schema)?;
        self.types_agree(node, &aggs, &grouped_schema)?;
        if dynamic.label != Label::DataPoint && !dynamic.include_boundaries {
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
        // then put in the window's place. With boundaries: each window's
        // start taken per window, and its end the start and the period.
        let first = "__gpu_first_time";
        let mut grouped_aggs = aggs;
        let mut extra = Vec::new();
        if dynamic.label == Label::DataPoint {
            extra.push((first, stored_time.aggregated(AggOp::First, stored)));
        }
        if dynamic.include_boundaries {
            let start = GpuExpr::column(width + 2, start_name.to_string(), dtype);
            extra.push((start_name, start.aggregated(AggOp::First, dtype)));
        }
        for (name, expr) in extra {
            grouped_schema.push(OutputColumn {
                name: name.into(),
                dtype: expr.dtype,
            });
            grouped_aggs.push(NamedExpr {
                name: name.into(),
                expr,
            });
        }
        let grouped = PlanNode::GroupBy {
            polars_partitions_from: None,
            input: Box::new(windows),
            keys,
            aggs: grouped_aggs,
            maintain_order: true,
            slice: None,
            schema: grouped_schema.clone(),
        };
        let at = |name: &str| grouped_schema.iter().position(|c| c.name == name);
        // (With boundaries, `every` and so `period` hold no months.)
        let period = match dynamic.include_boundaries {
            true => ticks(&dynamic.period).unwrap_or(0),
            false => 0,
        };
        super::sliding_windows::selected(grouped, schema, |column| {
            let name = column.name.as_str();
            Some(if is_bound(name) {
                let start = GpuExpr::column(at(start_name)?, start_name.to_string(), dtype);
                let bound = match name == bounds[0] {
                    true => start,
                    false => moved(start, period),
                };
                // (A date's boundaries are timestamps, an integer's integers.)
                let bound = match integer {
                    true => bound.cast(GpuDtype::Int64, CastMode::NonStrict),
                    false => bound,
                }
                .cast(column.dtype, CastMode::NonStrict);
                super::sliding_windows::without_rows(bound, name)
            } else if dynamic.label == Label::DataPoint && name == grouped_schema[time_at].name {
                GpuExpr::column(at(first)?, first, stored)
            } else {
                GpuExpr::column(at(name)?, name.to_string(), column.dtype)
            })
        })
    }
}

/// The `group_by` keys of a rolling group-by or a `group_by_dynamic`,
/// whose windows Polars takes within each key's rows.
pub(super) struct KeyedRows {
    keys: Vec<GpuExpr>,
}

impl KeyedRows {
    pub(super) fn of(keys: &[NamedExpr]) -> KeyedRows {
        KeyedRows {
            keys: keys.iter().map(|key| key.expr.clone()).collect(),
        }
    }

    /// `expr` computed within each key's rows (as it is without keys, or
    /// where it reads no other row than its own: a literal, say).
    pub(super) fn within(&self, expr: GpuExpr) -> GpuExpr {
        match expr.any(&GpuExpr::reads_other_rows) {
            true => self.per_key(expr),
            false => expr,
        }
    }

    /// `expr` (an aggregation, say) of each key's rows, on every row (of
    /// the whole frame without keys).
    pub(super) fn per_key(&self, expr: GpuExpr) -> GpuExpr {
        if self.keys.is_empty() {
            return expr;
        }
        expr.over(self.keys.clone(), None)
    }

    /// A check that `time` is sorted within each key's rows and holds no
    /// null, as Polars' time windows need (it raises otherwise; see
    /// [`raising_where`]).
    pub(super) fn sorted_check(&self, time: GpuExpr) -> GpuExpr {
        let boolean = GpuDtype::Boolean;
        let previous = self.within(time.clone().shifted(1));
        raising_where(time.clone().is_null().binary(
            BinaryOp::Or,
            time.binary(BinaryOp::Lt, previous, boolean),
            boolean,
        ))
    }
}

impl PlanLowering<'_> {
    /// `input` with the rows of each of `keys` together, in the order Polars
    /// puts them (its sort of their row encoding, stable: see
    /// [`encoded_order`]); `input` itself without keys. `what` (a rolling
    /// group-by, ...) names the refusal of keys of other types.
    pub(super) fn keyed(
        &mut self,
        node: Node,
        input: PlanNode,
        keys: &[NamedExpr],
        what: &str,
    ) -> Lowered {
        if keys.is_empty() {
            return Some(input);
        }
        let mut order = Vec::new();
        for key in keys {
            let Some(sort_keys) = encoded_order(&key.expr) else {
                return self.refuse(
                    node,
                    format!(
                        "{what} by `{}` ({}) is not supported on the GPU",
                        key.expr, key.expr.dtype
                    ),
                );
            };
            order.extend(sort_keys);
        }
        let schema = input.schema().clone();
        Some(PlanNode::Sort {
            input: Box::new(input),
            keys: order,
            stable: true,
            slice: None,
            schema,
        })
    }
}

/// The sort keys that order rows by `key` as Polars orders the keys of a
/// rolling group-by or a `group_by_dynamic`: by their unordered row encoding (polars-row), compared
/// byte by byte. Integers, booleans and temporal values encode in their
/// order, null first; a text as a byte of its length where that is below
/// 254, else 0xFE and its length in four little-endian bytes (a null as
/// 0xFF), then its bytes: by that head read as a number, then by the text.
/// `None` for other types (floats,
/// whose zeros and NaNs Polars makes canonical; categoricals, by code;
/// decimals).
pub(super) fn encoded_order(key: &GpuExpr) -> Option<Vec<SortKey>> {
    let ascending = |expr: GpuExpr, nulls_last: bool| SortKey {
        expr,
        descending: false,
        nulls_last,
    };
    let dtype = key.dtype;
    let in_order = dtype.is_integer()
        || dtype == GpuDtype::Boolean
        || matches!(
            dtype,
            GpuDtype::Date
                | GpuDtype::Datetime(_)
                | GpuDtype::ZonedDatetime(..)
                | GpuDtype::Duration(_)
                | GpuDtype::Time
        );
    if in_order {
        return Some(vec![ascending(key.clone(), false)]);
    }
    if dtype != GpuDtype::String {
        return None;
    }
    let word = GpuDtype::UInt64;
    let number = |value: u64| GpuExpr::literal(Scalar::UInt(value), word);
    let length = GpuExpr {
        kind: ExprKind::String {
            op: StringOp::LenBytes,
            input: Box::new(key.clone()),
        },
        dtype: GpuDtype::UInt32,
    }
    .cast(word, CastMode::NonStrict);
    // Byte `at` of the length, moved to byte `3 - at`.
    let byte = |at: u32| {
        let low = length
            .clone()
            .binary(BinaryOp::FloorDivide, number(1 << (8 * at)), word)
            .binary(BinaryOp::Modulus, number(256), word);
        low.binary(BinaryOp::Multiply, number(1 << (8 * (3 - at))), word)
    };
    let swapped = (1..4).fold(byte(0), |sum, at| {
        sum.binary(BinaryOp::Plus, byte(at), word)
    });
    // The head as a number of five bytes: the first, then the four after
    // it (none for a short text).
    let short = length
        .clone()
        .binary(BinaryOp::Lt, number(254), GpuDtype::Boolean);
    let head = short.then(
        length.binary(BinaryOp::Multiply, number(1 << 32), word),
        number(254 << 32).binary(BinaryOp::Plus, swapped, word),
        word,
    );
    // (A null text's head is null: last, as 0xFF is.)
    Some(vec![ascending(head, true), ascending(key.clone(), false)])
}
