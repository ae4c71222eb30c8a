//! Distinct values over the whole frame (`select(x.unique_stable())`) and their counts (`select(x.n_unique())`) over partitions: the distinct values by buckets (then their number, beside the other aggregations).

use super::partitioned::{assert_partitioned_split, table};
use super::*;

#[test]
fn counts_of_distinct_values_over_the_frame_count_distinct_rows_by_buckets() {
    let cases: Vec<(&str, LazyFrame)> = vec![
        ("an integer column", table().select([col("k").n_unique()])),
        (
            "texts with nulls, and an expression",
            table().select([
                col("t").n_unique().alias("texts"),
                (col("k") % lit(3)).n_unique().alias("remainders"),
            ]),
        ),
        (
            "beside aggregations that add up and a median",
            table().select([
                col("v").sum().alias("sum"),
                col("s").n_unique().alias("distinct"),
                len().alias("rows"),
                col("v").median().alias("median"),
                col("d").n_unique().alias("days"),
            ]),
        ),
        (
            "of a filter's rows",
            table()
                .filter(col("k").gt(lit(0i64)))
                .select([col("t").n_unique(), col("k").max()]),
        ),
    ];
    for (name, lf) in cases {
        assert_partitioned_split(name, lf, true, true);
    }
    // Floats (Polars counts zeros and NaNs by paths of its own), and
    // beside an aggregation that does not add up (a product): whole.
    let whole: Vec<(&str, LazyFrame)> = vec![
        ("floats", table().select([col("f").n_unique()])),
        (
            "beside a product",
            table().select([col("k").n_unique(), col("k").product().alias("product")]),
        ),
    ];
    for (name, lf) in whole {
        assert_partitioned_split(name, lf, true, false);
    }
}

#[test]
fn distinct_values_of_an_expression_are_its_distinct_rows_by_buckets() {
    let cases: Vec<(&str, LazyFrame)> = vec![
        ("texts in order", table().select([col("t").unique_stable()])),
        (
            "an expression's values in order",
            table().select([(col("k") % lit(4i64)).unique_stable().alias("m")]),
        ),
        (
            "texts kept in order",
            table().select([col("t").drop_nulls().unique_stable()]),
        ),
        // (In an order of its own: sorted after, as Polars' is.)
        (
            "floats in no order, sorted",
            table()
                .select([col("f").unique()])
                .sort(["f"], Default::default()),
        ),
    ];
    for (name, lf) in cases {
        assert_partitioned_split(name, lf, true, true);
    }
}

#[test]
fn rows_beside_counts_of_distinct_values_take_the_counts_first() {
    let cases: Vec<(&str, LazyFrame)> = vec![
        (
            "a share of the distinct values",
            table().with_columns([(col("c").cast(DataType::Float64)
                / col("t").n_unique().cast(DataType::Float64))
            .alias("share")]),
        ),
        (
            "a filter by a count of distinct values and a mean",
            table().filter(
                col("k")
                    .gt(col("k").n_unique().cast(DataType::Int64))
                    .or(col("v").lt(col("v").mean())),
            ),
        ),
    ];
    for (name, lf) in cases {
        assert_partitioned_split(name, lf, true, true);
    }
}
