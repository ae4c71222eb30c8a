//! Decimal arithmetic, comparisons and casts compiled for the evaluator: Polars' rules (polars-compute's decimal.rs) on the scaled integers the device holds as i64.

use gpu_runtime::expr::{DecimalStep, ExprBinary, ExprProgram, RoundMode, ValueType};
use ir_lower::{BinaryOp, CastMode, GpuDtype, GpuExpr, Rounding};

use super::{Compiled, emit, step, value_type_of};

const I64: ValueType = ValueType::I64;

/// Whether any of `exprs` is a decimal.
pub(super) fn of_decimals(exprs: &[&GpuExpr]) -> bool {
    exprs
        .iter()
        .any(|e| matches!(e.dtype, GpuDtype::Decimal(..)))
}

/// The scale of a decimal.
fn scale_of(expr: &GpuExpr) -> Result<u32, String> {
    match expr.dtype {
        GpuDtype::Decimal(_, scale) => Ok(scale.into()),
        other => Err(format!(
            "`{expr}` of type {other} where a decimal is expected"
        )),
    }
}

/// A precision the evaluator checks (up to 18 digits); beyond, every i64
/// fits and the steps check i64's range instead.
fn checked_precision(precision: u8) -> Option<u32> {
    (precision <= 18).then_some(precision.into())
}

/// Emits the decimal `expr` at `scale` (at least its own): multiplied by
/// the power of ten between them, flagged where that leaves i64.
fn emit_at_scale(expr: &GpuExpr, scale: u32, out: &mut Compiled) -> Result<(), String> {
    let own = scale_of(expr)?;
    emit(expr, out)?;
    if scale > own {
        let up = DecimalStep::Rescale {
            down: 0,
            rounding: RoundMode::HalfToEven,
            up: scale - own,
            precision: None,
        };
        step(out.program.decimal(up, I64, I64))?;
    }
    Ok(())
}

/// `left op right` of two decimals, as Polars: both at the larger scale
/// first; sums, differences, products and quotients of that scale
/// (precision 38), comparisons by value.
pub(super) fn emit_binary(
    expr: &GpuExpr,
    op: BinaryOp,
    left: &GpuExpr,
    right: &GpuExpr,
    out: &mut Compiled,
) -> Result<(), String> {
    let scale = scale_of(left)?.max(scale_of(right)?);
    let comparison = match op {
        BinaryOp::Eq => Some(ExprBinary::Eq),
        BinaryOp::NotEq => Some(ExprBinary::NotEq),
        BinaryOp::Lt => Some(ExprBinary::Lt),
        BinaryOp::LtEq => Some(ExprBinary::LtEq),
        BinaryOp::Gt => Some(ExprBinary::Gt),
        BinaryOp::GtEq => Some(ExprBinary::GtEq),
        _ => None,
    };
    let arithmetic = match op {
        BinaryOp::Plus => Some(DecimalStep::Add),
        BinaryOp::Minus => Some(DecimalStep::Sub),
        BinaryOp::Multiply => Some(DecimalStep::Mul { scale }),
        BinaryOp::Divide | BinaryOp::TrueDivide => Some(DecimalStep::Div { scale }),
        _ => None,
    };
    if comparison.is_none() && (arithmetic.is_none() || scale_of(expr)? != scale) {
        return Err(format!("`{expr}` of decimals"));
    }
    emit_at_scale(left, scale, out)?;
    emit_at_scale(right, scale, out)?;
    match (comparison, arithmetic) {
        (Some(comparison), _) => step(out.program.binary(comparison, I64)),
        (None, Some(arithmetic)) => step(out.program.decimal(arithmetic, I64, I64)),
        (None, None) => Err(format!("`{expr}` of decimals")),
    }
}

/// A cast from or to a decimal, as Polars casts: between decimals rescaled
/// (rounding ties to even) and null beyond the precision; to integers
/// rounded (ties to even), null where the type does not hold the value; to
/// floats divided by the power of ten; from integers multiplied, from
/// floats rounded, null beyond the precision. A strict cast raises the
/// launch's flag where a value became null.
pub(super) fn emit_cast(
    expr: &GpuExpr,
    input: &GpuExpr,
    mode: CastMode,
    out: &mut Compiled,
) -> Result<(), String> {
    let (from, to) = (value_type_of(input)?, value_type_of(expr)?);
    let refused = || format!("a cast from {} to {}", input.dtype, expr.dtype);
    // Lowering refuses wrapping casts of decimals: the executor's own (its
    // results wrapped back to their type) take the scaled integers.
    if matches!(mode, CastMode::Physical | CastMode::Wrapping) {
        return match from == I64 && to == I64 {
            true => emit(input, out),
            false => Err(refused()),
        };
    }
    let strict = mode == CastMode::Strict;
    if strict {
        emit(input, out)?;
    }
    emit(input, out)?;
    match (input.dtype, expr.dtype) {
        (GpuDtype::Decimal(_, from_scale), GpuDtype::Decimal(precision, scale)) => {
            let rescale = DecimalStep::Rescale {
                down: from_scale.saturating_sub(scale).into(),
                rounding: RoundMode::HalfToEven,
                up: scale.saturating_sub(from_scale).into(),
                precision: checked_precision(precision),
            };
            step(out.program.decimal(rescale, I64, I64))?;
        }
        (GpuDtype::Decimal(_, scale), _) if to.is_float() => {
            let scale = scale.into();
            step(out.program.decimal(DecimalStep::ToFloat { scale }, I64, to))?;
        }
        (GpuDtype::Decimal(_, scale), _) if to.is_integer() => {
            let rounded = DecimalStep::Rescale {
                down: scale.into(),
                rounding: RoundMode::HalfToEven,
                up: 0,
                precision: None,
            };
            step(out.program.decimal(rounded, I64, I64))?;
            if ExprProgram::cast_keeps_values(I64, to) {
                step(out.program.cast(I64, to))?;
            } else {
                step(out.program.cast_checked(I64, to))?;
            }
        }
        (_, GpuDtype::Decimal(precision, scale)) if from.is_integer() => {
            let scaled = DecimalStep::Rescale {
                down: 0,
                rounding: RoundMode::HalfToEven,
                up: scale.into(),
                precision: checked_precision(precision),
            };
            step(out.program.decimal(scaled, from, I64))?;
        }
        (_, GpuDtype::Decimal(precision, scale)) if from.is_float() => {
            let (precision, scale) = (precision.into(), scale.into());
            let rounded = DecimalStep::FromFloat { precision, scale };
            step(out.program.decimal(rounded, from, I64))?;
        }
        _ => return Err(refused()),
    }
    if strict {
        step(out.program.strict(to))?;
    }
    Ok(())
}

/// Polars' `round` of a decimal to `decimals` places (by `mode`): the value
/// at its scale, rounded to a multiple of the power of ten between them.
pub(super) fn emit_round(
    input: &GpuExpr,
    decimals: u32,
    mode: Rounding,
    out: &mut Compiled,
) -> Result<(), String> {
    let scale = scale_of(input)?;
    emit(input, out)?;
    if decimals >= scale {
        return Ok(());
    }
    let rounding = match mode {
        Rounding::HalfToEven => RoundMode::HalfToEven,
        Rounding::HalfAwayFromZero => RoundMode::HalfAwayFromZero,
        Rounding::ToZero => RoundMode::ToZero,
        Rounding::Floor => RoundMode::Floor,
        Rounding::Ceil => RoundMode::Ceil,
    };
    let places = scale - decimals;
    let rounded = DecimalStep::Rescale {
        down: places,
        rounding,
        up: places,
        precision: None,
    };
    step(out.program.decimal(rounded, I64, I64))
}
