//! Windows over partitions: a filter, select or with_columns of windows (and tests of distinctness) by common keys runs in buckets of those keys, its rows in the input's order; of windows sharing no key, in steps by buckets of each.

use super::partitioned::{assert_partitioned_split, table};
use super::*;

/// `lf` partitioned as the in-memory executor and Polars answer it, in
/// buckets where `bucketed`, else whole.
fn assert_windows(name: &str, lf: LazyFrame, bucketed: bool) {
    assert_partitioned_split(name, lf, false, bucketed);
}

#[test]
fn windows_by_common_keys_run_in_buckets_in_the_input_order() {
    let ordered = |e: Expr, by: Vec<Expr>| {
        e.over_with_options(
            Some(by),
            Some((vec![col("v")], SortOptions::default())),
            WindowMapping::GroupsToRows,
        )
        .unwrap()
    };
    let cases: Vec<(&str, LazyFrame)> = vec![
        (
            "with_columns of windows by an integer",
            table().with_columns([
                col("v").sum().over([col("k")]).unwrap().alias("sum"),
                (col("v") - col("v").mean().over([col("k")]).unwrap()).alias("centred"),
                col("c").max().over([col("k")]).unwrap().alias("max"),
                len().over([col("k")]).unwrap().alias("len"),
                col("t").first().over([col("k")]).unwrap().alias("first"),
            ]),
        ),
        (
            "a window by a text",
            table().select([
                col("c"),
                col("c").sum().over([col("t")]).unwrap().alias("w"),
            ]),
        ),
        (
            // (A key of -0.0 in a window is Polars' own: its absolute value.)
            "a window by a float (0.0, NaN)",
            table().select([
                col("c"),
                col("c").min().over([col("f").abs()]).unwrap().alias("w"),
            ]),
        ),
        (
            "a window by a date",
            table().select([
                col("c"),
                col("k").n_unique().over([col("d")]).unwrap().alias("w"),
            ]),
        ),
        (
            "windows of functions of the rows in order, ordered windows",
            table().with_columns([
                col("c")
                    .cum_sum(false)
                    .over([col("s")])
                    .unwrap()
                    .alias("cum"),
                col("v")
                    .shift(lit(1))
                    .over([col("s")])
                    .unwrap()
                    .alias("shifted"),
                ordered(col("c").cum_sum(false), vec![col("s")]).alias("cum by v"),
                col("c")
                    .rank(RankOptions::default(), None)
                    .over([col("s")])
                    .unwrap()
                    .alias("rank"),
            ]),
        ),
        (
            "windows by several keys sharing one",
            table().select([
                col("k"),
                col("c")
                    .sum()
                    .over([col("s"), col("t")])
                    .unwrap()
                    .alias("by s, t"),
                col("c")
                    .max()
                    .over([col("t"), col("k")])
                    .unwrap()
                    .alias("by t, k"),
                col("v").mean().over([col("t")]).unwrap().alias("by t"),
            ]),
        ),
        (
            "a filter by a window, then a row-wise chain",
            table()
                .filter(col("c").gt(col("c").mean().over([col("s")]).unwrap()))
                .with_columns([(col("c") * lit(2u32)).alias("twice")]),
        ),
        (
            "a window mapped by join (each row its partition's values)",
            table().select([
                col("s"),
                col("c")
                    .over_with_options(Some([col("s")]), None, WindowMapping::Join)
                    .unwrap()
                    .alias("cs"),
            ]),
        ),
        (
            "a window by a key of an expression, after a filter",
            table()
                .filter(col("c").neq(lit(3u32)))
                .with_columns([col("v")
                    .max()
                    .over([col("c") % lit(4u32)])
                    .unwrap()
                    .alias("max by c % 4")]),
        ),
        (
            "tests of distinctness, each by its value's bucket",
            table().filter(col("t").is_duplicated()).with_columns([
                col("t").is_first_distinct().alias("first"),
                col("t").is_last_distinct().alias("last"),
            ]),
        ),
        (
            "tests of distinctness of floats (-0.0 and 0.0, NaN)",
            table().select([
                col("f"),
                col("f").is_unique().alias("unique"),
                col("f").is_last_distinct().alias("last"),
            ]),
        ),
        (
            "a test of distinctness of an expression",
            table().filter((col("c") % lit(5u32)).is_first_distinct()),
        ),
    ];
    for (name, lf) in cases {
        assert_windows(name, lf, true);
    }
}

#[test]
fn windows_without_a_common_key_or_beside_aggregations_run_in_steps() {
    // Each set of windows sharing a key a with_columns of its own, by
    // buckets of that key, then the node over their values, row-wise.
    let cases: Vec<(&str, LazyFrame)> = vec![
        (
            "windows by keys sharing none",
            table().select([
                col("c").sum().over([col("s")]).unwrap().alias("by s"),
                col("c").sum().over([col("t")]).unwrap().alias("by t"),
            ]),
        ),
        (
            "tests of distinctness of two values",
            table().filter(col("t").is_unique().or(col("k").is_duplicated())),
        ),
        (
            "a with_columns replacing a column and adding others, of windows of three keys, two \
             of them sharing one",
            table().with_columns([
                (col("v") - col("v").mean().over([col("k")]).unwrap()).alias("v"),
                (col("c").max().over([col("s"), col("t")]).unwrap()
                    - col("c").min().over([col("t")]).unwrap())
                .alias("spread"),
                col("v")
                    .rank(RankOptions::default(), None)
                    .over([col("s")])
                    .unwrap()
                    .alias("r"),
                col("t").is_first_distinct().alias("first t"),
            ]),
        ),
        (
            "a filter by windows of two keys",
            table().filter(
                col("v")
                    .gt(col("v").mean().over([col("s")]).unwrap())
                    .and(col("c").lt_eq(col("c").max().over([col("d")]).unwrap())),
            ),
        ),
        (
            "an ordered window and a window of the same function by another key",
            table().select([
                col("k"),
                col("c")
                    .cum_sum(false)
                    .over_with_options(
                        Some(vec![col("s")]),
                        Some((vec![col("v")], SortOptions::default())),
                        WindowMapping::GroupsToRows,
                    )
                    .unwrap()
                    .alias("running"),
                (col("c").cast(DataType::Int64) - col("c").sum().over([col("k")]).unwrap())
                    .alias("rest"),
            ]),
        ),
        (
            "a window beside an aggregation over the whole frame",
            table()
                .select([(col("c").sum().over([col("s")]).unwrap() - col("c").mean()).alias("d")]),
        ),
        (
            "a filter by windows and a median over the frame",
            table().filter(
                col("v")
                    .gt(col("v").median())
                    .and(col("c").lt(col("c").max().over([col("t")]).unwrap())),
            ),
        ),
        (
            "a with_columns of a share of a window's sum and a window's extreme above the least",
            table().with_columns([
                (col("v") / col("v").sum().over([col("s")]).unwrap()
                    * col("v").count().cast(DataType::Float64))
                .alias("share"),
                (col("k").max().over([col("d")]).unwrap() - col("k").min()).alias("above"),
            ]),
        ),
    ];
    for (name, lf) in cases {
        assert_windows(name, lf, true);
    }
}

/// Windows inside a window's function (partitioned by its keys too):
/// computed first, by buckets of their keys, then the outer window by
/// buckets of its own.
#[test]
fn windows_inside_windows_run_in_buckets() {
    let inner = (col("v") - col("v").mean().over([col("t")]).unwrap()).abs();
    let lf = table().with_columns([inner.max().over([col("k")]).unwrap().alias("spread")]);
    assert_windows("a window inside a window", lf, true);
}

#[test]
fn windows_beside_other_rows_or_of_the_whole_frame_run_whole() {
    let cases: Vec<(&str, LazyFrame)> = vec![
        (
            "a window beside an aggregation that does not add up",
            table().select([
                (col("c").sum().over([col("s")]).unwrap() - col("c").product()).alias("d"),
            ]),
        ),
        (
            "a window by a literal",
            table().select([
                col("k"),
                col("c").sum().over([lit(1)]).unwrap().alias("all"),
            ]),
        ),
        (
            "a window by a literal beside one by a column",
            table().select([
                col("c").sum().over([lit(1)]).unwrap().alias("all"),
                col("c").sum().over([col("s")]).unwrap().alias("by s"),
            ]),
        ),
        (
            "a window beside a rank",
            table().select([
                col("c").rank(RankOptions::default(), None).alias("rank"),
                col("c").sum().over([col("s")]).unwrap().alias("by s"),
                col("c").sum().over([col("t")]).unwrap().alias("by t"),
            ]),
        ),
    ];
    for (name, lf) in cases {
        assert_windows(name, lf, false);
    }
}

#[test]
fn windows_beside_functions_of_rows_around_run_in_steps() {
    // The windows first (by buckets of their keys), then the node over
    // their columns between the rows around each partition, its running
    // functions carried on.
    let by = |e: Expr, key: &str| e.over([col(key)]).unwrap();
    let cases: Vec<(&str, LazyFrame)> = vec![
        (
            "a window beside a shift",
            table().select([
                col("c").shift(lit(1)).alias("before"),
                by(col("c").sum(), "s").alias("by s"),
                by(col("c").sum(), "t").alias("by t"),
            ]),
        ),
        (
            "windows beside a running sum, a running maximum and a difference",
            table().with_columns([
                (by(col("v").mean(), "s") - col("v").shift(lit(2))).alias("off"),
                col("c").cum_sum(false).alias("so far"),
                (by(col("k").max(), "s") - col("k").diff(lit(1), NullBehavior::Ignore))
                    .alias("step"),
                (by(col("c").min(), "t") + col("c").cum_max(false)).alias("highest"),
            ]),
        ),
        (
            "a window beside a shift ahead",
            table().select([
                col("c").shift(lit(-1)).alias("after"),
                by(col("c").sum(), "s").alias("by s"),
            ]),
        ),
        (
            "a filter by a shift against a window",
            table().filter(col("k").shift(lit(1)).lt(by(col("k").mean(), "t"))),
        ),
    ];
    for (name, lf) in cases {
        assert_windows(name, lf, true);
    }
}
