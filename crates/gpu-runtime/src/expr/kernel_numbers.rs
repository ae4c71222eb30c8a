//! Tests that the numbers the Rust side shares with the CUDA sources (the
//! evaluator's opcodes, types, operators, date parts, rounding modes, and
//! the date parser's field codes) are the same on both sides, read from both.

use super::*;
use crate::ops::PARSE_YEAR;
use kernels::c_enum;

const EXPR_CU: &str = include_str!("../../../../kernels/cuda/expr.cu");
const DECIMAL_CUH: &str = include_str!("../../../../kernels/cuda/include/decimal.cuh");
const PARSE_DATE_CUH: &str = include_str!("../../../../kernels/cuda/include/parse_date.cuh");
const EXPR_RS: &str = include_str!("../expr.rs");

/// The Rust constants `const OP_*: u32 = N;` of the evaluator.
fn rust_opcodes() -> Vec<(String, u32)> {
    EXPR_RS
        .lines()
        .filter_map(|line| line.strip_prefix("const OP_"))
        .map(|rest| {
            let (name, value) = rest.split_once(": u32 = ").expect("an opcode constant");
            let value = value.trim_end_matches(';').parse().expect("a number");
            (format!("OP_{name}"), value)
        })
        .collect()
}

#[test]
fn opcodes_are_the_kernels() {
    let kernel = c_enum(EXPR_CU, "enum Op : u32 {");
    assert!(kernel.len() > 20, "{kernel:?}");
    assert_eq!(rust_opcodes(), kernel);
}

#[test]
fn value_types_operators_parts_and_modes_are_the_kernels() {
    let numbered = |names: &[(&str, u32)]| {
        names
            .iter()
            .map(|(name, value)| (name.to_string(), *value))
            .collect::<Vec<_>>()
    };
    use ValueType as T;
    let types = [
        T::Bool,
        T::I8,
        T::I16,
        T::I32,
        T::I64,
        T::U8,
        T::U16,
        T::U32,
        T::U64,
        T::F32,
        T::F64,
    ]
    .map(|t| (format!("T_{}", format!("{t:?}").to_uppercase()), t as u32));
    assert_eq!(c_enum(EXPR_CU, "enum Type : u32 {"), types.to_vec());

    use ExprBinary as B;
    let binary = [
        ("B_ADD", B::Add as u32),
        ("B_SUB", B::Sub as u32),
        ("B_MUL", B::Mul as u32),
        ("B_DIV", B::Div as u32),
        ("B_TRUEDIV", B::TrueDiv as u32),
        ("B_FLOORDIV", B::FloorDiv as u32),
        ("B_MOD", B::Mod as u32),
        ("B_EQ", B::Eq as u32),
        ("B_NE", B::NotEq as u32),
        ("B_LT", B::Lt as u32),
        ("B_LE", B::LtEq as u32),
        ("B_GT", B::Gt as u32),
        ("B_GE", B::GtEq as u32),
        ("B_AND", B::And as u32),
        ("B_OR", B::Or as u32),
        ("B_XOR", B::Xor as u32),
        ("B_SCALAR_DIV", B::ScalarDiv as u32),
        ("B_SCALAR_FLOORDIV", B::ScalarFloorDiv as u32),
        ("B_SCALAR_MOD", B::ScalarMod as u32),
        ("B_SCALAR_ADD", B::ScalarAdd as u32),
        ("B_SCALAR_SUB", B::ScalarSub as u32),
        ("B_SCALAR_FROM_SUB", B::ScalarFromSub as u32),
    ];
    assert_eq!(c_enum(EXPR_CU, "enum Binary : u32 {"), numbered(&binary));

    use DatePart as P;
    let parts = [
        ("P_YEAR", P::Year as u32),
        ("P_QUARTER", P::Quarter as u32),
        ("P_MONTH", P::Month as u32),
        ("P_DAY", P::Day as u32),
        ("P_WEEKDAY", P::Weekday as u32),
        ("P_ORDINAL_DAY", P::OrdinalDay as u32),
        ("P_WEEK", P::Week as u32),
        ("P_HOUR", P::Hour as u32),
        ("P_MINUTE", P::Minute as u32),
        ("P_SECOND", P::Second as u32),
        ("P_MILLISECOND", P::Millisecond as u32),
        ("P_MICROSECOND", P::Microsecond as u32),
        ("P_NANOSECOND", P::Nanosecond as u32),
    ];
    assert_eq!(c_enum(EXPR_CU, "enum DatePart : u32 {"), numbered(&parts));

    use RoundMode as R;
    let modes = [
        ("R_HALF_TO_EVEN", R::HalfToEven as u32),
        ("R_HALF_AWAY_FROM_ZERO", R::HalfAwayFromZero as u32),
        ("R_TO_ZERO", R::ToZero as u32),
        ("R_FLOOR", R::Floor as u32),
        ("R_CEIL", R::Ceil as u32),
    ];
    assert_eq!(c_enum(EXPR_CU, "enum Round : u32 {"), numbered(&modes));

    let rescale = DecimalStep::Rescale {
        down: 0,
        rounding: RoundMode::HalfToEven,
        up: 0,
        precision: None,
    };
    let steps = [
        ("D_RESCALE", rescale),
        ("D_ADD", DecimalStep::Add),
        ("D_SUB", DecimalStep::Sub),
        ("D_MUL", DecimalStep::Mul { scale: 0 }),
        ("D_DIV", DecimalStep::Div { scale: 0 }),
        ("D_TO_FLOAT", DecimalStep::ToFloat { scale: 0 }),
        (
            "D_FROM_FLOAT",
            DecimalStep::FromFloat {
                precision: 0,
                scale: 0,
            },
        ),
    ]
    .map(|(name, step)| (name, step.number()));
    let decimal_steps = c_enum(DECIMAL_CUH, "enum DecimalStep : u32 {");
    assert_eq!(decimal_steps, numbered(&steps));
}

#[test]
fn the_date_parsers_field_codes_are_the_kernels() {
    // Every item of a parse program past the bytes, numbered on from
    // PARSE_YEAR in this order (as `Ops::string_parse_dates` and the
    // executor number them).
    let items = [
        "YEAR",
        "MONTH",
        "DAY",
        "HOUR",
        "MINUTE",
        "SECOND",
        "SPACE_OR_T",
        "FRACTION",
    ];
    let defined: Vec<(&str, u32)> = PARSE_DATE_CUH
        .lines()
        .filter_map(|line| line.strip_prefix("#define PARSE_"))
        .map(|define| {
            let mut words = define.split_whitespace();
            let name = words.next().expect("a name");
            let value = words
                .next()
                .and_then(|v| v.trim_end_matches('u').parse().ok())
                .expect("a number");
            (name, value)
        })
        .collect();
    let expected: Vec<(&str, u32)> = (items.iter().zip(PARSE_YEAR..))
        .map(|(&name, value)| (name, value))
        .collect();
    assert_eq!(defined, expected);
}
