//! `mode` per group on the device: each group's values of the most rows (a null a value too) as a list, in order of first appearance, and the first or last of them; without `maintain_order` where each group has one; floats, windows and modes inside other expressions stay with Polars, with their reasons.

use super::*;

/// Groups with ties, nulls among the values and a null key.
fn frame() -> LazyFrame {
    df!(
        "g" => [Some("a"), Some("a"), Some("a"), Some("a"), Some("b"), Some("b"), Some("b"), Some("c"), Some("c"), None],
        "i" => [Some(1i64), Some(2), Some(2), Some(1), Some(5), None, None, Some(7), Some(8), Some(4)],
        "s" => [Some("x"), Some("y"), Some("y"), Some("x"), Some("z"), None, Some("z"), Some("q"), Some("q"), Some("r")],
        "u" => [Some(1u8), Some(1), Some(2), Some(3), Some(4), Some(4), Some(5), Some(6), Some(6), None],
        "t" => [Some(true), Some(false), Some(true), None, Some(false), Some(false), Some(true), Some(true), None, None],
        "f" => [1.0f64, 1.0, 2.0, 3.0, 4.0, 4.0, 5.0, 6.0, 6.0, 0.0],
    )
    .unwrap()
    .lazy()
    .with_columns([col("i").cast(DataType::Date).alias("d")])
}

#[test]
fn modes_per_group_match_the_cpu() {
    let stable = |name: &str| col(name).mode(true).alias(name);
    assert_gpu_eq(
        "in order of first appearance, ties and nulls",
        frame().group_by_stable([col("g")]).agg([
            stable("i"),
            stable("s"),
            stable("u"),
            stable("t"),
            stable("d"),
        ]),
    );
    assert_gpu_eq(
        "beside other aggregations, groups in no order, sorted after",
        frame()
            .group_by([col("g")])
            .agg([stable("s"), col("i").sum().alias("sum"), col("u")])
            .sort(["g"], Default::default()),
    );
    assert_gpu_eq(
        "computed values, two keys",
        frame()
            .group_by_stable([col("g"), col("t")])
            .agg([(col("i") % lit(2)).mode(true).alias("parity")]),
    );
    // Without maintain_order, where each group has one mode.
    assert_gpu_eq(
        "one mode each",
        frame()
            .filter(col("u").is_not_null())
            .group_by_stable([col("g")])
            .agg([col("u").mode(false)]),
    );
    assert_gpu_eq(
        "of no rows",
        frame()
            .filter(col("i").gt(lit(100)))
            .group_by_stable([col("g")])
            .agg([stable("i")]),
    );
}

#[test]
fn modes_polars_answers_its_own_way_stay_with_it() {
    // (Polars' own order, which may change from one run to the next: the
    // reason alone is compared.)
    let several = frame()
        .group_by_stable([col("g")])
        .agg([col("i").mode(false)]);
    let (_, report) = several
        .collect_with_report(&Engine::Gpu(under_test()))
        .unwrap();
    let why = "of a group with several modes, which Polars lists in an order of its own";
    let reasons = &report.fallback_reasons;
    assert!(reasons.iter().any(|r| r.message.contains(why)), "{report}");
    assert_cpu_answer_with_reason(
        frame()
            .group_by_stable([col("g")])
            .agg([col("f").mode(true)]),
        "mode of f64 per group",
    );
    assert_cpu_answer_with_reason(
        frame().select([col("i")
            .mode(true)
            .over_with_options(Some([col("g")]), None, WindowMapping::Join)
            .unwrap()]),
        "mode in a window",
    );
    assert_cpu_answer_with_reason(
        frame()
            .group_by_stable([col("g")])
            .agg([(col("i").mode(true).first() + lit(1)).alias("i")]),
        "mode inside the aggregation \"i\"",
    );
}

/// A group's most frequent value (`x.mode().first()`, or `last()`): the
/// first (last) of its modes in order of first appearance; without
/// `maintain_order`, where each group has one mode.
#[test]
fn most_frequent_values_per_group_match_the_cpu() {
    let picked = |name: &str, stable: bool| {
        [
            col(name)
                .mode(stable)
                .first()
                .alias(format!("first {name}")),
            col(name).mode(stable).last().alias(format!("last {name}")),
        ]
    };
    assert_gpu_eq(
        "first and last modes, ties and nulls",
        frame().group_by_stable([col("g")]).agg(
            ["i", "s", "u", "t", "d"]
                .into_iter()
                .flat_map(|name| picked(name, true))
                .collect::<Vec<_>>(),
        ),
    );
    assert_gpu_eq(
        "one mode each, beside other aggregations",
        frame()
            .filter(col("u").is_not_null())
            .group_by_stable([col("g")])
            .agg([
                col("u").mode(false).first().alias("u"),
                col("i").sum().alias("sum"),
            ]),
    );
    assert_gpu_eq(
        "of no rows",
        frame()
            .filter(col("i").gt(lit(100)))
            .group_by_stable([col("g")])
            .agg(picked("i", true)),
    );
}

/// The most frequent value over the frame (`select(x.mode().first())`, or
/// `last()`): the first or last of the modes in order of first
/// appearance, null of no rows; without `maintain_order`, where there are
/// several modes, Polars' order is its own and the query goes to it.
#[test]
fn most_frequent_values_of_the_frame_match_the_cpu() {
    for name in ["i", "s", "u", "t", "d"] {
        assert_gpu_eq(
            &format!("first mode of {name}"),
            frame().select([col(name).mode(true).first()]),
        );
        assert_gpu_eq(
            &format!("last mode of {name}"),
            frame().select([col(name).mode(true).last()]),
        );
    }
    assert_gpu_eq(
        "one mode, without maintain_order",
        frame()
            .filter(col("g").eq(lit("b")))
            .select([col("u").mode(false).first()]),
    );
    assert_gpu_eq(
        "of no rows",
        frame()
            .filter(col("i").gt(lit(100)))
            .select([col("i").mode(true).first()]),
    );
    let (_, report) = frame()
        .select([col("i").mode(false).first()])
        .collect_with_report(&Engine::Gpu(under_test()))
        .unwrap();
    let why = "a pick of several modes, which Polars lists in an order of its own";
    let reasons = &report.fallback_reasons;
    assert!(reasons.iter().any(|r| r.message.contains(why)), "{report}");
}
