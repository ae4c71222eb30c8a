//! Aggregations per group on the device: group-bys of every key and value type, of filters, slices and drops of nulls.

use super::*;

#[test]
fn group_bys_match_the_cpu() {
    let aggregations = || {
        [
            col("v").sum().alias("sum"),
            col("x").mean().alias("mean"),
            col("v").min().alias("min"),
            col("x").max().alias("max"),
            col("x").first().alias("first"),
            col("v").last().alias("last"),
            col("v").count().alias("count"),
            col("x").len().alias("x_len"),
            len().alias("len"),
            (col("v") * lit(2i64)).sum().alias("twice"),
            (lit(0.2) * col("x").mean()).alias("scaled mean"),
            (col("v").max() - col("v").min()).alias("range"),
            (col("v").sum() + col("v").count().cast(DataType::Int64)).alias("sum plus count"),
            col("v").n_unique().alias("distinct v"),
            col("x").n_unique().alias("distinct x"),
            col("s").n_unique().alias("distinct s"),
            col("h").n_unique().alias("distinct h"),
            (col("g").n_unique() * lit(10u32)).alias("distinct g times 10"),
        ]
    };
    let cases: Vec<(&str, LazyFrame)> = vec![
        (
            "one key, in order",
            groups().group_by_stable([col("g")]).agg(aggregations()),
        ),
        (
            "two keys, in order",
            groups()
                .group_by_stable([col("h"), col("g")])
                .agg(aggregations()),
        ),
        (
            "a string key, in order",
            groups().group_by_stable([col("s")]).agg(aggregations()),
        ),
        (
            "string and integer keys, in order",
            groups()
                .group_by_stable([col("s"), col("h")])
                .agg(aggregations()),
        ),
        (
            "a float key (NaNs one group, -0.0 and 0.0 one group), in order",
            table().group_by_stable([col("f")]).agg([
                col("i").sum().alias("sum"),
                col("u").first(),
                len(),
            ]),
        ),
        (
            "a string key, sorted afterwards",
            groups()
                .group_by([col("s")])
                .agg([col("v").sum().alias("sum"), len()])
                .sort(["s"], SortMultipleOptions::default()),
        ),
        (
            "distinct values in order of first appearance",
            groups().select([col("s").unique_stable()]),
        ),
        (
            "distinct values, sorted afterwards",
            groups()
                .select([col("x").unique()])
                .sort(["x"], SortMultipleOptions::default()),
        ),
        ("distinct dates", table().select([col("d").unique_stable()])),
        // Sorted: their distinct rows, sorted (before, an internal error).
        (
            "distinct values sorted",
            groups().select([col("s").unique().sort(Default::default())]),
        ),
        (
            "distinct values of an expression sorted descending, nulls last",
            table().select([(col("i") % lit(3i64)).unique().sort(
                SortOptions::default()
                    .with_order_descending(true)
                    .with_nulls_last(true),
            )]),
        ),
        // (Of an expression: its values, then their distinct rows; before,
        // an internal error.)
        (
            "distinct values of expressions",
            table().select([(col("i") % lit(3i64)).unique_stable().alias("m")]),
        ),
        (
            "distinct values of a float expression (NaNs one value, -0.0 and 0.0 one value)",
            table().select([(col("f") * lit(2.0)).unique_stable().alias("twice")]),
        ),
        (
            "distinct counts of whole columns (NaNs one value, -0.0 and 0.0 one value)",
            table().select([
                col("f").n_unique().alias("f"),
                col("s").n_unique().alias("s"),
                col("i").n_unique().alias("i"),
                col("d").n_unique().alias("d"),
            ]),
        ),
        (
            "distinct floats per group",
            table()
                .with_columns([(col("u") % lit(2u32)).alias("parity")])
                .group_by_stable([col("parity")])
                .agg([col("f").n_unique(), col("s").n_unique().alias("s")]),
        ),
        (
            "distinct counts of filtered values (null one where a kept row holds it)",
            table()
                .with_columns([(col("u") % lit(3u32)).alias("third")])
                .group_by_stable([col("third")])
                .agg([
                    col("s").filter(col("b")).n_unique().alias("s"),
                    col("f").filter(col("i").gt(lit(-5))).n_unique().alias("f"),
                    col("d")
                        .filter(col("u").gt(lit(9u32)))
                        .n_unique()
                        .alias("none"),
                ]),
        ),
        (
            "a distinct count of filtered values over the frame",
            table().select([col("s").filter(col("b").is_not_null()).n_unique()]),
        ),
        (
            "distinct counts of no rows",
            table()
                .filter(col("i").gt(lit(i64::MAX)))
                .select([col("f").n_unique(), col("s").n_unique().alias("s")]),
        ),
        (
            "sorted afterwards",
            groups()
                .group_by([col("g")])
                .agg([col("x").sum().alias("sum"), len()])
                .sort(["g"], SortMultipleOptions::default()),
        ),
        (
            "whole-column aggregations",
            groups().select([
                col("v").sum().alias("sum"),
                col("x").mean().alias("mean"),
                col("v").min().alias("min"),
                col("x").max().alias("max"),
                col("x").first().alias("first"),
                col("v").last().alias("last"),
                col("v").count().alias("count"),
                col("x").len().alias("x_len"),
                len().alias("len"),
                (lit(100.0)
                    * when(col("h").eq(lit(1u32)))
                        .then(col("x"))
                        .otherwise(lit(0.0))
                        .sum()
                    / col("x").sum())
                .alias("share"),
            ]),
        ),
        (
            "aggregations of nothing",
            groups().filter(col("h").gt(lit(99u32))).select([
                col("v").sum().alias("sum"),
                col("x").mean().alias("mean"),
                col("v").min().alias("min"),
                col("x").first().alias("first"),
                len().alias("len"),
            ]),
        ),
        ("a shared subplan joined with itself", {
            let shared = groups()
                .filter(col("h").eq(lit(1u32)))
                .select([col("g"), col("v")])
                .cache();
            shared.clone().join(
                shared,
                [col("g")],
                [col("g")],
                JoinArgs {
                    maintain_order: MaintainOrderJoin::Left,
                    ..JoinArgs::new(JoinType::Inner)
                },
            )
        }),
        (
            "filter, group, sort",
            groups()
                .filter(col("x").is_not_null())
                .group_by_stable([col("h")])
                .agg([col("x").min(), col("v").mean()]),
        ),
    ];
    for (name, lf) in cases {
        assert_gpu_eq(name, lf);
    }
}

#[test]
fn aggregations_of_large_groups_and_whole_columns_match_the_cpu() {
    // A few groups of thousands of rows each: reduced in chunks on the device.
    let n = 20_000i64;
    let lf = df!(
        "g" => (0..n).map(|i| (i * 7919 % 3) as i32).collect::<Vec<_>>(),
        "i" => (0..n).map(|i| (i % 11 != 0).then_some(i * 104_729 % 20_011 - 10_000)).collect::<Vec<_>>(),
        "f" => (0..n).map(|i| (i % 13 != 0).then_some((i * 31 % 997) as f64 / 8.0 - 60.0)).collect::<Vec<_>>(),
        "u" => (0..n).map(|i| (i * 17 % 1000) as u32).collect::<Vec<_>>(),
    )
    .unwrap()
    .lazy();
    let aggregations = || {
        [
            col("i").sum().alias("i sum"),
            col("i").min().alias("i min"),
            col("i").max().alias("i max"),
            col("i").mean().alias("i mean"),
            col("i").count().alias("i count"),
            col("f").sum().alias("f sum"),
            col("f").min().alias("f min"),
            col("f").max().alias("f max"),
            col("f").mean().alias("f mean"),
            col("u").sum().alias("u sum"),
            col("u").mean().alias("u mean"),
            col("f").std(1).alias("f std"),
            col("i").var(0).alias("i var"),
            len().alias("len"),
        ]
    };
    assert_gpu_close(
        "large groups",
        lf.clone()
            .group_by([col("g")])
            .agg(aggregations())
            .sort(["g"], Default::default()),
    );
    assert_gpu_close("whole columns", lf.select(aggregations()));
}

#[test]
fn boolean_keys_sort_group_and_deduplicate_as_on_the_cpu() {
    for descending in [false, true] {
        for nulls_last in [false, true] {
            assert_gpu_eq(
                &format!("sort by a boolean (descending {descending}, nulls last {nulls_last})"),
                table().sort_by_exprs(
                    [col("b"), col("u")],
                    SortMultipleOptions::default()
                        .with_order_descending_multi([descending, false])
                        .with_nulls_last(nulls_last)
                        .with_maintain_order(true),
                ),
            );
        }
    }
    assert_gpu_eq(
        "group by a boolean",
        table()
            .group_by([col("b")])
            .agg([col("u").sum(), col("i").count()])
            .sort(["b"], SortMultipleOptions::default().with_nulls_last(true)),
    );
    assert_gpu_eq(
        "distinct rows with a boolean",
        table()
            .select([col("b"), col("u") % lit(2u32)])
            .unique_stable(None, UniqueKeepStrategy::First),
    );
    assert_gpu_eq(
        "unique booleans",
        table().select([col("b").unique_stable()]),
    );
}

#[test]
fn aggregations_inside_aggregations_are_taken_per_group() {
    let deviations = || {
        [
            (col("u") - col("u").mean()).abs().sum().alias("deviation"),
            ((col("f") - col("f").min()) * lit(2.0))
                .max()
                .alias("range2"),
            (col("u").cast(DataType::Int64) - col("u").cast(DataType::Int64).max())
                .sum()
                .alias("below max"),
        ]
    };
    let lf = df!(
        "g" => [1i32, 2, 1, 2, 1, 3, 3, 1],
        "u" => [Some(4u32), Some(9), None, Some(1), Some(7), Some(3), Some(3), Some(10)],
        "f" => [Some(1.5), Some(-2.0), Some(3.25), None, Some(0.5), Some(8.0), Some(-1.0), Some(2.0)],
    )
    .unwrap()
    .lazy();
    assert_gpu_close(
        "nested aggregations per group",
        lf.clone()
            .group_by([col("g")])
            .agg(deviations())
            .sort(["g"], Default::default()),
    );
    assert_gpu_close(
        "nested aggregations over the frame",
        lf.select(deviations()),
    );
}

#[test]
fn f32_keys_group_as_on_the_cpu() {
    let lf = table().with_columns([col("f").cast(DataType::Float32).alias("g")]);
    assert_gpu_eq(
        "group by an f32 (NaN, -0.0 and 0.0, nulls)",
        lf.clone()
            .group_by([col("g")])
            .agg([col("u").sum(), len()])
            .sort(["g"], SortMultipleOptions::default().with_nulls_last(true)),
    );
    assert_gpu_eq(
        "distinct rows by an f32",
        lf.clone()
            .select([col("g"), col("b")])
            .unique_stable(None, UniqueKeepStrategy::First),
    );
    assert_gpu_eq("unique f32", lf.select([col("g").unique_stable()]));
}

#[test]
fn aggregations_of_filtered_expressions_and_picks_by_another_column_match_the_cpu() {
    let frame = || {
        df!(
            "g" => [Some("a"), Some("b"), None, Some("a"), Some("b"), Some("a"), None, Some("c")],
            "x" => [Some(5i64), Some(-3), None, Some(7), Some(1), None, Some(9), Some(2)],
            "f" => [Some(1.5f64), None, Some(f64::NAN), Some(-2.0), Some(0.5), Some(3.0), None, Some(4.0)],
            "p" => [Some(true), Some(false), None, Some(true), Some(true), Some(true), Some(false), Some(false)],
            "s" => [Some("q"), None, Some("r"), Some("s"), Some(""), Some("t"), Some("u"), None],
            // Ties for the greatest in group "a"; none valid in group "c".
            "t" => [Some(3i64), Some(1), Some(2), Some(3), None, Some(1), Some(0), None],
        )
        .unwrap()
        .lazy()
    };
    let aggs = || {
        let kept = |e: Expr| e.filter(col("p"));
        vec![
            kept(col("x")).sum().alias("sum"),
            kept(col("x")).mean().alias("mean"),
            kept(col("f")).min().alias("min"),
            kept(col("f")).max().alias("max"),
            kept(col("x")).count().alias("count"),
            kept(col("x")).len().alias("len"),
            kept(col("f")).std(1).alias("std"),
            kept(col("x")).median().alias("median"),
            col("x")
                .filter(col("x").gt(col("x").mean()))
                .sum()
                .alias("above the mean"),
            (col("x") * lit(2i64))
                .filter(col("f").is_not_nan())
                .sum()
                .alias("where not NaN"),
        ]
    };
    assert_gpu_eq(
        "filtered aggregations per group",
        frame().group_by_stable([col("g")]).agg(aggs()),
    );
    assert_gpu_eq(
        "filtered aggregations of a frame",
        frame().select([
            col("x").filter(col("p")).sum().alias("sum"),
            col("f").filter(col("p")).max().alias("max"),
            col("x")
                .filter(col("x").gt(col("x").mean()))
                .len()
                .alias("above the mean"),
        ]),
    );
    // In a select, Polars computes a filter used twice once, as a column of
    // a with_columns of its own; the device runs the query without it.
    assert_gpu_eq(
        "a filter used twice",
        frame().select([
            col("x").filter(col("p")).sum().alias("sum"),
            col("x").filter(col("p")).mean().alias("mean"),
        ]),
    );
    let picks = || {
        vec![
            col("x").filter(col("p")).first().alias("first kept"),
            col("f").filter(col("p")).last().alias("last kept"),
            col("s")
                .filter(col("x").gt(lit(0i64)))
                .first()
                .alias("first positive's text"),
            col("f").max_by(col("t")).alias("f at the latest t"),
            col("s").min_by(col("t")).alias("s at the earliest t"),
            col("x").max_by(col("x")).alias("the max"),
            (col("x") * lit(2i64))
                .min_by(col("t") - col("x"))
                .alias("computed"),
        ]
    };
    let by_t = |e: Expr, descending: bool, nulls_last: bool| {
        e.sort_by(
            [col("t")],
            SortMultipleOptions::default()
                .with_order_descending(descending)
                .with_nulls_last(nulls_last),
        )
    };
    let in_order = || {
        vec![
            by_t(col("x"), false, false)
                .last()
                .alias("x at the latest t"),
            by_t(col("f"), true, true)
                .first()
                .alias("f at the greatest t, nulls last"),
            by_t(col("s"), false, true)
                .first()
                .alias("s at the earliest t"),
            by_t(col("x"), true, false)
                .last()
                .alias("x, descending, nulls first"),
            by_t(col("x") * lit(2i64), false, false)
                .first()
                .alias("computed"),
        ]
    };
    assert_gpu_eq(
        "first and last in the order of a key, per group",
        frame().group_by_stable([col("g")]).agg(in_order()),
    );
    assert_gpu_eq(
        "first and last in the order of a key, of a frame",
        frame().select(in_order()),
    );
    assert_gpu_eq(
        "first and last in the order of a key, in a window",
        frame().with_columns([by_t(col("f"), false, false)
            .last()
            .over([col("g")])
            .unwrap()
            .alias("w")]),
    );
    // Several keys: Polars sorts stably when asked to keep the order.
    let by_two = |e: Expr, descending: Vec<bool>, maintain_order: bool| {
        e.sort_by(
            [col("p"), col("t")],
            SortMultipleOptions::default()
                .with_order_descending_multi(descending)
                .with_nulls_last(true)
                .with_maintain_order(maintain_order),
        )
    };
    assert_gpu_eq(
        "first and last in the order of two keys, per group",
        frame().group_by_stable([col("g")]).agg([
            by_two(col("x"), vec![false, false], true)
                .first()
                .alias("first"),
            by_two(col("f"), vec![true, false], true)
                .last()
                .alias("last, p descending"),
            by_two(col("s"), vec![false, true], true)
                .first()
                .alias("first, t descending"),
        ]),
    );
    assert_cpu_answer_with_reason(
        frame()
            .group_by_stable([col("g")])
            .agg([by_two(col("x"), vec![false, false], false).first()]),
        "rows equal on every key of",
    );
    assert_gpu_eq(
        "first, last, min_by and max_by per group",
        frame().group_by_stable([col("g")]).agg(picks()),
    );
    assert_gpu_eq(
        "first, last, min_by and max_by of a frame",
        frame().select(picks()),
    );
    assert_gpu_eq(
        "max_by in a window",
        frame().with_columns([col("f")
            .max_by(col("t"))
            .over([col("g")])
            .unwrap()
            .alias("w")]),
    );
    assert_cpu_answer_with_reason(
        frame()
            .group_by_stable([col("g")])
            .agg([col("x").max_by(col("f"))]),
        "max_by by f64",
    );
}

#[test]
fn first_last_min_and_max_of_text_temporals_booleans_and_small_integers_match_the_cpu() {
    let frame = || {
        df!(
            "g" => [Some(1i32), Some(2), Some(1), None, Some(2), Some(1), Some(3), Some(3), None],
            "s" => [Some("pear"), None, Some("apple"), Some("fig"), Some(""), Some("Äpfel"), None, None, Some("kiwi")],
            "i" => [Some(19_000i32), Some(-5), None, Some(0), Some(19_000), Some(18_999), None, Some(7), Some(3)],
            "b" => [Some(true), Some(false), None, Some(false), None, Some(true), None, Some(true), Some(false)],
            "u" => [Some(200u8), Some(3), None, Some(255), Some(0), Some(7), None, Some(1), Some(9)],
        )
        .unwrap()
        .lazy()
        .with_columns([
            col("i").cast(DataType::Date).alias("d"),
            (col("i").cast(DataType::Int64) * lit(86_400_000i64))
                .cast(DataType::Datetime(TimeUnit::Milliseconds, None))
                .alias("t"),
            (col("u").cast(DataType::Int8)).alias("k"),
        ])
    };
    let aggs = || {
        let mut aggs = vec![];
        for c in ["s", "d", "t", "b", "u", "k"] {
            aggs.extend([
                col(c).first().alias(format!("first {c}")),
                col(c).last().alias(format!("last {c}")),
                col(c).min().alias(format!("min {c}")),
                col(c).max().alias(format!("max {c}")),
            ]);
        }
        aggs.push(
            col("s")
                .str()
                .to_uppercase()
                .max()
                .alias("max of upper case"),
        );
        aggs
    };
    assert_gpu_eq(
        "first, last, min and max per group",
        frame().group_by_stable([col("g")]).agg(aggs()),
    );
    assert_gpu_eq(
        "first, last, min and max of a frame",
        frame().select(aggs()),
    );
    assert_gpu_eq(
        "the latest date of each group, in a window",
        frame().with_columns([col("d").max().over([col("g")]).unwrap().alias("latest")]),
    );
    assert_gpu_eq(
        "text aggregations in windows and repeated on every row",
        frame().with_columns([
            col("s").max().over([col("g")]).unwrap().alias("max by g"),
            col("s")
                .first()
                .over([col("g"), col("b")])
                .unwrap()
                .alias("first by g, b"),
            col("s").min().alias("min"),
            (col("s").last() + lit("!")).alias("last!"),
        ]),
    );
}

#[test]
fn aggregations_of_small_integers_booleans_and_f32_match_the_cpu() {
    let frame = || {
        df!(
            "g" => [1i32, 2, 1, 2, 1, 3, 3, 1],
            "k" => [Some(1i8), Some(-128), None, Some(127), Some(5), None, None, Some(-3)],
            "j" => [Some(300i16), Some(-32768), Some(7), None, Some(32767), Some(1), None, Some(0)],
            "u" => [Some(1u8), Some(255), None, Some(3), Some(5), Some(255), None, Some(1)],
            "w" => [Some(65535u16), Some(0), Some(9), None, Some(65535), Some(2), None, Some(4)],
            "b" => [Some(true), Some(false), None, Some(true), Some(true), None, None, Some(false)],
            "h" => [Some(1.5f32), Some(-2.0), None, Some(f32::NAN), Some(3.0), Some(f32::MAX), None, Some(-0.0)],
        )
        .unwrap()
        .lazy()
    };
    let aggs = || {
        let mut aggs = vec![];
        for c in ["k", "j", "u", "w"] {
            aggs.extend([
                col(c).sum().alias(format!("sum {c}")),
                col(c).mean().alias(format!("mean {c}")),
                col(c).n_unique().alias(format!("n_unique {c}")),
                col(c).std(1).alias(format!("std {c}")),
                col(c).median().alias(format!("median {c}")),
            ]);
        }
        aggs.extend([
            col("k").null_count().alias("null_count k"),
            col("b").null_count().alias("null_count b"),
            col("b").mean().alias("mean b"),
            col("b").n_unique().alias("n_unique b"),
            col("b").var(0).alias("var b"),
            col("h").min().alias("min h"),
            col("h").max().alias("max h"),
            col("h").n_unique().alias("n_unique h"),
        ]);
        aggs
    };
    assert_gpu_close(
        "small types per group",
        frame().group_by_stable([col("g")]).agg(aggs()),
    );
    assert_gpu_close("small types over the frame", frame().select(aggs()));
}

#[test]
fn group_bys_on_computed_keys_match_the_cpu() {
    let aggs = || {
        [
            col("k").max().alias("max"),
            col("u").sum().alias("sum"),
            len(),
        ]
    };
    assert_gpu_eq(
        "group by an integer expression",
        table()
            .group_by_stable([(col("i") % lit(3i64)).alias("m")])
            .agg(aggs()),
    );
    assert_gpu_eq(
        "group by a text expression and a column",
        table()
            .group_by_stable([col("s").str().to_uppercase().alias("S"), col("b")])
            .agg(aggs()),
    );
    assert_gpu_eq(
        "group by a date part, in no particular order (sorted after)",
        table()
            .group_by([col("d").dt().year().alias("year")])
            .agg(aggs())
            .sort(["year"], Default::default()),
    );
}

#[test]
fn aggregations_of_drop_nulls_and_drop_nans_match_the_cpu() {
    let frame = || {
        df!(
            "g" => ["a", "b", "a", "c", "b", "a", "c", "a"],
            "x" => [None, Some(4i64), Some(7), None, Some(8), Some(-2), None, Some(5)],
            "f" => [Some(f64::NAN), Some(1.5), None, Some(f64::NAN), Some(f64::NAN), Some(2.5), None, None],
        )
        .unwrap()
        .lazy()
    };
    // `drop_nans` of floats per group falls back (Polars tests the value
    // under a null there; see the fuzz regression).
    let floats_without_nan = || {
        [
            col("f").drop_nans().len().alias("f len"),
            col("f").drop_nans().count().alias("f count"),
            col("f").drop_nans().first().alias("f first"),
            col("f").drop_nans().max().alias("f max"),
            col("f").drop_nans().mean().alias("f mean"),
        ]
    };
    let aggregations = || {
        [
            col("x").drop_nulls().sum().alias("x sum"),
            col("x").drop_nulls().len().alias("x len"),
            col("x").drop_nulls().first().alias("x first"),
            col("x").drop_nulls().last().alias("x last"),
            col("x").drop_nans().len().alias("x len without NaN"),
            col("f").drop_nulls().last().alias("f last not null"),
        ]
    };
    assert_gpu_eq(
        "aggregations of drop_nulls and drop_nans per group",
        frame().group_by_stable([col("g")]).agg(aggregations()),
    );
    let whole: Vec<Expr> = aggregations()
        .into_iter()
        .chain(floats_without_nan())
        .collect();
    assert_gpu_eq(
        "aggregations of drop_nulls and drop_nans over the frame",
        frame().select(whole),
    );
    assert_cpu_answer_with_reason(
        frame()
            .group_by_stable([col("g")])
            .agg(floats_without_nan()),
        "drop_nans of floats per group",
    );
    assert_gpu_eq(
        "drop_nulls in a select",
        frame().select([col("x").drop_nulls()]),
    );
}

#[test]
fn str_join_matches_the_cpu() {
    let frame = || {
        df!(
            "g" => ["a", "b", "a", "c", "b", "a", "c", "a", "d"],
            "s" => [Some("p"), None, Some("qé"), None, Some(""), Some("r"), None, Some("st"), Some("u")],
        )
        .unwrap()
        .lazy()
    };
    let joins = || {
        [
            col("s").str().join("-", true).alias("dash"),
            col("s").str().join("", true).alias("none between"),
            col("s").str().join(" · ", true).alias("middle dot"),
            col("s").str().join(",", false).alias("nulls propagate"),
            col("s")
                .str()
                .to_uppercase()
                .str()
                .join("+", true)
                .alias("upper"),
        ]
    };
    assert_gpu_eq(
        "str.join per group (a group of nulls only joins to the empty text)",
        frame().group_by_stable([col("g")]).agg(joins()),
    );
    assert_gpu_eq("str.join over the frame", frame().select(joins()));
    assert_gpu_eq(
        "str.join of no rows",
        frame().filter(col("g").eq(lit("z"))).select(joins()),
    );
    assert_gpu_eq(
        "str.join in a window",
        frame().with_columns([col("s")
            .str()
            .join("/", true)
            .over([col("g")])
            .unwrap()
            .alias("joined by g")]),
    );
}

#[test]
fn aggregations_of_slices_match_the_cpu() {
    let frame = || {
        df!(
            "g" => ["a", "b", "a", "c", "b", "a", "c", "a", "a"],
            "x" => [Some(5i64), None, Some(7), Some(-1), Some(8), None, Some(2), Some(3), Some(4)],
            "s" => [Some("p"), Some("q"), None, Some("r"), Some(""), Some("t"), None, Some("u"), Some("v")],
        )
        .unwrap()
        .lazy()
    };
    let aggregations = || {
        [
            col("x").head(Some(2)).sum().alias("head 2 sum"),
            col("x").tail(Some(2)).mean().alias("tail 2 mean"),
            col("x")
                .slice(lit(1), lit(2))
                .first()
                .alias("slice 1, 2 first"),
            col("x")
                .slice(lit(-3), lit(2))
                .last()
                .alias("slice -3, 2 last"),
            col("x")
                .slice(lit(-10), lit(11))
                .len()
                .alias("slice -10, 11 len"),
            col("x").head(Some(0)).len().alias("head 0 len"),
            col("x").tail(Some(100)).count().alias("tail 100 count"),
            col("s").head(Some(3)).last().alias("third text"),
            col("x")
                .slice(lit(2), lit(NULL))
                .max()
                .alias("from the third on, max"),
        ]
    };
    assert_gpu_eq(
        "aggregations of slices per group",
        frame().group_by_stable([col("g")]).agg(aggregations()),
    );
    assert_gpu_eq(
        "aggregations of slices over the frame",
        frame().select(aggregations()),
    );
    assert_gpu_eq(
        "an aggregation of a slice in a window",
        frame().with_columns([col("x")
            .head(Some(2))
            .sum()
            .over([col("g")])
            .unwrap()
            .alias("w")]),
    );
}

#[test]
fn fill_null_by_min_max_mean_zero_and_one_matches_the_cpu() {
    let frame = || {
        let mut df = df!(
            "g" => ["a", "b", "a", "c", "b", "a", "c"],
            "x" => [Some(4i64), None, Some(7), None, Some(-3), None, None],
            "u" => [Some(5u32), None, Some(6), Some(1), None, Some(2), Some(9)],
            "f" => [Some(f64::NAN), None, Some(2.5), Some(-1.0), None, Some(0.25), Some(7.0)],
            "b" => [Some(true), None, Some(false), None, Some(true), None, Some(false)],
            "n" => [None::<i32>, None, None, None, None, None, None],
            "d" => [Some(19_000i32), None, Some(-5), Some(3), None, Some(0), None],
        )
        .unwrap();
        let date = df.column("d").unwrap().cast(&DataType::Date).unwrap();
        df.with_column(date).unwrap();
        df.lazy()
    };
    use FillNullStrategy::{Max, Mean, Min, One, Zero};
    let fills = |strategies: &[FillNullStrategy], columns: &[&str]| {
        let mut exprs = vec![];
        for column in columns {
            for strategy in strategies {
                exprs.push(
                    col(*column)
                        .fill_null_with_strategy(*strategy)
                        .alias(format!("{column} {strategy:?}")),
                );
            }
        }
        exprs
    };
    let numbers = fills(&[Min, Max, Mean, Zero, One], &["x", "u", "f", "n"]);
    let others = [fills(&[Zero, One], &["b"]), fills(&[Min, Max], &["d"])].concat();
    assert_gpu_eq(
        "fill_null by a value of the column",
        frame().select([numbers.clone(), others.clone()].concat()),
    );
    let by_group: Vec<Expr> = [numbers, others]
        .concat()
        .into_iter()
        .map(|e| e.over([col("g")]).unwrap())
        .collect();
    assert_gpu_eq(
        "fill_null by a value of the group",
        frame().select(by_group),
    );
}

#[test]
fn item_matches_the_cpu_or_leaves_polars_its_error() {
    let frame = || {
        df!(
            "g" => ["a", "b", "c", "a"],
            "k" => [1i64, 2, 3, 4],
            "s" => [Some("p"), None, Some("q"), Some("r")],
        )
        .unwrap()
        .lazy()
    };
    assert_gpu_eq(
        "item per group of one row",
        frame().group_by_stable([col("k")]).agg([
            col("s").item(false).alias("s"),
            col("g").item(true).alias("g"),
        ]),
    );
    assert_gpu_eq(
        "item of one row",
        frame()
            .filter(col("k").eq(lit(3i64)))
            .select([col("s").item(false), col("k").item(false)]),
    );
    assert_gpu_eq(
        "item of no rows, allowed: null",
        frame()
            .filter(col("k").gt(lit(9i64)))
            .select([col("s").item(true), col("k").item(true)]),
    );
    // Polars raises where a group has another number of rows.
    assert_cpu_error(
        frame()
            .group_by_stable([col("g")])
            .agg([col("k").item(false)]),
    );
    assert_cpu_error(frame().select([col("k").item(true)]));
    assert_cpu_error(
        frame()
            .filter(col("k").gt(lit(9i64)))
            .select([col("k").item(false)]),
    );
}

/// Group-bys with constant keys beside keys of every row: Polars repeats a
/// constant on every row, so it is one value in every group; on a frame of
/// no rows, no group. (All keys constant stays with Polars: one group even
/// of no rows.)
#[test]
fn group_bys_with_constant_keys_beside_others_match_the_cpu() {
    let frame = || {
        df!(
            "a" => [Some(1i64), Some(2), Some(1), None, Some(3)],
            "v" => [1.0f64, 2.0, 3.0, 4.0, 5.0],
        )
        .unwrap()
        .lazy()
    };
    let keys = || {
        [
            col("a"),
            lit(4u8).alias("k"),
            lit("x").alias("s"),
            (lit(2) * lit(3)).alias("six"),
        ]
    };
    assert_gpu_eq(
        "constant keys beside a column",
        frame().group_by_stable(keys()).agg([col("v").sum(), len()]),
    );
    assert_gpu_eq(
        "constant keys beside a column, of no rows",
        frame()
            .filter(lit(false))
            .group_by_stable(keys())
            .agg([col("v").max()]),
    );
    assert_gpu_eq(
        "constant keys, unordered",
        frame()
            .group_by(keys())
            .agg([col("v").min()])
            .sort(["a"], Default::default()),
    );
}

#[test]
fn get_at_a_literal_place_matches_the_cpu_or_leaves_polars_its_error() {
    let frame = small_groups();
    let get = |e: Expr, index: i64| e.get(lit(index), false);
    let get_or_null = |e: Expr, index: i64| e.get(lit(index), true);
    for (name, lf) in [
        (
            "of a column, from either end (null kept)",
            frame.clone().select([
                get(col("x"), 1).alias("second"),
                get(col("s"), -1).alias("last"),
                get(col("x"), -5).alias("fifth from the end"),
            ]),
        ),
        (
            "repeated on every row, inside expressions",
            frame.clone().with_columns([
                get(col("x"), 2).alias("third"),
                (col("x") - get(col("x"), 0)).alias("from the first"),
            ]),
        ),
        (
            "per group, of texts, beyond a group's end with null_on_oob",
            frame.clone().group_by_stable([col("h")]).agg([
                get(col("x"), 0).alias("first"),
                get(col("s"), -2).alias("next to last"),
                get_or_null(col("x"), 5).alias("sixth"),
                get_or_null(col("x"), -9).alias("ninth from the end"),
            ]),
        ),
        (
            "per group, of values computed and sorted in the group",
            frame.clone().group_by_stable([col("g")]).agg([
                get_or_null(col("x").sort(SortOptions::default()), -1).alias("greatest"),
                get_or_null(col("x") * lit(2), 1).alias("second doubled"),
                get_or_null(col("x").cum_sum(false), 1).alias("second running"),
            ]),
        ),
        (
            "per window group",
            frame
                .clone()
                .select([get(col("x"), 0).over([col("h")]).unwrap().alias("first")]),
        ),
    ] {
        assert_gpu_eq(name, lf);
    }
    // No such place (without null_on_oob): Polars raises, and so does the
    // engine (the device's check sends the query to Polars).
    for lf in [
        frame.clone().select([get(col("x"), 6)]),
        frame.clone().select([get(col("x"), -7)]),
        frame.clone().group_by([col("h")]).agg([get(col("x"), 3)]),
        frame
            .clone()
            .filter(col("x").gt(lit(10)))
            .select([get(col("x"), 0)]),
    ] {
        assert_cpu_error(lf);
    }
}

#[test]
fn spreads_of_f32_are_computed_in_f64_as_polars_does() {
    // Polars takes the variance of f32 values in f64 and casts it back.
    let frame = groups().with_columns([col("x").cast(DataType::Float32).alias("f")]);
    assert_gpu_eq(
        "spreads of f32",
        frame.clone().group_by_stable([col("g")]).agg([
            col("f").std(1).alias("std"),
            col("f").var(0).alias("var"),
            (col("f") * lit(3.5f32)).std(0).alias("std of a product"),
        ]),
    );
    assert_gpu_eq(
        "spreads of f32 over windows and the whole frame",
        frame.select([
            col("f").std(1).over([col("h")]).unwrap().alias("by h"),
            col("f").var(1).alias("var"),
            col("f").std(0).alias("std"),
        ]),
    );
}

/// The value at the place of a group's extreme (`x.get(k.arg_max())`; null
/// where `k` has no valid value), of numbers and texts, per group and over
/// the frame, by integers and by floats (NaN and infinities among them).
/// Where the extreme is reached more than once (Polars takes the first
/// place, or the last where it knows `k` sorted), it stays with Polars.
#[test]
fn values_at_the_place_of_an_extreme_match_the_cpu() {
    let frame = || {
        df!(
            "g" => ["a", "b", "a", "a", "b", "c", "a", "b"],
            "k" => [Some(3i64), None, Some(7), Some(5), None, Some(1), Some(-2), None],
            "s" => [Some("p"), Some("q"), None, Some("r"), Some("s"), Some("t"), Some("u"), Some("v")],
            "f" => [1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
        )
        .unwrap()
        .lazy()
    };
    let at_extremes = || {
        [
            col("s").get(col("k").arg_max(), false).alias("s at max"),
            col("f").get(col("k").arg_min(), false).alias("f at min"),
            (col("k") * lit(2))
                .get(col("k").arg_max(), false)
                .alias("twice k at max"),
        ]
    };
    assert_gpu_eq(
        "values at extremes per group",
        frame().group_by_stable([col("g")]).agg(at_extremes()),
    );
    assert_gpu_eq(
        "values at extremes over the frame",
        frame().select(at_extremes()),
    );
    // By floats, NaN and infinities among them: the place Polars' own
    // arg_max and arg_min give.
    let by_floats = || {
        [
            col("s").get(col("f").arg_max(), false).alias("s at max"),
            col("k").get(col("f").arg_min(), false).alias("k at min"),
        ]
    };
    let floats = || {
        frame().with_columns([lit(Series::new(
            "f".into(),
            [1.0f64, f64::NAN, 3.0, f64::NEG_INFINITY, 5.0, 6.0, 7.0, 8.0],
        ))])
    };
    assert_gpu_eq(
        "values at extremes of floats per group",
        floats().group_by_stable([col("g")]).agg(by_floats()),
    );
    assert_gpu_eq(
        "values at extremes of floats over the frame",
        floats().select(by_floats()),
    );
    // The greatest reached twice: Polars takes the first place, or the last
    // where it knows the values sorted (fuzz seed 2194: of a date cast from
    // the sorted index of a group_by_dynamic).
    let tied = || frame().with_columns([col("k").fill_null(lit(7i64))]);
    for sorted in [false, true] {
        let tied = match sorted {
            true => tied().sort(["k"], Default::default()),
            false => tied(),
        };
        assert_cpu_answer_with_reason(
            tied.group_by_stable([col("g")])
                .agg([col("s").get(col("k").arg_max(), false)]),
            "holds its greatest value more than once",
        );
    }
}

/// `group_by(..).mean()` and the like over every column: per group Polars
/// gives null for a mean, median or spread of a text column and for a
/// spread of a timestamp column (over the whole frame it raises); in a
/// window such a null stays with Polars.
#[test]
fn means_and_spreads_of_texts_are_null_per_group() {
    let frame = || {
        df!(
            "g" => [Some("a"), Some("b"), Some("a"), None, Some("b")],
            "s" => [Some("x"), None, Some("yz"), Some(""), Some("w")],
            "i" => [Some(1i64), Some(2), None, Some(4), Some(5)],
            "ts" => [Some(0i64), Some(3_600_000), None, Some(7_200_000), Some(60_000)],
        )
        .unwrap()
        .lazy()
        .with_column(col("ts").cast(DataType::Datetime(TimeUnit::Milliseconds, None)))
    };
    let every = || all().exclude_cols(["g"]).as_expr();
    for (name, aggregation) in [
        ("mean", every().mean()),
        ("median", every().median()),
        ("std", every().std(1)),
        ("var", every().var(0)),
    ] {
        assert_gpu_eq(
            &format!("{name} of every column per group"),
            frame().group_by_stable([col("g")]).agg([aggregation]),
        );
    }
    assert_cpu_answer_with_reason(
        frame().select([col("s").mean().over([col("g")]).unwrap()]),
        "(null per group)",
    );
    assert_cpu_error(frame().select([col("s").mean()]));
}
