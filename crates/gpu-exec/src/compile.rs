//! Compiling GPU expressions into programs for the fused evaluator: one launch per expression.

mod decimal;

use gpu_runtime::expr::{
    DatePart, ExprBinary, ExprProgram, FloatClass, RoundMode, ValueType, slot_of_float, slot_of_int,
};
use ir_lower::{
    BinaryOp, CastMode, ExprKind, FloatCheck, GpuDtype, GpuExpr, Held, Rounding, Scalar,
    TemporalPart, TimeUnit, Truncation,
};

/// Whether casting `from` to `to` is a cast of the physical values: not
/// between two different temporal types, where Polars converts units
/// (days to microseconds, milliseconds to nanoseconds, ...).
fn keeps_meaning(from: GpuDtype, to: GpuDtype) -> bool {
    from == to || !(from.is_temporal() && to.is_temporal())
}

/// How a cast between temporal types converts units, as Polars does: the
/// physical value is multiplied (to a finer unit; dates count days; null on
/// overflow) or divided (to a coarser one; datetimes round down, durations
/// toward zero) by the ratio: (finer, ratio). `None` for casts Polars does
/// not convert that way (between datetimes and durations, or times).
fn unit_conversion(from: GpuDtype, to: GpuDtype) -> Option<(bool, i64)> {
    let ticks = |dtype| match dtype {
        GpuDtype::Date => Some((0, 1)),
        GpuDtype::Datetime(unit) | GpuDtype::ZonedDatetime(unit, _) => Some((0, unit.per_day())),
        GpuDtype::Duration(unit) => Some((1, unit.per_day())),
        // A time converts as a duration in nanoseconds (to durations only:
        // lowering takes a datetime's time of day itself).
        GpuDtype::Time => Some((1, TimeUnit::Nanoseconds.per_day())),
        _ => None,
    };
    let ((from_kind, from_ticks), (to_kind, to_ticks)) = (ticks(from)?, ticks(to)?);
    if from_kind != to_kind {
        return None;
    }
    if to_ticks >= from_ticks {
        Some((true, to_ticks / from_ticks))
    } else {
        Some((false, from_ticks / to_ticks))
    }
}

/// The evaluator's type for a column type; `None` for strings, lists and
/// structs.
pub(crate) fn value_type(dtype: GpuDtype) -> Option<ValueType> {
    Some(match dtype {
        // (Null: booleans all null.)
        GpuDtype::Boolean | GpuDtype::Null => ValueType::Bool,
        GpuDtype::Int8 => ValueType::I8,
        GpuDtype::Int16 => ValueType::I16,
        GpuDtype::Int32 | GpuDtype::Date => ValueType::I32,
        GpuDtype::Int64
        | GpuDtype::Datetime(_)
        | GpuDtype::Duration(_)
        | GpuDtype::Time
        | GpuDtype::ZonedDatetime(..)
        | GpuDtype::Decimal(..) => ValueType::I64,
        GpuDtype::UInt8 => ValueType::U8,
        GpuDtype::UInt16 => ValueType::U16,
        GpuDtype::UInt32 => ValueType::U32,
        GpuDtype::UInt64 => ValueType::U64,
        GpuDtype::Float32 => ValueType::F32,
        GpuDtype::Float64 => ValueType::F64,
        GpuDtype::Categorical(_) => ValueType::U32,
        GpuDtype::String | GpuDtype::List(_) | GpuDtype::Struct(_) => return None,
    })
}

/// The groups of a launch whose expression reads values held per group
/// ([`Held::PerGroup`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct GroupShape {
    /// The input column (u32) of each row's group length, where the
    /// expression needs it ([`reads_group_lengths`]).
    pub lengths: Option<usize>,
    /// Whether all rows are one group.
    pub one_group: bool,
}

/// A compiled expression: the program, and the frame column behind each of its inputs.
#[derive(Debug)]
pub(crate) struct Compiled {
    pub program: ExprProgram,
    pub columns: Vec<usize>,
    groups: Option<GroupShape>,
}

/// Compiles `expr`, or says why the evaluator cannot run it. `groups`
/// describes the groups whose values `expr` reads as [`Held::PerGroup`].
pub(crate) fn compile(expr: &GpuExpr, groups: Option<GroupShape>) -> Result<Compiled, String> {
    let mut compiled = Compiled {
        program: ExprProgram::new(),
        columns: Vec::new(),
        groups,
    };
    emit(expr, &mut compiled)?;
    let out = compiled.program.output().map_err(|e| e.to_string())?;
    if Some(out) != value_type(expr.dtype) {
        return Err(format!("its result would be {out:?}, not {}", expr.dtype));
    }
    Ok(compiled)
}

fn value_type_of(expr: &GpuExpr) -> Result<ValueType, String> {
    value_type(expr.dtype).ok_or_else(|| format!("text: `{expr}`"))
}

fn step(result: Result<(), gpu_runtime::RuntimeError>) -> Result<(), String> {
    result.map_err(|e| e.to_string())
}

/// Emits a read of input column `index`.
fn emit_column(index: usize, ty: ValueType, out: &mut Compiled) -> Result<(), String> {
    let slot = match out.columns.iter().position(|c| *c == index) {
        Some(slot) => slot,
        None => {
            out.columns.push(index);
            out.columns.len() - 1
        }
    };
    step(out.program.column(slot as u32, ty))
}

/// Which operand of a binary operation Polars holds at one row and so
/// takes as a scalar, with kernels of its own.
#[derive(Debug, Clone, Copy, PartialEq)]
struct ScalarOperand {
    /// None, the left or the right operand.
    side: Option<Side>,
    /// Whether it is each group's value: a scalar within groups of several
    /// rows, row by row in a group of one. Otherwise a value of one row,
    /// where the kernel computes row by row when the launch has one row, as
    /// Polars does when both sides have one.
    per_group: bool,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Side {
    Left,
    Right,
}

fn scalar_operand(left: &GpuExpr, right: &GpuExpr, groups: Option<GroupShape>) -> ScalarOperand {
    // Polars computes the groups' values, one per group, with a scalar row
    // by row when there is one group.
    let many_groups = groups.is_some_and(|g| !g.one_group);
    let (side, per_group) = match (held(left), held(right)) {
        (Held::PerRow, Held::Once) => (Some(Side::Right), false),
        (Held::Once, Held::PerRow) => (Some(Side::Left), false),
        (Held::PerGroup, Held::Once) if many_groups => (Some(Side::Right), false),
        (Held::Once, Held::PerGroup) if many_groups => (Some(Side::Left), false),
        (Held::PerRow, Held::PerGroup) => (Some(Side::Right), true),
        (Held::PerGroup, Held::PerRow) => (Some(Side::Left), true),
        _ => (None, false),
    };
    ScalarOperand { side, per_group }
}

/// The evaluator's operation for Polars' scalar kernel of `op`, where it
/// differs from the row-by-row one, and whether it takes the operands
/// swapped. Those of floats: a division, floor division or modulo by a
/// scalar goes by its reciprocal; adding a scalar zero, or subtracting
/// one, returns the other operand unchanged (keeping -0.0); subtracting
/// from a scalar zero negates. True division of integers goes by the
/// reciprocal too.
fn scalar_kernel(
    op: BinaryOp,
    operands: ValueType,
    scalar: ScalarOperand,
) -> Option<(ExprBinary, bool)> {
    let floats = operands.is_float();
    Some(match (op, scalar.side?) {
        (BinaryOp::TrueDivide, Side::Right) => (ExprBinary::ScalarDiv, false),
        (_, _) if !floats => return None,
        (BinaryOp::Divide, Side::Right) => (ExprBinary::ScalarDiv, false),
        (BinaryOp::FloorDivide, Side::Right) => (ExprBinary::ScalarFloorDiv, false),
        (BinaryOp::Modulus, Side::Right) => (ExprBinary::ScalarMod, false),
        (BinaryOp::Plus, Side::Right) => (ExprBinary::ScalarAdd, false),
        (BinaryOp::Plus, Side::Left) => (ExprBinary::ScalarAdd, true),
        (BinaryOp::Minus, Side::Right) => (ExprBinary::ScalarSub, false),
        (BinaryOp::Minus, Side::Left) => (ExprBinary::ScalarFromSub, false),
        _ => return None,
    })
}

/// Whether `expr` takes values of each group as scalars where Polars'
/// scalar kernels differ (see [`scalar_kernel`]): its launch must read
/// each row's group length ([`GroupShape::lengths`]).
pub(crate) fn reads_group_lengths(expr: &GpuExpr) -> bool {
    let mut found = false;
    expr.visit(&mut |e| {
        if let ExprKind::Binary { op, left, right } = &e.kind
            && let Some(operands) = value_type(left.dtype)
        {
            let scalar = scalar_operand(left, right, None);
            found |= scalar.per_group && scalar_kernel(*op, operands, scalar).is_some();
        }
    });
    found
}

/// Whether `expr` computes otherwise over a frame of one row than over a
/// part of a larger frame: a binary operation with a value of one row
/// that Polars' scalar kernels compute in their own way ([`scalar_kernel`])
/// where the value makes a difference: adding or subtracting a literal
/// zero, dividing by a literal other than a power of two (whose reciprocal
/// is exact), or any value of one row that is not a literal. (The
/// partitioned executor keeps such expressions from frames of one row
/// that are parts of larger ones.)
pub(crate) fn reads_one_row_scalars(expr: &GpuExpr) -> bool {
    let mut found = false;
    expr.visit(&mut |e| {
        let ExprKind::Binary { op, left, right } = &e.kind else {
            return;
        };
        let Some(operands) = value_type(left.dtype) else {
            return;
        };
        let scalar = scalar_operand(left, right, None);
        let (Some(side), Some((kernel, _))) = (scalar.side, scalar_kernel(*op, operands, scalar))
        else {
            return;
        };
        let value = match side {
            Side::Left => left,
            Side::Right => right,
        };
        let literal = match &value.kind {
            ExprKind::Literal(Scalar::Null) => return,
            ExprKind::Literal(Scalar::Float(v)) => Some(*v),
            ExprKind::Literal(Scalar::Int(v)) => Some(*v as f64),
            ExprKind::Literal(Scalar::UInt(v)) => Some(*v as f64),
            _ => None,
        };
        found |= match (kernel, literal) {
            (_, None) => true,
            (
                ExprBinary::ScalarAdd | ExprBinary::ScalarSub | ExprBinary::ScalarFromSub,
                Some(v),
            ) => v == 0.0,
            (_, Some(v)) => !exact_reciprocal(v),
        };
    });
    found
}

/// Whether `v` is a power of two whose reciprocal is a normal number of
/// either float type (so that multiplying by it divides exactly).
fn exact_reciprocal(v: f64) -> bool {
    const MANTISSA: u64 = (1 << 52) - 1;
    let v = v.abs();
    v.is_normal() && v.to_bits() & MANTISSA == 0 && (2f64.powi(-125)..=2f64.powi(125)).contains(&v)
}

/// How many values Polars holds for `expr`: literals once, columns as
/// marked, and other expressions as the most of their inputs.
fn held(expr: &GpuExpr) -> Held {
    match &expr.kind {
        ExprKind::Literal(_) => Held::Once,
        ExprKind::Column { held, .. } => *held,
        _ => expr
            .children()
            .into_iter()
            .map(held)
            .max()
            .unwrap_or(Held::PerRow),
    }
}

fn emit(expr: &GpuExpr, out: &mut Compiled) -> Result<(), String> {
    let ty = value_type_of(expr)?;
    match &expr.kind {
        ExprKind::Column { index, held, .. } => {
            if *held == Held::PerGroup && out.groups.is_none() {
                return Err(format!("`{expr}` is a value of each group, outside groups"));
            }
            emit_column(*index, ty, out)
        }
        ExprKind::Literal(value) => {
            let bits = match value {
                Scalar::Null => None,
                Scalar::Boolean(b) => Some(u64::from(*b)),
                Scalar::Float(f) if ty.is_float() => Some(slot_of_float(*f, ty)),
                Scalar::Int(v) | Scalar::Datetime(v) | Scalar::Duration(v) | Scalar::Time(v)
                    if ty.is_float() =>
                {
                    Some(slot_of_float(*v as f64, ty))
                }
                Scalar::Int(v) | Scalar::Datetime(v) | Scalar::Duration(v) | Scalar::Time(v) => {
                    Some(slot_of_int(*v, ty))
                }
                Scalar::UInt(v) if ty.is_float() => Some(slot_of_float(*v as f64, ty)),
                Scalar::UInt(v) => Some(slot_of_int(*v as i64, ty)),
                Scalar::Date(d) => Some(slot_of_int(i64::from(*d), ty)),
                other => return Err(format!("the literal {other} of type {}", expr.dtype)),
            };
            step(out.program.constant(ty, bits))
        }
        ExprKind::Binary { op, left, right } if decimal::of_decimals(&[left, right]) => {
            decimal::emit_binary(expr, *op, left, right, out)
        }
        ExprKind::Cast { input, mode } if decimal::of_decimals(&[input, expr]) => {
            decimal::emit_cast(expr, input, *mode, out)
        }
        ExprKind::Round {
            input,
            decimals,
            mode,
        } if decimal::of_decimals(&[input]) => decimal::emit_round(input, *decimals, *mode, out),
        ExprKind::Binary { op, left, right } => {
            let operands = value_type_of(left)?;
            if left.dtype != right.dtype {
                return Err(format!(
                    "operands of types {} and {}",
                    left.dtype, right.dtype
                ));
            }
            let plain = match op {
                BinaryOp::Plus => ExprBinary::Add,
                BinaryOp::Minus => ExprBinary::Sub,
                BinaryOp::Multiply => ExprBinary::Mul,
                BinaryOp::Divide => ExprBinary::Div,
                BinaryOp::TrueDivide => ExprBinary::TrueDiv,
                BinaryOp::FloorDivide => ExprBinary::FloorDiv,
                BinaryOp::Modulus => ExprBinary::Mod,
                BinaryOp::Eq => ExprBinary::Eq,
                BinaryOp::NotEq => ExprBinary::NotEq,
                BinaryOp::Lt => ExprBinary::Lt,
                BinaryOp::LtEq => ExprBinary::LtEq,
                BinaryOp::Gt => ExprBinary::Gt,
                BinaryOp::GtEq => ExprBinary::GtEq,
                BinaryOp::And => ExprBinary::And,
                BinaryOp::Or => ExprBinary::Or,
                BinaryOp::Xor => ExprBinary::Xor,
                // ir-lower writes these as a choice between null tests and
                // the plain comparison.
                BinaryOp::EqMissing | BinaryOp::NotEqMissing => {
                    return Err("null-aware equality, not lowered to null tests".into());
                }
            };
            let emit_op = |op: ExprBinary, swapped: bool, out: &mut Compiled| {
                let (first, second) = if swapped {
                    (right, left)
                } else {
                    (left, right)
                };
                emit(first, out)?;
                emit(second, out)?;
                step(out.program.binary(op, operands))
            };
            let scalar = scalar_operand(left, right, out.groups);
            match scalar_kernel(*op, operands, scalar) {
                None => emit_op(plain, false, out),
                Some((op, swapped)) if !scalar.per_group => emit_op(op, swapped, out),
                Some((op, swapped)) => {
                    // Row by row where the row is alone in its group.
                    let lengths = out.groups.and_then(|g| g.lengths).ok_or_else(|| {
                        format!("`{expr}` takes values of each group of unknown lengths as scalars")
                    })?;
                    emit_column(lengths, ValueType::U32, out)?;
                    step(out.program.constant(ValueType::U32, Some(1)))?;
                    step(out.program.binary(ExprBinary::Eq, ValueType::U32))?;
                    emit_op(plain, false, out)?;
                    emit_op(op, swapped, out)?;
                    step(out.program.ternary(ty))
                }
            }
        }
        ExprKind::Not(input) => {
            emit(input, out)?;
            step(out.program.not(value_type_of(input)?))
        }
        ExprKind::Negate(input) => {
            emit(input, out)?;
            step(out.program.negate(value_type_of(input)?))
        }
        ExprKind::Abs(input) => {
            emit(input, out)?;
            step(out.program.abs(value_type_of(input)?))
        }
        ExprKind::Truncate { input, every } => {
            let per_day = match input.dtype {
                GpuDtype::Date => 1,
                GpuDtype::Datetime(unit) => unit.per_day(),
                other => return Err(format!("truncation of {other}")),
            };
            let constant = |out: &mut Compiled, v: i64| {
                if ty == ValueType::I32 && i32::try_from(v).is_err() {
                    return Err(format!("truncation by {v} days"));
                }
                step(out.program.constant(ty, Some(slot_of_int(v, ty))))
            };
            match *every {
                Truncation::Fixed(0) => emit(input, out),
                // x - (x mod every), the modulo floored: Polars' fast path.
                Truncation::Fixed(units) => {
                    emit(input, out)?;
                    emit(input, out)?;
                    constant(out, units)?;
                    step(out.program.binary(ExprBinary::Mod, ty))?;
                    step(out.program.binary(ExprBinary::Sub, ty))
                }
                // Weeks start on Monday, four days after 1970-01-01.
                Truncation::Weeks(weeks) => {
                    let block = weeks
                        .checked_mul(7 * per_day)
                        .ok_or_else(|| format!("truncation to {weeks} weeks"))?;
                    emit(input, out)?;
                    emit(input, out)?;
                    constant(out, 4 * per_day)?;
                    step(out.program.binary(ExprBinary::Sub, ty))?;
                    constant(out, block)?;
                    step(out.program.binary(ExprBinary::Mod, ty))?;
                    step(out.program.binary(ExprBinary::Sub, ty))
                }
                Truncation::Months(months) => {
                    emit(input, out)?;
                    step(out.program.truncate_months(ty, months, per_day))
                }
            }
        }
        ExprKind::OffsetMonths { input, months } => {
            let GpuDtype::Datetime(unit) = input.dtype else {
                return Err(format!("an offset by months of {}", input.dtype));
            };
            emit(input, out)?;
            step(out.program.add_months(*months, unit.per_day()))
        }
        ExprKind::Unary { function, input } => {
            emit(input, out)?;
            step(
                out.program
                    .function(*function as u32, value_type_of(input)?),
            )
        }
        ExprKind::Round {
            input,
            decimals,
            mode,
        } => {
            let mode = match mode {
                Rounding::HalfToEven => RoundMode::HalfToEven,
                Rounding::HalfAwayFromZero => RoundMode::HalfAwayFromZero,
                Rounding::ToZero => RoundMode::ToZero,
                Rounding::Floor => RoundMode::Floor,
                Rounding::Ceil => RoundMode::Ceil,
            };
            // (ir-lower rounds f32 through f64, and returns integers.)
            if input.dtype != GpuDtype::Float64 {
                return Err(format!("rounding {}", input.dtype));
            }
            emit(input, out)?;
            step(out.program.round(mode, *decimals))
        }
        ExprKind::Clip {
            input,
            lower,
            upper,
        } => {
            emit(input, out)?;
            emit(lower, out)?;
            emit(upper, out)?;
            step(out.program.clip(ty))
        }
        ExprKind::Temporal { part, input } => {
            let units_per_day: u64 = match input.dtype {
                GpuDtype::Date => 1,
                GpuDtype::Datetime(unit) => unit.per_day() as u64,
                // Nanoseconds since midnight: a datetime's time of day.
                GpuDtype::Time => TimeUnit::Nanoseconds.per_day() as u64,
                other => return Err(format!("{part} of {other}")),
            };
            let part = match part {
                TemporalPart::Year => DatePart::Year,
                TemporalPart::Quarter => DatePart::Quarter,
                TemporalPart::Month => DatePart::Month,
                TemporalPart::Day => DatePart::Day,
                TemporalPart::Weekday => DatePart::Weekday,
                TemporalPart::OrdinalDay => DatePart::OrdinalDay,
                TemporalPart::Week => DatePart::Week,
                TemporalPart::Hour => DatePart::Hour,
                TemporalPart::Minute => DatePart::Minute,
                TemporalPart::Second => DatePart::Second,
                TemporalPart::Millisecond => DatePart::Millisecond,
                TemporalPart::Microsecond => DatePart::Microsecond,
                TemporalPart::Nanosecond => DatePart::Nanosecond,
            };
            emit(input, out)?;
            step(
                out.program
                    .date_part(part, value_type_of(input)?, units_per_day, ty),
            )
        }
        ExprKind::IsNull(input) | ExprKind::IsNotNull(input) => {
            emit(input, out)?;
            step(
                out.program
                    .is_null(matches!(expr.kind, ExprKind::IsNotNull(_))),
            )
        }
        ExprKind::FloatCheck { check, input } => {
            emit(input, out)?;
            let class = match check {
                FloatCheck::IsNan => FloatClass::Nan,
                FloatCheck::IsNotNan => FloatClass::NotNan,
                FloatCheck::IsFinite => FloatClass::Finite,
                FloatCheck::IsInfinite => FloatClass::Infinite,
            };
            step(out.program.float_check(class, value_type_of(input)?))
        }
        ExprKind::Cast { input, mode } if !keeps_meaning(input.dtype, expr.dtype) => {
            let refused = || format!("a cast from {} to {}", input.dtype, expr.dtype);
            let (finer, ratio) = unit_conversion(input.dtype, expr.dtype).ok_or_else(refused)?;
            let from = value_type_of(input)?;
            const I64: ValueType = ValueType::I64;
            // The input in i64 (dates widen exactly); emitted once per use.
            let value = |out: &mut Compiled| -> Result<(), String> {
                emit(input, out)?;
                step(out.program.cast(from, I64))
            };
            let constant = |out: &mut Compiled, v: i64| {
                step(out.program.constant(I64, Some(slot_of_int(v, I64))))
            };
            let binary = |out: &mut Compiled, op| step(out.program.binary(op, I64));
            // A strict cast fails where a value becomes null: the input is
            // kept below the conversion for `strict` to compare.
            let strict =
                *mode == CastMode::Strict && (finer || !ExprProgram::cast_keeps_values(I64, ty));
            if strict {
                emit(input, out)?;
            }
            if finer {
                // Polars multiplies checked: null where the product overflows.
                value(out)?;
                constant(out, i64::MIN / ratio)?;
                binary(out, ExprBinary::GtEq)?;
                value(out)?;
                constant(out, i64::MAX / ratio)?;
                binary(out, ExprBinary::LtEq)?;
                step(out.program.binary(ExprBinary::And, ValueType::Bool))?;
                value(out)?;
                constant(out, ratio)?;
                binary(out, ExprBinary::Mul)?;
                step(out.program.constant(I64, None))?;
                step(out.program.ternary(I64))?;
            } else {
                // Datetimes (and dates from them) divide rounding down,
                // durations toward zero: the floor quotient, plus one where
                // a negative value does not divide evenly.
                value(out)?;
                constant(out, ratio)?;
                binary(out, ExprBinary::FloorDiv)?;
                if matches!(input.dtype, GpuDtype::Duration(_)) {
                    value(out)?;
                    constant(out, 0)?;
                    binary(out, ExprBinary::Lt)?;
                    value(out)?;
                    constant(out, ratio)?;
                    binary(out, ExprBinary::Mod)?;
                    constant(out, 0)?;
                    binary(out, ExprBinary::NotEq)?;
                    step(out.program.binary(ExprBinary::And, ValueType::Bool))?;
                    step(out.program.cast(ValueType::Bool, I64))?;
                    binary(out, ExprBinary::Add)?;
                }
            }
            // A day count from i64 ticks always fits i32.
            if ExprProgram::cast_keeps_values(I64, ty) {
                step(out.program.cast(I64, ty))?;
            } else {
                step(out.program.cast_checked(I64, ty))?;
            }
            if strict {
                step(out.program.strict(ty))?;
            }
            Ok(())
        }
        // Integers to times of day, as Polars casts them: to i64 (in the
        // cast's mode), then null outside a day's nanoseconds; a strict
        // cast fails where a value becomes null.
        ExprKind::Cast { input, mode }
            if expr.dtype == GpuDtype::Time && input.dtype.is_integer() =>
        {
            const I64: ValueType = ValueType::I64;
            let from = value_type_of(input)?;
            let value = |out: &mut Compiled| -> Result<(), String> {
                emit(input, out)?;
                if ExprProgram::cast_keeps_values(from, I64) {
                    step(out.program.cast(from, I64))
                } else if *mode == CastMode::Wrapping {
                    step(out.program.cast_wrapping(from, I64))
                } else {
                    step(out.program.cast_checked(from, I64))
                }
            };
            let constant = |out: &mut Compiled, v: Option<i64>| {
                step(out.program.constant(I64, v.map(|v| slot_of_int(v, I64))))
            };
            let strict = *mode == CastMode::Strict;
            if strict {
                emit(input, out)?;
            }
            value(out)?;
            constant(out, Some(0))?;
            step(out.program.binary(ExprBinary::GtEq, I64))?;
            value(out)?;
            constant(out, Some(TimeUnit::Nanoseconds.per_day()))?;
            step(out.program.binary(ExprBinary::Lt, I64))?;
            step(out.program.binary(ExprBinary::And, ValueType::Bool))?;
            value(out)?;
            constant(out, None)?;
            step(out.program.ternary(I64))?;
            if strict {
                step(out.program.strict(ty))?;
            }
            Ok(())
        }
        ExprKind::Cast { input, mode } => {
            let from = value_type_of(input)?;
            emit(input, out)?;
            if ExprProgram::cast_keeps_values(from, ty) {
                return step(out.program.cast(from, ty));
            }
            match mode {
                CastMode::NonStrict => step(out.program.cast_checked(from, ty)),
                // Null where the value does not fit, and the launch's
                // failure flag raised there: the query then fails over to
                // Polars, which raises its error.
                CastMode::Strict => {
                    step(out.program.dup())?;
                    step(out.program.cast_checked(from, ty))?;
                    step(out.program.strict(ty))
                }
                CastMode::Wrapping => step(out.program.cast_wrapping(from, ty)),
                // A categorical's codes (Polars' `to_physical`), which fit
                // the code type of its categories.
                CastMode::Physical if matches!(input.dtype, GpuDtype::Categorical(_)) => {
                    step(out.program.cast_wrapping(from, ty))
                }
                CastMode::Physical => Err(format!("a physical cast from {from:?} to {ty:?}")),
            }
        }
        ExprKind::Ternary {
            predicate,
            truthy,
            falsy,
        } => {
            emit(predicate, out)?;
            emit(truthy, out)?;
            emit(falsy, out)?;
            step(out.program.ternary(ty))
        }
        ExprKind::FillNull { input, value } => {
            emit(input, out)?;
            emit(value, out)?;
            step(out.program.fill_null(ty))
        }
        _ => Err(format!(
            "`{expr}` is not an elementwise expression the evaluator runs"
        )),
    }
}
