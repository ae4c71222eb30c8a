//! Functions of floats whose last bit is the platform's libm's (`exp`, `log`, `log1p`, `cbrt`, `pow`, the trigonometric functions, `arctan2`, `round_sig_figs`), and powers of integers: computed on the host between device steps, bit for bit as Polars' engine computes them.
//!
//! Rust takes these from the platform's libm, which rounds correctly in
//! nearly all cases only: a GPU's (CUDA's own, within an ulp or two) may
//! differ in the last bit. The executor downloads the input column, applies
//! the very Rust function Polars applies ([`HostFunction::apply_f64`],
//! [`HostFunction::apply_f32`]) and uploads the values, keeping the rest of
//! the plan on the device. Adding one touches this file alone (and a line
//! of `docs/operations.md`); lowering, notation, the executor, the parity
//! test and the fuzzer's grammar read [`HostFunction::ALL`].

use polars::prelude::{Expr, lit};
use polars_plan::plans::{IRFunctionExpr, IRPowFunction, IRTrigonometricFunction as Trig};

use crate::dtype::GpuDtype;

/// `function` of `x` (and `other`, the second input of `arctan2` and of
/// `log` by a base of the rows), floats of either width, by Rust's method
/// of that width (`narrow` casts a literal base or exponent to it).
macro_rules! applied {
    ($function:expr, $x:expr, $other:expr, $narrow:expr) => {
        match $function {
            HostFunction::Exp => $x.exp(),
            HostFunction::Log1p => $x.ln_1p(),
            HostFunction::Cbrt => $x.cbrt(),
            HostFunction::Log { base } => $x.log($narrow(base)),
            HostFunction::LogBy => $x.log($other),
            HostFunction::Pow { exponent } => $x.powf($narrow(exponent)),
            // (Of floats, which the executor never hands it: a power.)
            HostFunction::PowBy | HostFunction::IntPow { .. } => $x.powf($other),
            HostFunction::Sin => $x.sin(),
            HostFunction::Cos => $x.cos(),
            HostFunction::Tan => $x.tan(),
            HostFunction::Cot => $x.tan().powi(-1),
            HostFunction::ArcSin => $x.asin(),
            HostFunction::ArcCos => $x.acos(),
            HostFunction::ArcTan => $x.atan(),
            HostFunction::Sinh => $x.sinh(),
            HostFunction::Cosh => $x.cosh(),
            HostFunction::Tanh => $x.tanh(),
            HostFunction::ArcSinh => $x.asinh(),
            HostFunction::ArcCosh => $x.acosh(),
            HostFunction::ArcTanh => $x.atanh(),
            HostFunction::Degrees => $x.to_degrees(),
            HostFunction::Radians => $x.to_radians(),
            HostFunction::Arctan2 => $x.atan2($other),
            // (In f64 whatever the width, as Polars computes it.)
            HostFunction::RoundSigFigs { digits } => $narrow(round_sig_figs(f64::from($x), digits)),
        }
    };
}

/// A function of floats that the host computes (see the module).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum HostFunction {
    /// `exp`: e to the value.
    Exp,
    /// `log1p`: the natural logarithm of one plus the value.
    Log1p,
    /// `cbrt`: the cube root.
    Cbrt,
    /// `log(base)`: Rust's `x.log(base)`, `x.ln() / base.ln()` (the base
    /// cast to the result's type first, as Polars casts it).
    Log {
        base: f64,
    },
    /// `log(base)` by a base of each row (the part's `other`), both cast
    /// to the result's type: null where either is.
    LogBy,
    /// `pow(exponent)` of floats by a literal exponent Polars hands to
    /// `powf` (the exponent cast to the result's type first, as Polars
    /// casts it; the exponents it computes otherwise, by multiplication or
    /// `sqrt`, are the evaluator's).
    Pow {
        exponent: f64,
    },
    /// `pow` by an exponent of each row (the part's `other`; both inputs
    /// row-wise, cast to the result's type, a float): Polars' `powf` of
    /// each row, but over a frame of one row, where it takes the exponent
    /// as one value and computes it as by a literal ([`HostFunction::apply_alone_f64`]).
    PowBy,
    /// `pow` of integers by integers: Polars casts the exponent to u32
    /// (raising on a negative one) and raises the base to it in the base's
    /// own type, wrapping on overflow (as its release build does). The host
    /// computes `wrapping_pow` in 64 bits and keeps the low `bits`
    /// (sign-extended where `signed`): the same value, as integers of
    /// `bits` are those of 64 modulo 2^`bits`. The input and the result are
    /// i64 (u64 for u64), the `exponent` a literal Polars takes by its own
    /// loop (above 10), or, where `None`, the part's `other` (of each row,
    /// cast to u32 first, strictly, then to the input's type).
    IntPow {
        bits: u8,
        signed: bool,
        exponent: Option<u32>,
    },
    /// `sin`, `cos`, `tan`, `cot` (`tan` to the power -1, as Polars takes
    /// it), their inverses `arcsin`, `arccos`, `arctan`, the hyperbolic
    /// functions and their inverses, `degrees` and `radians`: Rust's
    /// functions of the same names.
    Sin,
    Cos,
    Tan,
    Cot,
    ArcSin,
    ArcCos,
    ArcTan,
    Sinh,
    Cosh,
    Tanh,
    ArcSinh,
    ArcCosh,
    ArcTanh,
    Degrees,
    Radians,
    /// `arctan2(y, x)` of the input (`y`) and a second expression (`x`,
    /// the part's `other`), both cast to the result's type: null where
    /// either is.
    Arctan2,
    /// `round_sig_figs(digits)` of floats (digits at least 1): Polars'
    /// rounding of the value in f64 to that many significant digits (by
    /// its `log10`), narrowed back to the column's type. Of integers and
    /// decimals, which Polars keeps as their own types, it is not the
    /// host's ([`HostFunction::of_numbers`]).
    RoundSigFigs {
        digits: i32,
    },
}

impl HostFunction {
    /// One of each function (the logarithm of base 10, the power 2.5), for
    /// the parity test and the fuzzer's grammar.
    pub const ALL: [HostFunction; 24] = [
        HostFunction::Exp,
        HostFunction::Log1p,
        HostFunction::Cbrt,
        HostFunction::Log { base: 10.0 },
        HostFunction::LogBy,
        HostFunction::Pow { exponent: 2.5 },
        HostFunction::PowBy,
        HostFunction::Sin,
        HostFunction::Cos,
        HostFunction::Tan,
        HostFunction::Cot,
        HostFunction::ArcSin,
        HostFunction::ArcCos,
        HostFunction::ArcTan,
        HostFunction::Sinh,
        HostFunction::Cosh,
        HostFunction::Tanh,
        HostFunction::ArcSinh,
        HostFunction::ArcCosh,
        HostFunction::ArcTanh,
        HostFunction::Degrees,
        HostFunction::Radians,
        HostFunction::Arctan2,
        HostFunction::RoundSigFigs { digits: 2 },
    ];

    /// Polars' name of the function: its method on an expression.
    pub fn name(self) -> &'static str {
        match self {
            HostFunction::Exp => "exp",
            HostFunction::Log1p => "log1p",
            HostFunction::Cbrt => "cbrt",
            HostFunction::Log { .. } | HostFunction::LogBy => "log",
            HostFunction::Pow { .. } | HostFunction::PowBy | HostFunction::IntPow { .. } => "pow",
            HostFunction::Sin => "sin",
            HostFunction::Cos => "cos",
            HostFunction::Tan => "tan",
            HostFunction::Cot => "cot",
            HostFunction::ArcSin => "arcsin",
            HostFunction::ArcCos => "arccos",
            HostFunction::ArcTan => "arctan",
            HostFunction::Sinh => "sinh",
            HostFunction::Cosh => "cosh",
            HostFunction::Tanh => "tanh",
            HostFunction::ArcSinh => "arcsinh",
            HostFunction::ArcCosh => "arccosh",
            HostFunction::ArcTanh => "arctanh",
            HostFunction::Degrees => "degrees",
            HostFunction::Radians => "radians",
            HostFunction::Arctan2 => "arctan2",
            HostFunction::RoundSigFigs { .. } => "round_sig_figs",
        }
    }

    /// The function Polars' optimized plan holds as `function`, if any
    /// (`log` and `pow`, of a literal, are lowered with it).
    pub fn of_polars(function: &IRFunctionExpr) -> Option<HostFunction> {
        match function {
            IRFunctionExpr::Exp => Some(HostFunction::Exp),
            IRFunctionExpr::Log1p => Some(HostFunction::Log1p),
            IRFunctionExpr::Pow(IRPowFunction::Cbrt) => Some(HostFunction::Cbrt),
            IRFunctionExpr::Trigonometry(function) => Some(match function {
                Trig::Sin => HostFunction::Sin,
                Trig::Cos => HostFunction::Cos,
                Trig::Tan => HostFunction::Tan,
                Trig::Cot => HostFunction::Cot,
                Trig::ArcSin => HostFunction::ArcSin,
                Trig::ArcCos => HostFunction::ArcCos,
                Trig::ArcTan => HostFunction::ArcTan,
                Trig::Sinh => HostFunction::Sinh,
                Trig::Cosh => HostFunction::Cosh,
                Trig::Tanh => HostFunction::Tanh,
                Trig::ArcSinh => HostFunction::ArcSinh,
                Trig::ArcCosh => HostFunction::ArcCosh,
                Trig::ArcTanh => HostFunction::ArcTanh,
                Trig::Degrees => HostFunction::Degrees,
                Trig::Radians => HostFunction::Radians,
            }),
            IRFunctionExpr::Atan2 => Some(HostFunction::Arctan2),
            IRFunctionExpr::RoundSF { digits } => {
                Some(HostFunction::RoundSigFigs { digits: *digits })
            }
            _ => None,
        }
    }

    /// Whether Polars takes decimals (as f64) for the function; it raises
    /// on decimals for the others (its trigonometry but `arctan2` takes
    /// numbers of its primitive types only, its `pow` bases too).
    pub fn of_decimals(self) -> bool {
        matches!(
            self,
            HostFunction::Exp
                | HostFunction::Log1p
                | HostFunction::Cbrt
                | HostFunction::Log { .. }
                | HostFunction::LogBy
                | HostFunction::Arctan2
        )
    }

    /// Whether the host computes the function of integers and decimals too
    /// (Polars casts them to f64 first): not `round_sig_figs`, whose
    /// result Polars keeps in the input's type.
    pub fn of_numbers(self) -> bool {
        !matches!(self, HostFunction::RoundSigFigs { .. })
    }

    /// Whether the host computes the function into `dtype`, the type of
    /// Polars' result (its input is cast to it first, as Polars casts
    /// integers and decimals to f64).
    pub fn takes(dtype: GpuDtype) -> bool {
        matches!(dtype, GpuDtype::Float32 | GpuDtype::Float64)
    }

    /// Whether the host computes this function into `dtype`: floats
    /// ([`HostFunction::takes`]), and for a power of integers the 64-bit
    /// integers it computes in.
    pub fn computes(self, dtype: GpuDtype) -> bool {
        match self {
            HostFunction::IntPow { .. } => matches!(dtype, GpuDtype::Int64 | GpuDtype::UInt64),
            _ => HostFunction::takes(dtype),
        }
    }

    /// Whether the function reads a second input (`arctan2`, `log` by a
    /// base of the rows, `pow` by an exponent of the rows).
    pub fn binary(self) -> bool {
        matches!(
            self,
            HostFunction::Arctan2
                | HostFunction::LogBy
                | HostFunction::PowBy
                | HostFunction::IntPow { exponent: None, .. }
        )
    }

    /// The function of an integer held in 64 bits (and `other`, an
    /// exponent of the row), as Polars' engine computes it: for
    /// [`HostFunction::IntPow`], the power, wrapped to the base's width;
    /// the value itself for the functions of floats.
    pub fn apply_u64(self, x: u64, other: u64) -> u64 {
        let HostFunction::IntPow {
            bits,
            signed,
            exponent,
        } = self
        else {
            return x;
        };
        // (The exponent fits u32: Polars' cast of it, made strictly.)
        let power = x.wrapping_pow(exponent.unwrap_or(other as u32));
        if bits >= 64 {
            return power;
        }
        let low = power & ((1u64 << bits) - 1);
        let sign = 1u64 << (bits - 1);
        match signed && low & sign != 0 {
            true => low | !((1u64 << bits) - 1),
            false => low,
        }
    }

    /// The function of an f64 (and `other`, read by the [binary] ones
    /// alone), as Polars' engine computes it.
    ///
    /// [binary]: HostFunction::binary
    pub fn apply_f64(self, x: f64, other: f64) -> f64 {
        applied!(self, x, other, |literal: f64| literal)
    }

    /// The function of an f32 (and `other`), as Polars' engine computes it
    /// (in f32, its literal base or exponent cast to f32 first).
    pub fn apply_f32(self, x: f32, other: f32) -> f32 {
        applied!(self, x, other, |literal: f64| literal as f32)
    }

    /// The function of an f64 in a frame of one row, as Polars' engine
    /// computes it there: [`HostFunction::apply_f64`]'s, but for `pow` by
    /// an exponent of the row, which Polars takes as one value then (as it
    /// takes a literal): the base itself for 1, its `sqrt` for 0.5, its
    /// product with itself for the whole exponents from 2 to 9, else `powf`.
    pub fn apply_alone_f64(self, x: f64, other: f64) -> f64 {
        match self {
            HostFunction::PowBy => power_of_one(x, other, f64::sqrt, f64::powf),
            _ => self.apply_f64(x, other),
        }
    }

    /// [`HostFunction::apply_alone_f64`] of an f32, in f32.
    pub fn apply_alone_f32(self, x: f32, other: f32) -> f32 {
        match self {
            HostFunction::PowBy => power_of_one(x, other, f32::sqrt, f32::powf),
            _ => self.apply_f32(x, other),
        }
    }

    /// The function applied to `input` in Polars' DSL (for tests and the
    /// fuzzer's grammar; `arctan2` of the input and 1 less than it, `log`
    /// by 1 more than it, `pow` by 0.5 less than it).
    pub fn of(self, input: Expr) -> Expr {
        match self {
            HostFunction::Exp => input.exp(),
            HostFunction::Log1p => input.log1p(),
            HostFunction::Cbrt => input.cbrt(),
            HostFunction::Log { base } => input.log(lit(base)),
            HostFunction::LogBy => input.clone().log(input + lit(1)),
            HostFunction::Pow { exponent } => input.pow(lit(exponent)),
            HostFunction::PowBy => input.clone().pow(input - lit(0.5)),
            HostFunction::IntPow {
                exponent: Some(exponent),
                ..
            } => input.pow(lit(exponent)),
            HostFunction::IntPow { .. } => input.clone().pow(input.abs()),
            HostFunction::Sin => input.sin(),
            HostFunction::Cos => input.cos(),
            HostFunction::Tan => input.tan(),
            HostFunction::Cot => input.cot(),
            HostFunction::ArcSin => input.arcsin(),
            HostFunction::ArcCos => input.arccos(),
            HostFunction::ArcTan => input.arctan(),
            HostFunction::Sinh => input.sinh(),
            HostFunction::Cosh => input.cosh(),
            HostFunction::Tanh => input.tanh(),
            HostFunction::ArcSinh => input.arcsinh(),
            HostFunction::ArcCosh => input.arccosh(),
            HostFunction::ArcTanh => input.arctanh(),
            HostFunction::Degrees => input.degrees(),
            HostFunction::Radians => input.radians(),
            HostFunction::Arctan2 => input.clone().arctan2(input - lit(1)),
            HostFunction::RoundSigFigs { digits } => input.round_sig_figs(digits),
        }
    }
}

/// `value` rounded to `digits` significant digits as Polars rounds a
/// number (`round_sig_figs`): scaled by 10 to the power of the digits less
/// its magnitude's (as 5 to that power and a binary exponent, so that very
/// large and small values scale without loss), rounded half away from
/// zero, scaled back; itself where that is not finite, and 0 itself (-0.0
/// kept). The exponent's arithmetic wraps, as in Polars' release build.
fn round_sig_figs(value: f64, digits: i32) -> f64 {
    if value == 0.0 {
        return value;
    }
    let exp = digits
        .wrapping_sub(1)
        .wrapping_sub(value.abs().log10().floor() as i32);
    let pow5 = 5.0_f64.powi(exp);
    let scaled = libm::scalbn(value, exp) * pow5;
    let descaled = libm::scalbn(scaled.round() / pow5, exp.wrapping_neg());
    if descaled.is_finite() {
        descaled
    } else {
        value
    }
}

/// How Polars computes a power by one exponent (a literal, or the exponent
/// of a frame of one row): the base itself (1), one where the base is valid
/// (0, even of NaN), its square root (0.5, floats), repeated products (whole
/// exponents from 2 to 9 for floats, to 10 for integers, which wrap), or
/// else `powf` (floats; integers there are Polars' own loop).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PowerRule {
    Itself,
    One,
    Sqrt,
    /// The base multiplied by itself to this many factors.
    Product(u8),
    Powf,
}

impl PowerRule {
    /// The rule of `exponent` for a base of integers or of floats.
    pub(crate) fn of(exponent: f64, integer: bool) -> PowerRule {
        let most = if integer { 10.0 } else { 9.0 };
        match exponent {
            1.0 => PowerRule::Itself,
            0.0 => PowerRule::One,
            0.5 if !integer => PowerRule::Sqrt,
            whole if whole.fract() == 0.0 && whole > 1.0 && whole <= most => {
                PowerRule::Product(whole as u8)
            }
            _ => PowerRule::Powf,
        }
    }
}

/// `x` to the power `exponent` as Polars computes a power by one exponent
/// of a float type (its literal path, by [`PowerRule`]; see
/// [`HostFunction::apply_alone_f64`]).
fn power_of_one<T>(x: T, exponent: T, sqrt: fn(T) -> T, powf: fn(T, T) -> T) -> T
where
    T: Copy + Into<f64> + std::ops::Mul<Output = T>,
{
    match PowerRule::of(exponent.into(), false) {
        PowerRule::Itself => x,
        PowerRule::Sqrt => sqrt(x),
        PowerRule::Product(factors) => {
            let mut product = x;
            for _ in 1..factors {
                product = product * x;
            }
            product
        }
        // (Of one, `powf` is 1 for every base, NaN included, as Polars'.)
        PowerRule::One | PowerRule::Powf => powf(x, exponent),
    }
}

#[cfg(test)]
mod tests {
    use super::HostFunction;

    /// A power of integers computed in 64 bits and wrapped to a width is
    /// the width's own wrapping power (Polars' release build), at every
    /// width, signed or not.
    #[test]
    fn integer_powers_wrap_to_their_width() {
        let pow = |bits, signed, x: i64, e: u32| {
            let function = HostFunction::IntPow {
                bits,
                signed,
                exponent: None,
            };
            function.apply_u64(x as u64, u64::from(e)) as i64
        };
        let exponents = [
            0u32,
            1,
            2,
            7,
            8,
            11,
            15,
            16,
            31,
            32,
            63,
            64,
            65,
            1000,
            u32::MAX,
        ];
        let bases = [
            0i64,
            1,
            -1,
            2,
            -2,
            3,
            -3,
            7,
            100,
            -100,
            127,
            -128,
            255,
            65_535,
            i64::MAX,
        ];
        for e in exponents {
            for x in bases {
                assert_eq!(pow(8, true, x, e), i64::from((x as i8).wrapping_pow(e)));
                assert_eq!(pow(8, false, x, e), i64::from((x as u8).wrapping_pow(e)));
                assert_eq!(pow(16, true, x, e), i64::from((x as i16).wrapping_pow(e)));
                assert_eq!(pow(16, false, x, e), i64::from((x as u16).wrapping_pow(e)));
                assert_eq!(pow(32, true, x, e), i64::from((x as i32).wrapping_pow(e)));
                assert_eq!(pow(32, false, x, e), i64::from((x as u32).wrapping_pow(e)));
                assert_eq!(pow(64, true, x, e), x.wrapping_pow(e));
                let literal = HostFunction::IntPow {
                    bits: 64,
                    signed: false,
                    exponent: Some(e),
                };
                assert_eq!(literal.apply_u64(x as u64, 0), (x as u64).wrapping_pow(e));
            }
        }
    }
}
