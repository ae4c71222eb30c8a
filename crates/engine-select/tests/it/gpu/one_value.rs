//! Aggregations of one value that Polars computed (`x.max().sum()`, `len().mean()`), taken as Polars takes them of a column of that value.

use super::*;

#[test]
fn aggregations_of_one_value_are_that_values_as_polars_takes_them() {
    // Polars takes an aggregation of one value it computed (`x.max().sum()`,
    // `len().mean()`) over a column of that one value: the value, a sum of
    // it (0 of a null), counts of 1 or 0. Over the frame, per group (an
    // empty group's null too), beside the rows, and of Polars' common
    // subexpressions (the inner aggregation met twice).
    let frame = groups().with_columns([col("x").cast(DataType::Float32).alias("f")]);
    let of = |inner: Expr, text: bool| {
        let mut aggs = vec![
            inner.clone().min().alias("min"),
            inner.clone().max().alias("max"),
            inner.clone().first().alias("first"),
            inner.clone().last().alias("last"),
            inner.clone().count().alias("count"),
            inner.clone().n_unique().alias("n_unique"),
        ];
        if !text {
            aggs.extend([
                inner.clone().sum().alias("sum"),
                inner.clone().mean().alias("mean"),
                inner.clone().median().alias("median"),
            ]);
        }
        aggs
    };
    let inners = [
        ("max of integers", col("v").max(), false),
        ("first of floats", col("x").first(), false),
        ("max of f32", col("f").max(), false),
        ("len", len(), false),
        ("min of text", col("s").min(), true),
        (
            "max of no value",
            col("v").filter(col("v").gt(lit(1i64 << 50))).max(),
            false,
        ),
    ];
    for (what, inner, text) in inners {
        let aggs = of(inner, text);
        assert_gpu_eq(
            &format!("{what}: over the frame"),
            frame.clone().select(aggs.clone()),
        );
        assert_gpu_eq(
            &format!("{what}: per group"),
            frame.clone().group_by_stable([col("g")]).agg(aggs.clone()),
        );
        assert_gpu_eq(
            &format!("{what}: beside the rows"),
            frame.clone().with_columns(aggs),
        );
    }
}
