//! Decimals on the device: held, keyed, compared, computed and cast as Polars does, and what goes to Polars (values beyond i64, sums and results that leave it).

use super::*;

/// A decimal column of `precision` and `scale` of the scaled integers `values`.
fn decimals(name: &str, values: &[Option<i128>], precision: usize, scale: usize) -> Column {
    Int128Chunked::from_iter_options(name.into(), values.iter().copied())
        .into_decimal(precision, scale)
        .unwrap()
        .into_series()
        .into()
}

/// Prices at scale 2, rates at scale 4 and whole numbers, with nulls,
/// negatives, ties for every rounding and the extremes of 18 digits.
fn table() -> LazyFrame {
    let prices = [
        Some(1050),
        Some(-250),
        None,
        Some(0),
        Some(250),
        Some(-1050),
        Some(999_999_999_999_999_999),
        Some(-999_999_999_999_999_999),
        Some(350),
        Some(1050),
        Some(5),
        Some(-15),
    ];
    let rates = [
        Some(5000),
        Some(-12_345),
        Some(10_000),
        None,
        Some(2_500),
        Some(1),
        Some(0),
        Some(-1),
        Some(15_000),
        Some(5000),
        Some(-5000),
        Some(25_000),
    ];
    let wholes = [
        Some(3),
        Some(-2),
        Some(7),
        Some(0),
        None,
        Some(4),
        Some(1),
        Some(-1),
        Some(2),
        Some(3),
        Some(-8),
        Some(6),
    ];
    let k = [1, 2, 1, 2, 3, 1, 3, 3, 2, 1, 2, 3];
    DataFrame::new_infer_height(vec![
        decimals("p", &prices, 18, 2),
        decimals("r", &rates, 10, 4),
        decimals("w", &wholes, 5, 0),
        Column::new("k".into(), k),
    ])
    .unwrap()
    .lazy()
}

/// `aggs` over the table's whole frame and per group of `k`.
fn of_the_frame_and_per_group(name: &str, aggs: &[Expr]) {
    assert_gpu_eq(&format!("{name} of the frame"), table().select(aggs));
    let per_group = table().group_by([col("k")]).agg(aggs);
    assert_gpu_eq(
        &format!("{name} per group"),
        per_group.sort(["k"], Default::default()),
    );
}

#[test]
fn decimals_are_held_filtered_sorted_and_keyed() {
    assert_gpu_eq(
        "filtered by a comparison",
        table().filter(col("p").gt(col("w").cast(DataType::Decimal(18, 2)))),
    );
    assert_gpu_eq(
        "sorted by decimals",
        table().sort(
            ["p", "r"],
            SortMultipleOptions::default().with_maintain_order(true),
        ),
    );
    assert_gpu_eq(
        "grouped by decimals",
        table()
            .group_by([col("p")])
            .agg([col("k").sum(), col("r").max().alias("r max")])
            .sort(["p"], Default::default()),
    );
    let right = table()
        .select([col("p"), col("k").alias("k2")])
        .unique(None, UniqueKeepStrategy::First);
    assert_gpu_eq(
        "joined on decimals",
        table()
            .join(
                right,
                [col("p")],
                [col("p")],
                JoinArgs::new(JoinType::Inner),
            )
            .sort(
                ["k", "k2", "r"],
                SortMultipleOptions::default().with_nulls_last(true),
            ),
    );
    assert_gpu_eq(
        "keyed by decimals of another scale",
        table().select([
            col("p").sum().over([col("r")]).unwrap().alias("sum by r"),
            col("p")
                .sort_by(
                    [col("r")],
                    SortMultipleOptions::default().with_maintain_order(true),
                )
                .alias("p by r"),
            as_struct(vec![col("p"), col("r")]).alias("both"),
        ]),
    );
    assert_gpu_eq(
        "distinct decimals",
        table()
            .select([col("p")])
            .unique_stable(None, UniqueKeepStrategy::First),
    );
}

#[test]
fn decimal_aggregations_are_polars() {
    let aggs = || {
        [
            col("p").sum().alias("p sum"),
            col("r").sum().alias("r sum"),
            col("p").min().alias("p min"),
            col("r").max().alias("r max"),
            col("p").first().alias("p first"),
            col("r").last().alias("r last"),
            col("p").count().alias("p count"),
            col("w").n_unique().alias("w n_unique"),
            col("p")
                .filter(col("k").eq(lit(1)))
                .sum()
                .alias("p sum where"),
        ]
    };
    of_the_frame_and_per_group("aggregations", &aggs());
    assert_gpu_eq(
        "in windows",
        table().select([
            col("p").sum().over([col("k")]).unwrap(),
            col("r").max().over([col("k")]).unwrap(),
        ]),
    );
    assert_gpu_eq("of no rows", table().filter(lit(false)).select(aggs()));
}

#[test]
fn decimal_arithmetic_and_comparisons_are_polars() {
    let ops = |a: &str, b: &str| {
        [
            (col(a) + col(b)).alias(format!("{a}+{b}")),
            (col(a) - col(b)).alias(format!("{a}-{b}")),
            (col(a) * col(b)).alias(format!("{a}*{b}")),
            (col(a) / col(b)).alias(format!("{a}/{b}")),
            col(a).lt(col(b)).alias(format!("{a}<{b}")),
            col(a).eq(col(b)).alias(format!("{a}=={b}")),
            col(a).gt_eq(col(b)).alias(format!("{a}>={b}")),
        ]
    };
    // Products and quotients of the 18-digit prices leave i64: the small ones.
    let small = table().filter(
        (col("p")
            .lt(lit(1_000_000))
            .and(col("p").gt(lit(-1_000_000))))
        .or(col("p").is_null()),
    );
    let mut exprs = vec![];
    for (a, b) in [("r", "w"), ("w", "r"), ("r", "r"), ("w", "w"), ("p", "r")] {
        exprs.extend(ops(a, b));
    }
    exprs.extend(ops("p", "w")[..2].to_vec());
    // (Polars raises dividing by a zero: no zero divisors here.)
    let divisors = small
        .clone()
        .filter(col("r").neq(lit(0)).and(col("w").neq(lit(0))));
    assert_gpu_eq("between columns", divisors.select(exprs));
    assert_gpu_eq(
        "with literals",
        small.select([
            (col("r") * lit(3)).alias("r*3"),
            (col("w") + lit(1)).alias("w+1"),
            col("r").gt(lit(0)).alias("r>0"),
        ]),
    );
}

#[test]
fn decimal_casts_round_and_check_as_polars() {
    let casts = |name: &str| {
        let c = || col(name);
        [
            c().cast(DataType::Float64).alias(format!("{name} f64")),
            c().cast(DataType::Float32).alias(format!("{name} f32")),
            c().cast(DataType::Int64).alias(format!("{name} i64")),
            c().cast(DataType::Int8).alias(format!("{name} i8")),
            c().cast(DataType::UInt16).alias(format!("{name} u16")),
            c().cast(DataType::Decimal(6, 1))
                .alias(format!("{name} d6.1")),
            c().cast(DataType::Decimal(30, 6))
                .alias(format!("{name} d30.6")),
            c().cast(DataType::Decimal(4, 0))
                .alias(format!("{name} d4.0")),
            c().round(1, RoundMode::HalfToEven)
                .alias(format!("{name} round 1")),
            c().round(0, RoundMode::HalfAwayFromZero)
                .alias(format!("{name} round 0 away")),
            c().round(2, RoundMode::ToZero)
                .alias(format!("{name} round 2 to zero")),
            c().cast(DataType::String).alias(format!("{name} text")),
            c().round(9, RoundMode::HalfToEven)
                .alias(format!("{name} round 9")),
        ]
    };
    let mut exprs = vec![];
    for name in ["p", "r", "w"] {
        exprs.extend(casts(name));
    }
    let small = table().filter(
        (col("p")
            .lt(lit(1_000_000))
            .and(col("p").gt(lit(-1_000_000))))
        .or(col("p").is_null()),
    );
    assert_gpu_eq("from decimals", small.select(exprs));
    let numbers = df!(
        "i" => [Some(1i64), Some(-7), None, Some(123_456), Some(i64::MAX / 1000)],
        "u" => [Some(0u64), Some(9), Some(99_999), None, Some(12)],
        "f" => [Some(1.005f64), Some(-2.5), Some(f64::NAN), None, Some(12_345.678_9)],
    )
    .unwrap()
    .lazy();
    assert_gpu_eq(
        "to decimals",
        numbers.select([
            col("i").cast(DataType::Decimal(10, 2)).alias("i d10.2"),
            col("i").cast(DataType::Decimal(18, 0)).alias("i d18.0"),
            col("u").cast(DataType::Decimal(5, 1)).alias("u d5.1"),
            col("f").cast(DataType::Decimal(8, 3)).alias("f d8.3"),
            col("f").cast(DataType::Decimal(4, 0)).alias("f d4.0"),
        ]),
    );
}

#[test]
fn decimals_beyond_i64_go_to_polars_with_the_reason() {
    let engine = Engine::Gpu(under_test());
    let wide = DataFrame::new_infer_height(vec![decimals(
        "d",
        &[Some(1), Some(i128::from(i64::MAX) + 1)],
        38,
        0,
    )])
    .unwrap()
    .lazy()
    .select([col("d").sum()]);
    let expected = wide.clone().collect().unwrap();
    let (actual, report) = wide.collect_with_report(&engine).unwrap();
    assert!(expected.equals_missing(&actual), "{actual}");
    assert!(report.fell_back(), "{report}");
    assert!(
        report.fallback_reasons[0]
            .message
            .contains("more than 18 digits"),
        "{report}"
    );
    // Sums and products beyond i64, of values within it.
    let big = table().select([
        col("p").sum().alias("sum"),
        (col("p") * col("p")).alias("square"),
    ]);
    let expected = big.clone().collect().unwrap();
    let (actual, report) = big.collect_with_report(&engine).unwrap();
    assert!(expected.equals_missing(&actual), "{actual}");
    assert!(report.fell_back(), "{report}");
}

#[test]
fn decimal_means_are_polars_per_group_and_whole() {
    // Sevens at scale 2: 7 / 100 and 7 * (1 / 100) differ in the last bit.
    let sevens = DataFrame::new_infer_height(vec![
        decimals("d", &[Some(7), Some(7), Some(7), None], 10, 2),
        Column::new("k".into(), [1, 2, 1, 2]),
    ])
    .unwrap()
    .lazy();
    assert_gpu_eq("a mean", sevens.clone().select([col("d").mean()]));
    assert_gpu_eq(
        "a mean broadcast",
        sevens
            .clone()
            .with_columns([(col("d").cast(DataType::Float64) - col("d").mean()).alias("less")]),
    );
    assert_gpu_eq(
        "means per group",
        sevens
            .group_by([col("k")])
            .agg([col("d").mean()])
            .sort(["k"], Default::default()),
    );
    let aggs = || {
        [
            col("p").mean(),
            col("r").mean().alias("r mean"),
            col("r").std(1).alias("r std"),
            col("w").var(0).alias("w var"),
        ]
    };
    // Of the rows a filter keeps.
    let kept = || col("k").eq(lit(1));
    let filtered = || {
        [
            col("p").filter(kept()).mean().alias("p kept mean"),
            col("r").filter(kept()).median().alias("r kept median"),
        ]
    };
    assert_gpu_eq("filtered, of the frame", table().select(filtered()));
    assert_gpu_eq(
        "filtered, per group",
        table()
            .group_by([col("w")])
            .agg(filtered())
            .sort(["w"], Default::default()),
    );
    assert_gpu_eq("means of the frame", table().select(&aggs()[..2]));
    // A whole frame's variance adds in an order of Polars' own
    // (docs/operations.md): its last bits may differ.
    let spread = table().select(&aggs()[2..]);
    let engine = Engine::Gpu(under_test().with_raise_on_fail(true));
    let (actual, _) = spread.clone().collect_with_report(&engine).unwrap();
    crate::assert_frames_close(&spread.collect().unwrap(), &actual, "spreads of the frame");
    assert_gpu_eq(
        "means per group",
        table()
            .group_by([col("k")])
            .agg(aggs())
            .sort(["k"], Default::default()),
    );
    assert_gpu_eq(
        "means in windows",
        table().select([col("r").mean().over([col("k")]).unwrap()]),
    );
}

#[test]
fn decimals_move_through_choices_fills_shifts_and_membership() {
    let listed = Series::new("".into(), [Some(1050i128), None, Some(-250)])
        .i128()
        .unwrap()
        .clone()
        .into_decimal(18, 2)
        .unwrap()
        .into_series();
    assert_gpu_eq(
        "moved",
        table().select([
            col("p")
                .is_in(lit(listed.clone()).implode(false), false)
                .alias("in"),
            col("p")
                .is_in(lit(listed).implode(false), true)
                .alias("in, nulls equal"),
            when(col("k").eq(lit(1)))
                .then(col("p"))
                .otherwise(col("w"))
                .alias("chosen"),
            col("p").fill_null(col("w")).alias("filled"),
            col("r").shift(lit(1)).alias("shifted"),
            col("r").is_null().alias("null"),
        ]),
    );
}

#[test]
fn decimal_negation_abs_clips_medians_and_places_are_polars() {
    let small = table().filter(
        (col("p")
            .lt(lit(1_000_000))
            .and(col("p").gt(lit(-1_000_000))))
        .or(col("p").is_null()),
    );
    assert_gpu_eq(
        "row by row and running",
        small.clone().select([
            (-col("p")).alias("negated"),
            col("r").abs().alias("abs"),
            col("w")
                .clip(
                    lit(-1).cast(DataType::Decimal(5, 0)),
                    lit(3).cast(DataType::Decimal(5, 0)),
                )
                .alias("clipped"),
        ]),
    );
    let quantile = |c: &str| col(c).quantile(lit(0.3), QuantileMethod::Linear);
    let aggs = || {
        [
            col("p").median().alias("p median"),
            col("r").median().alias("r median"),
            quantile("r").alias("r quantile"),
            col("p").arg_min().alias("p arg_min"),
            col("r").arg_max().alias("r arg_max"),
        ]
    };
    of_the_frame_and_per_group("medians, quantiles, places", &aggs());
    assert_gpu_eq(
        "ranked and running extremes",
        small.clone().select([
            col("r").cum_max(false).alias("running max"),
            col("p").cum_min(true).alias("running min back"),
            col("r").rank(RankOptions::default(), None).alias("rank"),
            col("p")
                .rank(
                    RankOptions {
                        method: RankMethod::Dense,
                        descending: true,
                    },
                    None,
                )
                .alias("dense rank"),
        ]),
    );
    use polars::lazy::dsl::{max_horizontal, min_horizontal};
    assert_gpu_eq(
        "across columns",
        small.clone().select([
            min_horizontal([col("p"), col("w").cast(DataType::Decimal(18, 2))])
                .unwrap()
                .alias("least"),
            max_horizontal([col("r"), col("r") * col("r")])
                .unwrap()
                .alias("greatest"),
        ]),
    );
    // Polars' plan types a running sum of decimals as its input; its engine
    // gives precision 38: Polars answers.
    let engine = Engine::Gpu(under_test());
    let running = table().select([col("p").cum_sum(false)]);
    let expected = running.clone().collect().unwrap();
    let (actual, report) = running.collect_with_report(&engine).unwrap();
    assert!(expected.equals_missing(&actual), "{actual}");
    assert!(report.fell_back(), "{report}");
}

#[test]
fn lists_of_decimals_are_made_exploded_and_taken_apart() {
    let lists = table()
        .group_by([col("k")])
        .agg([col("p"), col("r").sort(SortOptions::default()).alias("rs")])
        .sort(["k"], Default::default());
    assert_gpu_eq("made per group", lists.clone());
    assert_gpu_eq(
        "taken apart",
        lists.clone().select([
            col("k"),
            col("p").list().len().alias("len"),
            col("p").list().get(lit(1), true).alias("second"),
            col("p").list().head(lit(2)).alias("head"),
            col("p").list().sort(SortOptions::default()).alias("sorted"),
            col("rs").list().max().alias("max"),
            col("rs").list().min().alias("min"),
            col("rs").list().arg_max().alias("arg_max"),
            col("p")
                .list()
                .contains(
                    lit(Scalar::new(
                        DataType::Decimal(18, 2),
                        AnyValue::Decimal(1050, 18, 2),
                    )),
                    false,
                )
                .alias("holds 10.50"),
        ]),
    );
    assert_gpu_eq(
        "exploded",
        lists.explode(by_name(["p"], true, false), super::lists::polars_explode()),
    );
}

/// Lists of decimals per group of `k`: prices at scale 2, rates at 4,
/// whole numbers.
fn decimal_lists() -> LazyFrame {
    table()
        .group_by([col("k")])
        .agg([col("p"), col("r"), col("w")])
        .sort(["k"], Default::default())
}

#[test]
fn lists_of_decimals_are_evaluated_aggregated_and_summed() {
    let element = || col("");
    let lists = decimal_lists();
    assert_gpu_eq(
        "evaluated",
        lists.clone().select([
            col("k"),
            col("p").list().eval(element() * lit(2)).alias("doubled"),
            col("r").list().eval(element() * element()).alias("squared"),
            col("p")
                .list()
                .eval(element() - element().min())
                .alias("above the least"),
            col("w")
                .list()
                .eval(element() - element().sum())
                .alias("less the sum"),
            col("p")
                .list()
                .eval(element().cast(DataType::Float64))
                .alias("floats"),
            col("r")
                .list()
                .eval(element().rank(RankOptions::default(), None))
                .alias("ranks"),
            col("p")
                .list()
                .eval(element().cum_max(false))
                .alias("running max"),
            col("w")
                .list()
                .eval(element().shift(lit(1)))
                .alias("shifted"),
            col("r").list().eval(element().gt(lit(0))).alias("positive"),
            col("p")
                .list()
                .eval(element().filter(element().gt(lit(0))))
                .alias("kept"),
            col("w").list().eval(-element()).alias("negated"),
        ]),
    );
    assert_gpu_eq(
        "aggregated",
        lists.clone().select([
            col("k"),
            col("p").list().agg(element().sum()).alias("agg sum"),
            col("r").list().agg(element().max()).alias("agg max"),
            col("w")
                .list()
                .agg(element().n_unique())
                .alias("agg n_unique"),
            col("r").list().eval(element().sum()).alias("eval sum"),
            col("p").list().sum().alias("sum"),
            col("r").list().sum().alias("rates' sum"),
            col("w").list().sum().alias("wholes' sum"),
        ]),
    );
    // Medians and means of the scaled integers divided by 10^scale, as
    // Polars takes each list's; spreads of the values as floats (within
    // 1e-9: Polars adds each list's values in an order of its own).
    assert_gpu_eq(
        "medians and means",
        lists.clone().select([
            col("k"),
            col("p").list().mean().alias("p mean"),
            col("r").list().drop_nulls().list().mean().alias("r mean"),
            col("w").list().mean().alias("w mean"),
            col("p").list().median().alias("p median"),
            col("r").list().median().alias("r median"),
            col("w").list().median().alias("w median"),
        ]),
    );
    // Differences within lists of precision 38 (of others, Polars' plan
    // and engine disagree on the precision).
    let wide = || DataType::List(Box::new(DataType::Decimal(38, 2)));
    assert_gpu_eq(
        "differences",
        lists.clone().select([
            col("p")
                .cast(wide())
                .list()
                .diff(1, NullBehavior::Ignore)
                .alias("diff"),
            col("p")
                .cast(wide())
                .list()
                .diff(-2, NullBehavior::Ignore)
                .alias("diff back"),
        ]),
    );
    assert_cpu_answer_with_reason(
        lists
            .clone()
            .select([col("p").list().diff(1, NullBehavior::Ignore)]),
        "list.diff of list[decimal[18,2]]",
    );
    assert_gpu_close(
        "spreads",
        lists.clone().select([
            col("k"),
            col("p").list().std(1).alias("p std"),
            col("r").list().var(0).alias("r var"),
            col("w").list().std(0).alias("w std"),
        ]),
    );
    // Means of long lists without nulls: Polars adds each decimal list as
    // a column of its own (blocks of 128 pairwise), not in order as it
    // adds lists of numbers without nulls.
    let long: Vec<Option<i128>> = (0..600i128)
        .map(|i| Some((i % 7 - 3) * 123_456_789_012_345_678 + i * 1_000_003))
        .collect();
    let long = DataFrame::new_infer_height(vec![
        decimals("x", &long, 18, 3),
        Column::new("k".into(), (0..600).map(|i| i % 2).collect::<Vec<i32>>()),
    ])
    .unwrap()
    .lazy()
    .group_by_stable([col("k")])
    .agg([col("x")]);
    assert_gpu_eq(
        "means of long lists",
        long.select([
            col("x").list().mean(),
            col("x").list().median().alias("median"),
            col("x").list().sum().alias("sum"),
        ]),
    );
    let price = |scaled: i128| {
        lit(Scalar::new(
            DataType::Decimal(18, 2),
            AnyValue::Decimal(scaled, 18, 2),
        ))
    };
    assert_gpu_eq(
        "compared and counted",
        lists.clone().select([
            col("k"),
            col("p").eq(col("p").shift(lit(1))).alias("=="),
            col("p")
                .neq_missing(col("p").shift(lit(1)))
                .alias("ne_missing"),
            col("p")
                .eq(col("p").list().sort(SortOptions::default()))
                .alias("sorted already"),
            col("p").list().count_matches(price(1050)).alias("10.50s"),
            col("p").list().count_matches(lit(NULL)).alias("nulls"),
        ]),
    );
    assert_cpu_answer_with_reason(
        lists
            .clone()
            .select([col("p").list().count_matches(lit(3))]),
        "list.count_matches of a value of i32 in list[decimal[18,2]]",
    );
    // Of a null list and an empty one (a filter keeping nothing).
    let with_empty = lists.clone().with_columns([when(col("k").eq(lit(2)))
        .then(lit(NULL).cast(DataType::List(Box::new(DataType::Decimal(18, 2)))))
        .otherwise(
            col("p")
                .list()
                .eval(element().filter(element().gt(lit(1000)))),
        )
        .alias("p")]);
    assert_gpu_eq(
        "null and empty lists",
        with_empty.select([
            col("p").list().sum().alias("sum"),
            col("p").list().eval(element() * lit(3)).alias("tripled"),
        ]),
    );
    // A product beyond 18 digits, and a sum beyond i64, are Polars'.
    assert_cpu_answer_with_reason(
        lists
            .clone()
            .select([col("p").list().eval(element() * element())]),
        "left 18 digits",
    );
    let halves = [Some(5_000_000_000_000_000_000), Some(1)];
    let big = DataFrame::new_infer_height(vec![decimals("x", &halves, 38, 0)])
        .unwrap()
        .lazy()
        .select([concat_list([col("x"), col("x")]).unwrap().list().sum()]);
    let expected = big.clone().collect().unwrap();
    let (actual, report) = big.collect_with_report(&Engine::Gpu(under_test())).unwrap();
    assert!(expected.equals_missing(&actual), "{actual}");
    assert!(report.fell_back(), "{report}");
    let reason = &report.fallback_reasons[0].message;
    assert!(reason.contains("left 18 digits"), "{report}");
}

#[test]
fn texts_cast_to_decimals_parse_round_and_check_as_polars() {
    let texts = [
        "0",
        "1",
        "-1",
        "+7",
        "00012",
        "1.5",
        "-2.25",
        "2.345",
        "2.355",
        "-2.345",
        "0.005",
        "0.015",
        "0.0149999",
        "1.",
        ".5",
        "-.5",
        "+.25",
        "1e2",
        "1E-2",
        "2.5e-1",
        "-3.5e1",
        "1.25e+1",
        "9.995",
        "12345678.999",
        "99999999",
        "123456789012",
        "1e-30",
        "5e-3",
        "15e-3",
        "25e-3",
        "",
        ".",
        "-",
        "+",
        "e5",
        "1e",
        "1e+",
        "1.2.3",
        "1,5",
        " 1",
        "1 ",
        "abc",
        "1_000",
        "--1",
        "+-1",
        "0.000",
        "-0",
        "-0.0",
        "1e-40",
        "1e40",
    ];
    let mut values: Vec<Option<&str>> = texts.iter().copied().map(Some).collect();
    values.push(None);
    let frame = df!("t" => values).unwrap().lazy();
    let casts = [
        DataType::Decimal(10, 2),
        DataType::Decimal(5, 0),
        DataType::Decimal(18, 4),
        DataType::Decimal(38, 1),
        DataType::Decimal(3, 3),
    ];
    let mut exprs: Vec<Expr> = casts
        .iter()
        .enumerate()
        .map(|(i, dtype)| col("t").cast(dtype.clone()).alias(format!("d{i}")))
        .collect();
    // `str.to_decimal(scale)`: a non-strict cast to `Decimal(38, scale)`.
    for scale in [0, 2, 5] {
        exprs.push(
            col("t")
                .str()
                .to_decimal(scale)
                .alias(format!("to_decimal {scale}")),
        );
    }
    assert_gpu_eq("texts as decimals", frame.clone().select(exprs));
    // A strict cast of a text that is no decimal: Polars raises.
    let engine = Engine::Gpu(under_test());
    let strict = frame.select([col("t").strict_cast(DataType::Decimal(10, 2))]);
    assert!(strict.clone().collect().is_err());
    assert!(strict.collect_with_report(&engine).is_err());
    // Beyond i64 but within Polars' i128: Polars answers.
    let wide = df!("t" => ["12345678901234567890.5", "1e30", "999999999999999999"])
        .unwrap()
        .lazy();
    let wide = wide.select([col("t").cast(DataType::Decimal(38, 2))]);
    let expected = wide.clone().collect().unwrap();
    let (actual, report) = wide.collect_with_report(&engine).unwrap();
    assert!(expected.equals_missing(&actual), "{actual}");
    assert!(report.fell_back(), "{report}");
}
