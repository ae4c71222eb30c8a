//! Programs for the fused expression evaluator (`eval_expression`): built and checked here, run by `Ops::eval`.
//!
//! A program is a stack machine's code: each step pushes or pops 64-bit
//! values with validity (see kernels/cuda/expr.cu). The builder tracks the
//! type of every stack entry, so a finished program is well-formed: no
//! underflow, at most the kernel's stack depth, every operand of the type
//! its step expects, and one value left, of the program's output type.

use crate::error::RuntimeError;

/// The kernel's stack depth.
const MAX_DEPTH: usize = 16;

/// Physical value types (the kernel's numbering).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueType {
    Bool = 0,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    F32,
    F64,
}

impl ValueType {
    pub fn is_float(self) -> bool {
        matches!(self, ValueType::F32 | ValueType::F64)
    }

    pub fn is_integer(self) -> bool {
        !self.is_float() && self != ValueType::Bool
    }

    fn is_signed(self) -> bool {
        matches!(
            self,
            ValueType::I8 | ValueType::I16 | ValueType::I32 | ValueType::I64
        )
    }

    fn bits(self) -> u32 {
        match self {
            ValueType::Bool => 1,
            ValueType::I8 | ValueType::U8 => 8,
            ValueType::I16 | ValueType::U16 => 16,
            ValueType::I32 | ValueType::U32 | ValueType::F32 => 32,
            ValueType::I64 | ValueType::U64 | ValueType::F64 => 64,
        }
    }
}

/// Binary operators (the kernel's numbering), with Polars' semantics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExprBinary {
    Add = 0,
    Sub,
    Mul,
    /// Polars' `/` on integers: floor division; null for a zero divisor.
    Div,
    /// Division in doubles (the result is F64 for integer operands).
    TrueDiv,
    FloorDiv,
    /// Floor modulo: the remainder takes the divisor's sign.
    Mod,
    Eq,
    NotEq,
    Lt,
    LtEq,
    Gt,
    GtEq,
    /// Kleene and on booleans, bitwise on integers.
    And,
    /// Kleene or on booleans, bitwise on integers.
    Or,
    Xor,
    /// Division of floats (true division of integers, giving f64) by a
    /// value broadcast from one row (a literal, a whole-frame aggregation):
    /// as Polars' scalar kernel, the other operand times the divisor's
    /// reciprocal rounded to the type, unless the frame has one row (then,
    /// as for equal lengths, a plain division).
    ScalarDiv,
    /// Floor division of floats by a broadcast value: the floor of
    /// [`ExprBinary::ScalarDiv`]'s quotient.
    ScalarFloorDiv,
    /// Floor modulo of floats by a broadcast value: `x - y * floor(q)` with
    /// [`ExprBinary::ScalarDiv`]'s quotient `q`.
    ScalarMod,
    /// Addition of floats to a broadcast value (the right operand): as
    /// Polars' scalar kernel, the left operand unchanged where the value is
    /// zero (so -0.0 stays), unless the frame has one row.
    ScalarAdd,
    /// Subtraction of a broadcast value (the right operand) from floats: the
    /// left operand unchanged where the value is zero, unless the frame has
    /// one row.
    ScalarSub,
    /// Subtraction of floats from a broadcast value (the left operand): the
    /// right operand negated where the value is zero, unless the frame has
    /// one row.
    ScalarFromSub,
}

const OP_COLUMN: u32 = 1;
const OP_CONST: u32 = 2;
const OP_BINARY: u32 = 3;
const OP_NOT: u32 = 4;
const OP_NEGATE: u32 = 5;
const OP_ABS: u32 = 6;
const OP_IS_NULL: u32 = 7;
const OP_IS_NOT_NULL: u32 = 8;
const OP_CAST: u32 = 9;
const OP_TERNARY: u32 = 10;
const OP_FILL_NULL: u32 = 11;
const OP_ROUND: u32 = 12;
const OP_DATE_PART: u32 = 13;
const OP_FLOAT_CHECK: u32 = 14;
const OP_CAST_CHECKED: u32 = 15;
const OP_DUP: u32 = 16;
const OP_STRICT: u32 = 17;
const OP_CAST_WRAPPING: u32 = 18;
const OP_CLIP: u32 = 19;
const OP_FUNCTION: u32 = 20;
const OP_TRUNCATE_MONTHS: u32 = 21;
const OP_DECIMAL: u32 = 22;
const OP_ADD_MONTHS: u32 = 23;

/// A step of Polars' decimal arithmetic on scaled integers held as i64 (see
/// kernels/cuda/include/decimal.cuh; the kernel's numbering). Each raises the
/// launch's failure flag where Polars' i128 holds a value an i64 does not,
/// or where Polars raises (a zero divisor).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecimalStep {
    /// An integer (or a decimal's scaled integer) divided by 10^`down`,
    /// rounded by `rounding`, then times 10^`up`; null beyond `precision`
    /// digits (`None`: no limit but i64's).
    Rescale {
        down: u32,
        rounding: RoundMode,
        up: u32,
        precision: Option<u32>,
    },
    /// The sum of two decimals of one scale.
    Add,
    /// The difference of two decimals of one scale.
    Sub,
    /// The product of two decimals of `scale`: round(a * b / 10^scale), ties to even.
    Mul { scale: u32 },
    /// The quotient of two decimals of `scale`: round(a * 10^scale / b), ties
    /// to even as Polars rounds.
    Div { scale: u32 },
    /// A decimal of `scale` as a float: its scaled integer, as an f64,
    /// divided by 10^scale (an f64), then rounded to the float type.
    ToFloat { scale: u32 },
    /// A float as a decimal of `precision` digits and `scale`: null unless
    /// its magnitude is below 10^precision (as f64s), else x * 10^scale
    /// rounded to an integer, ties to even; where that leaves the precision
    /// (Polars checks the float, not the scaled value) the flag is raised.
    FromFloat { precision: u32, scale: u32 },
}

impl DecimalStep {
    /// The kernel's number of the step.
    pub fn number(self) -> u32 {
        match self {
            DecimalStep::Rescale { .. } => 0,
            DecimalStep::Add => 1,
            DecimalStep::Sub => 2,
            DecimalStep::Mul { .. } => 3,
            DecimalStep::Div { .. } => 4,
            DecimalStep::ToFloat { .. } => 5,
            DecimalStep::FromFloat { .. } => 6,
        }
    }
}

/// 10^e as Polars' `POW10_F64` holds it: the f64 nearest 10^e (e <= 38).
fn pow10_f64(e: u32) -> f64 {
    10_i128.pow(e) as f64
}

/// What [`ExprProgram::float_check`] tests (the kernel's numbering).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FloatClass {
    Nan = 0,
    NotNan = 1,
    Finite = 2,
    Infinite = 3,
}

/// What [`ExprProgram::date_part`] takes from a date or timestamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum DatePart {
    Year = 0,
    /// 1 to 4.
    Quarter = 1,
    /// 1 to 12.
    Month = 2,
    /// Day of the month, 1 to 31.
    Day = 3,
    /// ISO weekday, Monday = 1 to Sunday = 7.
    Weekday = 4,
    /// Day of the year, 1 to 366.
    OrdinalDay = 5,
    /// ISO week of the ISO year, 1 to 53.
    Week = 6,
    /// Hour of the day, 0 to 23.
    Hour = 7,
    /// Minute of the hour, 0 to 59.
    Minute = 8,
    /// Second of the minute, 0 to 59.
    Second = 9,
    /// Milliseconds of the second, 0 to 999.
    Millisecond = 10,
    /// Microseconds of the second, 0 to 999_999.
    Microsecond = 11,
    /// Nanoseconds of the second, 0 to 999_999_999.
    Nanosecond = 12,
}

/// How [`ExprProgram::round`] breaks ties.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum RoundMode {
    /// Ties to the even neighbour.
    HalfToEven = 0,
    /// Ties away from zero.
    HalfAwayFromZero = 1,
    /// Toward zero (truncation).
    ToZero = 2,
    /// Down (floor).
    Floor = 3,
    /// Up (ceiling).
    Ceil = 4,
}

/// A program under construction; every step checks its operands.
#[derive(Debug, Clone, Default)]
pub struct ExprProgram {
    pub(crate) words: Vec<u32>,
    stack: Vec<ValueType>,
    max_depth: usize,
    /// The type of each input column the program reads, by input number.
    pub(crate) inputs: Vec<Option<ValueType>>,
    /// Whether the program has strict steps ([`Self::strict`]): its launch
    /// needs a flag to raise.
    checks: bool,
    /// Whether the program has decimal steps ([`Self::decimal`]), which
    /// raise the flag too.
    checks_decimals: bool,
}

fn invalid(what: String) -> RuntimeError {
    RuntimeError::InvalidArgument(format!("expression program: {what}"))
}

/// What a program deeper than the kernel's stack fails with.
const TOO_DEEP: &str = "deeper than the kernel's stack";

/// Whether `message` (an error's text) says a program was deeper than the
/// kernel's stack: its parts may still run as programs of their own.
pub fn too_deep(message: &str) -> bool {
    message.contains(TOO_DEEP)
}

impl ExprProgram {
    pub fn new() -> Self {
        Self::default()
    }

    fn push(&mut self, ty: ValueType) -> Result<(), RuntimeError> {
        self.stack.push(ty);
        self.max_depth = self.max_depth.max(self.stack.len());
        if self.max_depth > MAX_DEPTH {
            return Err(invalid(format!("{TOO_DEEP} ({MAX_DEPTH} values)")));
        }
        Ok(())
    }

    fn pop(&mut self, expected: Option<ValueType>) -> Result<ValueType, RuntimeError> {
        let ty = self
            .stack
            .pop()
            .ok_or_else(|| invalid("a step has too few operands".into()))?;
        match expected {
            Some(expected) if expected != ty => {
                Err(invalid(format!("expected {expected:?}, found {ty:?}")))
            }
            _ => Ok(ty),
        }
    }

    /// Pushes row i of input column `input`, of type `ty`.
    pub fn column(&mut self, input: u32, ty: ValueType) -> Result<(), RuntimeError> {
        let slot = input as usize;
        if self.inputs.len() <= slot {
            self.inputs.resize(slot + 1, None);
        }
        match self.inputs[slot] {
            Some(seen) if seen != ty => {
                return Err(invalid(format!(
                    "input {input} read as {seen:?} and {ty:?}"
                )));
            }
            _ => self.inputs[slot] = Some(ty),
        }
        self.words.extend([OP_COLUMN, input, ty as u32]);
        self.push(ty)
    }

    /// Pushes a constant given as its 64-bit slot (see the kernel), or a null.
    pub fn constant(&mut self, ty: ValueType, bits: Option<u64>) -> Result<(), RuntimeError> {
        let value = bits.unwrap_or(0);
        self.words.extend([
            OP_CONST,
            ty as u32,
            value as u32,
            (value >> 32) as u32,
            u32::from(bits.is_some()),
        ]);
        self.push(ty)
    }

    /// Pops two operands of type `operands`, pushes the result.
    pub fn binary(&mut self, op: ExprBinary, operands: ValueType) -> Result<(), RuntimeError> {
        self.pop(Some(operands))?;
        self.pop(Some(operands))?;
        let result = match op {
            ExprBinary::Eq
            | ExprBinary::NotEq
            | ExprBinary::Lt
            | ExprBinary::LtEq
            | ExprBinary::Gt
            | ExprBinary::GtEq => ValueType::Bool,
            ExprBinary::TrueDiv | ExprBinary::ScalarDiv if !operands.is_float() => ValueType::F64,
            ExprBinary::ScalarFloorDiv
            | ExprBinary::ScalarMod
            | ExprBinary::ScalarAdd
            | ExprBinary::ScalarSub
            | ExprBinary::ScalarFromSub
                if !operands.is_float() =>
            {
                return Err(invalid(format!("{op:?} of integers")));
            }
            ExprBinary::And | ExprBinary::Or | ExprBinary::Xor if operands.is_float() => {
                return Err(invalid(format!("{op:?} of floats")));
            }
            _ if operands == ValueType::Bool
                && !matches!(op, ExprBinary::And | ExprBinary::Or | ExprBinary::Xor) =>
            {
                return Err(invalid(format!("{op:?} of booleans")));
            }
            _ => operands,
        };
        self.words.extend([OP_BINARY, op as u32, operands as u32]);
        self.push(result)
    }

    fn unary(&mut self, opcode: u32, ty: ValueType) -> Result<(), RuntimeError> {
        self.pop(Some(ty))?;
        self.words.extend([opcode, ty as u32]);
        self.push(ty)
    }

    /// Kleene not of a boolean, bitwise not of an integer.
    pub fn not(&mut self, ty: ValueType) -> Result<(), RuntimeError> {
        if ty.is_float() {
            return Err(invalid("not of a float".into()));
        }
        self.unary(OP_NOT, ty)
    }

    pub fn negate(&mut self, ty: ValueType) -> Result<(), RuntimeError> {
        if ty == ValueType::Bool {
            return Err(invalid("negating a boolean".into()));
        }
        self.unary(OP_NEGATE, ty)
    }

    pub fn abs(&mut self, ty: ValueType) -> Result<(), RuntimeError> {
        if ty == ValueType::Bool {
            return Err(invalid("abs of a boolean".into()));
        }
        self.unary(OP_ABS, ty)
    }

    /// Replaces the top value, a count of `units_per_day` units since
    /// 1970-01-01 (I32 days for dates, I64 for timestamps), by the first
    /// day (at midnight) of its block of `months` months, the blocks counted
    /// from January 1970: Polars' `dt.truncate` by months.
    pub fn truncate_months(
        &mut self,
        ty: ValueType,
        months: i64,
        units_per_day: i64,
    ) -> Result<(), RuntimeError> {
        if !matches!(ty, ValueType::I32 | ValueType::I64) {
            return Err(invalid(format!("truncation of {ty:?}")));
        }
        if months <= 0 || units_per_day <= 0 {
            return Err(invalid(format!(
                "truncation to {months} months of {units_per_day} units a day"
            )));
        }
        self.pop(Some(ty))?;
        self.words.extend([
            OP_TRUNCATE_MONTHS,
            ty as u32,
            months as u32,
            (months >> 32) as u32,
            units_per_day as u32,
            (units_per_day >> 32) as u32,
        ]);
        self.push(ty)
    }

    /// An I64 timestamp of `units_per_day` ticks a day moved by `months`
    /// whole months (back where negative) as Polars' `dt.offset_by` moves
    /// it: the same time of day and day of the month, the day clamped to
    /// the last of the month it lands in; wrapping beyond i64.
    pub fn add_months(&mut self, months: i64, units_per_day: i64) -> Result<(), RuntimeError> {
        if units_per_day <= 0 {
            return Err(invalid(format!(
                "an offset by months of {units_per_day} units a day"
            )));
        }
        self.pop(Some(ValueType::I64))?;
        self.words.extend([
            OP_ADD_MONTHS,
            months as u32,
            (months >> 32) as u32,
            units_per_day as u32,
            (units_per_day >> 32) as u32,
        ]);
        self.push(ValueType::I64)
    }

    /// The unary function of numbers numbered `function` in the kernel's
    /// `enum Function` (ir-lower's `UnaryFunction`, which says which types
    /// each takes), of a value of type `ty`, giving that type.
    pub fn function(&mut self, function: u32, ty: ValueType) -> Result<(), RuntimeError> {
        if ty == ValueType::Bool {
            return Err(invalid(format!("function {function} of a boolean")));
        }
        self.pop(Some(ty))?;
        self.words.extend([OP_FUNCTION, function, ty as u32]);
        self.push(ty)
    }

    /// Replaces the top value by whether it is null (never null itself).
    pub fn is_null(&mut self, not: bool) -> Result<(), RuntimeError> {
        self.pop(None)?;
        self.words
            .push(if not { OP_IS_NOT_NULL } else { OP_IS_NULL });
        self.push(ValueType::Bool)
    }

    /// Whether every value of `from` has a value of `to` ([`Self::cast`]
    /// takes these; the others need [`Self::cast_checked`]).
    pub fn cast_keeps_values(from: ValueType, to: ValueType) -> bool {
        from == to
            || to.is_float()
            || to == ValueType::Bool
            || (from == ValueType::Bool && to.is_integer())
            || (from.is_integer()
                && to.is_integer()
                && (from.is_signed() == to.is_signed() && to.bits() >= from.bits()
                    || !from.is_signed() && to.is_signed() && to.bits() > from.bits()))
    }

    /// Casts the top value. Only casts that keep every value are allowed:
    /// to floats, to booleans, and integers to integers as wide or wider
    /// (unsigned to a strictly wider signed type).
    pub fn cast(&mut self, from: ValueType, to: ValueType) -> Result<(), RuntimeError> {
        if !Self::cast_keeps_values(from, to) {
            return Err(invalid(format!(
                "cast from {from:?} to {to:?} may lose values"
            )));
        }
        self.pop(Some(from))?;
        self.words.extend([OP_CAST, from as u32, to as u32]);
        self.push(to)
    }

    /// Casts the top value, an integer or a float, to an integer type that
    /// may not hold it: a float is truncated toward zero, and a value out of
    /// `to`'s range (or NaN) becomes null, as Polars' non-strict cast does.
    pub fn cast_checked(&mut self, from: ValueType, to: ValueType) -> Result<(), RuntimeError> {
        if !to.is_integer() || from == ValueType::Bool {
            return Err(invalid(format!("a checked cast from {from:?} to {to:?}")));
        }
        self.pop(Some(from))?;
        self.words.extend([OP_CAST_CHECKED, from as u32, to as u32]);
        self.push(to)
    }

    /// Casts the top value, an integer or a float, to an integer type as
    /// Rust's `as` does (Polars' overflowing cast): integers wrap around;
    /// floats are truncated toward zero and saturate at `to`'s range, NaN
    /// giving 0.
    pub fn cast_wrapping(&mut self, from: ValueType, to: ValueType) -> Result<(), RuntimeError> {
        if !to.is_integer() || from == ValueType::Bool {
            return Err(invalid(format!("a wrapping cast from {from:?} to {to:?}")));
        }
        self.pop(Some(from))?;
        self.words
            .extend([OP_CAST_WRAPPING, from as u32, to as u32]);
        self.push(to)
    }

    /// Pops an upper and a lower bound, then clips the value below them
    /// (all `ty`) as Polars' `clip`: below `lower` it becomes `lower`, else
    /// above `upper` it becomes `upper`; a null bound does not clip, and
    /// floats compare as IEEE numbers (NaN neither clips nor is clipped).
    pub fn clip(&mut self, ty: ValueType) -> Result<(), RuntimeError> {
        if ty == ValueType::Bool {
            return Err(invalid("clip of booleans".into()));
        }
        for _ in 0..3 {
            self.pop(Some(ty))?;
        }
        self.words.extend([OP_CLIP, ty as u32]);
        self.push(ty)
    }

    /// Pushes a copy of the top value.
    pub fn dup(&mut self) -> Result<(), RuntimeError> {
        let ty = *self
            .stack
            .last()
            .ok_or_else(|| invalid("dup of an empty stack".into()))?;
        self.words.push(OP_DUP);
        self.push(ty)
    }

    /// Pops a result (`ty`) and the value it was computed from (below it,
    /// of any type), and pushes the result back; where the value is valid
    /// and the result null, the launch raises its failure flag (see
    /// [`crate::ops::Ops::eval`]). Polars' strict cast is `dup`, the cast,
    /// `strict`.
    pub fn strict(&mut self, ty: ValueType) -> Result<(), RuntimeError> {
        self.pop(Some(ty))?;
        self.pop(None)?;
        self.words.push(OP_STRICT);
        self.checks = true;
        self.push(ty)
    }

    /// Whether the program checks values ([`Self::strict`],
    /// [`Self::decimal`]), so that its launch needs a failure flag.
    pub fn checks_values(&self) -> bool {
        self.checks || self.checks_decimals
    }

    /// Whether the program has [`Self::strict`] steps.
    pub fn checks_strictly(&self) -> bool {
        self.checks
    }

    /// Whether the program has [`Self::decimal`] steps.
    pub fn checks_decimals(&self) -> bool {
        self.checks_decimals
    }

    /// A step of decimal arithmetic (see [`DecimalStep`]). `Add`, `Sub`,
    /// `Mul` and `Div` pop two I64 decimals of one scale; `Rescale` replaces
    /// an integer of type `from` (a decimal is I64) by an I64 decimal;
    /// `ToFloat` an I64 decimal by a float of type `to`; `FromFloat` a float of
    /// type `from` by an I64 decimal.
    pub fn decimal(
        &mut self,
        step: DecimalStep,
        from: ValueType,
        to: ValueType,
    ) -> Result<(), RuntimeError> {
        let bits = |x: f64| [x.to_bits() as u32, (x.to_bits() >> 32) as u32];
        let mut words = vec![OP_DECIMAL, step.number()];
        let (operands, input, output) = match step {
            DecimalStep::Add | DecimalStep::Sub => (2, ValueType::I64, ValueType::I64),
            DecimalStep::Mul { scale } | DecimalStep::Div { scale } => {
                if scale > 38 {
                    return Err(invalid(format!("decimal scale {scale}")));
                }
                words.push(scale);
                (2, ValueType::I64, ValueType::I64)
            }
            DecimalStep::Rescale {
                down,
                rounding,
                up,
                precision,
            } => {
                if !from.is_integer() || up > 38 || down > 38 || precision.is_some_and(|p| p > 18) {
                    return Err(invalid(format!("a decimal rescale {step:?} of {from:?}")));
                }
                words.extend([
                    from as u32,
                    down,
                    rounding as u32,
                    up,
                    precision.unwrap_or(0),
                ]);
                (1, from, ValueType::I64)
            }
            DecimalStep::ToFloat { scale } => {
                if !to.is_float() || scale > 38 {
                    return Err(invalid(format!("a decimal of scale {scale} as {to:?}")));
                }
                words.extend(bits(pow10_f64(scale)));
                words.push(to as u32);
                (1, ValueType::I64, to)
            }
            DecimalStep::FromFloat { precision, scale } => {
                if !from.is_float() || precision > 38 || scale > precision {
                    return Err(invalid(format!("a decimal {step:?} of {from:?}")));
                }
                words.push(from as u32);
                words.extend(bits(pow10_f64(scale)));
                words.extend(bits(pow10_f64(precision)));
                (1, from, ValueType::I64)
            }
        };
        for _ in 0..operands {
            self.pop(Some(input))?;
        }
        self.words.extend(words);
        self.checks_decimals = true;
        self.push(output)
    }

    /// Pops falsy, truthy (both `ty`) and a boolean predicate; pushes the pick.
    pub fn ternary(&mut self, ty: ValueType) -> Result<(), RuntimeError> {
        self.pop(Some(ty))?;
        self.pop(Some(ty))?;
        self.pop(Some(ValueType::Bool))?;
        self.words.push(OP_TERNARY);
        self.push(ty)
    }

    /// Pops a fill value; replaces the (now) top value by it where that is null.
    pub fn fill_null(&mut self, ty: ValueType) -> Result<(), RuntimeError> {
        self.pop(Some(ty))?;
        self.pop(Some(ty))?;
        self.words.push(OP_FILL_NULL);
        self.push(ty)
    }

    /// Replaces the top value, a float, by whether it is of `class` (a
    /// boolean; null stays null).
    pub fn float_check(&mut self, class: FloatClass, ty: ValueType) -> Result<(), RuntimeError> {
        if !ty.is_float() {
            return Err(invalid(format!("a float test of {ty:?}")));
        }
        self.pop(Some(ty))?;
        self.words.extend([OP_FLOAT_CHECK, class as u32, ty as u32]);
        self.push(ValueType::Bool)
    }

    /// Rounds the top value (a float64) to `decimals` places as Polars
    /// does: `round(x * 10^decimals) / 10^decimals`, `x` itself where that
    /// is not finite. Up to 299 places (Polars splits the multiplier beyond).
    pub fn round(&mut self, mode: RoundMode, decimals: u32) -> Result<(), RuntimeError> {
        if decimals >= 300 {
            return Err(invalid(format!("rounding to {decimals} places")));
        }
        self.pop(Some(ValueType::F64))?;
        // The same multiplier Polars computes, so the same results.
        let multiplier = 10.0_f64.powi(decimals as i32).to_bits();
        self.words.extend([
            OP_ROUND,
            mode as u32,
            decimals,
            multiplier as u32,
            (multiplier >> 32) as u32,
        ]);
        self.push(ValueType::F64)
    }

    /// Replaces the top value, a count of `units_per_day` units since
    /// 1970-01-01 (`from`: I32 days for dates, I64 for timestamps), by
    /// `part` of its day in the proleptic Gregorian calendar, as `to`.
    pub fn date_part(
        &mut self,
        part: DatePart,
        from: ValueType,
        units_per_day: u64,
        to: ValueType,
    ) -> Result<(), RuntimeError> {
        if !matches!(from, ValueType::I32 | ValueType::I64) {
            return Err(invalid(format!("date part of {from:?}")));
        }
        if !to.is_integer() || !to.is_signed() {
            return Err(invalid(format!("date part as {to:?}")));
        }
        if units_per_day == 0 || i64::try_from(units_per_day).is_err() {
            return Err(invalid(format!("{units_per_day} units per day")));
        }
        self.pop(Some(from))?;
        self.words.extend([
            OP_DATE_PART,
            part as u32,
            from as u32,
            units_per_day as u32,
            (units_per_day >> 32) as u32,
            to as u32,
        ]);
        self.push(to)
    }

    /// The type of the program's result, once it leaves exactly one value.
    pub fn output(&self) -> Result<ValueType, RuntimeError> {
        match self.stack.as_slice() {
            [ty] => Ok(*ty),
            other => Err(invalid(format!("leaves {} values, not one", other.len()))),
        }
    }
}

/// The 64-bit slot of a constant, as the kernel reads it.
pub fn slot_of_int(value: i64, ty: ValueType) -> u64 {
    let bits = value as u64;
    match ty.bits() {
        8 if ty.is_signed() => bits as i8 as i64 as u64,
        16 if ty.is_signed() => bits as i16 as i64 as u64,
        32 if ty.is_signed() => bits as i32 as i64 as u64,
        8 => bits & 0xff,
        16 => bits & 0xffff,
        32 => bits & 0xffff_ffff,
        _ => bits,
    }
}

/// The 64-bit slot of a float constant of type `ty` (F32 or F64).
pub fn slot_of_float(value: f64, ty: ValueType) -> u64 {
    if ty == ValueType::F32 {
        u64::from((value as f32).to_bits())
    } else {
        value.to_bits()
    }
}

#[cfg(test)]
mod kernel_numbers;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_are_typed_as_they_are_built() {
        let mut p = ExprProgram::new();
        p.column(0, ValueType::I32).unwrap();
        p.constant(ValueType::I32, Some(slot_of_int(-1, ValueType::I32)))
            .unwrap();
        p.binary(ExprBinary::Add, ValueType::I32).unwrap();
        p.constant(ValueType::I32, None).unwrap();
        p.binary(ExprBinary::Lt, ValueType::I32).unwrap();
        assert_eq!(p.output().unwrap(), ValueType::Bool);

        let mut p = ExprProgram::new();
        p.column(0, ValueType::I32).unwrap();
        assert!(
            p.binary(ExprBinary::Add, ValueType::I32).is_err(),
            "one operand short"
        );
        let mut p = ExprProgram::new();
        p.column(0, ValueType::I32).unwrap();
        p.column(1, ValueType::I64).unwrap();
        assert!(
            p.binary(ExprBinary::Add, ValueType::I64).is_err(),
            "operand types differ"
        );
        let mut p = ExprProgram::new();
        p.column(0, ValueType::I32).unwrap();
        assert!(p.column(0, ValueType::F64).is_err(), "one input, two types");
    }

    #[test]
    fn only_value_preserving_casts_and_bounded_depth() {
        let cast = |from, to| {
            let mut p = ExprProgram::new();
            p.column(0, from).unwrap();
            p.cast(from, to).is_ok()
        };
        assert!(cast(ValueType::I32, ValueType::I64));
        assert!(cast(ValueType::U32, ValueType::I64));
        assert!(cast(ValueType::I64, ValueType::F64));
        assert!(cast(ValueType::Bool, ValueType::I8));
        assert!(!cast(ValueType::I64, ValueType::I32));
        assert!(!cast(ValueType::U32, ValueType::I32));
        assert!(!cast(ValueType::I8, ValueType::U64));
        assert!(!cast(ValueType::F64, ValueType::I64));

        let mut p = ExprProgram::new();
        for i in 0..MAX_DEPTH as u32 {
            p.column(i, ValueType::F64).unwrap();
        }
        let error = p.column(99, ValueType::F64).unwrap_err();
        assert!(too_deep(&error.to_string()), "{error}");
        assert!(p.output().is_err(), "more than one value left");
    }

    #[test]
    fn strict_steps_need_the_value_below_and_mark_the_program() {
        let mut p = ExprProgram::new();
        assert!(p.dup().is_err(), "dup of nothing");
        p.column(0, ValueType::I64).unwrap();
        p.dup().unwrap();
        p.cast_checked(ValueType::I64, ValueType::I8).unwrap();
        assert!(!p.checks_values());
        assert!(p.strict(ValueType::I64).is_err(), "the result is an i8");
        let mut p = ExprProgram::new();
        p.column(0, ValueType::F64).unwrap();
        p.dup().unwrap();
        p.cast_checked(ValueType::F64, ValueType::U8).unwrap();
        p.strict(ValueType::U8).unwrap();
        assert!(p.checks_values());
        assert_eq!(p.output().unwrap(), ValueType::U8);
        let mut p = ExprProgram::new();
        p.column(0, ValueType::U8).unwrap();
        assert!(p.strict(ValueType::U8).is_err(), "nothing below the result");
        assert!(p.cast_wrapping(ValueType::U8, ValueType::F32).is_err());
    }

    #[test]
    fn constants_are_sign_extended_like_the_kernel_loads() {
        assert_eq!(slot_of_int(-1, ValueType::I8), u64::MAX);
        assert_eq!(slot_of_int(-1, ValueType::U8), 0xff);
        assert_eq!(slot_of_int(300, ValueType::U8), 44);
        assert_eq!(
            slot_of_float(1.5, ValueType::F32),
            u64::from(1.5f32.to_bits())
        );
    }

    #[test]
    fn rounding_and_date_parts_check_their_operands() {
        let float = || {
            let mut p = ExprProgram::new();
            p.column(0, ValueType::F64).unwrap();
            p
        };
        assert!(float().round(RoundMode::HalfToEven, 299).is_ok());
        assert!(float().round(RoundMode::ToZero, 300).is_err());
        let mut ints = ExprProgram::new();
        ints.column(0, ValueType::I64).unwrap();
        assert!(ints.round(RoundMode::HalfToEven, 2).is_err());

        let part = |from, per_day, to| {
            let mut p = ExprProgram::new();
            p.column(0, from).unwrap();
            p.date_part(DatePart::Year, from, per_day, to)
        };
        assert!(part(ValueType::I32, 1, ValueType::I32).is_ok());
        assert!(part(ValueType::I64, 86_400_000, ValueType::I8).is_ok());
        assert!(part(ValueType::F64, 1, ValueType::I32).is_err());
        assert!(part(ValueType::I32, 1, ValueType::U32).is_err());
        assert!(part(ValueType::I64, 0, ValueType::I32).is_err());
        assert!(part(ValueType::I64, u64::MAX, ValueType::I32).is_err());
    }
}
