//! Functions of Polars' `FunctionExpr`: dispatch to the families, arithmetic functions, casts.

use super::*;
use crate::expr::PowerRule;

pub(crate) fn binary_op(op: Operator) -> BinaryOp {
    match op {
        Operator::Eq => BinaryOp::Eq,
        Operator::EqValidity => BinaryOp::EqMissing,
        Operator::NotEq => BinaryOp::NotEq,
        Operator::NotEqValidity => BinaryOp::NotEqMissing,
        Operator::Lt => BinaryOp::Lt,
        Operator::LtEq => BinaryOp::LtEq,
        Operator::Gt => BinaryOp::Gt,
        Operator::GtEq => BinaryOp::GtEq,
        Operator::Plus => BinaryOp::Plus,
        Operator::Minus => BinaryOp::Minus,
        Operator::Multiply => BinaryOp::Multiply,
        Operator::RustDivide => BinaryOp::Divide,
        Operator::TrueDivide => BinaryOp::TrueDivide,
        Operator::FloorDivide => BinaryOp::FloorDivide,
        Operator::Modulus => BinaryOp::Modulus,
        Operator::And | Operator::LogicalAnd => BinaryOp::And,
        Operator::Or | Operator::LogicalOr => BinaryOp::Or,
        Operator::Xor => BinaryOp::Xor,
    }
}

/// Casts the GPU supports: among numeric types (and from Boolean), between
/// temporal types and integers, and between temporal types; a time of day
/// to integers and durations (its nanoseconds), to text (chrono's `%T`) and
/// from integers and datetimes (their time of day, [`time_of_day`]), as
/// Polars casts it; and
/// between decimals and numbers (not booleans), decimals and text.
/// Whether `function` applies a user-defined function to its inputs
/// (`fold`, `reduce` and their running forms), which stays on the CPU.
pub(crate) fn applies_user_function(function: &IRFunctionExpr) -> bool {
    matches!(
        function,
        IRFunctionExpr::FoldHorizontal { .. }
            | IRFunctionExpr::ReduceHorizontal { .. }
            | IRFunctionExpr::CumReduceHorizontal { .. }
            | IRFunctionExpr::CumFoldHorizontal { .. }
    )
}

pub(crate) fn cast_supported(from: GpuDtype, to: GpuDtype) -> bool {
    let zoned = |dtype| matches!(dtype, GpuDtype::ZonedDatetime(..));
    let decimal = |dtype| matches!(dtype, GpuDtype::Decimal(..));
    let instant = |dtype| matches!(dtype, GpuDtype::Date | GpuDtype::Datetime(_));
    if zoned(from) || zoned(to) {
        // The instant kept: to and from integers, to another unit or zone.
        return from.is_integer() && zoned(to) || zoned(from) && (to.is_integer() || zoned(to));
    }
    if from == GpuDtype::Time || to == GpuDtype::Time {
        return from == to
            || from == GpuDtype::Time
                && (to.is_integer()
                    || to.is_float()
                    || matches!(to, GpuDtype::Duration(_) | GpuDtype::String))
            || to == GpuDtype::Time
                && (from.is_integer() || matches!(from, GpuDtype::Datetime(_)));
    }
    from == to
        || (from.is_numeric() || from == GpuDtype::Boolean)
            && (to.is_numeric() || to == GpuDtype::Boolean)
        || from.is_temporal() && (to.is_integer() || to.is_float())
        || from.is_integer() && to.is_temporal()
        // Units converted between instants (dates, datetimes) or between
        // durations; Polars raises between the two.
        || from.is_temporal() && to.is_temporal() && instant(from) == instant(to)
        || (from.is_numeric() || from == GpuDtype::Boolean) && to == GpuDtype::String
        || from == GpuDtype::String && (to.is_integer() || to.is_float())
        || matches!(from, GpuDtype::Date | GpuDtype::Datetime(_)) && to == GpuDtype::String
        || matches!(from, GpuDtype::Categorical(_)) && to == GpuDtype::String
        || from == GpuDtype::String && matches!(to, GpuDtype::Categorical(_))
        || decimal(from) && (decimal(to) || to.is_numeric() || to == GpuDtype::String)
        || (from.is_numeric() || from == GpuDtype::String) && decimal(to)
}

/// Whether [`GpuExpr::cast_or_nulls`] takes `from` to `to` on the GPU.
pub(crate) fn cast_or_nulls_supported(from: GpuDtype, to: GpuDtype) -> bool {
    // (The evaluator makes no null list or struct of nothing: fuzz seed
    // 2567, an unpivot of a struct column and one of the Null type.)
    (from == GpuDtype::Null && !to.is_nested()) || cast_supported(from, to)
}

/// `base.pow(exponent)` (a literal) as Polars computes it: by repeated
/// multiplication (whole exponents from 2 to 9 for floats, 2 to 10 for
/// integers, which wrap), a square root (0.5), the base itself (1) or one
/// (0, even of NaN); integers to a float power as floats. Other exponents
/// of floats go through `powf`, whose last bit a GPU's `pow` may not match:
/// the host computes them ([`HostFunction::Pow`]); of integers they stay
/// with Polars.
pub(crate) fn pow_exactly(
    base: GpuExpr,
    exponent: AnyValue<'_>,
    dtype: GpuDtype,
) -> Result<GpuExpr, String> {
    let literal = |scalar| GpuExpr::literal(scalar, dtype);
    let integer = !dtype.is_float();
    if exponent.is_null() {
        return Ok(literal(Scalar::Null));
    }
    // (Polars casts the exponent to the base's type: of f32, the exponent
    // it compares is the f32 nearest.)
    let value = match dtype {
        _ if integer => exponent.extract::<i64>().map(|e| e as f64),
        GpuDtype::Float32 => exponent.extract::<f64>().map(|e| f64::from(e as f32)),
        _ => exponent.extract::<f64>(),
    };
    let Some(value) = value else {
        return Err(format!("pow with the exponent {exponent}"));
    };
    let base = if integer {
        base
    } else {
        base.cast(dtype, CastMode::NonStrict)
    };
    match PowerRule::of(value, integer) {
        PowerRule::Itself => Ok(base),
        PowerRule::One => {
            let one = literal(match dtype {
                _ if dtype.is_unsigned() => Scalar::UInt(1),
                _ if integer => Scalar::Int(1),
                _ => Scalar::Float(1.0),
            });
            Ok(base.is_not_null().then(one, literal(Scalar::Null), dtype))
        }
        PowerRule::Sqrt => Ok(GpuExpr {
            kind: ExprKind::Unary {
                function: UnaryFunction::Sqrt,
                input: Box::new(base),
            },
            dtype,
        }),
        PowerRule::Product(factors) => {
            let mut product = base.clone();
            for _ in 1..factors {
                product = product.binary(BinaryOp::Multiply, base.clone(), dtype);
            }
            Ok(product)
        }
        // Polars' own loop, wrapping: on the host. (A negative exponent, or
        // one beyond u32, Polars' cast of it rejects: it raises.)
        PowerRule::Powf if integer => {
            match u32::try_from(exponent.extract::<i64>().unwrap_or(-1)) {
                Ok(exponent) => Ok(integer_power(base, Some(exponent), None, dtype)),
                Err(_) => Err(format!(
                    "pow of integers with the exponent {value} (Polars raises its error)"
                )),
            }
        }
        // Polars' powf, whose last bit is libm's: on the host.
        PowerRule::Powf => Ok(GpuExpr {
            kind: ExprKind::OnHost {
                function: HostFunction::Pow { exponent: value },
                input: Box::new(base),
                other: None,
            },
            dtype,
        }),
    }
}

/// `base`, integers of `dtype`, to the power `exponent` (a literal) or of
/// each row of `other` (integers), as Polars raises integers: the exponent
/// cast to u32 strictly (a negative one raises, as in Polars), the power
/// computed on the host in 64 bits and wrapped to `dtype`'s width
/// ([`HostFunction::IntPow`]), cast back to `dtype`.
fn integer_power(
    base: GpuExpr,
    exponent: Option<u32>,
    other: Option<GpuExpr>,
    dtype: GpuDtype,
) -> GpuExpr {
    let wide = match dtype {
        GpuDtype::UInt64 => GpuDtype::UInt64,
        _ => GpuDtype::Int64,
    };
    let bits = match dtype {
        GpuDtype::Int8 | GpuDtype::UInt8 => 8,
        GpuDtype::Int16 | GpuDtype::UInt16 => 16,
        GpuDtype::Int32 | GpuDtype::UInt32 => 32,
        _ => 64,
    };
    let other = other.map(|other| {
        Box::new(
            other
                .cast(GpuDtype::UInt32, CastMode::Strict)
                .cast(wide, CastMode::NonStrict),
        )
    });
    GpuExpr {
        kind: ExprKind::OnHost {
            function: HostFunction::IntPow {
                bits,
                signed: !dtype.is_unsigned(),
                exponent,
            },
            input: Box::new(base.cast(wide, CastMode::NonStrict)),
            other,
        },
        dtype: wide,
    }
    .cast(dtype, CastMode::NonStrict)
}

impl ExprLowering<'_> {
    /// `input` rounded to `decimals` by `mode`, as Polars rounds: floats of
    /// 64 bits by the evaluator, of 32 through 64 (Polars' own computation
    /// there, exact for whole values), decimals by their integers; integers
    /// are whole already, and Polars returns them.
    fn rounded(&mut self, node: Node, input: GpuExpr, decimals: u32, mode: Rounding) -> Lowered {
        let round = |input: GpuExpr| GpuExpr {
            dtype: input.dtype,
            kind: ExprKind::Round {
                input: Box::new(input),
                decimals,
                mode,
            },
        };
        match input.dtype {
            dtype if dtype.is_integer() => Some(input),
            GpuDtype::Float64 | GpuDtype::Decimal(..) => Some(round(input)),
            GpuDtype::Float32 => Some(
                round(input.cast(GpuDtype::Float64, CastMode::NonStrict))
                    .cast(GpuDtype::Float32, CastMode::NonStrict),
            ),
            dtype => self.refuse(
                node,
                format!("rounding {dtype} is not supported on the GPU"),
            ),
        }
    }

    /// Polars' `peak_max` (`max`) or `peak_min` of numbers (booleans as
    /// i8): where a value is above (below) both neighbours, the row before
    /// the first and after the last taken as 0 (polars-ops' peaks: each
    /// shifted in with 0, compared, and the two answers and-ed in Kleene's
    /// logic). Of the whole frame only.
    fn peak(&mut self, node: Node, input: GpuExpr, max: bool) -> Lowered {
        if self.per_group {
            return self.refuse(
                node,
                "a peak per group (in a window or an aggregation) is not supported on the GPU",
            );
        }
        let input = match input.dtype {
            GpuDtype::Boolean => input.cast(GpuDtype::Int8, CastMode::NonStrict),
            dtype if dtype.is_numeric() && dtype.decimal_scale().is_none() => input,
            other => {
                return self.refuse(
                    node,
                    format!("a peak of {other} is not supported on the GPU"),
                );
            }
        };
        let (dtype, boolean) = (input.dtype, GpuDtype::Boolean);
        let zero = if dtype.is_float() {
            Scalar::Float(0.0)
        } else if dtype.is_unsigned() {
            Scalar::UInt(0)
        } else {
            Scalar::Int(0)
        };
        // Each neighbour, 0 where the row has none (a shift of the row
        // places, never null, is null only there).
        let neighbour = |periods: i64| {
            row_order::places_from_one()
                .shifted(periods)
                .is_null()
                .then(
                    GpuExpr::literal(zero.clone(), dtype),
                    input.clone().shifted(periods),
                    dtype,
                )
        };
        let beyond = |periods: i64| {
            let (left, right) = if max {
                (neighbour(periods), input.clone())
            } else {
                (input.clone(), neighbour(periods))
            };
            left.binary(BinaryOp::Lt, right, boolean)
        };
        Some(beyond(1).binary(BinaryOp::And, beyond(-1), boolean))
    }

    pub(crate) fn function(
        &mut self,
        node: Node,
        inputs: &[ExprIR],
        function: &IRFunctionExpr,
    ) -> Lowered {
        use IRFunctionExpr as F;
        let unsupported = |function: &dyn std::fmt::Display| {
            format!("function {function} is not supported on the GPU")
        };
        let kind = match function {
            F::Boolean(boolean) => return self.boolean(node, inputs, boolean),
            F::StringExpr(string) => return self.string(node, inputs, string),
            F::TemporalExpr(temporal) => return self.temporal(node, inputs, temporal),
            F::ListExpr(list) => return self.list(node, inputs, list),
            F::StructExpr(function) => return self.struct_function(node, inputs, function),
            F::AsStruct => return self.make_struct(node, inputs),
            F::Abs => ExprKind::Abs(Box::new(self.single(inputs)?)),
            F::Negate => {
                let input = self.single(inputs)?;
                if input.dtype.is_unsigned() {
                    // Polars raises "`neg` operation not supported": let it.
                    return self.refuse(
                        node,
                        format!("Polars does not negate unsigned integers ({})", input.dtype),
                    );
                }
                ExprKind::Negate(Box::new(input))
            }
            F::FillNull => {
                // Both sides cast to their supertype, the result's (Polars'
                // plan may leave a side of another type: a value filled by
                // the column itself after a `shift_and_fill` widened it).
                let [input, value] = self.exactly::<2>(node, inputs)?;
                let dtype = self.dtype(node)?;
                // A categorical side typed as text by the plan: Polars' engine
                // keeps the categorical (what reads it then raises or orders
                // by the categories).
                let categorical = |e: &GpuExpr| matches!(e.dtype, GpuDtype::Categorical(_));
                if dtype == GpuDtype::String && (categorical(&input) || categorical(&value)) {
                    return self.refuse(
                        node,
                        "fill_null of a categorical and texts (Polars' plan types it as texts, \
                         its engine gives the categorical) is not supported on the GPU",
                    );
                }
                let fits = |side: &GpuExpr| cast_or_nulls_supported(side.dtype, dtype);
                if !fits(&input) || !fits(&value) {
                    return self.refuse(
                        node,
                        format!(
                            "fill_null of {} by {} as {dtype} is not supported on the GPU",
                            input.dtype, value.dtype
                        ),
                    );
                }
                ExprKind::FillNull {
                    input: Box::new(input.cast_or_nulls(dtype)),
                    value: Box::new(value.cast_or_nulls(dtype)),
                }
            }
            F::Round { decimals, mode } => {
                let mode = match mode {
                    RoundMode::HalfToEven => Rounding::HalfToEven,
                    RoundMode::HalfAwayFromZero => Rounding::HalfAwayFromZero,
                    RoundMode::ToZero => Rounding::ToZero,
                };
                let decimals = *decimals;
                let input = self.single(inputs)?;
                return self.rounded(node, input, decimals, mode);
            }
            // Polars' `truncate` is its rounding toward zero.
            F::Truncate { decimals } => {
                let input = self.single(inputs)?;
                return self.rounded(node, input, *decimals, Rounding::ToZero);
            }
            _ if let Some(function) = UnaryFunction::of_polars(function) => {
                let input = self.single(inputs)?;
                let dtype = self.dtype(node)?;
                if !function.takes(dtype) {
                    return self.refuse(
                        node,
                        format!(
                            "{} into {dtype} is not supported on the GPU",
                            function.name()
                        ),
                    );
                }
                // (Polars casts integers to f64 first for `sqrt`.)
                ExprKind::Unary {
                    function,
                    input: Box::new(input.cast(dtype, CastMode::NonStrict)),
                }
            }
            F::Pow(IRPowFunction::Generic) => {
                let [base, exponent] = [inputs.first()?.node(), inputs.get(1)?.node()];
                let base = self.expr(base)?;
                let dtype = self.dtype(node)?;
                if matches!(base.dtype, GpuDtype::Decimal(..)) {
                    return self.refuse(node, "pow of decimals (Polars raises its error)");
                }
                // A literal, or a null cast to a type; else an exponent of
                // each row.
                let exponent = match self.literal_value(exponent) {
                    Some(value) => value,
                    None => match self.expr(exponent)? {
                        GpuExpr {
                            kind: ExprKind::Literal(Scalar::Null),
                            ..
                        } => AnyValue::Null,
                        exponent => return self.pow_by(node, base, exponent, dtype),
                    },
                };
                return match pow_exactly(base, exponent, dtype) {
                    Ok(expr) => Some(expr),
                    Err(why) => self.refuse(node, why),
                };
            }
            F::CumSum { reverse } => {
                let input = self.single(inputs)?;
                // Floats: added in Polars' order, row after row (reversed:
                // from the last row, the running sums of the reversed rows
                // reversed back).
                // (Which precision a mixed plan's answer has depends on how
                // Polars' engine holds the input: stress fuzz 23198/29.)
                if matches!(input.dtype, GpuDtype::Decimal(..)) {
                    return self.refuse_whole(
                        node,
                        "cum_sum of decimals: Polars' plan types it as its input, its engine \
                         gives precision 38",
                    );
                }
                if input.dtype.is_float() {
                    let dtype = input.dtype;
                    let reversed = |e: GpuExpr| GpuExpr {
                        kind: ExprKind::Reverse(Box::new(e)),
                        dtype,
                    };
                    let sums = |e: GpuExpr| GpuExpr {
                        kind: ExprKind::CumSum(Box::new(e)),
                        dtype,
                    };
                    return Some(match reverse {
                        false => sums(input),
                        true => reversed(sums(reversed(input))),
                    });
                }
                if !(input.dtype.is_integer() || input.dtype == GpuDtype::Boolean) {
                    return self.refuse(
                        node,
                        format!("cum_sum of {} is not supported on the GPU", input.dtype),
                    );
                }
                if !*reverse {
                    ExprKind::CumSum(Box::new(input))
                } else {
                    // At or after each row: the whole sum, less the sum
                    // before the row. Exact where the whole sum wraps as the
                    // running sums do: in 64-bit types, and for booleans
                    // (counted as u32, which a count never passes).
                    let dtype = self.dtype(node)?;
                    let wraps_alike = matches!(dtype, GpuDtype::Int64 | GpuDtype::UInt64)
                        || input.dtype == GpuDtype::Boolean;
                    if !wraps_alike {
                        return self.refuse(node, format!("reversed cum_sum as {dtype}"));
                    }
                    let this = input.clone().cast(dtype, CastMode::NonStrict);
                    let before = GpuExpr {
                        kind: ExprKind::CumSum(Box::new(input)),
                        dtype,
                    };
                    return Some(from_the_end(before, this));
                }
            }
            F::EwmMean { options } => return self.ewm(node, EwmFunction::Mean, options, inputs),
            F::EwmVar { options } => return self.ewm(node, EwmFunction::Var, options, inputs),
            F::EwmStd { options } => return self.ewm(node, EwmFunction::Std, options, inputs),
            F::Replace => return self.replace(node, inputs, false),
            F::ReplaceStrict { .. } => return self.replace(node, inputs, true),
            F::RollingExpr { function, options } => {
                return self.rolling(node, function, options, inputs);
            }
            F::RollingExprBy {
                function_by,
                options,
            } => return self.rolling_by(node, function_by, options, inputs),
            F::Interpolate(method) => {
                let input = self.single(inputs)?;
                let nearest = *method == polars_ops::series::InterpolationMethod::Nearest;
                let from = input.dtype;
                return match interpolated(input, nearest, self.dtype(node)?) {
                    Some(done) => Some(done),
                    None => self.refuse(
                        node,
                        format!("interpolate of {from} is not supported on the GPU"),
                    ),
                };
            }
            F::PeakMax | F::PeakMin => {
                let input = self.single(inputs)?;
                return self.peak(node, input, matches!(function, F::PeakMax));
            }
            F::CumProd { reverse } => {
                let input = self.single(inputs)?;
                // Multiplied in order, row after row (reversed: from the
                // last row, the running products of the reversed rows
                // reversed back); small integers and booleans as i64, as
                // Polars casts them.
                let dtype = self.dtype(node)?;
                let multiplied = match input.dtype {
                    GpuDtype::Float32 | GpuDtype::Float64 | GpuDtype::Int64 | GpuDtype::UInt64 => {
                        input
                    }
                    GpuDtype::Boolean => input.cast(GpuDtype::Int64, CastMode::NonStrict),
                    small if small.is_integer() && small.decimal_scale().is_none() => {
                        input.cast(GpuDtype::Int64, CastMode::NonStrict)
                    }
                    other => {
                        return self.refuse(
                            node,
                            format!("cum_prod of {other} is not supported on the GPU"),
                        );
                    }
                };
                if multiplied.dtype != dtype {
                    return self.refuse(node, format!("cum_prod into {dtype}"));
                }
                let reversed = |e: GpuExpr| GpuExpr {
                    kind: ExprKind::Reverse(Box::new(e)),
                    dtype,
                };
                let products = |e: GpuExpr| GpuExpr {
                    kind: ExprKind::CumProd(Box::new(e)),
                    dtype,
                };
                return Some(match reverse {
                    false => products(multiplied),
                    true => reversed(products(reversed(multiplied))),
                });
            }
            F::CumMax { reverse } | F::CumMin { reverse } => {
                let reverse = *reverse;
                let input = self.single(inputs)?;
                let minimum = matches!(function, F::CumMin { .. });
                let decimal = matches!(input.dtype, GpuDtype::Decimal(..));
                if !(input.dtype.is_integer() || input.dtype.is_float() || decimal) {
                    let name = if minimum { "cum_min" } else { "cum_max" };
                    return self.refuse(
                        node,
                        format!("{name} of {} is not supported on the GPU", input.dtype),
                    );
                }
                ExprKind::CumExtreme {
                    input: Box::new(input),
                    minimum,
                    reverse,
                }
            }
            F::ArgSort {
                descending,
                nulls_last,
            } => {
                // The rows' places (in the group, per group), sorted stably
                // by the input, as Polars' stable `arg_sort` orders them.
                let dtype = self.dtype(node)?;
                let [input] = inputs else {
                    return self.refuse(node, "arg_sort of several inputs");
                };
                if dtype != GpuDtype::UInt32 {
                    return self.refuse(node, format!("arg_sort as {dtype}"));
                }
                let (input, options) = (
                    input.node(),
                    SortMultipleOptions {
                        descending: vec![*descending],
                        nulls_last: vec![*nulls_last],
                        ..Default::default()
                    },
                );
                let one = GpuExpr::literal(Scalar::UInt(1), dtype);
                let places = places_from_one().binary(BinaryOp::Minus, one, dtype);
                return self.sorted_by_nodes(node, Some(Box::new(places)), &[input], &options);
            }
            F::CumCount { reverse } => {
                // The valid rows at or before each row (at or after it,
                // reversed: all of them less those before it).
                let input = self.single(inputs)?;
                let dtype = self.dtype(node)?;
                if dtype != GpuDtype::UInt32 {
                    return self.refuse(node, format!("cum_count as {dtype}"));
                }
                let valid = input.is_not_null();
                let counted = GpuExpr {
                    kind: ExprKind::CumSum(Box::new(valid.clone())),
                    dtype,
                };
                if !*reverse {
                    return Some(counted);
                }
                return Some(from_the_end(
                    counted,
                    valid.cast(dtype, CastMode::NonStrict),
                ));
            }
            F::FillNullWithStrategy(strategy) => {
                let (forward, limit) = match strategy {
                    FillNullStrategy::Forward(limit) => (true, *limit),
                    FillNullStrategy::Backward(limit) => (false, *limit),
                    other => return self.fill_null_by_value(node, inputs, *other),
                };
                ExprKind::Fill {
                    input: Box::new(self.single(inputs)?),
                    forward,
                    limit: limit.map(u64::from),
                }
            }
            F::ArgMin | F::ArgMax => {
                let op = if matches!(function, F::ArgMin) {
                    AggOp::ArgMin
                } else {
                    AggOp::ArgMax
                };
                // Of a filter's or a slice's rows, the place among them:
                // of each group's kept values as a list.
                let dtype = self.dtype(node)?;
                if let [kept] = inputs
                    && let Some(lowered) = self.of_kept_lists_or_filter(node, kept.node(), dtype)
                {
                    return lowered;
                }
                let input = self.single(inputs)?;
                if !crate::support::arg_extreme_input(input.dtype) {
                    return self.refuse(
                        node,
                        format!("{op} of {} is not supported on the GPU", input.dtype),
                    );
                }
                ExprKind::Agg {
                    op,
                    input: Box::new(input),
                }
            }
            F::Shift => {
                let [input, periods] = [inputs.first()?.node(), inputs.get(1)?.node()];
                let input = self.boxed(input);
                let Some(periods) = self.literal_periods(periods) else {
                    return self.refuse(node, "shift by a count that is not a literal integer");
                };
                ExprKind::Shift {
                    input: input?,
                    periods,
                }
            }
            F::ShiftAndFill => return self.shift_and_fill(node, inputs),
            F::ToPhysical => return self.physical(node, inputs),
            F::RLEID => return self.rle_id(node, inputs),
            // (A group-by's mode as its aggregation: see `implode_as`.)
            F::Mode { .. } => return self.refuse(node, super::aggregations::MODE_ELSEWHERE),
            F::SetSortedFlag(sorted) => return self.set_sorted(node, inputs, *sorted),
            F::Reverse => ExprKind::Reverse(Box::new(self.single(inputs)?)),
            F::Diff(NullBehavior::Ignore) => {
                let [input, n] = [inputs.first()?.node(), inputs.get(1)?.node()];
                let input = self.expr(input)?;
                let Some(n) = self.literal_i64(n) else {
                    return self.refuse(node, "diff by a count that is not a literal integer");
                };
                // Polars widens unsigned integers to signed ones first, then
                // subtracts the shifted values (wrapping).
                let dtype = self.dtype(node)?;
                if !input.dtype.is_numeric() || !dtype.is_numeric() {
                    return self.refuse(node, format!("diff of {}", input.dtype));
                }
                return Some(difference(input.cast(dtype, CastMode::NonStrict), n));
            }
            F::Range(IRRangeFunction::IntRange { step, .. }) => {
                return self.int_range(node, inputs, *step);
            }
            F::Range(IRRangeFunction::IntRanges { .. }) => return self.int_ranges(node, inputs),
            F::Repeat => return self.repeat(node, inputs),
            F::IndexOf => return self.index_of(node, inputs),
            F::PctChange => {
                let [input, n] = [inputs.first()?.node(), inputs.get(1)?.node()];
                let input = self.expr(input)?;
                let Some(n) = self.literal_i64(n) else {
                    return self
                        .refuse(node, "pct_change by a count that is not a literal integer");
                };
                let dtype = self.dtype(node)?;
                let numbers = input.dtype.is_numeric() && input.dtype.decimal_scale().is_none();
                if !(numbers && dtype.is_float()) {
                    return self.refuse(node, format!("pct_change of {}", input.dtype));
                }
                return Some(percent_change(input.cast(dtype, CastMode::NonStrict), n));
            }
            F::Rank { options, seed: _ } => {
                let method = match options.method {
                    PolarsRankMethod::Average => RankMethod::Average,
                    PolarsRankMethod::Min => RankMethod::Min,
                    PolarsRankMethod::Max => RankMethod::Max,
                    PolarsRankMethod::Dense => RankMethod::Dense,
                    PolarsRankMethod::Ordinal => RankMethod::Ordinal,
                    #[allow(unreachable_patterns)]
                    other => {
                        return self.refuse(node, format!("rank by the method {other:?}"));
                    }
                };
                let input = self.single(inputs)?;
                if !(input.dtype.is_numeric()
                    || input.dtype.is_temporal()
                    || matches!(
                        input.dtype,
                        GpuDtype::String | GpuDtype::Boolean | GpuDtype::Decimal(..)
                    ))
                {
                    return self.refuse(node, format!("rank of {}", input.dtype));
                }
                ExprKind::Rank {
                    input: Box::new(input),
                    method,
                    descending: options.descending,
                }
            }
            F::NullCount => {
                let [input] = inputs else {
                    return self.refuse(node, "null_count of several inputs");
                };
                return self.null_count(node, input.node());
            }
            F::MinBy | F::MaxBy => {
                // The input at the first row where `by` is least (greatest),
                // as Polars' arg_min (arg_max) finds it; nulls skipped.
                let [input, by] = self.exactly::<2>(node, inputs)?;
                let dtype = self.dtype(node)?;
                if !(by.dtype.is_integer() || by.dtype.is_temporal()) {
                    return self.refuse(node, format!("{function} by {}", by.dtype));
                }
                let extreme = if matches!(function, F::MinBy) {
                    AggOp::Min {
                        propagate_nans: false,
                    }
                } else {
                    AggOp::Max {
                        propagate_nans: false,
                    }
                };
                let by_dtype = by.dtype;
                let extreme = GpuExpr {
                    kind: ExprKind::Agg {
                        op: extreme,
                        input: Box::new(by.clone()),
                    },
                    dtype: by_dtype,
                };
                let kept = GpuExpr {
                    kind: ExprKind::Where {
                        input: Box::new(input),
                        by: Box::new(by.binary(BinaryOp::Eq, extreme, GpuDtype::Boolean)),
                    },
                    dtype,
                };
                ExprKind::Agg {
                    op: AggOp::First,
                    input: Box::new(kept),
                }
            }
            F::Floor | F::Ceil => {
                let input = self.single(inputs)?;
                if !input.dtype.is_float() && !input.dtype.is_integer() {
                    return self.refuse(
                        node,
                        format!("{function} of {} is not supported on the GPU", input.dtype),
                    );
                }
                let mode = match function {
                    F::Floor => Rounding::Floor,
                    _ => Rounding::Ceil,
                };
                return self.rounded(node, input, 0, mode);
            }
            F::Clip { has_min, has_max } => {
                let mut nodes = inputs.iter().map(ExprIR::node);
                let input = self.expr(nodes.next()?);
                // A bound absent, or a null literal (of any type), does not
                // clip: `None`. Every bound is lowered, so that each reason
                // is reported.
                let mut bounds = Vec::with_capacity(2);
                for present in [*has_min, *has_max] {
                    let node = if present { nodes.next() } else { None };
                    bounds.push(match node {
                        Some(n) if !self.is_null_literal(n) => Some(self.expr(n)),
                        _ => None,
                    });
                }
                let input = input?;
                let dtype = input.dtype;
                // Polars casts each bound to the input's type, strictly: a
                // literal that does not fit raises, whatever the rows.
                let input_type = inputs.first().and_then(|i| self.polars_dtype(i.node()));
                let literals: Vec<AnyValue<'static>> = inputs
                    .iter()
                    .skip(1)
                    .filter_map(|bound| self.literal_value(bound.node()))
                    .collect();
                // A constant computed into a literal: Polars casts its value
                // strictly too, also over no rows, where the device casts
                // each row's.
                let computed_constant = inputs.iter().skip(1).any(|bound| {
                    let n = bound.node();
                    !matches!(self.arena.get(n), AExpr::Literal(_))
                        && is_constant(n, self.arena)
                        && self.polars_dtype(n) != input_type
                });
                if computed_constant {
                    return self.refuse(
                        node,
                        format!(
                            "a constant bound of another type than {dtype} (Polars casts it \
                             strictly, raising where it does not fit, whatever the rows)"
                        ),
                    );
                }
                for value in literals {
                    let scalar = value_dtype(&value)
                        .map(|dtype| polars_core::scalar::Scalar::new(dtype, value.clone()));
                    let fits = input_type.as_ref().is_some_and(|to| {
                        value.is_null()
                            || scalar.is_some_and(|scalar| {
                                scalar.cast_with_options(to, CastOptions::Strict).is_ok()
                            })
                    });
                    if !fits {
                        return self.refuse(
                            node,
                            format!("the bound {value} does not fit {dtype}: Polars raises"),
                        );
                    }
                }
                let mut bounds = bounds.into_iter().map(|bound| {
                    let kind = match bound {
                        None => ExprKind::Literal(Scalar::Null),
                        Some(bound) => {
                            let bound = bound?;
                            if bound.dtype == dtype {
                                return Some(Box::new(bound));
                            }
                            ExprKind::Cast {
                                input: Box::new(bound),
                                mode: CastMode::Strict,
                            }
                        }
                    };
                    Some(Box::new(GpuExpr { kind, dtype }))
                });
                let (lower, upper) = (bounds.next()??, bounds.next()??);
                let decimal = matches!(input.dtype, GpuDtype::Decimal(..));
                if !(input.dtype.is_numeric() || input.dtype.is_temporal() || decimal) {
                    return self.refuse(node, format!("clip of {}", input.dtype));
                }
                ExprKind::Clip {
                    input: Box::new(input),
                    lower,
                    upper,
                }
            }
            F::MaxHorizontal
            | F::MinHorizontal
            | F::SumHorizontal { .. }
            | F::MeanHorizontal { .. } => {
                let dtype = self.dtype(node)?;
                let mut lowered = self.inputs(inputs)?;
                if let (F::MeanHorizontal { .. }, [a, b]) = (function, &mut lowered[..]) {
                    // Polars' plan casts the inputs of the other folds to
                    // one type, not a mean's: it adds its two columns in
                    // their supertype, as `+` of two columns does (a
                    // literal made a column of its own type first: f32 and
                    // `1.0` add in f64; seed 4624).
                    if a.dtype != b.dtype {
                        let supertype =
                            self.materialized_supertype(inputs[0].node(), inputs[1].node());
                        let Some(supertype) = supertype else {
                            return self.refuse(node, format!("{function} of differing types"));
                        };
                        if supertype.is_float() && supertype != dtype {
                            // (f32 and `1.0`: the plan says f32, the engine
                            // gives f64.)
                            return self.refuse(
                                node,
                                format!(
                                    "{function} of {} and {} is not supported on the GPU \
                                     (Polars' plan types it {dtype}, its engine gives \
                                     {supertype})",
                                    a.dtype, b.dtype
                                ),
                            );
                        }
                        for input in [a, b] {
                            *input = input.clone().cast(supertype, CastMode::NonStrict);
                        }
                    }
                }
                if let (F::MinHorizontal | F::MaxHorizontal, [l, r]) = (function, &lowered[..])
                    && dtype.is_float()
                    && l.dtype == dtype
                    && r.dtype == dtype
                {
                    let min = matches!(function, F::MinHorizontal);
                    return self.float_extreme_of_two(node, inputs, min, (l.clone(), r.clone()));
                }
                return match horizontal(function, lowered, dtype) {
                    Ok(expr) => Some(expr),
                    Err(why) => self.refuse(node, why),
                };
            }
            F::Coalesce => {
                let dtype = self.dtype(node)?;
                let mut inputs = self.inputs(inputs)?.into_iter();
                let mut first = inputs.next()?;
                for next in inputs {
                    if first.dtype != dtype || next.dtype != dtype {
                        return self.refuse(node, "coalesce of differing types");
                    }
                    first = GpuExpr {
                        kind: ExprKind::FillNull {
                            input: Box::new(first),
                            value: Box::new(next),
                        },
                        dtype,
                    };
                }
                return Some(first);
            }
            F::Unique(maintain_order) => {
                let maintain_order = *maintain_order;
                ExprKind::Unique {
                    input: Box::new(self.single(inputs)?),
                    maintain_order,
                }
            }
            F::Product => {
                let (dtype, input) = (self.dtype(node)?, inputs.first()?.node());
                // (Of a filter too, `x.filter(p).product()`: of the rows kept.)
                // Integers wrap alike in any order; floats are multiplied
                // in the rows' order, as Polars' loop rounds.
                let product = self.aggregation_of(node, AggOp::Product, input, dtype);
                let input = self.dtype(input)?;
                if !(input.is_integer() || input.is_float() || input == GpuDtype::Boolean) {
                    return self.refuse(
                        node,
                        format!("product of {input} is not supported on the GPU"),
                    );
                }
                return product;
            }
            F::Quantile { method } => {
                let [input, quantile] = inputs else {
                    return self.refuse(node, "quantile without one input and one quantile");
                };
                return self.quantile(node, (input.node(), quantile.node()), *method);
            }
            // Rust takes these from the platform's libm, whose last bit a
            // GPU's may not match: the host computes them (`HostFunction`).
            F::Exp
            | F::Log1p
            | F::Pow(IRPowFunction::Cbrt)
            | F::Log
            | F::Trigonometry(_)
            | F::Atan2
            | F::RoundSF { .. } => {
                return self.on_host(node, function, inputs);
            }
            F::Entropy { base, normalize } => {
                return self.entropy(node, inputs.first()?.node(), (*base, *normalize));
            }
            // (`sum_horizontal` and its kin are the device's.)
            _ if applies_user_function(function) => {
                return self.refuse(
                    node,
                    format!(
                        "{function} applies a user-defined function, which runs on the CPU only \
                         (`sum_horizontal`, `min_horizontal` and their kin run on the GPU)"
                    ),
                );
            }
            F::BinaryExpr { .. }
            | F::Categorical { .. }
            | F::ArgWhere
            | F::Rechunk
            | F::ArgUnique
            | F::AsList
            | F::ValueCounts { .. }
            | F::UniqueCounts
            | F::ConcatExpr { .. }
            | F::RLE
            | F::GatherEvery { .. }
            | F::ExtendConstant
            | F::RowEncode { .. }
            | F::RowDecode { .. }
            | F::DynamicPred { .. } => return self.refuse(node, unsupported(function)),
            // What Polars features this workspace does not enable add (a
            // crate depending on ours may enable them): refused the same way.
            #[allow(unreachable_patterns)]
            _ => return self.refuse(node, unsupported(function)),
        };
        let dtype = self.dtype(node)?;
        Some(GpuExpr { kind, dtype })
    }

    /// Polars' `to_physical`: the values as Polars holds them. Numbers,
    /// booleans and text are their own; temporal values their ticks (a
    /// cast to the integer type, which keeps them); categoricals and enums
    /// their codes (a physical cast to Polars' code type). Decimals (i128)
    /// and nested types of other physical types are refused.
    fn physical(&mut self, node: Node, inputs: &[ExprIR]) -> Lowered {
        let input = self.single(inputs)?;
        let dtype = self.dtype(node)?;
        if dtype == input.dtype {
            return Some(input);
        }
        let mode = match input.dtype {
            GpuDtype::Categorical(_) if dtype.is_unsigned() => CastMode::Physical,
            from if from.is_temporal() && dtype.is_integer() && cast_supported(from, dtype) => {
                CastMode::NonStrict
            }
            from => {
                return self.refuse(
                    node,
                    format!("to_physical of {from} is not supported on the GPU"),
                );
            }
        };
        Some(input.cast(dtype, mode))
    }
}

impl ExprLowering<'_> {
    /// `base` to the power `exponent`, an exponent of each row, at `node`
    /// (of `dtype`, a float: Polars raises integers to integers in their
    /// own type, which overflows, and raises on a negative exponent):
    /// computed on the host ([`HostFunction::PowBy`]), both cast to
    /// `dtype` as Polars casts them. Both inputs row-wise, the exponent
    /// reading a column: Polars then takes the exponent as one value only
    /// where the frame has one row, as the host does.
    fn pow_by(&mut self, node: Node, base: GpuExpr, exponent: GpuExpr, dtype: GpuDtype) -> Lowered {
        let integers = dtype.is_integer() && base.dtype == dtype && exponent.dtype.is_integer();
        if !(HostFunction::takes(dtype) || integers) {
            return self.refuse(
                node,
                format!(
                    "pow of {} by an exponent of {} that is not a literal is not supported on \
                     the GPU",
                    base.dtype, exponent.dtype
                ),
            );
        }
        for taken in [&base, &exponent] {
            if !taken.dtype.is_numeric() || matches!(taken.dtype, GpuDtype::Decimal(..)) {
                return self.refuse(
                    node,
                    format!("pow of {} (Polars raises its error)", taken.dtype),
                );
            }
        }
        if !(base.is_row_wise() && exponent.is_row_wise() && exponent.reads_a_column()) {
            return self.refuse(
                node,
                "pow of a base or by an exponent that is neither a literal nor a value of \
                 each row is not supported on the GPU",
            );
        }
        if integers {
            return Some(integer_power(base, None, Some(exponent), dtype));
        }
        let cast = |e: GpuExpr| Box::new(e.cast(dtype, CastMode::NonStrict));
        Some(GpuExpr {
            kind: ExprKind::OnHost {
                function: HostFunction::PowBy,
                input: cast(base),
                other: Some(cast(exponent)),
            },
            dtype,
        })
    }

    /// `exp`, `log1p`, `cbrt`, `log(base)`, a trigonometric function,
    /// `arctan2` or `round_sig_figs` (`function`, of `inputs`) at `node`: computed on the host
    /// in the type of Polars' result, its inputs cast to it first (as
    /// Polars casts integers, and decimals where it takes them, to f64);
    /// `log`'s base a literal number or a base of each row.
    fn on_host(&mut self, node: Node, function: &IRFunctionExpr, inputs: &[ExprIR]) -> Lowered {
        let function = match HostFunction::of_polars(function) {
            Some(function) => function,
            // `log`: by a literal base, or by a base of each row.
            None => {
                let [_, base] = inputs else {
                    return self.refuse(node, "log without one input and one base");
                };
                match self.constant(base.node()) {
                    Some(base) => match base.extract::<f64>() {
                        Some(base) => HostFunction::Log { base },
                        None => {
                            let why = format!("log by the base {base} is not supported on the GPU");
                            return self.refuse(node, why);
                        }
                    },
                    None => HostFunction::LogBy,
                }
            }
        };
        let input = self.expr(inputs.first()?.node());
        let other = match function.binary() {
            true => Some(self.expr(inputs.get(1)?.node())),
            false => None,
        };
        let (input, other) = match other {
            Some(other) => (input?, Some(other?)),
            None => (input?, None),
        };
        let dtype = self.dtype(node)?;
        if let HostFunction::RoundSigFigs { digits } = function {
            if digits < 1 {
                return self.refuse(
                    node,
                    format!("round_sig_figs to {digits} digits (Polars raises its error)"),
                );
            }
            if !input.dtype.is_float() {
                return self.refuse(
                    node,
                    format!(
                        "round_sig_figs of {} is not supported on the GPU (of floats it is)",
                        input.dtype
                    ),
                );
            }
        }
        for taken in std::iter::once(&input).chain(&other) {
            let decimal = matches!(taken.dtype, GpuDtype::Decimal(..));
            if decimal && !function.of_decimals() {
                return self.refuse(
                    node,
                    format!("{} of decimals (Polars raises its error)", function.name()),
                );
            }
            if !HostFunction::takes(dtype) || !(taken.dtype.is_numeric() || decimal) {
                return self.refuse(
                    node,
                    format!(
                        "{} of {} into {dtype} is not supported on the GPU",
                        function.name(),
                        taken.dtype
                    ),
                );
            }
        }
        let cast = |e: GpuExpr| Box::new(e.cast(dtype, CastMode::NonStrict));
        Some(GpuExpr {
            kind: ExprKind::OnHost {
                function,
                input: cast(input),
                other: other.map(cast),
            },
            dtype,
        })
    }
}
