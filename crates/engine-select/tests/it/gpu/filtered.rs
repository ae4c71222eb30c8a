//! Aggregations of values read through filters and slices inside expressions: slices Polars' optimiser moves onto the columns, filters under elementwise functions.

use super::*;

/// Groups (`g`) of floats (`c`) and integers (`i`), a null in each.
fn frame() -> LazyFrame {
    df!(
        "g" => ["a", "b", "a", "a", "b", "c", "a", "b"],
        "c" => [Some(2.0f64), Some(-1.5), None, Some(4.0), Some(0.5), Some(3.0), Some(-2.0), Some(8.0)],
        "i" => [Some(1i64), Some(2), Some(3), None, Some(5), Some(6), Some(7), Some(8)],
    )
    .unwrap()
    .lazy()
}

/// The `aggregations` of [`frame`] per group and over the whole frame, each
/// as on the CPU.
fn assert_per_group_and_over_the_frame<const N: usize>(
    what: &str,
    aggregations: impl Fn() -> [Expr; N],
) {
    assert_gpu_eq(
        &format!("{what} per group"),
        frame().group_by_stable([col("g")]).agg(aggregations()),
    );
    assert_gpu_eq(
        &format!("{what} over the frame"),
        frame().select(aggregations()),
    );
}

/// Aggregations of slices of elementwise expressions, which Polars'
/// optimiser moves onto the columns (`(1.5 % col("c")).head(3)` becomes
/// `1.5 % col("c").slice(0, 3)`): the rows kept by place, per group and
/// over the frame.
#[test]
fn aggregations_of_slices_moved_onto_columns_match_the_cpu() {
    let aggregations = || {
        [
            (lit(1.5) % col("c"))
                .head(Some(3))
                .max()
                .alias("mod head max"),
            (col("c") * lit(2.0) + col("i").cast(DataType::Float64))
                .tail(Some(2))
                .sum()
                .alias("tail sum"),
            (col("i") - lit(1i64))
                .slice(lit(1i64), lit(2u64))
                .min()
                .alias("slice min"),
            (col("i") * col("i")).head(Some(2)).len().alias("head len"),
            // (`.last()` moved onto one operand, the other an aggregation.)
            (col("i") - col("i").first())
                .last()
                .alias("last less first"),
            (col("c").tail(Some(2)) + col("c").max() + len().cast(DataType::Float64))
                .sum()
                .alias("tail plus max"),
        ]
    };
    assert_per_group_and_over_the_frame("aggregations of moved slices", aggregations);
}

/// Aggregations of an elementwise expression whose columns are read through
/// one filter (`(x.filter(p) * 2).mean()`): of the rows the filter keeps,
/// per group and over the frame (a group keeping no row: null, or 0 for a
/// count).
#[test]
fn aggregations_of_filters_inside_expressions_match_the_cpu() {
    let aggregations = || {
        [
            (col("i").filter(col("i").gt(lit(2))) * lit(2))
                .mean()
                .alias("mean"),
            (col("c").filter(col("i").lt_eq(lit(5))) + col("c").max())
                .sum()
                .alias("sum beside max"),
            (col("i").filter(col("c").gt(lit(0.0))) - lit(1i64))
                .min()
                .alias("min"),
            (col("i").filter(col("i").gt(lit(100))) * lit(3))
                .count()
                .alias("count of none"),
            (col("c").filter(col("i").is_not_null()).abs())
                .max()
                .alias("max"),
        ]
    };
    assert_per_group_and_over_the_frame("aggregations of filters inside expressions", aggregations);
}
