//! Row-wise expressions beside aggregations over the whole frame over partitions (`x - x.mean()`, `filter(x > x.mean())`): the aggregations merged into one row first, then each partition beside it.

use super::partitioned::{assert_partitioned_split, table};
use super::*;

/// `lf` partitioned as the in-memory executor and Polars answer it (floats
/// within a relative 1e-9: sums and means merged from partitions), in
/// two steps where `split`, else whole.
fn assert_beside(name: &str, lf: LazyFrame, split: bool) {
    assert_partitioned_split(name, lf, true, split);
}

#[test]
fn rows_beside_aggregations_over_the_frame_run_in_partitions() {
    let cases: Vec<(&str, LazyFrame)> = vec![
        (
            "columns centred and scaled by the frame's moments",
            table().with_columns([
                (col("v") - col("v").mean()).alias("centred"),
                ((col("v") - col("v").mean()) / col("v").std(1)).alias("scaled"),
                (col("c").cast(DataType::Float64) / col("c").sum().cast(DataType::Float64))
                    .alias("share"),
            ]),
        ),
        (
            "a filter of the rows above the mean, then a row-wise chain",
            table()
                .filter(col("c").gt(col("c").mean()))
                .with_columns([(col("c") * lit(2u32)).alias("twice")]),
        ),
        (
            "a select of rows beside extremes, counts and the length",
            table().select([
                col("k"),
                (col("k") - col("k").min()).alias("from min"),
                (col("k").max() - col("k")).alias("to max"),
                (col("t").count() + len()).alias("counts"),
            ]),
        ),
        (
            "rows beside medians and quantiles (by ranks) and a sum",
            table()
                .filter(col("k").gt(col("k").quantile(lit(0.25), QuantileMethod::Lower)))
                .with_columns([
                    (col("v") - col("v").median()).alias("from median"),
                    (col("c").cast(DataType::Float64) - col("c").median()
                        + col("k").sum().cast(DataType::Float64))
                    .alias("mixed"),
                ]),
        ),
        (
            "a filter by the length and a sum of booleans",
            table().filter(
                col("c")
                    .cast(DataType::Int64)
                    .lt(len().cast(DataType::Int64)
                        - col("k").is_null().sum().cast(DataType::Int64)),
            ),
        ),
        (
            "rows beside the first and last values (of the partitions of rows)",
            table()
                .filter(col("c").gt(lit(12u32)))
                .with_columns([(col("k") - col("k").first()
                    + col("s").last().cast(DataType::Int64))
                .alias("x")]),
        ),
        (
            "aggregations after a filter",
            table().filter(col("s").neq(lit(0i16))).select([
                col("d"),
                (col("k") * col("k").sum() + col("c").max().cast(DataType::Int64)).alias("x"),
            ]),
        ),
    ];
    for (name, lf) in cases {
        assert_beside(name, lf, true);
    }
}

#[test]
fn rows_beside_aggregations_that_do_not_add_up_run_whole() {
    // (Counts of distinct values run in steps: `partitioned_counts.rs`.)
    let cases: Vec<(&str, LazyFrame)> = vec![(
        "beside a product",
        table().with_columns([(col("k") - col("k").product()).alias("d")]),
    )];
    for (name, lf) in cases {
        assert_beside(name, lf, false);
    }
}

#[test]
fn rows_beside_aggregations_and_windows_run_in_steps() {
    // The window first, by buckets of its key, then the rows beside the
    // aggregation (see `PlanNode::steps`).
    let lf = table().select([col("c") - col("c").sum().over([col("s")]).unwrap() + col("c").sum()]);
    assert_beside("beside a window", lf, true);
}
