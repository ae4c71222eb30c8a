//! Sorts and group-bys by keys reading other rows over partitions (and by keys with an aggregation inside, in memory too): the keys first, as a with_columns that runs over partitions, then the node by their columns.

use super::partitioned::{assert_partitioned_split, table};
use super::*;

/// `lf` partitioned as the in-memory executor and Polars answer it (sums
/// of floats within a relative 1e-9: partial aggregations add them in
/// another order), in steps where `stepped`, else whole.
fn assert_keys(name: &str, lf: LazyFrame, stepped: bool) {
    assert_partitioned_split(name, lf, true, stepped);
}

/// Sort options: descending and nulls last as given, stable.
fn order(descending: Vec<bool>, nulls_last: Vec<bool>) -> SortMultipleOptions {
    SortMultipleOptions::default()
        .with_order_descending_multi(descending)
        .with_nulls_last_multi(nulls_last)
        .with_maintain_order(true)
}

#[test]
fn sorts_by_keys_reading_other_rows_compute_the_keys_first() {
    let total = || col("c").sum().over([col("s")]).unwrap();
    let cases: Vec<(&str, LazyFrame)> = vec![
        (
            "by a window's value, descending",
            table().sort_by_exprs([total()], order(vec![true], vec![false])),
        ),
        (
            "by a window's value then a column, a head",
            table()
                .sort_by_exprs(
                    [total(), col("k")],
                    order(vec![false, true], vec![true, false]),
                )
                .slice(0, 7),
        ),
        (
            "by a distance from the mean over the frame (its aggregation computed first)",
            table().sort_by_exprs(
                [(col("v") - col("v").mean()).abs(), col("c")],
                order(vec![false, false], vec![true, true]),
            ),
        ),
        (
            "by a share of the frame's sum, a head",
            table()
                .sort_by_exprs(
                    [col("c").cast(DataType::Float64) / col("c").sum().cast(DataType::Float64)],
                    order(vec![true], vec![false]),
                )
                .slice(0, 9),
        ),
        (
            "by windows sharing no key",
            table().sort_by_exprs(
                [
                    col("v").max().over([col("t")]).unwrap(),
                    col("c").min().over([col("d")]).unwrap(),
                ],
                order(vec![true, false], vec![false, true]),
            ),
        ),
        (
            "by a difference from the row before",
            table().sort_by_exprs(
                [col("c").diff(lit(1), NullBehavior::Ignore), col("k")],
                order(vec![false, true], vec![true, false]),
            ),
        ),
        (
            "by a test of distinctness, a slice",
            table()
                .sort_by_exprs(
                    [col("t").is_first_distinct()],
                    order(vec![true], vec![false]),
                )
                .slice(3, 20),
        ),
    ];
    for (name, lf) in cases {
        assert_keys(name, lf, true);
    }
}

#[test]
fn group_bys_by_keys_reading_other_rows_compute_the_keys_first() {
    let cases: Vec<(&str, LazyFrame)> = vec![
        (
            "by a window's value",
            table()
                .group_by_stable([col("c").max().over([col("s")]).unwrap().alias("top")])
                .agg([len(), col("v").sum(), col("k").n_unique(), col("t").first()]),
        ),
        (
            "by whether a value is above its window's mean, and a column",
            table()
                .group_by_stable([
                    (col("v").gt(col("v").mean().over([col("t")]).unwrap())).alias("above"),
                    col("s"),
                ])
                .agg([col("c").mean(), col("v").median(), col("t").implode(false)]),
        ),
        (
            "by whether a value is above the mean and the median (aggregations computed first)",
            table()
                .group_by_stable([
                    col("v").gt(col("v").mean()).alias("above mean"),
                    col("c").gt(col("c").median()).alias("above median"),
                ])
                .agg([len(), col("v").sum(), col("t").first()]),
        ),
        (
            "by a running sum (carried from partition to partition)",
            table()
                .group_by_stable([(col("c").cum_sum(false) % lit(7u32)).alias("so far")])
                .agg([len(), col("v").min()]),
        ),
        (
            "by the row before (its with_columns behind the rows before each partition)",
            table()
                .group_by_stable([col("s").shift(lit(1)).alias("before")])
                .agg([len(), col("v").max()]),
        ),
        (
            "by a test of distinctness, a slice",
            table()
                .group_by_stable([col("t").is_duplicated().alias("dup")])
                .agg([col("c").max()])
                .slice(0, 1),
        ),
    ];
    for (name, lf) in cases {
        assert_keys(name, lf, true);
    }
}

#[test]
fn sorts_and_group_bys_by_keys_whose_with_columns_runs_whole_run_whole() {
    // A rank over the whole frame runs whole as a with_columns: the node
    // gains nothing from a step.
    let rank = || col("v").rank(RankOptions::default(), None);
    let cases: Vec<(&str, LazyFrame)> = vec![
        (
            "a sort by a rank",
            table().sort_by_exprs([rank()], order(vec![false], vec![true])),
        ),
        (
            "a group-by by a rank",
            table()
                .group_by_stable([col("k").rank(RankOptions::default(), None).alias("rank")])
                .agg([len()]),
        ),
    ];
    for (name, lf) in cases {
        assert_keys(name, lf, false);
    }
}

#[test]
fn keys_of_windows_and_aggregations_name_the_columns_of_each_step_apart() {
    // The lowering computes a key with an aggregation inside first; over
    // partitions, that with_columns computes its window first in turn:
    // the two steps' columns are named apart (fuzz seeds 9522 and 9523,
    // Polars refused a frame of two columns of one name).
    let cases: Vec<(&str, LazyFrame)> = vec![
        (
            "a sort by a window plus a count over the frame",
            table().sort_by_exprs(
                [
                    (col("c").max().over([col("s")]).unwrap() + col("c").count()),
                    col("k"),
                ],
                order(vec![false, true], vec![true, false]),
            ),
        ),
        (
            "a group-by by a window and a count over the frame",
            table()
                .group_by_stable([col("t")
                    .max()
                    .over([col("t")])
                    .unwrap()
                    .is_not_null()
                    .and(col("t").count().gt(lit(40u32)))
                    .alias("kept")])
                .agg([len(), col("c").sum()]),
        ),
        (
            "a sort by a window beside a key of an aggregation",
            table().sort_by_exprs(
                [
                    col("v").gt(col("v").mean()),
                    col("c").shift(lit(1)).over([col("s")]).unwrap(),
                ],
                order(vec![false, false], vec![true, true]),
            ),
        ),
    ];
    for (name, lf) in cases {
        assert_keys(name, lf, true);
    }
}
