//! Aggregations of one value that Polars computed (`x.max().sum()`, `len().mean()`), taken as Polars takes them of a column of that value; functions of the rows in order of literals alone (`lit(2).shift(1)`), constants; functions of a literal first input that Polars broadcasts over the rows of the others.

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

/// Functions of the rows in order over literals alone (a shift, running
/// values, fills, differences, a rank): Polars takes the literal as one
/// value, so they are constants, computed by Polars at lowering, repeated
/// on every row (beside columns, in a with_columns, a filter, per group
/// and inside expressions of the rows). A sort of a literal, which Polars
/// takes otherwise per group, stays with it.
#[test]
fn functions_of_the_rows_in_order_of_literals_are_constants() {
    let constants = || {
        [
            lit(2i64).shift(lit(1)).alias("shifted"),
            lit(3i64).shift(lit(0)).alias("not shifted"),
            lit(2i64).cum_sum(false).alias("running sum"),
            lit(3i64).cum_prod(false).alias("running product"),
            lit(1i64).cum_count(false).alias("running count"),
            lit(NULL)
                .cast(DataType::Int64)
                .fill_null_with_strategy(FillNullStrategy::Backward(None))
                .alias("filled"),
            lit(2.5)
                .diff(lit(1), Default::default())
                .alias("difference"),
            lit(2.0).pct_change(lit(1)).alias("change"),
            lit(2i64)
                .rank(
                    RankOptions {
                        method: RankMethod::Average,
                        descending: false,
                    },
                    None,
                )
                .alias("rank"),
            lit("a")
                .str()
                .find(lit("."), true)
                .diff(lit(2), Default::default())
                .alias("found"),
            lit(7772).cast(DataType::Date).reverse().alias("date"),
        ]
    };
    let frame = groups();
    let mut beside = vec![col("v")];
    beside.extend(constants());
    assert_gpu_eq("beside a column", frame.clone().select(beside));
    assert_gpu_eq("in a with_columns", frame.clone().with_columns(constants()));
    assert_gpu_eq(
        "per group, inside expressions of the rows",
        frame.clone().group_by_stable([col("g")]).agg([
            (col("v") + lit(2i64).cum_sum(false)).sum().alias("sum"),
            lit(2i64).shift(lit(1)).alias("shifted"),
            col("v")
                .filter(lit(1i64).shift(lit(1)).is_null())
                .alias("kept"),
        ]),
    );
    assert_gpu_eq(
        "in a filter",
        frame.clone().filter(col("v").gt(lit(1i64).cum_sum(false))),
    );
    assert_cpu_answer_with_reason(
        frame.select([col("v"), lit(2i64).sort(Default::default()).alias("sorted")]),
        "a constant Polars computes otherwise per group than over the frame",
    );
}

/// Horizontal sums and means, `fill_null` and `is_between` whose first
/// input is a literal (or a null cast) and another of each row: Polars
/// broadcasts the literal, a value per row (`lit(2).fill_null(col("v"))`
/// is 2 on every row, not one value), over the frame alone or beside
/// columns, in with_columns, filters, group-bys and windows, of one row and
/// of none.
#[test]
fn literal_first_inputs_broadcast_over_the_rows() {
    let null = || lit(NULL).cast(DataType::Int64);
    let broadcast = || {
        [
            polars::lazy::dsl::sum_horizontal([lit(3.0), col("x")], true)
                .unwrap()
                .alias("sum"),
            polars::lazy::dsl::sum_horizontal([null(), col("v")], true)
                .unwrap()
                .alias("sum of null"),
            polars::lazy::dsl::sum_horizontal([lit(3i64), col("v")], false)
                .unwrap()
                .alias("sum with nulls"),
            polars::lazy::dsl::mean_horizontal([lit(3.0), col("x")], true)
                .unwrap()
                .alias("mean"),
            lit(2i64).fill_null(col("v")).alias("filled literal"),
            null().fill_null(col("v")).alias("filled null"),
            lit(1.0)
                .is_between(col("x"), lit(2.0), ClosedInterval::Both)
                .alias("between"),
        ]
    };
    let frame = groups();
    assert_gpu_eq("alone", frame.clone().select(broadcast()));
    let mut beside = vec![col("g")];
    beside.extend(broadcast());
    assert_gpu_eq("beside a column", frame.clone().select(beside));
    assert_gpu_eq("with_columns", frame.clone().with_columns(broadcast()));
    assert_gpu_eq("one row", frame.clone().slice(2, 1).select(broadcast()));
    assert_gpu_eq(
        "no rows",
        frame
            .clone()
            .filter(col("h").gt(lit(5u32)))
            .select(broadcast()),
    );
    // A text literal between a literal bound and one of each row: the
    // device compares texts of a column with a literal, not two literals
    // (an internal error, partitioned-stress fuzz seed 9971 case 149).
    assert_cpu_answer_with_reason(
        frame.clone().select([lit("b")
            .is_between(lit("a"), col("s"), ClosedInterval::Both)
            .alias("between")]),
        "is_between of a text literal with a literal bound",
    );
    assert_gpu_eq(
        "filters, groups and windows",
        frame
            .filter(lit(1.0).is_between(col("x"), lit(2.0), ClosedInterval::Left))
            .with_columns([
                polars::lazy::dsl::sum_horizontal([lit(1i64), col("v")], true)
                    .unwrap()
                    .max()
                    .over([col("h")])
                    .unwrap()
                    .alias("window"),
            ])
            .group_by_stable([col("g")])
            .agg([
                lit(0i64).fill_null(col("v")).sum().alias("sum"),
                polars::lazy::dsl::mean_horizontal([lit(1.0), col("x")], true)
                    .unwrap()
                    .alias("list"),
                col("window").first(),
            ]),
    );
}
