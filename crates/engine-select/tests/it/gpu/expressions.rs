//! Elementwise expressions on the device: arithmetic, clips, horizontal folds, divisions by one value, powers, Kleene logic, memberships.

use super::*;
use ir_lower::{GpuDtype, UnaryFunction};

#[test]
fn computed_expressions_match_the_cpu() {
    let cases: Vec<(&str, LazyFrame)> = vec![
        (
            "add wraps",
            table().with_columns([(col("i") + col("k")).alias("sum")]),
        ),
        (
            "sub and mul",
            table().select([
                (col("i") - lit(1i64)).alias("a"),
                (col("k") * lit(3i64)).alias("b"),
            ]),
        ),
        (
            "floor division and modulo",
            table().select([
                (col("i") / col("k")).alias("div"),
                (col("i") % col("k")).alias("rem"),
                col("i").floor_div(col("k")).alias("floordiv"),
            ]),
        ),
        (
            "u32 wraps",
            table().select([(col("u") - lit(5u32)).alias("u")]),
        ),
        (
            "floats",
            table().select([
                (col("f") * lit(2.0)).alias("twice"),
                (-col("f")).alias("neg"),
                col("f").abs().alias("abs"),
                (col("f") / lit(0.0)).alias("inf"),
            ]),
        ),
        (
            "rounding: ties, overflow of x * 10^d, NaN, infinities, nulls",
            df!("r" => [
                Some(0.125), Some(2.5), Some(-2.5), Some(0.5), Some(1.005), Some(2.675),
                Some(-0.0), Some(1e300), Some(f64::NAN), Some(f64::NEG_INFINITY), None,
                Some(123_456.789_5), Some(-7.45),
            ])
            .unwrap()
            .lazy()
            .select([
                col("r").round(0, RoundMode::HalfToEven).alias("even 0"),
                col("r").round(2, RoundMode::HalfToEven).alias("even 2"),
                col("r")
                    .round(1, RoundMode::HalfAwayFromZero)
                    .alias("away 1"),
                col("r").round(3, RoundMode::ToZero).alias("to zero 3"),
                col("r").truncate(1).alias("truncate 1"),
                col("r").truncate(0).alias("truncate 0"),
                col("r").round(299, RoundMode::HalfToEven).alias("even 299"),
            ]),
        ),
        (
            "date parts of dates and timestamps (leap days, before 1970, sub-day)",
            {
                let days = [
                    Some(0i64),
                    Some(-1),
                    Some(11_016),
                    Some(11_017),
                    Some(-25_508),
                    Some(-719_468),
                    Some(-719_469),
                    Some(2_932_896),
                    Some(19_000),
                    None,
                    Some(59),
                    Some(-306),
                ];
                let mut df = df!("days" => days).unwrap();
                let date = df.column("days").unwrap().cast(&DataType::Int32).unwrap();
                let date = date.cast(&DataType::Date).unwrap().with_name("date".into());
                df.with_column(date).unwrap();
                for (name, unit, per_day) in [
                    ("ns", TimeUnit::Nanoseconds, 86_400_000_000_000i64),
                    ("us", TimeUnit::Microseconds, 86_400_000_000),
                    ("ms", TimeUnit::Milliseconds, 86_400_000),
                ] {
                    // A moment a little before each day ends (after, for 0); days
                    // out of the unit's range are nulls.
                    let stamps: Vec<Option<i64>> = days
                        .iter()
                        .map(|d| {
                            let d = (*d)?;
                            let offset = if d == 0 { -1 } else { per_day - 1 };
                            d.checked_mul(per_day)?.checked_add(offset)
                        })
                        .collect();
                    let stamps = Series::new(name.into(), stamps)
                        .cast(&DataType::Datetime(unit, None))
                        .unwrap();
                    df.with_column(stamps.into()).unwrap();
                }
                let parts = |c: &str| {
                    [
                        col(c).dt().year().alias(format!("{c} year")),
                        col(c).dt().quarter().alias(format!("{c} quarter")),
                        col(c).dt().month().alias(format!("{c} month")),
                        col(c).dt().day().alias(format!("{c} day")),
                        col(c).dt().weekday().alias(format!("{c} weekday")),
                    ]
                };
                let exprs: Vec<Expr> = ["date", "ns", "us", "ms"]
                    .into_iter()
                    .flat_map(parts)
                    .collect();
                df.lazy().select(exprs)
            },
        ),
        (
            "string predicates inside computed expressions",
            table().select([
                when(col("s").eq(lit("x")))
                    .then(col("i"))
                    .otherwise(lit(0i64))
                    .alias("picked"),
                (col("s").str().starts_with(lit("l")).or(col("b"))).alias("or"),
                col("s")
                    .is_in(
                        lit(Series::new("".into(), ["a", "z", ""])).implode(false),
                        false,
                    )
                    .not()
                    .alias("not in"),
                when(col("s").str().contains(lit("ng"), true))
                    .then(col("f"))
                    .otherwise(lit(-1.0))
                    .alias("contains"),
            ]),
        ),
        (
            "whole-column aggregations broadcast in row-wise expressions",
            table().with_columns([
                (col("i") - col("i").max()).alias("gap"),
                (col("u").cast(DataType::Float64) / col("u").sum().cast(DataType::Float64))
                    .alias("share"),
                col("s")
                    .eq(lit("x"))
                    .or(col("u").eq(col("u").min()))
                    .alias("mixed"),
            ]),
        ),
        (
            "filters against whole-column aggregations",
            table()
                .filter(col("u").eq(col("u").max()).or(col("k").gt(col("k").mean())))
                .filter(col("f").is_not_null()),
        ),
        (
            "comparisons as columns",
            table().select([
                col("i").gt(col("k")).alias("gt"),
                col("f").eq(lit(f64::NAN)).alias("nan"),
            ]),
        ),
        (
            "null checks and fill",
            table().select([
                col("i").is_null().alias("n"),
                col("i").fill_null(lit(0i64)).alias("filled"),
            ]),
        ),
        (
            "when then otherwise",
            table().select([when(col("b"))
                .then(col("i"))
                .otherwise(col("k"))
                .alias("pick")]),
        ),
        (
            "casts",
            table().select([
                col("u").cast(DataType::Int64).alias("u64"),
                col("i").cast(DataType::Float64).alias("f"),
                col("b").cast(DataType::Int32).alias("b32"),
                col("d").cast(DataType::Int32).alias("days"),
            ]),
        ),
        (
            "kleene as values",
            table().select([
                col("b").and(col("i").gt(lit(0i64))).alias("and"),
                col("b").or(col("i").is_null()).alias("or"),
                col("b").not().alias("not"),
            ]),
        ),
        (
            "computed filter",
            table().filter((col("i") + col("k")).gt(lit(0i64))),
        ),
        (
            "float classes (NaN, infinities, -0.0, null)",
            table().select([
                col("f").is_nan().alias("nan"),
                col("f").is_not_nan().alias("not nan"),
                col("f").is_finite().alias("finite"),
                col("f").is_infinite().alias("infinite"),
                col("i")
                    .cast(DataType::Float64)
                    .is_finite()
                    .alias("finite ints"),
            ]),
        ),
        (
            "a filter of non-NaN finite values",
            table().filter(col("f").is_not_nan().and(col("f").is_finite())),
        ),
        ("a filter of NaN", table().filter(col("f").is_nan())),
        (
            "with_columns replaces",
            table().with_columns([(col("f") + lit(1.0)).alias("f")]),
        ),
        (
            "select mixes",
            table().select([col("s"), (col("u") * lit(2u32)).alias("u2"), col("i")]),
        ),
    ];
    for (name, lf) in cases {
        assert_gpu_eq(name, lf);
    }
}

#[test]
fn clips_floors_ceilings_and_coalesces_match_the_cpu() {
    // Floats with NaN, infinities and -0.0; bounds that are columns with
    // nulls and NaN, literals, nulls, or of another type (cast strictly).
    let frame = df!(
        "x" => [Some(1.5f64), Some(-2.5), None, Some(f64::NAN), Some(f64::INFINITY), Some(-0.0), Some(7.0), Some(-1e300)],
        "lo" => [Some(0.0f64), None, Some(1.0), Some(0.0), Some(-1.0), Some(f64::NAN), Some(8.0), Some(-5.0)],
        "hi" => [Some(1.0f64), Some(-3.0), Some(2.0), None, Some(f64::NAN), Some(1.0), Some(9.0), None],
        "f" => [Some(1.5f32), Some(-2.5), None, Some(f32::NAN), Some(-0.5), Some(0.5), Some(1e30), Some(-7.25)],
        "i" => [Some(5i64), None, Some(-3), Some(i64::MAX), Some(i64::MIN), Some(0), Some(10), Some(-10)],
        "j" => [None, Some(1i64), None, Some(2), None, Some(3), None, None],
        "u" => [Some(1u8), Some(200), None, Some(0), Some(255), Some(7), Some(9), Some(100)],
    )
    .unwrap()
    .lazy()
    .with_column(
        (col("i") % lit(1000i64))
            .cast(DataType::Int32)
            .cast(DataType::Date)
            .alias("d"),
    );
    assert_gpu_eq(
        "clip",
        frame.clone().select([
            col("x").clip(col("lo"), col("hi")).alias("columns"),
            col("x").clip(lit(-1.0), lit(1.0)).alias("literals"),
            col("x").clip_min(lit(0.0)).alias("min only"),
            col("x").clip_max(col("hi")).alias("max only"),
            col("x").clip(lit(NULL), lit(2.0)).alias("null lower"),
            col("x").clip(lit(f64::NAN), lit(2.0)).alias("nan lower"),
            col("f").clip(lit(-1.0f32), lit(1.0f32)).alias("f32"),
            col("i").clip(lit(-4i64), lit(6i64)).alias("i64"),
            col("i").clip(col("j"), lit(4i64)).alias("i64 by column"),
            col("i").clip(lit(-4.7), lit(6.2)).alias("i64 by floats"),
            col("u").clip(lit(3u8), lit(100u8)).alias("u8"),
            col("u").clip_min(lit(5)).alias("u8 by i32"),
            col("d")
                .clip(date_literal(-5), date_literal(400))
                .alias("dates"),
        ]),
    );
    assert_gpu_eq(
        "floor and ceil",
        frame.clone().select([
            col("x").floor().alias("floor"),
            col("x").ceil().alias("ceil"),
            col("f").floor().alias("f32 floor"),
            col("f").ceil().alias("f32 ceil"),
            col("i").floor().alias("i64 floor"),
            (col("x") / lit(3.0)).ceil().alias("expression"),
        ]),
    );
    // f32 rounds through f64, as Polars computes it (by decimals beyond
    // f32's precision too); integers are whole already.
    let f32_rounded = |decimals: u32, mode: RoundMode| {
        col("f")
            .round(decimals, mode)
            .alias(format!("f32 to {decimals} {mode:?}"))
    };
    assert_gpu_eq(
        "rounding f32 and integers",
        frame.clone().select([
            f32_rounded(0, RoundMode::HalfToEven),
            f32_rounded(0, RoundMode::HalfAwayFromZero),
            f32_rounded(1, RoundMode::HalfToEven),
            f32_rounded(2, RoundMode::HalfAwayFromZero),
            f32_rounded(3, RoundMode::HalfToEven),
            f32_rounded(50, RoundMode::HalfToEven),
            (col("f") / lit(7.0f32))
                .round(4, RoundMode::HalfToEven)
                .alias("f32 thirds"),
            col("f").truncate(1).alias("f32 truncated"),
            col("i")
                .round(2, RoundMode::HalfToEven)
                .alias("i64 rounded"),
            col("u").truncate(0).alias("u8 truncated"),
        ]),
    );
    assert_gpu_eq(
        "coalesce",
        frame.clone().select([
            coalesce(&[col("j"), col("i")]).alias("two"),
            coalesce(&[
                col("j"),
                lit(NULL).cast(DataType::Int64),
                col("i"),
                lit(0i64),
            ])
            .alias("four"),
            coalesce(&[col("lo"), col("hi"), col("x")]).alias("floats"),
        ]),
    );
    // A bound that does not fit the input's type fails as on the CPU.
    assert_cpu_error(frame.select([col("u").clip(lit(-1), lit(300))]));
}

#[test]
fn horizontal_sums_means_minima_and_maxima_match_the_cpu() {
    let frame = || {
        df!(
            "a" => [Some(5i64), None, Some(-3), Some(i64::MAX), None, Some(0), Some(i64::MIN)],
            "b" => [Some(2i64), Some(7), None, Some(1), None, Some(0), Some(-1)],
            "c" => [None, Some(-7i64), Some(4), Some(1), None, Some(9), Some(i64::MIN)],
            "x" => [Some(100i8), Some(-128), None, Some(127), Some(1), None, Some(-5)],
            "y" => [Some(100i8), Some(-1), Some(3), Some(1), None, None, Some(-128)],
            "u" => [Some(1u32), Some(u32::MAX), None, Some(7), Some(0), None, Some(3)],
            "f" => [Some(1.5f64), None, Some(f64::NAN), Some(-0.0), None, Some(f64::INFINITY), Some(0.1)],
            "g" => [Some(2.25f64), Some(3.0), None, Some(0.0), None, Some(f64::NEG_INFINITY), Some(0.2)],
            "h" => [Some(1.5f32), None, Some(-2.0), Some(3.0), None, Some(0.25), Some(f32::MAX)],
            "k" => [Some(0.5f32), Some(1.0), Some(f32::NAN), None, None, Some(0.5), Some(f32::MAX)],
            "p" => [Some(true), Some(false), None, Some(true), None, Some(true), Some(false)],
            "q" => [Some(true), None, Some(true), Some(false), None, Some(true), Some(false)],
        )
        .unwrap()
        .lazy()
        .with_columns([
            col("a").cast(DataType::Date).alias("d"),
            col("b").cast(DataType::Date).alias("e"),
        ])
    };
    let cols = |names: &str| names.split(' ').map(col).collect::<Vec<_>>();
    let mut exprs = vec![];
    for names in [
        "a b c", "x y", "u a", "f g", "h k", "p q", "a", "a x", "f", "p",
    ] {
        for ignore_nulls in [true, false] {
            exprs.push(
                polars::lazy::dsl::sum_horizontal(cols(names), ignore_nulls)
                    .unwrap()
                    .alias(format!("sum {names} {ignore_nulls}")),
            );
        }
    }
    // (Two of differing types: added in their supertype.)
    let differing = ["a x", "a f", "x h", "u a", "h f", "p a", "y k", "u f"];
    for names in ["a b c", "x y", "u", "f g", "h k", "p q", "a", "f", "h"]
        .into_iter()
        .chain(differing)
    {
        for ignore_nulls in [true, false] {
            exprs.push(
                polars::lazy::dsl::mean_horizontal(cols(names), ignore_nulls)
                    .unwrap()
                    .alias(format!("mean {names} {ignore_nulls}")),
            );
        }
    }
    // (Of two floats: with a null in either column, by Polars' total
    // order, NaN greatest.)
    for names in [
        "a b c", "x y", "u b", "d e", "a x", "a", "f", "f g", "g f", "g a",
    ] {
        exprs.push(
            polars::lazy::dsl::min_horizontal(cols(names))
                .unwrap()
                .alias(format!("min {names}")),
        );
        exprs.push(
            polars::lazy::dsl::max_horizontal(cols(names))
                .unwrap()
                .alias(format!("max {names}")),
        );
    }
    // Of a literal and columns (`max_horizontal(lit(0), col("a"))`, a
    // floor), the literal broadcast.
    for (value, names) in [(lit(0i64), "a"), (lit(-1i64), "a b"), (lit(1.5), "f")] {
        let mut inputs = vec![value];
        inputs.extend(cols(names));
        exprs.push(
            polars::lazy::dsl::max_horizontal(inputs.clone())
                .unwrap()
                .alias(format!("max literal {names}")),
        );
        exprs.push(
            polars::lazy::dsl::min_horizontal(inputs)
                .unwrap()
                .alias(format!("min literal {names}")),
        );
    }
    assert_gpu_eq("horizontal aggregations", frame().select(exprs));
    assert_gpu_eq(
        "a horizontal sum in a filter",
        frame().filter(
            polars::lazy::dsl::sum_horizontal(cols("a b"), true)
                .unwrap()
                .gt(lit(3i64)),
        ),
    );
    // Of two floats where neither column holds a null: as IEEE numbers (a
    // NaN loses on either side, the right value is taken); with a
    // literal, by the total order.
    let pairs = df!(
        "l" => [f64::NAN, 1.0, -0.0, 0.0, f64::NAN, 2.5, -1.0],
        "r" => [1.0, f64::NAN, 0.0, -0.0, f64::NAN, -2.5, f64::INFINITY],
    )
    .unwrap()
    .lazy();
    // Both extremes of two inputs, named by `name`.
    let both = |inputs: [Expr; 2], name: String| {
        [
            polars::lazy::dsl::min_horizontal(inputs.clone())
                .unwrap()
                .alias(format!("min {name}")),
            polars::lazy::dsl::max_horizontal(inputs)
                .unwrap()
                .alias(format!("max {name}")),
        ]
    };
    let mut extremes = vec![];
    for (l, r) in [("l", "r"), ("r", "l")] {
        extremes.extend(both([col(l), col(r)], format!("{l} {r}")));
    }
    for value in [f64::NAN, 0.0, -0.0, 1.0] {
        extremes.extend(both([col("l"), lit(value)], format!("l {value:?}")));
        // (A literal first too: Polars broadcasts it as the other.)
        extremes.extend(both([lit(value), col("l")], format!("{value:?} l")));
    }
    assert_gpu_eq(
        "extremes of two floats without nulls",
        pairs.clone().select(extremes.clone()),
    );
    // With a null in a column, Polars goes by the total order in the
    // chunks holding one and as IEEE numbers in the others: where a NaN
    // meets a value, the answer is Polars' own.
    let with_null = |pairs: LazyFrame| {
        let null = pairs
            .clone()
            .slice(0, 1)
            .select([col("l"), lit(NULL).cast(DataType::Float64).alias("r")]);
        concat([pairs, null], UnionArgs::default()).unwrap()
    };
    assert_gpu_eq(
        "extremes of two floats without NaN, a null in the last row",
        with_null(
            pairs
                .clone()
                .filter(col("l").is_not_nan().and(col("r").is_not_nan())),
        )
        .select(extremes.clone()),
    );
    assert_cpu_answer_with_reason(
        with_null(pairs.clone()).select(extremes),
        "Polars compares NaN by whether each chunk of its input holds a null",
    );
    assert_gpu_eq(
        "an extreme of two floats in a filter",
        pairs.filter(
            polars::lazy::dsl::max_horizontal([col("l"), col("r")])
                .unwrap()
                .gt(lit(0.5)),
        ),
    );
    for (expr, reason) in [
        (
            polars::lazy::dsl::min_horizontal(cols("f g f")),
            "min_horizontal of more than two floats",
        ),
        (
            polars::lazy::dsl::max_horizontal([col("f"), col("g").max()]),
            "max_horizontal of floats with an aggregation",
        ),
        (
            polars::lazy::dsl::max_horizontal(cols("p q")),
            "max_horizontal of bool",
        ),
        (
            polars::lazy::dsl::sum_horizontal(cols("f g f"), true),
            "more than two float inputs",
        ),
        (
            polars::lazy::dsl::mean_horizontal(cols("a x f"), true),
            "differing types",
        ),
    ] {
        assert_cpu_answer_with_reason(frame().select([expr.unwrap()]), reason);
    }
}

#[test]
fn divisions_by_one_value_match_polars_scalar_kernels() {
    // Polars divides by a value of one row (a literal, a whole-frame
    // aggregation) by multiplying with its reciprocal, unless both sides
    // have one row: the last bits differ from a division.
    let frame = |n: usize| {
        let xs: Vec<Option<f64>> = (1..=n)
            // 49 * (1 / 49) is not 1: the first row tells a division by
            // the reciprocal from a plain one.
            .map(|i| {
                (i % 13 != 0).then(|| {
                    if i == 1 {
                        49.0
                    } else {
                        i as f64 * 0.37 + 1.0 / i as f64
                    }
                })
            })
            .collect();
        // Group 0 of `w` holds one row, the others many; `o` is one group.
        let ws: Vec<i64> = (0..n as i64)
            .map(|i| if i == 0 { 0 } else { 1 + i % 3 })
            .collect();
        df!(
            "x" => xs,
            "g" => (0..n as i64).map(|i| i % 3).collect::<Vec<_>>(),
            "w" => ws,
            "o" => vec![1i32; n],
        )
        .unwrap()
        .lazy()
        .with_columns([
            col("x").cast(DataType::Float32).alias("h"),
            (col("x") * lit(1000.0)).cast(DataType::Int64).alias("i"),
        ])
    };
    let exprs = || {
        vec![
            (col("x") / lit(3.0)).alias("x / 3"),
            (col("x") / lit(7.1)).alias("x / 7.1"),
            col("x").floor_div(lit(0.3)).alias("x // 0.3"),
            (col("x") % lit(0.3)).alias("x % 0.3"),
            (col("x") / col("x").max()).alias("x / max"),
            (col("h") / lit(3.0f32)).alias("f32 / 3"),
            (col("h") % lit(0.3f32)).alias("f32 % 0.3"),
            (col("i") / lit(3.0)).alias("i / 3.0"),
            (lit(1.0) / col("x")).alias("1 / x"),
            (col("x").max() / lit(3.0) + col("x")).alias("max / 3 + x"),
        ]
    };
    for n in [1, 2, 200] {
        assert_gpu_eq(
            &format!("divisions by one value, {n} rows"),
            frame(n).select(exprs()),
        );
        assert_gpu_eq(
            &format!("divisions by one value per group, {n} rows"),
            frame(n).group_by_stable([col("g")]).agg([
                (col("x") / lit(3.0)).max().alias("max of x / 3"),
                (col("x").max() / lit(7.1)).alias("max / 7.1"),
                (col("x") / col("x").max()).sum().alias("sum of x / max"),
                (col("x") % col("x").max()).min().alias("min of x % max"),
                (col("x").max() / lit(3.0) + col("x"))
                    .sum()
                    .alias("sum of max / 3 + x"),
            ]),
        );
        // In a window Polars divides by each group's value: by its
        // reciprocal in a group of several rows, row by row in a group of
        // one; a group's value by a literal row by row when there is one
        // group.
        for by in ["w", "o"] {
            let over = |e: Expr| e.over([col(by)]).unwrap();
            assert_gpu_eq(
                &format!("divisions by one value per window of {by}, {n} rows"),
                frame(n).select([
                    over(col("x") / col("x").max()).alias("x / max"),
                    over(col("x").floor_div(col("x").max() * lit(0.3))).alias("x // (max * 0.3)"),
                    over(col("x") % (col("x").min() + lit(0.1))).alias("x % (min + 0.1)"),
                    over(col("i") / col("i").sum()).alias("i / sum"),
                    over(col("h") / col("h").max()).alias("f32 / max"),
                    over(col("x").max() / lit(3.0)).alias("max / 3"),
                    over(col("x").max() / lit(3.0) + col("x")).alias("max / 3 + x"),
                    over(col("x").max() / col("x")).alias("max / x"),
                ]),
            );
        }
    }
}

#[test]
fn additions_of_a_zero_scalar_keep_negative_zero_as_polars_does() {
    // Polars' scalar kernels return the other side unchanged when adding
    // or subtracting a zero held at one row, and negate when subtracting
    // from one: -0.0 + 0.0 stays -0.0, 0.0 - 0.0 is -0.0. Row by row (both
    // sides of one row, a group of one row) IEEE rules apply. Equality
    // cannot tell the zeros apart; their reciprocals (-inf, inf) can.
    let frame = |n: usize| {
        let xs: Vec<Option<f64>> = (0..n)
            .map(|i| match i % 4 {
                0 => Some(-0.0),
                1 => Some(0.0),
                2 => None,
                _ => Some(i as f64 * 0.5),
            })
            .collect();
        let ws: Vec<i64> = (0..n as i64)
            .map(|i| if i == 0 { 0 } else { 1 + i % 3 })
            .collect();
        df!("x" => xs, "w" => ws, "o" => vec![1i32; n])
            .unwrap()
            .lazy()
            .with_columns([
                col("x").cast(DataType::Float32).alias("h"),
                // (Zeros of one sign: a whole frame's minimum of both is
                // Polars' own.)
                (col("x").abs() * lit(0.0)).alias("z"),
            ])
    };
    let reciprocal = |e: Expr, name: &str| (lit(1.0) / e).alias(name);
    for n in [1, 2, 9, 200] {
        assert_gpu_eq(
            &format!("zero scalars, {n} rows"),
            frame(n).select([
                reciprocal(col("x") + lit(0.0), "x + 0"),
                reciprocal(lit(0.0) + col("x"), "0 + x"),
                reciprocal(col("x") - lit(0.0), "x - 0"),
                reciprocal(col("x") - lit(-0.0), "x - -0"),
                reciprocal(lit(0.0) - col("x"), "0 - x"),
                reciprocal(lit(-0.0) - col("x"), "-0 - x"),
                reciprocal((col("h") + lit(0.0f32)).cast(DataType::Float64), "f32 + 0"),
                reciprocal(col("x") + col("z").min(), "x + min of zeros"),
                reciprocal(col("x") + lit(1.5), "x + 1.5"),
            ]),
        );
        for by in ["w", "o"] {
            let over = |e: Expr| e.over([col(by)]).unwrap();
            assert_gpu_eq(
                &format!("zero values per window of {by}, {n} rows"),
                frame(n).select([
                    reciprocal(over(col("x") + col("z").min()), "x + min"),
                    reciprocal(over(col("z").max() - col("x")), "max - x"),
                    reciprocal(over(col("x") - col("z").min()), "x - min"),
                    reciprocal(over(col("z").min() - lit(0.0)), "min - 0"),
                ]),
            );
        }
    }
}

#[test]
fn powers_the_cpu_computes_exactly_run_on_the_device() {
    let frame = df!(
        "x" => [Some(1.5f64), Some(-2.5), None, Some(f64::NAN), Some(f64::INFINITY), Some(-0.0), Some(1e100), Some(0.1)],
        "f" => [Some(1.5f32), Some(-2.5), None, Some(f32::NAN), Some(f32::NEG_INFINITY), Some(0.3), Some(1e30), Some(2.0)],
        "i" => [Some(5i64), Some(-3), None, Some(i64::MAX), Some(i64::MIN), Some(0), Some(1_000_003), Some(-1)],
        "u" => [Some(1u8), Some(200), None, Some(0), Some(255), Some(7), Some(3), Some(16)],
    )
    .unwrap()
    .lazy();
    let mut exprs = vec![
        col("x").sqrt().alias("sqrt"),
        col("f").sqrt().alias("f32 sqrt"),
        col("i").sqrt().alias("i64 sqrt"),
        col("x").pow(0.5).alias("x^0.5"),
        col("f").pow(0.5).alias("f^0.5"),
        col("i").pow(0.5).alias("i^0.5"),
        col("x")
            .pow(lit(NULL).cast(DataType::Float64))
            .alias("x^null"),
    ];
    for e in 0..=10 {
        exprs.push(col("i").pow(e).alias(format!("i^{e}")));
        exprs.push(col("u").pow(e).alias(format!("u^{e}")));
        if e < 10 {
            exprs.push(col("x").pow(e as f64).alias(format!("x^{e}")));
            exprs.push(col("f").pow(e as f64).alias(format!("f^{e}")));
        }
    }
    assert_gpu_eq("exact powers", frame.clone().select(exprs));
    // Polars' powf (libm's last bit): computed on the host, of floats and
    // of integers to a float power; integers to an integer power above 10
    // too (Polars' wrapping loop: see `gpu::host_math`).
    let mut powf = Vec::new();
    for (i, exponent) in [2.5f64, 10.0, -1.0, -0.5, 1e-3, 1.0 / 3.0]
        .into_iter()
        .enumerate()
    {
        powf.push(col("x").pow(lit(exponent)).alias(format!("x^{i}")));
        powf.push(col("f").pow(lit(exponent)).alias(format!("f^{i}")));
        // (A whole float exponent of integers is Polars' integer power.)
        if exponent.fract() != 0.0 {
            powf.push(col("i").pow(lit(exponent)).alias(format!("i^{i}")));
        }
    }
    assert_gpu_eq("powers by powf", frame.clone().select(powf));
    // (Small bases: Polars' debug build panics on powers that overflow.)
    let small = df!("i" => [Some(2i64), None, Some(-3)]).unwrap().lazy();
    assert_gpu_eq(
        "integers to a power above 10",
        small.clone().select([col("i").pow(lit(11))]),
    );
    // A negative exponent of integers: Polars raises, its error.
    assert_cpu_error(small.clone().select([col("i").pow(lit(-2))]));
    // Polars raises on powers of decimals, whatever the exponent: its error.
    let decimals = || {
        small
            .clone()
            .select([col("i").cast(DataType::Decimal(10, 2))])
    };
    for exponent in [lit(2), lit(2.5)] {
        assert_cpu_error(decimals().select([col("i").pow(exponent)]));
    }
}

/// Every unary function of numbers the evaluator computes, over every
/// numeric type with its edge values: on the device where ir-lower says the
/// function takes Polars' result type (equal to the CPU's to the last bit),
/// else on the CPU with a reason naming the function.
#[test]
fn unary_functions_match_the_cpu_on_every_numeric_type() {
    let frame = df!(
        "f64" => [Some(1.5f64), Some(-2.5), None, Some(f64::NAN), Some(f64::INFINITY), Some(f64::NEG_INFINITY), Some(-0.0), Some(0.0), Some(1e-310), Some(f64::MAX)],
        "f32" => [Some(1.5f32), Some(-2.5), None, Some(f32::NAN), Some(f32::INFINITY), Some(f32::NEG_INFINITY), Some(-0.0), Some(0.0), Some(1e-40), Some(f32::MIN)],
        "i8" => [Some(1i8), Some(-1), None, Some(i8::MIN), Some(i8::MAX), Some(0), Some(7), Some(-7), Some(2), Some(-128)],
        "i16" => [Some(1i16), Some(-1), None, Some(i16::MIN), Some(i16::MAX), Some(0), Some(9), Some(-9), Some(3), Some(300)],
        "i32" => [Some(1i32), Some(-1), None, Some(i32::MIN), Some(i32::MAX), Some(0), Some(16), Some(-16), Some(5), Some(99)],
        "i64" => [Some(1i64), Some(-1), None, Some(i64::MIN), Some(i64::MAX), Some(0), Some(1 << 53), Some((1 << 53) + 1), Some(-5), Some(10)],
        "u8" => [Some(1u8), Some(0), None, Some(u8::MAX), Some(2), Some(3), Some(4), Some(100), Some(200), Some(9)],
        "u16" => [Some(1u16), Some(0), None, Some(u16::MAX), Some(2), Some(3), Some(4), Some(100), Some(200), Some(9)],
        "u32" => [Some(1u32), Some(0), None, Some(u32::MAX), Some(2), Some(3), Some(4), Some(100), Some(200), Some(9)],
        "u64" => [Some(1u64), Some(0), None, Some(u64::MAX), Some(2), Some(3), Some(4), Some(1 << 60), Some(200), Some(9)],
    )
    .unwrap()
    .lazy();
    let names: Vec<String> = frame
        .clone()
        .collect_schema()
        .unwrap()
        .iter_names()
        .map(|name| name.to_string())
        .collect();
    for function in UnaryFunction::ALL {
        let mut on_the_device = Vec::new();
        for name in &names {
            let expr = function.of(col(name.as_str())).alias(name.as_str());
            let query = frame.clone().select([expr.clone()]);
            let result = query.clone().collect_schema().unwrap();
            let (_, dtype) = result.get_at_index(0).unwrap();
            if GpuDtype::from_polars(dtype).is_ok_and(|dtype| function.takes(dtype)) {
                on_the_device.push(expr);
            } else {
                assert_cpu_answer_with_reason(query, function.name());
            }
        }
        assert!(!on_the_device.is_empty(), "{function:?} runs on no type");
        assert_gpu_eq(function.name(), frame.clone().select(on_the_device));
    }
}

#[test]
fn all_and_any_horizontal_are_kleene_as_on_the_cpu() {
    let frame = df!(
        "a" => [Some(true), Some(true), Some(false), None, None, Some(false), Some(true), None, Some(false)],
        "b" => [Some(true), None, None, None, Some(false), Some(false), Some(false), Some(true), Some(true)],
        "c" => [Some(true), Some(true), Some(true), Some(true), None, None, None, None, Some(false)],
    )
    .unwrap()
    .lazy();
    assert_gpu_eq(
        "all_horizontal and any_horizontal",
        frame.clone().select([
            all_horizontal([col("a"), col("b"), col("c")])
                .unwrap()
                .alias("all"),
            any_horizontal([col("a"), col("b"), col("c")])
                .unwrap()
                .alias("any"),
            all_horizontal([col("a")]).unwrap().alias("all of one"),
            any_horizontal([col("a").not(), col("b").is_null()])
                .unwrap()
                .alias("any of two"),
        ]),
    );
    assert_gpu_eq(
        "a filter by any_horizontal",
        frame.filter(any_horizontal([col("a"), col("c")]).unwrap()),
    );
}

#[test]
fn null_aware_equality_matches_the_cpu() {
    // eq_missing and ne_missing: two nulls are equal, a null and a value
    // are not; never null. Texts, integers, floats (NaN), booleans, dates,
    // against columns, literals and a null literal.
    let frame = df!(
        "a" => [Some("x"), None, None, Some(""), Some("y")],
        "b" => [Some("x"), None, Some("x"), None, Some("z")],
        "i" => [Some(1i64), None, Some(3), None, Some(5)],
        "j" => [Some(1i64), None, None, Some(4), Some(6)],
        "f" => [Some(f64::NAN), None, Some(0.0), Some(-0.0), None],
        "p" => [Some(true), None, Some(false), None, Some(true)],
    )
    .unwrap()
    .lazy()
    .with_columns([col("i").cast(DataType::Date).alias("d")]);
    assert_gpu_eq(
        "null-aware equality",
        frame.clone().select([
            col("a").eq_missing(col("b")).alias("a == b"),
            col("a").neq_missing(col("b")).alias("a != b"),
            col("a").eq_missing(lit("x")).alias("a == 'x'"),
            col("i").eq_missing(col("j")).alias("i == j"),
            col("i").neq_missing(col("j")).alias("i != j"),
            col("i")
                .eq_missing(lit(NULL).cast(DataType::Int64))
                .alias("i == null"),
            col("f").eq_missing(lit(f64::NAN)).alias("f == NaN"),
            col("f").neq_missing(lit(0.0)).alias("f != 0"),
            col("p").eq_missing(lit(true)).alias("p == true"),
            col("d")
                .neq_missing(col("j").cast(DataType::Date))
                .alias("d != j"),
        ]),
    );
    assert_gpu_eq(
        "a filter by null-aware equality",
        frame.filter(col("i").eq_missing(col("j"))),
    );
}

#[test]
fn membership_in_another_column_matches_the_cpu() {
    let mut next = xorshift(0x0015_1dc0);
    let n = 200;
    let mut draw = |k: u64| next() % k;
    let a: Vec<Option<i64>> = (0..n)
        .map(|_| (draw(8) != 0).then(|| draw(30) as i64))
        .collect();
    let b: Vec<Option<i64>> = (0..n)
        .map(|_| (draw(10) != 0).then(|| draw(60) as i64 - 15))
        .collect();
    let floats = [
        Some(0.0),
        Some(-0.0),
        Some(f64::NAN),
        None,
        Some(1.5),
        Some(-2.0),
    ];
    let f: Vec<Option<f64>> = (0..n).map(|_| floats[draw(6) as usize]).collect();
    let h: Vec<Option<f64>> = (0..n).map(|_| floats[draw(4) as usize]).collect();
    let words = [Some("x"), Some("yy"), None, Some(""), Some("zé")];
    let s: Vec<Option<&str>> = (0..n).map(|_| words[draw(5) as usize]).collect();
    let t: Vec<Option<&str>> = (0..n).map(|_| words[draw(3) as usize]).collect();
    let g: Vec<i32> = (0..n).map(|_| draw(4) as i32).collect();
    let frame = || {
        df!("a" => &a, "b" => &b, "f" => &f, "h" => &h, "s" => &s, "t" => &t, "g" => &g)
            .unwrap()
            .lazy()
    };
    let member =
        |x: &str, y: &str, nulls_equal: bool| col(x).is_in(col(y).implode(false), nulls_equal);
    assert_gpu_eq(
        "is_in another column, over the frame",
        frame().select([
            member("a", "b", false).alias("ints"),
            member("a", "b", true).alias("ints, nulls equal"),
            member("f", "h", false).alias("floats"),
            member("h", "f", true).alias("floats, nulls equal"),
            member("s", "t", false).alias("texts"),
            member("t", "s", true).alias("texts, nulls equal"),
            (col("a") * lit(2i64))
                .is_in((col("b") + lit(1i64)).implode(false), false)
                .alias("computed"),
        ]),
    );
    assert_gpu_eq(
        "a filter by is_in another column",
        frame().filter(member("a", "b", false)),
    );
    assert_gpu_eq(
        "is_in another column, per group",
        frame()
            .group_by_stable([col("g")])
            .agg([member("a", "b", false).sum().alias("members")]),
    );
    assert_gpu_eq(
        "is_in another column, in a window",
        frame().with_columns([member("s", "t", true).over([col("g")]).unwrap().alias("w")]),
    );
}

#[test]
fn is_between_bounds_of_the_rows_match_the_cpu() {
    let frame = || {
        df!(
            "i" => [Some(1i64), Some(5), None, Some(3), Some(0), Some(2)],
            "lo" => [None, Some(0i64), Some(0), None, Some(0), Some(3)],
            "hi" => [Some(3i64), Some(3), Some(3), Some(2), None, Some(1)],
            "f" => [Some(0.5), Some(f64::NAN), Some(-0.0), None, Some(2.0), Some(1.0)],
        )
        .unwrap()
        .lazy()
        .with_columns([col("i").cast(DataType::Date).alias("d")])
    };
    let between = |closed| col("i").is_between(col("lo"), col("hi"), closed);
    assert_gpu_eq(
        "is_between bounds of the rows",
        frame().select([
            between(ClosedInterval::Both).alias("both"),
            between(ClosedInterval::Left).alias("left"),
            between(ClosedInterval::Right).alias("right"),
            between(ClosedInterval::None).alias("none"),
            col("f")
                .is_between(lit(0.0), col("f") * lit(2.0), ClosedInterval::Both)
                .alias("floats"),
            col("d")
                .is_between(
                    col("d"),
                    lit(NULL).cast(DataType::Date),
                    ClosedInterval::Both,
                )
                .alias("dates"),
        ]),
    );
    assert_gpu_eq(
        "a filter by is_between bounds of the rows",
        frame().filter(between(ClosedInterval::Both)),
    );
    // A computed input between literals (the predicate kernels take columns).
    for closed in [ClosedInterval::Both, ClosedInterval::None] {
        assert_gpu_eq(
            "a filter by a computed value between literals",
            frame().filter((col("i") * lit(2i64)).is_between(lit(-4i64), lit(6i64), closed)),
        );
    }
}

#[test]
fn bitwise_operators_of_integers_match_the_cpu() {
    // `&`, `|`, `^` and `!` of signed and unsigned integers (nulls, the
    // extremes), and with a literal.
    let frame = df!(
        "i" => [Some(5i32), None, Some(-3), Some(12), Some(i32::MIN)],
        "j" => [Some(3i32), Some(1), None, Some(-1), Some(7)],
        "u" => [Some(5u8), Some(255), None, Some(0), Some(128)],
        "v" => [Some(9u8), Some(1), Some(2), None, Some(127)],
        "w" => [Some(u64::MAX), Some(1), Some(2), None, Some(1 << 63)],
    )
    .unwrap()
    .lazy();
    assert_gpu_eq(
        "bitwise operators",
        frame.select([
            col("i").and(col("j")).alias("i & j"),
            col("i").or(col("j")).alias("i | j"),
            col("i").xor(col("j")).alias("i ^ j"),
            col("i").not().alias("!i"),
            col("u").and(col("v")).alias("u & v"),
            col("u").or(col("v")).alias("u | v"),
            col("u").xor(col("v")).alias("u ^ v"),
            col("u").not().alias("!u"),
            col("w").xor(lit(6u64)).alias("w ^ 6"),
            col("w").not().alias("!w"),
            col("i").and(lit(6i32)).alias("i & 6"),
        ]),
    );
}
