//! Row-order functions: sorts, shifts, fills, `set_sorted`, `rle_id`, running sums from the end, changes in percent, interpolation of nulls, and row places (`int_range` of a group's length).

use super::*;

/// Each row's place as an i64 from 0: in the frame, or per group in its group.
pub(crate) fn place_from_zero() -> GpuExpr {
    let int64 = GpuDtype::Int64;
    places_from_one().cast(int64, CastMode::NonStrict).binary(
        BinaryOp::Minus,
        GpuExpr::literal(Scalar::Int(1), int64),
        int64,
    )
}

/// Each row's place (u32, from 1): in the frame, or per group in its group
/// (a `cum_sum` of true).
pub(crate) fn places_from_one() -> GpuExpr {
    GpuExpr {
        kind: ExprKind::CumSum(Box::new(GpuExpr::literal(
            Scalar::Boolean(true),
            GpuDtype::Boolean,
        ))),
        dtype: GpuDtype::UInt32,
    }
}

/// A running sum from the last row, given the running sum from the first
/// (`before`, of `this` at each row): the whole sum, less the sum before
/// the row, `sum(this) - before + this`, in `before`'s type.
pub(crate) fn from_the_end(before: GpuExpr, this: GpuExpr) -> GpuExpr {
    let dtype = before.dtype;
    let total = GpuExpr {
        kind: ExprKind::Agg {
            op: AggOp::Sum,
            input: Box::new(this.clone()),
        },
        dtype,
    };
    total
        .binary(BinaryOp::Minus, before, dtype)
        .binary(BinaryOp::Plus, this, dtype)
}

impl ExprLowering<'_> {
    /// `expr` with its rows sorted by the keys `by` (Polars' `sort` when
    /// `by` is `expr` itself, `sort_by`), each key with its direction and
    /// nulls' place from `options`. Polars sorts by several keys stably only
    /// when asked to keep the order: else its order of rows equal on every
    /// key is its own (the executor leaves data with such rows to Polars).
    /// A limit may shorten the result: refused.
    pub(crate) fn sorted_by(
        &mut self,
        node: Node,
        expr: Node,
        by: &[Node],
        options: &SortMultipleOptions,
    ) -> Lowered {
        if options.limit.is_some() {
            return self.refuse(node, "a sort_by with a limit");
        }
        let input = self.boxed(expr);
        self.sorted_by_nodes(node, input, by, options)
    }

    /// `input` (lowered, `None` where it could not be) with its rows sorted
    /// stably by the keys `by` as `options` says (see [`Self::sorted_by`]).
    pub(crate) fn sorted_by_nodes(
        &mut self,
        node: Node,
        input: Option<Box<GpuExpr>>,
        by: &[Node],
        options: &SortMultipleOptions,
    ) -> Lowered {
        let keys: Vec<_> = by.iter().map(|key| self.boxed(*key)).collect();
        let input = input?;
        let flag =
            |flags: &[bool], i: usize| flags.get(i).or(flags.first()).copied().unwrap_or(false);
        let order = keys
            .into_iter()
            .enumerate()
            .map(|(i, key)| {
                Some(RowOrder {
                    key: key?,
                    descending: flag(&options.descending, i),
                    nulls_last: flag(&options.nulls_last, i),
                })
            })
            .collect::<Option<Vec<_>>>()?;
        if order.is_empty() {
            return self.refuse(node, "a sort_by by no keys");
        }
        let dtype = self.dtype(node)?;
        let stable = order.len() == 1 || options.maintain_order;
        Some(GpuExpr {
            kind: ExprKind::SortedBy {
                input,
                order,
                unstable: (!stable).then(|| self.notation(node)),
            },
            dtype,
        })
    }

    /// `fill_null` with the strategy `min`, `max`, `mean`, `zero` or `one`:
    /// nulls take the column's (the group's) minimum, maximum (NaN ignored),
    /// mean (converted to the input's type as Polars' `NumCast` does:
    /// integers toward zero), or a literal 0 or 1. Where every value is
    /// null the aggregation is null, so nothing changes, as in Polars.
    pub(crate) fn fill_null_by_value(
        &mut self,
        node: Node,
        inputs: &[ExprIR],
        strategy: FillNullStrategy,
    ) -> Lowered {
        let input = self.single(inputs)?;
        let dtype = input.dtype;
        let numeric = dtype.is_integer() || dtype.is_float();
        let aggregated = |op| GpuExpr {
            kind: ExprKind::Agg {
                op,
                input: Box::new(input.clone()),
            },
            dtype,
        };
        let constant = |one: bool| {
            let value = match dtype {
                GpuDtype::Boolean => Scalar::Boolean(one),
                _ if dtype.is_float() => Scalar::Float(if one { 1.0 } else { 0.0 }),
                _ if dtype.is_unsigned() => Scalar::UInt(u64::from(one)),
                _ => Scalar::Int(i64::from(one)),
            };
            GpuExpr::literal(value, dtype)
        };
        let value = match strategy {
            FillNullStrategy::Min if numeric || dtype.is_temporal() => aggregated(AggOp::Min {
                propagate_nans: false,
            }),
            FillNullStrategy::Max if numeric || dtype.is_temporal() => aggregated(AggOp::Max {
                propagate_nans: false,
            }),
            FillNullStrategy::Mean if numeric => GpuExpr {
                kind: ExprKind::Agg {
                    op: AggOp::Mean,
                    input: Box::new(input.clone()),
                },
                dtype: GpuDtype::Float64,
            }
            .cast(dtype, CastMode::NonStrict),
            FillNullStrategy::Zero | FillNullStrategy::One
                if numeric || dtype == GpuDtype::Boolean =>
            {
                constant(matches!(strategy, FillNullStrategy::One))
            }
            other => {
                return self.refuse(
                    node,
                    format!("fill_null with the strategy {other:?} of {dtype}"),
                );
            }
        };
        Some(input.fill_null(value))
    }

    /// `shift_and_fill(n, fill)` with a literal `n`: the shift, and `fill`
    /// where no row was shifted in (a null shifted in stays null). A
    /// literal `fill` becomes a value of the input's type as Polars makes it
    /// (`AnyValue::extract`: numbers converted, null where one does not
    /// fit, temporals by their integers); an expression (Polars requires
    /// one value: an aggregation, of the frame or of the group) is
    /// converted so.
    pub(crate) fn shift_and_fill(&mut self, node: Node, inputs: &[ExprIR]) -> Lowered {
        let [input, periods, fill] = [0, 1, 2].map(|i| inputs.get(i).map(ExprIR::node));
        let (fill_node, input) = (fill?, self.expr(input?));
        let periods = self.literal_periods(periods?);
        let fill = self.constant(fill_node);
        let mut input = input?;
        // The result has Polars' supertype of the input and the fill value
        // (milliseconds of a duration in nanoseconds filled with milliseconds).
        let out = self.dtype(node)?;
        if out != input.dtype {
            if !cast_supported(input.dtype, out) {
                return self.refuse(
                    node,
                    format!("shift_and_fill of {} into {out}", input.dtype),
                );
            }
            input = input.cast(out, CastMode::NonStrict);
        }
        let Some(periods) = periods else {
            return self.refuse(
                node,
                "shift_and_fill by a count that is not a literal integer",
            );
        };
        let dtype = input.dtype;
        // Polars fills a categorical by a column of the shift's length, the
        // fill a constant or an expression: more rows than the frame's (or
        // its error) where the shift passes the frame's end.
        if let GpuDtype::Categorical(_) = dtype {
            return self.refuse(node, format!("shift_and_fill of {dtype} is Polars' own"));
        }
        // A decimal filled with a literal other than zero: Polars takes the
        // fill's whole value as the scaled integer (1.000 fills 0.001 at
        // scale 3: `AnyValue::extract` of the decimal).
        if dtype.decimal_scale().is_some()
            && let Some(fill) = &fill
            && !fill.is_null()
            && !matches!(fill, AnyValue::Decimal(0, ..))
        {
            return self.refuse(
                node,
                format!(
                    "shift_and_fill of {dtype} with the fill value {fill} (Polars fills its whole \
                     value as the scaled integer) is not supported on the GPU"
                ),
            );
        }
        let value = match fill {
            Some(fill) => {
                let value = match (dtype, &fill) {
                    (_, AnyValue::Null) => Some(Scalar::Null),
                    (GpuDtype::Boolean, AnyValue::Boolean(v)) => Some(Scalar::Boolean(*v)),
                    (GpuDtype::String, AnyValue::String(_) | AnyValue::StringOwned(_)) => {
                        any_value_to_scalar(&fill).ok()
                    }
                    (GpuDtype::Boolean | GpuDtype::String, _) => None,
                    (dtype, _) => Some(extracted(&fill, dtype).unwrap_or(Scalar::Null)),
                };
                let Some(value) = value else {
                    // Polars rejects it: its own error.
                    return self.refuse(
                        node,
                        format!("shift_and_fill of {dtype} with the fill value {fill}"),
                    );
                };
                GpuExpr::literal(value, dtype)
            }
            None => {
                if dtype.decimal_scale().is_some() {
                    // (Polars fills a decimal shifted by a whole column's sum
                    // with another value than the sum: seed 80 case 145.)
                    return self.refuse(
                        node,
                        format!(
                            "shift_and_fill of {dtype} by an expression is not supported on the GPU"
                        ),
                    );
                }
                let fill = self.expr(fill_node)?;
                let converts = fill.dtype.is_numeric() && dtype.is_numeric();
                if fill.dtype != dtype && !(converts && cast_supported(fill.dtype, dtype)) {
                    return self.refuse(
                        node,
                        format!(
                            "shift_and_fill of {dtype} with a fill value of type {}",
                            fill.dtype
                        ),
                    );
                }
                if fill.dtype == dtype {
                    fill
                } else {
                    fill.cast(dtype, CastMode::NonStrict)
                }
            }
        };
        let shifted = |input: GpuExpr| GpuExpr {
            kind: ExprKind::Shift {
                input: Box::new(input),
                periods,
            },
            dtype: GpuDtype::Boolean,
        };
        // Null exactly where no row was shifted in: `is_null` is never null.
        let missing = shifted(input.clone().is_null()).is_null();
        let shifted_input = GpuExpr {
            dtype,
            ..shifted(input)
        };
        Some(missing.then(value, shifted_input, dtype))
    }
}

/// Polars' `diff(n)` of `input` (of the result's type): the value less the
/// value `n` rows before. Polars subtracts row by row, even of a column it
/// holds as one value, where its arithmetic would take its scalar kernel
/// (`0.0 - x` as `-x`): floats read as the column of their rows (a shift by
/// 0, computed first).
pub(crate) fn difference(input: GpuExpr, n: i64) -> GpuExpr {
    let dtype = input.dtype;
    let before = input.clone().shifted(n);
    let rows = if dtype.is_float() {
        input.shifted(0)
    } else {
        input
    };
    rows.binary(BinaryOp::Minus, before, dtype)
}

/// Polars' `pct_change(n)` of floats: the diff by `n` rows over the value
/// `n` rows before, `diff(n) / x.shift(n)`.
pub(crate) fn percent_change(input: GpuExpr, n: i64) -> GpuExpr {
    let dtype = input.dtype;
    let before = input.clone().shifted(n);
    difference(input, n).binary(BinaryOp::TrueDivide, before, dtype)
}

/// Polars' `interpolate` of `input` (linear, or `nearest`), as its result
/// type `dtype`: each null between two valid values (in the frame, or in
/// each group) filled from the valid value before it (`low`) and after it
/// (`high`), `steps` rows apart, the null `step` rows after `low`; nulls
/// before the first and after the last valid value stay null. Linear:
/// `low + step * ((high - low) / steps)`, of floats in their type, of
/// integers as f64, of temporal values in their physical integers (the
/// slope divided toward zero), as polars-ops computes it; nearest: `low`
/// up to the middle, `high` from it (`step < ceil(steps / 2)`), in the
/// input's type. `None` for other types (decimals, booleans, text).
pub(crate) fn interpolated(input: GpuExpr, nearest: bool, dtype: GpuDtype) -> Option<GpuExpr> {
    use GpuDtype::{Date, Datetime, Duration, Float64, Int32, Int64, Time, ZonedDatetime};
    // The type computed in: the physical integers of temporal values.
    let (computed, back) = match input.dtype {
        Date => (Int32, Some(Date)),
        t @ (Datetime(_) | Duration(_) | Time | ZonedDatetime(..)) => (Int64, Some(t)),
        t if t.is_integer() && !nearest => (Float64, None),
        t if t.is_integer() || t.is_float() => (t, None),
        _ => return None,
    };
    if back.unwrap_or(computed) != dtype {
        return None;
    }
    let values = match input.dtype == computed {
        true => input.clone(),
        false => input.clone().cast(computed, CastMode::NonStrict),
    };
    let int64 = GpuDtype::Int64;
    let null = |dtype| GpuExpr::literal(Scalar::Null, dtype);
    let fill = |input: GpuExpr, forward: bool| GpuExpr {
        dtype: input.dtype,
        kind: ExprKind::Fill {
            input: Box::new(input),
            forward,
            limit: None,
        },
    };
    let valid = input.is_not_null();
    let place = place_from_zero();
    let valid_place = valid.clone().then(place.clone(), null(int64), int64);
    let (low, high) = (fill(values.clone(), true), fill(values.clone(), false));
    let (low_place, high_place) = (fill(valid_place.clone(), true), fill(valid_place, false));
    let steps = high_place
        .clone()
        .binary(BinaryOp::Minus, low_place.clone(), int64);
    let step = place.binary(BinaryOp::Minus, low_place.clone(), int64);
    let between = if nearest {
        let (one, two) = (int(1), int(2));
        let middle =
            steps
                .binary(BinaryOp::Plus, one, int64)
                .binary(BinaryOp::FloorDivide, two, int64);
        let before_middle = step.binary(BinaryOp::Lt, middle, GpuDtype::Boolean);
        before_middle.then(low, high, computed)
    } else {
        let in_computed = |e: GpuExpr| e.cast(computed, CastMode::NonStrict);
        let rise = high.binary(BinaryOp::Minus, low.clone(), computed);
        let slope = match computed.is_float() {
            true => rise.binary(BinaryOp::Divide, in_computed(steps), computed),
            false => toward_zero(rise, in_computed(steps)),
        };
        let moved = in_computed(step).binary(BinaryOp::Multiply, slope, computed);
        low.binary(BinaryOp::Plus, moved, computed)
    };
    let inside =
        low_place
            .is_not_null()
            .binary(BinaryOp::And, high_place.is_not_null(), GpuDtype::Boolean);
    let gap = inside.then(between, null(computed), computed);
    let interpolated = valid.then(values, gap, computed);
    Some(match back {
        Some(Date) => interpolated.cast(Date, CastMode::NonStrict),
        Some(temporal) => reinterpreted(interpolated, temporal),
        None => interpolated,
    })
}

/// `a / b` of integers (`b` positive) divided toward zero, as Rust divides:
/// the floor division, one more where a negative `a` leaves a remainder.
pub(super) fn toward_zero(a: GpuExpr, b: GpuExpr) -> GpuExpr {
    let dtype = a.dtype;
    let zero = GpuExpr::literal(Scalar::Int(0), dtype);
    let floor = a.clone().binary(BinaryOp::FloorDivide, b.clone(), dtype);
    let remainder = a.clone().binary(BinaryOp::Modulus, b, dtype);
    let up = a
        .binary(BinaryOp::Lt, zero.clone(), GpuDtype::Boolean)
        .binary(
            BinaryOp::And,
            remainder.binary(BinaryOp::NotEq, zero, GpuDtype::Boolean),
            GpuDtype::Boolean,
        )
        .cast(dtype, CastMode::NonStrict);
    floor.binary(BinaryOp::Plus, up, dtype)
}

/// An i64 literal.
fn int(value: i64) -> GpuExpr {
    GpuExpr::literal(Scalar::Int(value), GpuDtype::Int64)
}

impl ExprLowering<'_> {
    /// Polars' `index_of(value)` of a literal value: the place (from 0)
    /// of the first row holding it, equal as Polars' total equality has it
    /// (NaN to NaN, -0.0 to 0.0; a null value finds the first null), null
    /// where no row does; per group, the place in the group. The first
    /// place of the rows where the value is found.
    pub(super) fn index_of(&mut self, node: Node, inputs: &[ExprIR]) -> Lowered {
        let [input, value] = [inputs.first()?.node(), inputs.get(1)?.node()];
        let input = self.expr(input)?;
        let dtype = self.dtype(node)?;
        let value = if self.is_null_literal(value) {
            Scalar::Null
        } else {
            match self.constant(value).map(|v| any_value_to_scalar(&v)) {
                Some(Ok(value)) => value,
                _ => {
                    return self.refuse(
                        node,
                        "index_of of a value that is not a literal is not supported on the GPU",
                    );
                }
            }
        };
        let typed = input.dtype.is_numeric()
            || input.dtype.is_temporal()
            || matches!(input.dtype, GpuDtype::String | GpuDtype::Boolean);
        if !typed || !dtype.is_integer() {
            return self.refuse(
                node,
                format!("index_of of {} is not supported on the GPU", input.dtype),
            );
        }
        let found = super::boolean::membership(input, &[value], true);
        let uint32 = GpuDtype::UInt32;
        let place = places_from_one()
            .binary(
                BinaryOp::Minus,
                GpuExpr::literal(Scalar::UInt(1), uint32),
                uint32,
            )
            .cast(dtype, CastMode::NonStrict);
        let kept = GpuExpr {
            kind: ExprKind::Where {
                input: Box::new(place),
                by: Box::new(found),
            },
            dtype,
        };
        Some(kept.aggregated(AggOp::First, dtype))
    }

    /// Polars' `int_range(start, end, step)` where it numbers rows: `start`
    /// a literal, `end` the length (of the frame, or of a window's or an
    /// aggregation's group) plus that literal, `step` 1 — each row's place
    /// from `start`, as the range's type. Other ranges fall back.
    pub(super) fn int_range(&mut self, node: Node, inputs: &[ExprIR], step: i64) -> Lowered {
        let [start, end] = [inputs.first()?.node(), inputs.get(1)?.node()];
        let start = self.literal_i64(start);
        let beyond_length = self.beyond_length(end);
        let dtype = self.dtype(node)?;
        let numbers_rows = match (start, beyond_length) {
            (Some(start), Some(beyond)) => step == 1 && start == beyond && dtype.is_integer(),
            _ => false,
        };
        if !numbers_rows {
            return self.refuse(
                node,
                "int_range other than of the rows (int_range(s, len() + s)) is not supported \
                 on the GPU",
            );
        }
        let int64 = GpuDtype::Int64;
        let start = GpuExpr::literal(Scalar::Int(start?), int64);
        // (At frame level the places read as a column of the frame's height
        // though they read none: see `GpuExpr::is_places`.)
        Some(
            place_from_zero()
                .binary(BinaryOp::Plus, start, int64)
                .cast(dtype, CastMode::NonStrict),
        )
    }

    /// Polars' `repeat(value, n)` where `value` is a literal and `n` the
    /// length (of the frame, or of a window's or an aggregation's group):
    /// the value on every row, as the node's type (a column of the
    /// frame's height though it reads none, as `int_range` of the rows
    /// is). Other counts, which make a column of their own length, fall
    /// back.
    pub(super) fn repeat(&mut self, node: Node, inputs: &[ExprIR]) -> Lowered {
        let [value, n] = [inputs.first()?.node(), inputs.get(1)?.node()];
        if self.beyond_length(n) != Some(0) {
            return self.refuse(
                node,
                "repeat other than as many times as there are rows (repeat(value, len())) is \
                 not supported on the GPU",
            );
        }
        let value = self.expr(value)?;
        if !matches!(value.kind, ExprKind::Literal(_)) {
            return self.refuse(node, "repeat of a value that is not a literal");
        }
        let dtype = self.dtype(node)?;
        if value.dtype != dtype && !cast_supported(value.dtype, dtype) {
            return self.refuse(node, format!("repeat of {} as {dtype}", value.dtype));
        }
        let value = value.cast(dtype, CastMode::NonStrict);
        let null = GpuExpr::literal(Scalar::Null, dtype);
        Some(places_from_one().is_not_null().then(value, null, dtype))
    }

    /// `n` where `node` is the length (`len()`) plus the literal `n` (or
    /// less `-n`), or casts of that.
    fn beyond_length(&self, node: Node) -> Option<i64> {
        match self.arena.get(node) {
            AExpr::Len => Some(0),
            AExpr::Cast { expr, .. } => self.beyond_length(*expr),
            AExpr::BinaryExpr {
                left,
                op: Operator::Plus,
                right,
            } => match (self.beyond_length(*left), self.beyond_length(*right)) {
                (Some(n), None) => n.checked_add(self.literal_i64(*right)?),
                (None, Some(n)) => n.checked_add(self.literal_i64(*left)?),
                _ => None,
            },
            AExpr::BinaryExpr {
                left,
                op: Operator::Minus,
                right,
            } => self
                .beyond_length(*left)?
                .checked_sub(self.literal_i64(*right)?),
            _ => None,
        }
    }

    /// Polars' `set_sorted`: the input, whose values Polars' engine then
    /// takes as sorted so; the executor checks the claim (see
    /// [`ExprKind::SetSorted`]). A claim of no order, and values of one
    /// row or of no order but nulls, are the input itself. Over the whole
    /// frame only, and of types whose order the device compares as Polars'
    /// engine does.
    pub(super) fn set_sorted(
        &mut self,
        node: Node,
        inputs: &[ExprIR],
        sorted: polars_plan::plans::AExprSorted,
    ) -> Lowered {
        let of = inputs.first()?.node();
        let input = self.expr(of)?;
        let Some(descending) = sorted.descending else {
            return Some(input);
        };
        if self.one_value(of) || input.dtype == GpuDtype::Null {
            return Some(input);
        }
        if self.per_group {
            return self.refuse(
                node,
                "set_sorted within groups (in a group-by's aggregation or a window) is not \
                 supported on the GPU",
            );
        }
        let ordered = input.dtype.is_integer()
            || input.dtype.is_temporal()
            || matches!(
                input.dtype,
                GpuDtype::Boolean | GpuDtype::String | GpuDtype::Decimal(..)
            );
        if !ordered {
            let why = match input.dtype.is_float() {
                true => " (Polars' paths for sorted floats take NaN and -0.0 their own ways)",
                false => "",
            };
            return self.refuse(
                node,
                format!(
                    "set_sorted of {} is not supported on the GPU{why}",
                    input.dtype
                ),
            );
        }
        Some(GpuExpr {
            dtype: input.dtype,
            kind: ExprKind::SetSorted {
                input: Box::new(input),
                descending,
                nulls_last: sorted.nulls_last,
                shown: self.notation(node),
            },
        })
    }

    /// Polars' `rle_id`: each row's run of equal values, numbered from 0
    /// (u32), a new run where a value differs from the one before it as
    /// `ne_missing` compares them (a null equal to a null): the running
    /// count of such changes after the first row (in the frame, or within
    /// each group).
    pub(super) fn rle_id(&mut self, node: Node, inputs: &[ExprIR]) -> Lowered {
        let input = self.single(inputs)?;
        match run_ids(input, self.dtype(node)?) {
            Ok(ids) => Some(ids),
            Err(why) => self.refuse(node, why),
        }
    }
}

/// Polars' `rle_id` of `input` (of type `dtype`, u32; see
/// [`ExprLowering::rle_id`]), or why the device does not compare such
/// values.
pub(crate) fn run_ids(input: GpuExpr, dtype: GpuDtype) -> Result<GpuExpr, String> {
    let compared = input.dtype.is_numeric()
        || input.dtype.is_temporal()
        || matches!(
            input.dtype,
            GpuDtype::Boolean | GpuDtype::String | GpuDtype::Categorical(_) | GpuDtype::Decimal(..)
        );
    if !compared {
        return Err(format!(
            "rle_id of {} is not supported on the GPU",
            input.dtype
        ));
    }
    let boolean = GpuDtype::Boolean;
    // Every row but the first has a row before it.
    let not_first = input.clone().is_null().shifted(1).is_not_null();
    let changes = super::boolean::null_aware_equality(input.clone(), input.shifted(1), false)
        .binary(BinaryOp::And, not_first, boolean);
    Ok(GpuExpr {
        kind: ExprKind::CumSum(Box::new(changes)),
        dtype,
    })
}
