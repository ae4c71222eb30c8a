//! Row-order functions on the device: shifts, fills, cumulative and running functions, ranks, runs of equal values, reverses, sorts inside expressions.

use super::*;

#[test]
fn shifts_fills_and_cumulative_sums_within_groups_match_the_cpu() {
    // (Small values: Polars' debug build panics on sums that overflow.)
    let frame = || {
        df!(
            "g" => [Some("a"), Some("b"), None, Some("a"), Some("c"), Some("b"), None, Some("a"), Some("b"), Some("a")],
            "h" => [Some(1i32), Some(1), Some(2), Some(2), Some(1), Some(1), Some(2), Some(1), None, Some(2)],
            "x" => [Some(5i64), Some(-3), None, Some(7), Some(1), None, Some(9), None, Some(4), Some(-8)],
            "f" => [Some(1.5f64), None, Some(-2.0), Some(f64::NAN), Some(0.5), Some(3.0), None, Some(-1.0), Some(2.0), None],
            "b" => [Some(true), Some(false), None, Some(true), Some(true), Some(false), Some(true), None, Some(true), Some(true)],
            "s" => [Some("p"), None, Some("q"), None, Some("r"), Some("s"), None, Some(""), Some("t"), None],
        )
        .unwrap()
        .lazy()
    };
    let over = |e: Expr, by: &[&str]| {
        e.over(by.iter().map(|c| col(*c)).collect::<Vec<_>>())
            .unwrap()
    };
    let fill = |e: Expr, strategy| e.fill_null_with_strategy(strategy);
    assert_gpu_eq(
        "row-order parts within windows",
        frame().with_columns([
            over(col("x").shift(lit(1)), &["g"]).alias("lag by g"),
            over(col("x").shift(lit(-2)), &["g", "h"]).alias("lead 2 by g, h"),
            over(col("f").shift(lit(1)), &["h"]).alias("float lag by h"),
            over(col("b").shift(lit(1)), &["g"]).alias("bool lag by g"),
            over(col("x").shift(lit(100)), &["g"]).alias("shift past every group"),
            over(col("x").shift(lit(i64::MAX)), &["g"]).alias("shift by i64::MAX"),
            over(col("x").cum_sum(false), &["g"]).alias("running sum by g"),
            over(col("b").cum_sum(false), &["h"]).alias("running count by h"),
            over((col("x") * lit(2i64)).cum_sum(false), &["h"]).alias("computed running sum"),
            over(fill(col("x"), FillNullStrategy::Forward(None)), &["g"]).alias("forward by g"),
            over(fill(col("f"), FillNullStrategy::Backward(Some(1))), &["h"])
                .alias("backward 1 by h"),
            over(col("x") - col("x").shift(lit(1)), &["g"]).alias("difference by g"),
            over(
                col("x").cum_sum(false).cast(DataType::Float64) / col("x").sum(),
                &["g"],
            )
            .alias("share of the group's sum"),
            over(col("x").shift(lit(1)).sum(), &["g"]).alias("sum of the lag by g"),
            col("x")
                .cum_sum(false)
                .over([col("x") % lit(2i64)])
                .unwrap()
                .alias("by an expression"),
        ]),
    );
    assert_gpu_eq(
        "a lag by group in a filter",
        frame().filter(over(col("x").shift(lit(1)), &["g"]).gt(col("x"))),
    );
    assert_gpu_eq(
        "row-order parts inside aggregations of a group-by",
        frame().group_by_stable([col("g")]).agg([
            col("x").shift(lit(1)).sum().alias("sum of the lag"),
            col("x").cum_sum(false).max().alias("largest running sum"),
            fill(col("x"), FillNullStrategy::Forward(None))
                .last()
                .alias("last filled"),
            (col("x") - col("x").shift(lit(-1)))
                .abs()
                .mean()
                .alias("mean step"),
        ]),
    );
    assert_gpu_eq(
        "row-order parts inside whole-frame aggregations",
        frame().select([col("x").shift(lit(1)).sum().alias("sum of the lag")]),
    );
    assert_gpu_eq(
        "row-order parts inside whole-frame aggregations, repeated on every row",
        frame().with_columns([(col("x") - col("x").cum_sum(false).max()).alias("below the top")]),
    );
    assert_gpu_eq(
        "shifts and fills of text within windows",
        frame().with_columns([
            over(col("s").shift(lit(1)), &["g"]).alias("lag by g"),
            over(col("s").str().to_uppercase().shift(lit(-1)), &["h"]).alias("lead by h"),
            over(fill(col("s"), FillNullStrategy::Forward(None)), &["g"]).alias("forward by g"),
            over(
                fill(col("s"), FillNullStrategy::Backward(Some(1))),
                &["h", "b"],
            )
            .alias("backward 1 by h, b"),
        ]),
    );
    assert_gpu_eq(
        "a comparison of a text lag by group",
        frame().filter(over(col("s").shift(lit(1)), &["g"]).eq(lit("p"))),
    );
    // Ordered windows: each partition's rows in the order of a key.
    let ordered = |e: Expr, by: &[&str], key: Expr, descending: bool, nulls_last: bool| {
        let options = SortOptions::default()
            .with_order_descending(descending)
            .with_nulls_last(nulls_last);
        let partition: Vec<Expr> = by.iter().map(|c| col(*c)).collect();
        let partition = (!partition.is_empty()).then_some(partition);
        e.over_with_options(
            partition,
            Some((vec![key], options)),
            WindowMapping::GroupsToRows,
        )
        .unwrap()
    };
    let t = || col("f").fill_nan(lit(9.0));
    assert_gpu_eq(
        "ordered windows",
        frame().with_columns([
            ordered(col("x").cum_sum(false), &["g"], t(), false, false).alias("running sum by f"),
            ordered(col("x").shift(lit(1)), &["g"], t(), true, true).alias("lag by f descending"),
            ordered(
                fill(col("x"), FillNullStrategy::Forward(None)),
                &["h"],
                col("x"),
                false,
                true,
            )
            .alias("forward by x"),
            ordered(col("x").first(), &["g"], t(), false, true).alias("first by f"),
            ordered(col("f").last(), &["g", "h"], col("x"), true, false).alias("last by x"),
            ordered(col("x").sum(), &["g"], t(), false, false).alias("sum (order aside)"),
            ordered(
                col("x") - col("x").shift(lit(1)),
                &["g"],
                col("s"),
                false,
                true,
            )
            .alias("step by s"),
            ordered(col("s").shift(lit(-1)), &["h"], t(), false, false).alias("text lead by f"),
            ordered(col("x").cum_sum(false), &[], col("x"), true, true)
                .alias("over the frame by x"),
        ]),
    );
    assert_cpu_answer_with_reason(
        frame().select([ordered(
            col("x").rank(RankOptions::default(), None),
            &["g"],
            col("x"),
            false,
            false,
        )]),
        "a rank, distinctness test or sort in the ordered window",
    );
    // A window of text made row by row from the row's own values.
    assert_gpu_eq(
        "a window of a string operation",
        frame().select([over(col("s").str().to_uppercase(), &["g"])]),
    );
}

#[test]
fn shift_and_fill_matches_the_cpu() {
    let frame = || {
        let mut df = df!(
            "g" => [Some("a"), Some("b"), None, Some("a"), Some("c"), Some("b"), None, Some("a")],
            "x" => [Some(5i64), None, Some(-3), Some(7), Some(1), None, Some(9), Some(2)],
            "u" => [Some(5u8), Some(0), None, Some(7), Some(255), Some(1), Some(9), Some(2)],
            "f" => [Some(1.5f64), None, Some(-0.0), Some(f64::NAN), Some(0.5), Some(3.0), None, Some(-1.0)],
            "b" => [Some(true), Some(false), None, Some(true), Some(true), Some(false), Some(true), None],
            "s" => [Some("p"), None, Some("q"), None, Some("r"), Some(""), None, Some("t")],
            "d" => [Some(19_000i32), None, Some(-1), Some(0), Some(365), None, Some(7), Some(1)],
        )
        .unwrap();
        let date = df.column("d").unwrap().cast(&DataType::Date).unwrap();
        df.with_column(date).unwrap();
        df.lazy()
    };
    let fill = |column: &str, n: i64, value: Expr| {
        col(column)
            .shift_and_fill(lit(n), value)
            .alias(format!("{column} by {n}"))
    };
    assert_gpu_eq(
        "shift_and_fill over the frame: nulls shifted in stay null",
        frame().select([
            fill("x", 1, lit(0i64)),
            fill("x", -2, lit(-1i64)),
            fill("x", 3, lit(2.9)),
            fill("x", 0, lit(100i64)),
            fill("x", 20, lit(4i64)),
            fill("x", -20, lit(NULL)),
            fill("u", 2, lit(300i64)),
            fill("u", -1, lit(-1i64)),
            fill("f", 1, lit(f64::NAN)),
            fill("f", -1, lit(7i64)),
            fill("b", 2, lit(false)),
            fill("s", -3, lit("fill")),
            fill("s", 1, lit("")),
            fill("d", 1, lit(3i32).cast(DataType::Date)),
        ]),
    );
    assert_gpu_eq(
        "shift_and_fill within windows, aggregations and filters",
        frame()
            .with_columns([
                col("x")
                    .shift_and_fill(lit(1), lit(0i64))
                    .over([col("g")])
                    .unwrap()
                    .alias("lag by g"),
                col("s")
                    .shift_and_fill(lit(-1), lit("end"))
                    .over([col("g")])
                    .unwrap()
                    .alias("text lead by g"),
            ])
            .filter(col("x").shift_and_fill(lit(1), lit(0i64)).lt(col("x"))),
    );
    assert_gpu_eq(
        "windows of text made row by row from parts within the window",
        frame().with_columns([
            when(col("x").gt(col("x").mean()))
                .then(col("s"))
                .otherwise(lit("low"))
                .over([col("g")])
                .unwrap()
                .alias("above the group's mean"),
            concat_str([col("s"), col("s").shift(lit(1))], "-", false)
                .over([col("g")])
                .unwrap()
                .alias("with the one before"),
            col("s")
                .shift(lit(1))
                .fill_null(col("s").first())
                .str()
                .to_uppercase()
                .over([col("g")])
                .unwrap()
                .alias("lag or the group's first, upper"),
        ]),
    );
    assert_gpu_eq(
        "shift_and_fill inside group-by aggregations",
        frame().group_by_stable([col("g")]).agg([
            col("x")
                .shift_and_fill(lit(1), lit(10i64))
                .sum()
                .alias("sum"),
            col("f")
                .shift_and_fill(lit(-1), lit(0.25))
                .last()
                .alias("last"),
        ]),
    );
    // A fill value that is an expression (Polars requires one value: an
    // aggregation), of the frame or of the group, converted to the
    // input's type.
    assert_gpu_eq(
        "shift_and_fill by expressions over the frame",
        frame().select([
            fill("x", 1, col("x").max()),
            fill("x", -2, col("u").first()),
            fill("u", 2, col("x").sum()),
            fill("f", 1, col("x").min()),
            fill("f", -1, col("f").drop_nulls().last()),
            fill("b", 2, col("b").last()),
            fill("s", -3, col("s").last()),
            fill("d", 1, col("d").max()),
        ]),
    );
    assert_gpu_eq(
        "shift_and_fill by expressions per group",
        frame()
            .with_columns([col("x")
                .shift_and_fill(lit(1), col("x").first())
                .over([col("g")])
                .unwrap()
                .alias("lag or the group's first")])
            .group_by_stable([col("g")])
            .agg([col("f")
                .shift_and_fill(lit(-1), col("x").mean())
                .sum()
                .alias("sum")]),
    );
}

#[test]
fn ranks_distinctness_tests_and_differences_match_the_cpu() {
    let frame = || {
        df!(
            "g" => [Some("a"), Some("b"), None, Some("a"), Some("b"), Some("a"), None, Some("b"), Some("a"), Some("a")],
            "i" => [Some(3i64), Some(-1), None, Some(3), Some(7), None, Some(3), Some(-1), Some(0), Some(3)],
            "f" => [Some(0.0f64), Some(f64::NAN), Some(-0.0), None, Some(1.5), Some(f64::NAN), Some(-2.0), Some(1.5), None, Some(f64::INFINITY)],
            "s" => [Some("x"), None, Some("y"), Some("x"), Some(""), None, Some("y"), Some("z"), Some(""), Some("x")],
            "b" => [Some(true), None, Some(false), Some(true), None, Some(false), Some(true), Some(true), None, Some(false)],
            "u" => [Some(200u8), Some(3), Some(200), None, Some(0), Some(255), Some(3), Some(1), Some(9), Some(0)],
            "w" => [Some(5u32), Some(1), None, Some(u32::MAX), Some(0), Some(7), Some(2), Some(1), Some(9), Some(4)],
        )
        .unwrap()
        .lazy()
        .with_columns([col("i").cast(DataType::Date).alias("d"), col("f").cast(DataType::Float32).alias("h")])
    };
    let methods = [
        RankMethod::Average,
        RankMethod::Min,
        RankMethod::Max,
        RankMethod::Dense,
        RankMethod::Ordinal,
    ];
    let rank = |c: &str, method, descending| col(c).rank(RankOptions { method, descending }, None);
    let mut exprs = vec![];
    for method in methods {
        for descending in [false, true] {
            for c in ["i", "f", "h", "d", "u", "w", "s", "b"] {
                exprs.push(
                    rank(c, method, descending).alias(format!("rank {c} {method:?} {descending}")),
                );
            }
            exprs.push(
                rank("i", method, descending)
                    .over([col("g")])
                    .unwrap()
                    .alias(format!("rank i by g {method:?} {descending}")),
            );
            exprs.push(
                rank("s", method, descending)
                    .over([col("g")])
                    .unwrap()
                    .alias(format!("rank s by g {method:?} {descending}")),
            );
            exprs.push(
                rank("f", method, descending)
                    .over([col("g"), col("b")])
                    .unwrap()
                    .alias(format!("rank f by g, b {method:?} {descending}")),
            );
        }
    }
    for c in ["i", "f", "h", "s", "b", "u", "d"] {
        exprs.extend([
            col(c).is_unique().alias(format!("{c} unique")),
            col(c).is_duplicated().alias(format!("{c} duplicated")),
            col(c).is_first_distinct().alias(format!("{c} first")),
            col(c).is_last_distinct().alias(format!("{c} last")),
            col(c)
                .is_first_distinct()
                .over([col("g")])
                .unwrap()
                .alias(format!("{c} first by g")),
            col(c)
                .is_duplicated()
                .over([col("g")])
                .unwrap()
                .alias(format!("{c} duplicated by g")),
        ]);
    }
    for (c, n) in [
        ("i", 1i64),
        ("i", -2),
        ("u", 1),
        ("w", 2),
        ("f", 1),
        ("h", -1),
    ] {
        exprs.push(
            col(c)
                .diff(lit(n), NullBehavior::Ignore)
                .alias(format!("diff {c} {n}")),
        );
    }
    exprs.push(
        col("i")
            .diff(lit(1i64), NullBehavior::Ignore)
            .over([col("g")])
            .unwrap()
            .alias("diff i by g"),
    );
    assert_gpu_eq("ranks, distinctness and differences", frame().select(exprs));
    assert_gpu_eq(
        "first distinct rows in a filter",
        frame().filter(col("s").is_first_distinct().and(col("i").is_not_null())),
    );
    assert_gpu_eq(
        "ranks and duplicates inside group-by aggregations",
        frame().group_by_stable([col("g")]).agg([
            rank("i", RankMethod::Dense, false)
                .max()
                .alias("distinct values"),
            col("i").is_duplicated().sum().alias("duplicated rows"),
        ]),
    );
    assert_gpu_eq(
        "whole-frame sums of booleans",
        frame().select([
            col("b").sum().alias("true values"),
            col("i").is_unique().sum().alias("unique values"),
        ]),
    );
    for (expr, reason) in [
        (col("i").diff(lit(1i64), NullBehavior::Drop), "diff"),
        (
            col("d").diff(lit(1i64), NullBehavior::Ignore),
            "diff of date",
        ),
    ] {
        assert_cpu_answer_with_reason(frame().select([expr]), reason);
    }
}

#[test]
fn forward_and_backward_fills_match_the_cpu() {
    let frame = || {
        df!(
            "x" => [None, Some(1i64), None, None, Some(4), None, None, None, Some(8), None],
            "s" => [Some("a"), None, None, Some("d"), None, None, None, Some(""), None, None],
            "f" => [None, None, Some(f64::NAN), None, Some(-1.5), None, None, None, None, Some(2.0)],
        )
        .unwrap()
        .lazy()
    };
    let fill = |c: &str, strategy| col(c).fill_null_with_strategy(strategy);
    let mut exprs = vec![];
    for (name, strategy) in [
        ("forward", FillNullStrategy::Forward(None)),
        ("backward", FillNullStrategy::Backward(None)),
        ("forward 1", FillNullStrategy::Forward(Some(1))),
        ("backward 2", FillNullStrategy::Backward(Some(2))),
        ("forward 0", FillNullStrategy::Forward(Some(0))),
    ] {
        for c in ["x", "s", "f"] {
            exprs.push(fill(c, strategy).alias(format!("{c} {name}")));
        }
    }
    exprs.push(
        (col("x") * lit(2i64))
            .fill_null_with_strategy(FillNullStrategy::Forward(None))
            .alias("computed"),
    );
    assert_gpu_eq("forward and backward fills", frame().select(exprs));
    assert_gpu_eq(
        "a fill in a filter",
        frame().filter(fill("x", FillNullStrategy::Backward(None)).gt(lit(3i64))),
    );
    // By a value: the strategies of numbers (and `zero`/`one` of booleans).
    let texts = df!("s" => [Some("b"), None, Some("a")]).unwrap().lazy();
    assert_cpu_answer_with_reason(
        texts.select([col("s").fill_null_with_strategy(FillNullStrategy::Min)]),
        "fill_null with the strategy Min of str",
    );
}

#[test]
fn cumulative_sums_of_integers_match_the_cpu() {
    // (Small values: Polars' debug build panics on sums that overflow.)
    let frame = || {
        df!(
            "i" => [Some(5i64), None, Some(-3), Some(7), None, Some(1_000_000_000_000), Some(-2)],
            "j" => [Some(2_000i32), Some(-7), None, Some(-5), Some(1), Some(2), Some(3)],
            "u" => [Some(200u8), Some(100), None, Some(255), Some(1), Some(0), Some(9)],
            "b" => [Some(true), None, Some(true), Some(false), Some(true), None, Some(true)],
            "f" => [Some(0.1f64), Some(0.2), None, Some(0.3), Some(1e16), Some(1.0), Some(-1e16)],
        )
        .unwrap()
        .lazy()
    };
    assert_gpu_eq(
        "cum_sum",
        frame().select([
            col("i").cum_sum(false).alias("i"),
            col("j").cum_sum(false).alias("i32"),
            col("u").cum_sum(false).alias("u8 as i64"),
            col("b").cum_sum(false).alias("bool as u32"),
            (col("i") * lit(2i64)).cum_sum(false).alias("computed"),
            col("i").cum_sum(true).alias("reversed"),
            col("b").cum_sum(true).alias("reversed bool"),
            col("u").cum_sum(true).alias("reversed u8 as i64"),
            col("i")
                .cum_sum(true)
                .over([col("b")])
                .unwrap()
                .alias("reversed by b"),
        ]),
    );
    assert_gpu_eq(
        "cum_count",
        frame().select([
            col("i").cum_count(false).alias("forward"),
            col("i").cum_count(true).alias("reversed"),
            col("f")
                .cum_count(false)
                .over([col("b")])
                .unwrap()
                .alias("forward by b"),
            col("f")
                .cum_count(true)
                .over([col("b")])
                .unwrap()
                .alias("reversed by b"),
        ]),
    );
    assert_gpu_eq(
        "a cum_sum in a filter",
        frame().filter(col("i").cum_sum(false).gt(lit(5i64))),
    );
    assert_gpu_eq(
        "a running sum of floats",
        frame().select([col("f").cum_sum(false)]),
    );
    assert_cpu_answer_with_reason(
        frame().select([col("j").cum_sum(true)]),
        "reversed cum_sum as i32",
    );
}

#[test]
fn running_maxima_and_minima_match_the_cpu() {
    // Zeros of both signs, NaN before and after numbers, nulls, extremes.
    let frame = |n: usize| {
        let floats = [
            Some(f64::NAN),
            Some(-0.0),
            Some(0.0),
            None,
            Some(f64::NAN),
            Some(-0.0),
            Some(1.5),
            Some(f64::NEG_INFINITY),
            Some(-2.5),
            Some(f64::INFINITY),
        ];
        let ints = [
            Some(3i64),
            None,
            Some(i64::MIN),
            Some(-7),
            Some(3),
            Some(i64::MAX),
        ];
        df!(
            "x" => (0..n).map(|i| floats[(i * 7 + i / 10) % floats.len()]).collect::<Vec<_>>(),
            "i" => (0..n).map(|i| ints[(i * 5 + i / 6) % ints.len()]).collect::<Vec<_>>(),
            "u" => (0..n).map(|i| (i % 9 != 4).then_some((i * 37 % 11) as u64 * (u64::MAX / 10))).collect::<Vec<_>>(),
            "g" => (0..n).map(|i| (i * 13 % 5) as i32).collect::<Vec<_>>(),
            "t" => (0..n).map(|i| (i * 29 % 17) as i64).collect::<Vec<_>>(),
        )
        .unwrap()
        .lazy()
        .with_columns([
            col("x").cast(DataType::Float32).alias("h"),
            col("i").cast(DataType::Int8).alias("s"),
        ])
    };
    // Reciprocals tell the zeros apart.
    let inv = |e: Expr| lit(1.0) / e;
    for n in [1, 7, 100, 5_000] {
        let mut exprs = Vec::new();
        for (name, minimum, reverse) in [
            ("cum_max", false, false),
            ("cum_min", true, false),
            ("reversed cum_max", false, true),
            ("reversed cum_min", true, true),
        ] {
            let run = |e: Expr| {
                if minimum {
                    e.cum_min(reverse)
                } else {
                    e.cum_max(reverse)
                }
            };
            exprs.extend([
                inv(run(col("x"))).alias(format!("1 / {name} of x")),
                run(col("x")).alias(format!("{name} of x")),
                run(col("h")).alias(format!("{name} of f32")),
                run(col("i")).alias(format!("{name} of i64")),
                run(col("s")).alias(format!("{name} of i8")),
                run(col("u")).alias(format!("{name} of u64")),
                run(col("i") * lit(-1i64)).alias(format!("{name} of a computed value")),
                inv(run(col("x")).over([col("g")]).unwrap()).alias(format!("1 / {name} by g")),
                run(col("i"))
                    .over([col("g")])
                    .unwrap()
                    .alias(format!("{name} of i64 by g")),
                run(col("x"))
                    .over_with_options(
                        Some(vec![col("g")]),
                        Some((vec![col("t")], SortOptions::default())),
                        WindowMapping::GroupsToRows,
                    )
                    .unwrap()
                    .alias(format!("{name} by g ordered by t")),
            ]);
        }
        assert_gpu_eq(
            &format!("running extremes, {n} rows"),
            frame(n).select(exprs),
        );
        assert_gpu_eq(
            &format!("running extremes per group, {n} rows"),
            frame(n).group_by_stable([col("g")]).agg([
                col("i").cum_max(false).last().alias("last running max"),
                (col("x").cum_min(false) - col("x"))
                    .max()
                    .alias("largest drop"),
            ]),
        );
    }
    assert_cpu_answer_with_reason(
        frame(5).select([(col("i").gt(lit(0i64))).cum_min(false)]),
        "cum_min of bool",
    );
}

#[test]
fn arg_min_and_arg_max_match_the_cpu() {
    let frame = || {
        let mut df = df!(
            "g" => ["a", "b", "a", "c", "b", "a", "c", "a"],
            "x" => [Some(3i64), None, Some(7), Some(-1), Some(8), Some(-2), None, Some(5)],
            "f" => [Some(f64::NAN), Some(1.5), None, Some(f64::NAN), Some(-0.0), Some(2.5), None, Some(-3.0)],
            "b" => [Some(true), Some(false), None, Some(false), Some(true), Some(false), Some(true), None],
            "u" => [1u8, 2, 3, 4, 5, 6, 7, 0],
            "n" => [Some(1i32), Some(2), Some(3), None, Some(4), Some(0), None, Some(-5)],
            "d" => [Some(19_000i32), None, Some(-1), Some(0), Some(365), Some(-400), Some(7), Some(1)],
        )
        .unwrap();
        let date = df.column("d").unwrap().cast(&DataType::Date).unwrap();
        df.with_column(date).unwrap();
        df.lazy()
    };
    let both = |column: &str| {
        [
            col(column).arg_min().alias(format!("{column} min")),
            col(column).arg_max().alias(format!("{column} max")),
        ]
    };
    let all = || {
        ["x", "f", "b", "u", "n", "d"]
            .into_iter()
            .flat_map(both)
            .collect::<Vec<_>>()
    };
    assert_gpu_eq("arg_min and arg_max over the frame", frame().select(all()));
    assert_gpu_eq(
        "arg_min and arg_max of no rows",
        frame().filter(col("u").gt(lit(200u8))).select(all()),
    );
    assert_gpu_eq(
        "arg_min and arg_max per group (NaN only where all valid values are NaN; null where none is valid)",
        frame().group_by_stable([col("g")]).agg(all()),
    );
    assert_gpu_eq(
        "arg_max in windows and expressions",
        frame().with_columns([
            col("x")
                .arg_max()
                .over([col("g")])
                .unwrap()
                .alias("in window"),
            (col("x").arg_min() + lit(10u32)).alias("in an expression"),
        ]),
    );
    // A best value held twice: Polars' answer depends on whether it knows
    // the values sorted (the first of them, else the last for a maximum of
    // ascending values): the device cannot tell, so the collect falls back.
    let ties = "more than once in a group";
    assert_cpu_answer_with_reason(
        frame().select([col("u").cast(DataType::Int64).clip_max(lit(4i64)).arg_max()]),
        ties,
    );
    let sorted = df!("t" => [3i64, 1, 3, 2])
        .unwrap()
        .lazy()
        .sort(["t"], Default::default());
    assert_eq!(
        sorted
            .clone()
            .select([col("t").arg_max()])
            .collect()
            .unwrap(),
        df!("t" => [3u32]).unwrap(),
        "Polars takes the last maximum of values it knows sorted"
    );
    assert_cpu_answer_with_reason(sorted.select([col("t").arg_max()]), ties);
    assert_cpu_answer_with_reason(
        frame()
            .group_by_stable([col("g")])
            .agg([col("f").fill_nan(lit(2.5)).arg_max()]),
        ties,
    );
}

#[test]
fn reverse_matches_the_cpu() {
    let frame = || {
        df!(
            "g" => [Some("a"), Some("b"), None, Some("a"), Some("c"), Some("b"), None, Some("a")],
            "x" => [Some(5i64), None, Some(-3), Some(7), Some(1), None, Some(9), Some(2)],
            "f" => [Some(1.5f64), None, Some(-0.0), Some(f64::NAN), Some(0.5), Some(3.0), None, Some(-1.0)],
            "b" => [Some(true), Some(false), None, Some(true), Some(true), Some(false), Some(true), None],
            "s" => [Some("p"), None, Some("q"), None, Some("r"), Some(""), None, Some("t")],
            "t" => [3i32, 1, 4, 1, 5, 9, 2, 6],
        )
        .unwrap()
        .lazy()
    };
    let reversed = |column: &str| col(column).reverse().alias(format!("{column} reversed"));
    assert_gpu_eq(
        "reverse over the frame",
        frame().with_columns([
            reversed("x"),
            reversed("f"),
            reversed("b"),
            reversed("s"),
            (col("x") - col("x").reverse()).alias("x less its mirror"),
            col("x")
                .reverse()
                .cum_sum(false)
                .alias("running sum from the end"),
        ]),
    );
    assert_gpu_eq(
        "reverse of no rows",
        frame()
            .filter(col("t").gt(lit(100)))
            .select([reversed("x"), reversed("s")]),
    );
    assert_gpu_eq(
        "reverse within windows (ordered too)",
        frame().with_columns([
            col("x").reverse().over([col("g")]).unwrap().alias("x by g"),
            col("s").reverse().over([col("g")]).unwrap().alias("s by g"),
            col("x")
                .reverse()
                .over_with_options(
                    Some([col("g")]),
                    Some(([col("t")], SortOptions::default())),
                    Default::default(),
                )
                .unwrap()
                .alias("x by g in the order of t"),
        ]),
    );
    assert_gpu_eq(
        "reverse inside aggregations",
        frame().group_by_stable([col("g")]).agg([
            col("x").reverse().first().alias("first of the reversed"),
            (col("x").reverse() * col("t"))
                .sum()
                .alias("dot with the mirror"),
        ]),
    );
}

#[test]
fn sorts_inside_expressions_match_the_cpu() {
    let mut next = xorshift(0x5047_1e55);
    let n = 300;
    let mut draw = |k: u64| next() % k;
    let i: Vec<Option<i64>> = (0..n)
        .map(|_| (draw(9) != 0).then(|| draw(20) as i64 - 10))
        .collect();
    let f: Vec<Option<f64>> = (0..n)
        .map(|_| match draw(12) {
            0 => None,
            1 => Some(f64::NAN),
            2 => Some(f64::INFINITY),
            k => Some(k as f64 * 0.5 - 3.0),
        })
        .collect();
    let s: Vec<Option<String>> = (0..n)
        .map(|_| (draw(7) != 0).then(|| ["b", "a", "ab", "", "é", "ba"][draw(6) as usize].into()))
        .collect();
    let g: Vec<i32> = (0..n).map(|_| draw(5) as i32).collect();
    let frame = || {
        df!("i" => &i, "f" => &f, "s" => &s, "g" => &g)
            .unwrap()
            .lazy()
    };
    let descending = SortOptions::default()
        .with_order_descending(true)
        .with_nulls_last(true);
    let by_desc = SortMultipleOptions::default()
        .with_order_descending(true)
        .with_nulls_last(true);
    assert_gpu_eq(
        "sorts over the frame",
        frame().select([
            col("i").sort(Default::default()).alias("i"),
            col("i").sort(descending).alias("i desc"),
            col("f").sort(Default::default()).alias("f"),
            col("f").sort(descending).alias("f desc"),
            col("s").sort(Default::default()).alias("s"),
            col("s").sort(descending).alias("s desc"),
            col("i")
                .sort_by([col("s")], Default::default())
                .alias("i by s"),
            col("s")
                .sort_by([col("f")], by_desc.clone())
                .alias("s by f"),
            col("i").arg_sort(false, false).alias("arg"),
            col("f").arg_sort(true, true).alias("arg desc"),
            (col("i").sort(Default::default()) - col("i")).alias("computed"),
            col("i")
                .sort_by(
                    [col("g"), col("f")],
                    SortMultipleOptions::default().with_maintain_order(true),
                )
                .alias("two keys"),
        ]),
    );
    assert_gpu_eq(
        "sorts within windows",
        frame().with_columns([
            col("i")
                .sort(Default::default())
                .over([col("g")])
                .unwrap()
                .alias("i"),
            col("f")
                .arg_sort(true, false)
                .over([col("g")])
                .unwrap()
                .alias("arg"),
            col("s")
                .sort(descending)
                .over([col("g")])
                .unwrap()
                .alias("s"),
            col("i")
                .sort_by([col("f")], Default::default())
                .over([col("g")])
                .unwrap()
                .alias("by f"),
        ]),
    );
    assert_gpu_eq(
        "sorts inside aggregations",
        frame().group_by_stable([col("g")]).agg([
            col("i").sort(Default::default()).first().alias("first"),
            col("i").sort(descending).last().alias("last"),
            (col("i").sort(descending) - col("i"))
                .abs()
                .max()
                .alias("computed"),
            col("s")
                .sort_by([col("i")], Default::default())
                .last()
                .alias("s"),
        ]),
    );
    // Polars sorts by several keys stably only when asked to keep the
    // order: rows equal on every key are in its own order, so data with
    // them goes to Polars; without them, the device sorts.
    assert_cpu_answer_with_reason(
        frame().select([col("i").sort_by([col("g"), col("f")], Default::default())]),
        r#"rows equal on every key of `col("i").sort_by(col("g"), col("f"))`: "#,
    );
    let distinct = || {
        frame().with_row_index("r", None).with_columns([
            (col("r") % lit(97u32)).alias("r97"),
            (col("r") / lit(97u32)).alias("q"),
        ])
    };
    assert_gpu_eq(
        "a sort_by by two keys without maintain_order, no rows equal on both",
        distinct().select([
            col("s").sort_by([col("r97"), col("q")], Default::default()),
            col("i")
                .sort_by([col("r97"), col("q")], by_desc.clone())
                .alias("descending"),
        ]),
    );
    assert_gpu_eq(
        "first and last by two keys without maintain_order, per group",
        distinct().group_by_stable([col("g")]).agg([
            col("i")
                .sort_by([col("r97"), col("q")], Default::default())
                .first(),
            col("s")
                .sort_by([col("q"), col("r97")], by_desc.clone())
                .last(),
        ]),
    );
}

#[test]
fn sorts_parses_formats_and_memberships_of_no_rows_and_one_row_match_the_cpu() {
    let frame = || {
        df!(
            "i" => [Some(3i64), None, Some(1)],
            "f" => [Some(1.5), Some(f64::NAN), None],
            "s" => [Some("2.5"), None, Some("x")],
            "g" => [1i32, 1, 2],
        )
        .unwrap()
        .lazy()
    };
    let queries = |lf: LazyFrame| {
        [
            lf.clone().select([
                col("i").sort(Default::default()).alias("sorted"),
                col("f").arg_sort(true, true).alias("arg"),
                col("s")
                    .sort_by([col("i"), col("f")], Default::default())
                    .alias("by two"),
                col("s").cast(DataType::Float64).alias("parsed"),
                col("f").cast(DataType::String).alias("written"),
                col("s").str().count_matches(lit("."), true).alias("count"),
                col("i")
                    .is_in((col("i") + lit(1i64)).implode(false), false)
                    .alias("member"),
            ]),
            lf.clone()
                .with_columns([col("i").sort(Default::default()).over([col("g")]).unwrap()]),
            lf.group_by_stable([col("g")]).agg([
                col("f").sort_by([col("i")], Default::default()).first(),
                col("i")
                    .is_in(col("i").implode(false), true)
                    .sum()
                    .alias("members"),
            ]),
        ]
    };
    for (rows, lf) in [(0, frame().filter(lit(false))), (1, frame().slice(0, 1))] {
        for (k, query) in queries(lf).into_iter().enumerate() {
            assert_gpu_eq(&format!("{rows} rows, query {k}"), query);
        }
    }
}

#[test]
fn running_sums_of_floats_are_polars_to_the_bit() {
    let frame = df!(
        "g" => [1i64, 2, 1, 1, 2, 2, 1, 2],
        "x" => [Some(0.1f64), Some(-0.0), None, Some(1e16), Some(f64::NAN), Some(0.2), Some(-1e16), Some(0.3)],
        "y" => [Some(0.1f32), Some(-0.0), None, Some(1e8), Some(3.5), Some(0.2), Some(0.3), None],
    )
    .unwrap()
    .lazy();
    for (name, lf) in [
        (
            "over the frame (sums whose order shows in the last bits)",
            frame
                .clone()
                .select([col("x").cum_sum(false), col("y").cum_sum(false)]),
        ),
        (
            "reversed",
            frame
                .clone()
                .select([col("x").cum_sum(true), col("y").cum_sum(true)]),
        ),
        (
            "per window group, of computed values",
            frame.clone().select([
                col("x").cum_sum(false).over([col("g")]).unwrap().alias("x"),
                col("y")
                    .cum_sum(true)
                    .over([col("g")])
                    .unwrap()
                    .alias("y reversed"),
                (col("x") * lit(3.0)).cum_sum(false).alias("3x"),
            ]),
        ),
        (
            "per group of a group-by",
            frame.clone().group_by_stable([col("g")]).agg([
                col("x").cum_sum(false).alias("running"),
                col("x").cum_sum(false).last().alias("total"),
            ]),
        ),
        (
            "of negative zeros (0.0 + -0.0 is 0.0)",
            df!("z" => [-0.0f64, -0.0])
                .unwrap()
                .lazy()
                .select([col("z").cum_sum(false)]),
        ),
    ] {
        assert_gpu_eq(name, lf);
    }
}

#[test]
fn running_products_match_the_cpu() {
    let frame = || {
        df!(
            "g" => [1, 2, 1, 2, 1, 1, 2, 1],
            "i" => [Some(3i32), None, Some(-2), Some(5), Some(7), None, Some(-1), Some(2)],
            "u" => [Some(3u64), Some(1 << 20), None, Some(1 << 10), Some(7), Some(2), Some(5), Some(3)],
            "b" => [Some(true), Some(true), None, Some(false), Some(true), Some(true), Some(true), Some(true)],
            "f" => [Some(1.5f64), Some(-0.0), None, Some(3.0e200), Some(3.0e200), Some(f64::NAN), Some(0.1), Some(-2.0)],
            "f32" => [Some(1.5f32), Some(0.1), Some(-3.0), None, Some(1e30), Some(1e30), Some(0.5), Some(7.0)],
        )
        .unwrap()
        .lazy()
    };
    assert_gpu_eq(
        "cum_prod of every numeric kind, both ways",
        frame().select([
            col("i").cum_prod(false).alias("i"),
            col("u").cum_prod(false).alias("u"),
            col("b").cum_prod(false).alias("b"),
            col("f").cum_prod(false).alias("f"),
            col("f32").cum_prod(false).alias("f32"),
            col("i").cum_prod(true).alias("i reversed"),
            col("f").cum_prod(true).alias("f reversed"),
        ]),
    );
    assert_gpu_eq(
        "cum_prod per window and of an expression",
        frame().select([
            col("f")
                .cum_prod(false)
                .over([col("g")])
                .unwrap()
                .alias("per group"),
            (col("i") + lit(1)).cum_prod(false).alias("of i + 1"),
        ]),
    );
}

#[test]
fn rle_id_numbers_runs_of_equal_values_as_polars_does() {
    // Runs of numbers, NaN and zeros of both signs, nulls (equal to each
    // other), texts, booleans and categoricals; over the frame, within
    // windows and per group.
    let frame = df!(
        "g" => [1i64, 1, 2, 1, 2, 2, 1, 2, 1, 1],
        "i" => [Some(3i64), Some(3), None, None, Some(3), Some(1), Some(1), None, Some(3), Some(3)],
        "f" => [Some(f64::NAN), Some(f64::NAN), Some(0.0), Some(-0.0), None, None, Some(1.5), Some(1.5), Some(0.0), Some(f64::NAN)],
        "s" => [Some("a"), Some("a"), Some("b"), None, None, Some("b"), Some(""), Some(""), Some("a"), None],
        "b" => [Some(true), Some(true), Some(false), None, Some(false), Some(false), None, None, Some(true), Some(true)],
    )
    .unwrap()
    .lazy()
    .with_columns([col("s")
        .cast(DataType::from_categories(Categories::global()))
        .alias("c")]);
    let runs = |suffix: &str| {
        ["i", "f", "s", "b", "c"].map(|name| col(name).rle_id().alias(format!("{name}{suffix}")))
    };
    // (Per group, text shifted inside an aggregation falls back.)
    let [i, f, _, b, c] = runs(" last");
    assert_gpu_eq("runs over the frame", frame.clone().select(runs("")));
    assert_gpu_eq(
        "runs within windows",
        frame
            .clone()
            .select(runs(" in g").map(|run| run.over([col("g")]).unwrap())),
    );
    assert_gpu_eq(
        "runs per group",
        frame
            .clone()
            .group_by_stable([col("g")])
            .agg([i, f, b, c].map(|run| run.max())),
    );
}
