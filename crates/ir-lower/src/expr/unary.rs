//! Unary functions of numbers that the fused evaluator computes bit for bit as Polars does: one table, read by lowering, display, the executor, the kernel's numbering test and the tests.
//!
//! Adding one (see ARCHITECTURE.md's recipe) touches this file and
//! `kernels/cuda/expr.cu` (its number in `enum Function` and its case in
//! `unary_function`); the executor, the notation, the parity test over every
//! function and the fuzzer's grammar read [`UnaryFunction::ALL`].

use polars::prelude::Expr;
use polars_plan::plans::{IRFunctionExpr, IRPowFunction};

use crate::dtype::GpuDtype;

/// A unary function of numbers, numbered as the kernel's `enum Function`
/// in `kernels/cuda/expr.cu` (a test in gpu-exec reads both).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum UnaryFunction {
    /// The square root of a float, correctly rounded (as IEEE requires of
    /// both Rust's and CUDA's), so equal to Rust's to the last bit.
    /// Polars casts integers to `f64` first.
    Sqrt = 0,
    /// -1, 0 or 1 by the sign of a number, of its type; a float's zeros
    /// and NaN stay as they are.
    Sign = 1,
}

impl UnaryFunction {
    /// Every function, in the kernel's numbering.
    pub const ALL: [UnaryFunction; 2] = [UnaryFunction::Sqrt, UnaryFunction::Sign];

    /// Polars' name of the function: its method on an expression, and its
    /// notation (`sqrt(x)`).
    pub fn name(self) -> &'static str {
        match self {
            UnaryFunction::Sqrt => "sqrt",
            UnaryFunction::Sign => "sign",
        }
    }

    /// The function Polars' optimized plan holds as `function`, if any.
    pub fn of_polars(function: &IRFunctionExpr) -> Option<UnaryFunction> {
        match function {
            IRFunctionExpr::Pow(IRPowFunction::Sqrt) => Some(UnaryFunction::Sqrt),
            IRFunctionExpr::Sign => Some(UnaryFunction::Sign),
            _ => None,
        }
    }

    /// Whether the evaluator computes the function in `dtype`, the type of
    /// Polars' result (its input is cast to it first).
    pub fn takes(self, dtype: GpuDtype) -> bool {
        match self {
            UnaryFunction::Sqrt => dtype.is_float(),
            UnaryFunction::Sign => dtype.is_numeric(),
        }
    }

    /// The function applied to `input` in Polars' DSL (for tests and the
    /// fuzzer's grammar: `Expr::sqrt`).
    pub fn of(self, input: Expr) -> Expr {
        match self {
            UnaryFunction::Sqrt => input.sqrt(),
            UnaryFunction::Sign => input.sign(),
        }
    }
}
