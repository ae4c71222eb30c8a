//! Functions whose last bit is libm's, computed on the host between device steps: `exp`, `log`, `log1p`, `cbrt`, `pow` by exponents of the rows, the trigonometric functions, `arctan2`, `round_sig_figs`; and powers of integers.

use super::*;
use ir_lower::HostFunction;

/// `pow` by an exponent of each row: Polars' `powf` row by row, computed
/// on the host, but over a frame of one row, where Polars takes the
/// exponent as one value and computes as by a literal (the base for 1,
/// `sqrt` for 0.5, products for the whole exponents 2 to 9).
#[test]
fn powers_by_exponents_of_the_rows_match_the_cpu() {
    let exponents = [1.0, 0.5, 2.0, 3.0, 9.0, 10.0, 2.5, 0.0, -1.0, f64::NAN];
    let bases = [
        1.1,
        -2.5,
        -0.0,
        f64::NEG_INFINITY,
        3.7,
        1e-3,
        7.25,
        0.1,
        2.0,
        1e300,
    ];
    let frame = || {
        df!(
            "x" => bases.map(Some),
            "e" => exponents.map(Some),
            "f" => bases.map(|b| Some(b as f32)),
            "i" => [Some(2i64), Some(-3), None, Some(0), Some(5), Some(7), Some(-1), Some(4), Some(9), Some(1 << 40)],
            "u" => [Some(3u8), Some(2), Some(1), Some(0), Some(255), Some(9), Some(4), None, Some(6), Some(8)],
            "g" => [1i32, 2, 1, 2, 1, 2, 1, 2, 1, 2],
        )
        .unwrap()
        .lazy()
        .with_columns([col("e").cast(DataType::Float32).alias("e32")])
    };
    let powers = || {
        [
            col("x").pow(col("e")).alias("f64 by f64"),
            col("f").pow(col("e32")).alias("f32 by f32"),
            col("f").pow(col("e")).alias("f32 by f64"),
            col("x").pow(col("i")).alias("f64 by i64"),
            col("i").pow(col("e")).alias("i64 by f64"),
            col("u").pow(col("e32")).alias("u8 by f32"),
            (col("x") + lit(1.0))
                .pow(col("e") * lit(2.0))
                .alias("of expressions"),
        ]
    };
    assert_gpu_eq("powers by columns", frame().select(powers()));
    // Each row alone: Polars' path of one exponent.
    for row in 0..bases.len() as i64 {
        assert_gpu_eq(
            &format!("powers by columns of row {row} alone"),
            frame().slice(row, 1).select(powers()),
        );
    }
    assert_gpu_eq(
        "in filters, per group and in windows",
        frame()
            .filter(col("x").pow(col("e")).gt(lit(1.0)))
            .group_by_stable([col("g")])
            .agg([
                col("x").pow(col("e")).sum().alias("sum"),
                col("f").pow(col("e")).alias("list"),
            ]),
    );
    assert_gpu_eq(
        "in windows",
        frame().with_columns([col("x")
            .pow(col("e"))
            .max()
            .over([col("g")])
            .unwrap()
            .alias("window")]),
    );
    // Exponents of other rows, and aggregated bases, stay with Polars.
    assert_cpu_answer_with_reason(
        frame().select([col("x").pow(col("e").shift(lit(1)))]),
        "pow of a base or by an exponent that is neither a literal nor a value of each row",
    );
    assert_cpu_answer_with_reason(
        frame().select([col("x").max().pow(col("e"))]),
        "pow of a base or by an exponent that is neither a literal nor a value of each row",
    );
}

/// `pow` of integers by integers, of each row or literals Polars takes by
/// its own loop (above 10): in the base's type, of every width, null where
/// either is; the exponent cast strictly to u32, so that a negative one
/// raises as in Polars. (The powers wrap as in Polars' release build; this
/// test's Polars, built with overflow checks, would panic, so the values
/// here stay in range: `HostFunction::apply_u64`'s own test checks the
/// wrapping.)
#[test]
fn powers_of_integers_match_the_cpu() {
    let frame = || {
        df!(
            "a" => [Some(3i64), Some(-2), None, Some(7), Some(i64::MAX), Some(0), Some(-1), Some(2), Some(1), Some(-3)],
            "e" => [Some(2i32), Some(3), Some(1), None, Some(1), Some(0), Some(63), Some(62), Some(40), Some(39)],
            "u" => [Some(2u8), Some(3), Some(1), None, Some(1), Some(0), Some(7), Some(2), Some(255), Some(4)],
            "s" => [Some(-100i16), Some(3), Some(1), None, Some(-16), Some(0), Some(-1), Some(2), Some(1), Some(-2)],
            "w" => [Some(u64::MAX), Some(3), Some(1), None, Some(16), Some(0), Some(1), Some(2), Some(0), Some(1)],
            "g" => [1i32, 2, 1, 2, 1, 2, 1, 2, 1, 2],
        )
        .unwrap()
        .lazy()
        .with_columns([
            col("e").cast(DataType::UInt64).alias("e64"),
            col("e").cast(DataType::Int8).alias("e8"),
        ])
    };
    // (Bases and exponents that stay in range on every row.)
    let powers = || {
        [
            col("a").pow(col("e") % lit(2)).alias("i64 by i32"),
            (col("a") % lit(3) - lit(1))
                .pow(col("e"))
                .alias("small i64 by i32"),
            (col("u") % lit(3)).pow(col("u")).alias("u8 by u8"),
            col("s").pow(col("e8") % lit(2)).alias("i16 by i8"),
            (col("w") % lit(2)).pow(col("e64")).alias("u64 by u64"),
            (col("s") % lit(2))
                .cast(DataType::Int32)
                .pow(lit(41))
                .alias("i32 by 41"),
            (col("u") % lit(2)).pow(lit(200u64)).alias("u8 by 200"),
            lit(2i64).pow(col("e") % lit(31)).alias("literal base"),
        ]
    };
    assert_gpu_eq("powers of integers", frame().select(powers()));
    for row in 0..10 {
        assert_gpu_eq(
            &format!("powers of integers of row {row} alone"),
            frame().slice(row, 1).select(powers()),
        );
    }
    assert_gpu_eq(
        "powers of integers in filters, per group and in windows",
        frame()
            .filter((col("a") % lit(3) - lit(1)).pow(col("e")).gt(lit(0)))
            .with_columns([(col("a") % lit(5))
                .pow(col("u") % lit(4))
                .sum()
                .over([col("g")])
                .unwrap()
                .alias("window")])
            .group_by_stable([col("g")])
            .agg([
                (col("s") % lit(3))
                    .pow(col("e") % lit(3))
                    .sum()
                    .alias("sum"),
                (col("a") % lit(3) - lit(1)).pow(col("e")).alias("list"),
                col("window").first(),
            ]),
    );
    // A negative exponent: Polars' strict cast of it to u32 raises.
    let negative = frame().select([col("a").pow(col("e") - lit(2))]);
    assert!(negative.clone().collect().is_err());
    let error = raised_error(negative);
    assert!(error.contains("u32"), "{error}");
}

/// `pow`, `arctan2` and `log` by a base with a literal first input (or an
/// aggregation, but for `pow`) and a second of each row: Polars broadcasts
/// the first (a value per row, not one value as of other functions of a
/// literal), in its type or cast to
/// the float of the rows; over a frame of one row, Polars' path of one
/// exponent; over no rows, none.
#[test]
fn literal_bases_broadcast_over_the_rows() {
    let frame = || {
        df!(
            "e" => [Some(0.5f64), Some(2.0), None, Some(-1.0), Some(f64::NAN), Some(10.0), Some(-0.0), Some(1e3)],
            "i" => [Some(3i64), Some(-2), Some(0), None, Some(1 << 20), Some(1), Some(-7), Some(2)],
            "g" => [1i32, 2, 1, 2, 1, 2, 1, 2],
        )
        .unwrap()
        .lazy()
        .with_columns([col("e").cast(DataType::Float32).alias("e32")])
    };
    let broadcast = || {
        [
            lit(2.0).pow(col("e")).alias("f64 of f64"),
            lit(-8.0).pow(col("i")).alias("f64 by i64"),
            lit(3).pow(col("e")).alias("i32 by f64"),
            lit(2.5).pow(col("e32")).alias("by f32"),
            lit(2.5f32).pow(col("e32")).alias("f32 by f32"),
            lit(f64::NEG_INFINITY).pow(col("e")).alias("of -inf"),
            lit(1.0).arctan2(col("e")).alias("arctan2"),
            lit(-0.0).arctan2(col("i")).alias("arctan2 by i64"),
            lit(8.0).log(col("e")).alias("log"),
            lit(100).log(col("i")).alias("log of i32 by i64"),
            lit(NULL)
                .cast(DataType::Float64)
                .pow(col("e"))
                .alias("of null"),
            col("e")
                .max()
                .arctan2(col("i"))
                .alias("arctan2 of an aggregation"),
            col("i").sum().log(col("e")).alias("log of an aggregation"),
        ]
    };
    assert_gpu_eq("over the frame", frame().select(broadcast()));
    for row in 0..8 {
        assert_gpu_eq(
            &format!("row {row} alone"),
            frame().slice(row, 1).select(broadcast()),
        );
    }
    assert_gpu_eq(
        "over no rows",
        frame().filter(lit(false)).select(broadcast()),
    );
    assert_gpu_eq(
        "in with_columns, filters, per group and in windows",
        frame()
            .with_columns([lit(0.5).pow(col("e")).alias("p")])
            .filter(lit(2.0).pow(col("e")).gt(lit(1.0)))
            .group_by_stable([col("g")])
            .agg([
                lit(2.0).pow(col("e")).sum().alias("sum"),
                lit(3.0).arctan2(col("e")).alias("list"),
                lit(2.0)
                    .log(col("e"))
                    .max()
                    .over([col("g")])
                    .unwrap()
                    .first()
                    .alias("window"),
                col("p").max(),
                col("e")
                    .min()
                    .arctan2(col("e"))
                    .alias("of the group's aggregation"),
            ]),
    );
}

/// The functions whose last bit is libm's (`exp`, `log`, `log1p`,
/// `cbrt`, `powf`, the trigonometric functions), over every numeric type
/// and decimals (where Polars takes them) with their edge values,
/// inside other expressions, per group, in windows and in filters: on the
/// device (applied on the host between device steps), equal to the CPU's to
/// the last bit. A logarithm by a null base stays with Polars, saying so.
#[test]
fn libm_functions_match_the_cpu_to_the_last_bit() {
    let frame = || {
        df!(
            "g" => ["a", "b", "a", "b", "a", "b", "a", "b", "a", "b"],
            "f64" => [Some(0.5f64), Some(-1.0), None, Some(f64::NAN), Some(f64::INFINITY), Some(f64::NEG_INFINITY), Some(-0.0), Some(1e-310), Some(709.5), Some(1e300)],
            "f32" => [Some(0.5f32), Some(-1.0), None, Some(f32::NAN), Some(f32::INFINITY), Some(-0.0), Some(88.5), Some(1e-40), Some(3.0), Some(f32::MAX)],
            "i64" => [Some(1i64), Some(-1), None, Some(0), Some(i64::MAX), Some(i64::MIN), Some(2), Some(700), Some(-750), Some(10)],
            "u8" => [Some(1u8), Some(0), None, Some(u8::MAX), Some(2), Some(3), Some(4), Some(100), Some(200), Some(9)],
            "i16" => [Some(1i16), Some(-1), None, Some(i16::MIN), Some(i16::MAX), Some(0), Some(9), Some(-9), Some(3), Some(300)],
        )
        .unwrap()
        .lazy()
        .with_columns([(col("i64") % lit(100_000i64))
            .cast(DataType::Decimal(12, 3))
            .alias("decimal")])
    };
    let columns = ["f64", "f32", "i64", "u8", "i16", "decimal"];
    for function in HostFunction::ALL {
        // (Polars raises on a power or a trigonometric function of
        // decimals: below.)
        // (round_sig_figs of integers and decimals, which Polars keeps as
        // their types, falls back: below.)
        let exprs: Vec<Expr> = columns
            .iter()
            .filter(|name| **name != "decimal" || function.of_decimals())
            .filter(|name| function.of_numbers() || name.starts_with('f'))
            .map(|name| function.of(col(*name)).alias(*name))
            .collect();
        assert_gpu_eq(function.name(), frame().select(exprs));
    }
    let x = || col("f64");
    assert_gpu_eq(
        "logarithms of other bases, literals of other types",
        frame().select([
            x().log(lit(std::f64::consts::E)).alias("e"),
            x().log(lit(2.0)).alias("2"),
            x().log(lit(0.5)).alias("0.5"),
            x().log(lit(10)).alias("10 as an integer"),
            col("f32").log(lit(3.0)).alias("f32 by 3"),
            col("i64").log(lit(2.0f32)).alias("i64 by an f32"),
        ]),
    );
    assert_gpu_eq(
        "inside expressions, per group, in windows and filters",
        frame()
            .filter(col("i64").exp().gt(lit(1.0)).or(col("i64").is_null()))
            .group_by_stable([col("g")])
            .agg([
                (x().exp() * lit(2.0) + x().log1p()).sum().alias("sum"),
                x().sum().cbrt().alias("of an aggregation"),
                col("f32").exp().max().alias("f32"),
            ]),
    );
    assert_gpu_eq(
        "in windows and with_columns",
        frame().with_columns([
            x().log1p().sum().over([col("g")]).unwrap().alias("window"),
            (col("i64").cbrt() - x().exp()).alias("row-wise"),
        ]),
    );
    assert_gpu_eq(
        "arctan2 of two columns (nulls in either), of other types, by a literal",
        frame().select([
            x().arctan2(col("i64")).alias("f64 by i64"),
            col("f32").arctan2(x()).alias("f32 by f64"),
            col("i16").arctan2(col("u8")).alias("i16 by u8"),
            col("decimal")
                .arctan2(lit(-2.5))
                .alias("decimal by a literal"),
        ]),
    );
    assert_gpu_eq(
        "logarithms by bases of the rows, of an aggregation",
        frame().select([
            x().log(col("f32")).alias("f64 by f32"),
            col("i64").log(col("u8")).alias("i64 by u8"),
            col("decimal").log(x()).alias("decimal by f64"),
            x().log(x().max()).alias("by the greatest"),
        ]),
    );
    assert_cpu_answer_with_reason(
        frame().select([x().log(lit(NULL).cast(DataType::Float64))]),
        "log by the base null",
    );
    for function in HostFunction::ALL {
        if !function.of_decimals() && function.of_numbers() {
            assert_cpu_error(frame().select([function.of(col("decimal"))]));
        }
    }
    for (column, reason) in [
        ("i64", "round_sig_figs of i64"),
        ("decimal", "round_sig_figs of decimal[12,3]"),
    ] {
        assert_cpu_answer_with_reason(frame().select([col(column).round_sig_figs(3)]), reason);
    }
    assert_cpu_error(frame().select([x().round_sig_figs(0)]));
}

/// `round_sig_figs` of floats (on the host, as Polars rounds them): values
/// just below and above powers of ten, halves, the smallest and greatest
/// floats, digits from one to past the type's own.
#[test]
fn significant_figures_of_floats_match_the_cpu() {
    let values = [
        0.5,
        -2.5,
        999.9999999999999,
        1000.0000000000001,
        0.000123456,
        12345.5,
        -98765.4321,
        f64::MIN_POSITIVE,
        5e-324,
        f64::MAX,
        -f64::MAX,
        1e22,
        123456789012345678.0,
        -0.0,
        0.0,
        0.1 + 0.2,
        1.0 / 3.0,
        9.5,
        95.0,
        0.95,
    ];
    let frame = df!("f64" => values)
        .unwrap()
        .lazy()
        .with_columns([col("f64").cast(DataType::Float32).alias("f32")]);
    let mut exprs = Vec::new();
    for digits in [1, 2, 3, 7, 15, 16, 17, 40, 400] {
        for column in ["f64", "f32"] {
            exprs.push(
                col(column)
                    .round_sig_figs(digits)
                    .alias(format!("{column} {digits}")),
            );
        }
    }
    assert_gpu_eq("significant figures", frame.clone().select(exprs));
    assert_gpu_eq(
        "per group, in a filter",
        frame
            .filter(col("f64").round_sig_figs(1).abs().lt(lit(1000.0)))
            .group_by_stable([col("f64").gt(lit(0.0)).alias("positive")])
            .agg([
                col("f32").round_sig_figs(2).max(),
                col("f64").round_sig_figs(3).sum().alias("sum"),
            ]),
    );
}
