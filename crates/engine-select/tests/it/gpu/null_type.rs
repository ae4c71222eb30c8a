//! Columns of Polars' `Null` type (`lit(None)`, frames with such columns) on the device: made, carried through the operators, cast, tested, and what falls back.

use super::*;

/// A frame with a column of the Null type beside others.
fn with_nulls() -> LazyFrame {
    let mut df = df!(
        "a" => [Some(1i64), None, Some(3), Some(1)],
        "s" => ["x", "y", "z", "x"],
    )
    .unwrap();
    df.with_column(Series::full_null("n".into(), 4, &DataType::Null).into())
        .unwrap();
    df.lazy()
}

#[test]
fn null_typed_columns_match_the_cpu() {
    assert_gpu_eq(
        "lit(None) as a column",
        with_nulls().with_columns([lit(NULL).alias("m")]),
    );
    assert_gpu_eq(
        "a select of lit(None) and columns",
        with_nulls().select([col("a"), lit(NULL).alias("m"), col("n")]),
    );
    assert_gpu_eq(
        "null columns filtered, sorted and sliced",
        with_nulls()
            .filter(col("a").is_not_null())
            .sort(
                ["a"],
                SortMultipleOptions::default().with_maintain_order(true),
            )
            .slice(1, 2),
    );
    assert_gpu_eq(
        "null columns tested and cast",
        with_nulls().select([
            col("n").is_null().alias("is null"),
            col("n").is_not_null().alias("not null"),
            col("n").cast(DataType::Int64).alias("as i64"),
            col("n").cast(DataType::Float64).alias("as f64"),
            col("n").cast(DataType::Boolean).alias("as bool"),
            col("n").cast(DataType::String).alias("as str"),
            col("n").fill_null(col("a")).alias("filled"),
            col("n").null_count().alias("nulls"),
            col("n").count().alias("count"),
        ]),
    );
    assert_gpu_eq(
        "null columns through joins and unions",
        with_nulls()
            .join(
                with_nulls().select([col("s"), col("n").alias("n right")]),
                [col("s")],
                [col("s")],
                JoinArgs {
                    maintain_order: MaintainOrderJoin::Left,
                    ..JoinArgs::new(JoinType::Left)
                },
            )
            .select([col("a"), col("n"), col("n right")]),
    );
    assert_gpu_eq(
        "null columns in a group-by",
        with_nulls().group_by_stable([col("s")]).agg([
            col("a").sum(),
            lit(NULL).alias("m"),
            col("n").first().alias("first"),
        ]),
    );
}

#[test]
fn null_typed_columns_in_unions_keys_and_functions_match_the_cpu() {
    assert_gpu_eq(
        "a union of frames with null columns",
        concat(
            [with_nulls(), with_nulls().filter(col("a").gt(lit(1)))],
            UnionArgs {
                maintain_order: true,
                ..Default::default()
            },
        )
        .unwrap(),
    );
    // Keys of the Null type: every row in one group.
    assert_gpu_eq(
        "a group-by by a null column",
        with_nulls()
            .group_by_stable([col("n"), col("s")])
            .agg([col("a").sum()]),
    );
    assert_gpu_eq(
        "distinct rows with a null column",
        with_nulls().unique_stable(None, UniqueKeepStrategy::First),
    );
    assert_gpu_eq(
        "a sort by a null column, stably",
        with_nulls().sort(
            ["n"],
            SortMultipleOptions::default().with_maintain_order(true),
        ),
    );
    // Arithmetic of nulls only is Polars' (its Null type throughout).
    assert_cpu_answer_with_reason(
        with_nulls().select([(col("n") + col("n")).alias("sum")]),
        "of values of the Null type is not supported on the GPU",
    );
}
