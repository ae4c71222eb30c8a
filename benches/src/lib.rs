//! Shared inputs of the criterion benchmarks.

use polars::prelude::*;

pub mod side_by_side;

/// A small orders table (`rows` rows, ten groups) for overhead measurements.
pub fn orders(rows: usize) -> PolarsResult<DataFrame> {
    df!(
        "id" => (0..rows as i64).collect::<Vec<_>>(),
        "group" => (0..rows as i64).map(|i| i % 10).collect::<Vec<_>>(),
        "amount" => (0..rows).map(|i| (i % 97) as f64 * 0.5).collect::<Vec<_>>(),
    )
}

/// A filter and a group-by over [`orders`]: small enough that fixed costs show.
pub fn small_query(orders: &DataFrame) -> LazyFrame {
    orders
        .clone()
        .lazy()
        .filter(col("amount").gt(lit(10.0)))
        .group_by([col("group")])
        .agg([col("amount").sum()])
}
