//! Wrong answers of float results the fuzzer found (horizontal means and sums, spreads of one value that is not finite, sums whose terms cancel, means of timestamps of several chunks, divisions by one value in partitions of one row, rolling aggregations of filtered floats): each a test that failed before its fix.

use polars::prelude::*;

use super::{CLOSE, Compare, ORDERED};
use crate::fuzz::assert_same_as_cpu;
use crate::gpu::assert_gpu_eq;

/// `mean_horizontal` divides each row's sum by its count of valid inputs,
/// a value of every row: 17 / 3 is 5.666666666666667 as Polars divides,
/// where the reciprocal of a constant 3 gave 5.666666666666666. Found by
/// the fuzzer (seeds 3025, 3046 and 3071).
#[test]
fn horizontal_means_divide_row_by_row() {
    let df = DataFrame::new(
        2,
        vec![
            Column::new("a".into(), [Some(-74i64), Some(-112)]),
            Column::new("d".into(), [Some(7u8), Some(3)]),
        ],
    )
    .unwrap();
    for ignore_nulls in [false, true] {
        let mean =
            |inputs: Vec<Expr>| polars::lazy::dsl::mean_horizontal(inputs, ignore_nulls).unwrap();
        let lf = df.clone().lazy().select([
            mean(vec![col("a"), col("a").abs(), col("a")]).alias("x0"),
            mean(vec![col("d"), col("d"), col("d").shift(lit(-1i64))]).alias("x1"),
        ]);
        assert_same_as_cpu(lf, ORDERED);
    }
}

/// Horizontal sums and means of floats add a column Polars holds as one
/// value (a literal a with_columns made) row by row, as Polars adds the
/// fold's materialized inputs: -0.0 + 0.0 is 0.0 there, where Polars' `+`
/// of such a column by its scalar kernel keeps -0.0. Found by the fuzzer
/// (seed 3001, case 96, a mean of a float and an integer of the session's
/// builds; the sum of two floats was older).
#[test]
fn horizontal_folds_add_columns_of_one_value_row_by_row() {
    let df = DataFrame::new(
        2,
        vec![Column::new("b".into(), [None::<f64>, Some(-0.0f64)])],
    )
    .unwrap()
    .lazy()
    .with_columns([lit(0.5f64).alias("x0"), lit(0.0f64).alias("zero")]);
    for ignore_nulls in [false, true] {
        let lf = df.clone().with_columns([
            polars::lazy::dsl::mean_horizontal(
                [col("b"), col("x0").strict_cast(DataType::UInt64)],
                ignore_nulls,
            )
            .unwrap()
            .alias("mean"),
            polars::lazy::dsl::sum_horizontal([col("b"), col("zero")], ignore_nulls)
                .unwrap()
                .alias("sum"),
            polars::lazy::dsl::sum_horizontal([col("zero"), col("b")], ignore_nulls)
                .unwrap()
                .alias("sum swapped"),
        ]);
        assert_same_as_cpu(lf, ORDERED);
    }
}

/// The spread of a group of one value that is NaN: Polars gives 0.0 where
/// it takes the group as a slice of rows (a group of one row), NaN where it
/// runs Welford's steps over it, so such groups stay with Polars. Found by
/// the fuzzer (seeds 3036 and 3043).
#[test]
fn spreads_of_one_nan_are_polars_own() {
    let df = DataFrame::new(
        1,
        vec![
            Column::new("c".into(), [Some(2i32)]),
            Column::new("d".into(), [Some(f64::NAN)]),
        ],
    )
    .unwrap();
    let lf = df
        .clone()
        .lazy()
        .group_by([col("c")])
        .agg([col("d").filter(lit(true)).std(0).alias("x1")]);
    assert_same_as_cpu(lf, CLOSE);
    let lf = df
        .lazy()
        .group_by_stable([col("d")])
        .agg([col("d").var(0).alias("x2")]);
    assert_same_as_cpu(lf, CLOSE);
}

/// A whole frame's mean of integers whose terms cancel (3, i64::MIN and
/// i64::MAX): Polars adds them as floats in an order of its own (chunk by
/// chunk: 1.0), the device in another (0.0), within docs/operations.md's
/// bound, which the fuzzer's oracle takes as equal. Found by the fuzzer
/// (seed 3045, case 366).
#[test]
fn means_whose_terms_cancel_stay_within_the_documented_bound() {
    let one = df!("c" => [3i64]).unwrap().lazy();
    let two = df!("c" => [i64::MIN, i64::MAX]).unwrap().lazy();
    let lf = concat([one, two], UnionArgs::default())
        .unwrap()
        .with_columns([col("c").mean().alias("x1")]);
    assert_same_as_cpu(lf, CLOSE);
}

/// A whole frame's variance, whose last bits are Polars' own order's,
/// made text: its digits are as close as its bits, which the oracle
/// compares within the same bound (165535.2 for 165535.19999999998). Found
/// by the fuzzer (seed 4040, case 560).
#[test]
fn close_floats_made_text_compare_as_close() {
    let df = df!("b" => [910i64, -2, 4, -2, 1]).unwrap();
    let lf = df
        .lazy()
        .select([col("b").var(1).alias("x2")])
        .with_columns([col("x2").strict_cast(DataType::String).alias("x3")]);
    assert_same_as_cpu(lf, CLOSE);
}

/// A whole frame's minimum or maximum of floats holding -0.0 and 0.0 whose
/// answer is a zero: which zero Polars' kernel gives is its lanes' own
/// (-0.0 here, the device 0.0), so such extremes stay with Polars. Found
/// by the fuzzer (seed 5026, case 739).
#[test]
fn extremes_of_both_zeros_are_polars_own() {
    let t0 = DataFrame::new(
        3,
        vec![Column::new(
            "a".into(),
            [None::<f64>, Some(-0.0), Some(0.0)],
        )],
    )
    .unwrap();
    for extreme in [col("a").max(), col("a").min()] {
        let lf = t0.clone().lazy().with_columns([extreme.alias("x2")]);
        assert_same_as_cpu(lf, ORDERED);
    }
}

/// A column a select or with_columns computes as one value (an
/// aggregation, a literal) Polars holds as a scalar column, and its
/// arithmetic with a column of more rows takes the scalar kernels: adding a
/// scalar 0 returns the other operand as it is (-0.0 stays -0.0). Found by
/// the fuzzer (seed 12038, case 20).
#[test]
fn arithmetic_with_columns_of_one_value_takes_polars_scalar_kernels() {
    // On the device, and bit for bit (-0.0 is not 0.0).
    let both = |lf: LazyFrame, what: &str| {
        assert_gpu_eq(what, lf.clone());
        assert_same_as_cpu(lf, ORDERED);
    };
    let t0 = df!("e" => [Some(-0.0f64), None, Some(0.1)]).unwrap();
    let product = col("e").cast(DataType::Boolean).product().alias("x0");
    let lf = t0
        .clone()
        .lazy()
        .select([product.clone(), col("e")])
        .with_columns([(col("e") + col("x0")).alias("x4")]);
    both(lf, "a select's aggregation, then a sum");
    let lf = t0
        .clone()
        .lazy()
        .with_columns([lit(0.0f64).alias("z"), col("e").sum().alias("s")])
        .with_columns([
            (col("e") + col("z")).alias("plus zero"),
            (col("z") + col("e")).alias("zero plus"),
            (col("e") - col("s")).alias("minus sum"),
            (col("e") / col("s")).alias("by sum"),
        ]);
    both(
        lf,
        "a with_columns' literal and aggregation, then arithmetic",
    );
    // One row: both operands one value, row by row.
    let lf = t0
        .lazy()
        .slice(0, 1)
        .select([product, col("e")])
        .with_columns([(col("e") + col("x0")).alias("x4")]);
    both(lf, "one row");
}

/// A spread of a group of values so large that their sum overflows: Polars
/// takes a group of a sorted key (here a column of one value repeated) as
/// a slice, sums it to a mean that is NaN and answers NaN, where Welford's
/// updates give 0.0. Such groups are Polars' own. Found by the fuzzer
/// (seed 13038, case 825).
#[test]
fn spreads_of_groups_whose_sums_overflow_are_polars_own() {
    let t0 = df!(
        "b" => [f64::MAX, 3.0, -3.0],
        "d" => [4i16, 4, 0],
    )
    .unwrap();
    let t1 = df!("p" => ["a", "日本", "日本"]).unwrap();
    let dense = RankOptions {
        method: RankMethod::Dense,
        descending: false,
    };
    let lf = concat_lf_horizontal(
        [
            t0.lazy().with_columns([col("b").max().alias("x0")]),
            t1.lazy(),
        ],
        HConcatOptions::default(),
    )
    .unwrap()
    .select([col("x0").alias("x2")])
    .group_by_stable([col("x2")])
    .agg([
        col("x2").std(1).alias("x4"),
        col("x2").rank(dense, None).min().alias("x5"),
    ]);
    assert_same_as_cpu(lf, CLOSE);
}

/// Polars' `diff` subtracts row by row even of a column it holds as one
/// value, where its arithmetic (`x0 - x0.shift(-1)`) takes the scalar
/// kernel (subtracting from a scalar 0.0 negates: -0.0). Found by the
/// fuzzer (seed 17066, case 144).
#[test]
fn differences_of_columns_of_one_value_are_row_by_row() {
    let t0 = df!("b" => [None::<i64>, None]).unwrap();
    let lf = t0
        .lazy()
        .select([lit(0.0f64).alias("x0"), col("b").alias("x2")])
        .with_columns([
            col("x0")
                .diff(lit(-1i64), polars::series::ops::NullBehavior::Ignore)
                .alias("diff"),
            (col("x0") - col("x0").shift(lit(-1i64))).alias("minus"),
        ]);
    assert_gpu_eq("diff and minus of a column of one value", lf.clone());
    assert_same_as_cpu(lf, ORDERED);
}

/// A group-by by one float key whose group holds -0.0 (first) and 0.0:
/// from 15 rows (Polars' debug builds; 1,000 in its release builds) Polars
/// may take its partitioned hash path, whose key for that group is 0.0,
/// where the device showed the first row's -0.0. Such a key is Polars' now.
/// Found by the fuzzer (seed 39, case 21).
#[test]
fn a_float_key_of_both_zeros_in_a_frame_polars_may_partition_is_polars_own() {
    let t0 = DataFrame::new(
        15,
        vec![Column::new(
            "d".into(),
            [
                None::<f32>,
                None,
                Some(4.5f32),
                None,
                None,
                Some(-0.0f32),
                None,
                Some(2.0f32),
                Some(0.0f32),
                Some(0.0f32),
                None,
                Some(5.5f32),
                None,
                None,
                None,
            ],
        )],
    )
    .unwrap();
    let lf = t0.lazy().group_by_stable([col("d")]).agg([]);
    assert_same_as_cpu(lf, ORDERED);
}

/// A group's mean of one -0.0 (Polars takes a group of one row's value
/// itself; the device's sum from 0.0 gives 0.0), inside a struct: the
/// oracle compared a struct's fields as text, where the same column alone
/// is compared as close floats. Found by the fuzzer (seed 880, case 170):
/// the oracle compares a struct's fields as cells now.
#[test]
fn floats_inside_structs_are_as_close_as_columns() {
    let df = df!("a" => [0.0f64], "c" => [3i64]).unwrap();
    let lf = df
        .lazy()
        .group_by([col("a")])
        .agg([(-col("a")).mean().alias("x5"), col("c").alias("x6")])
        .with_columns([as_struct(vec![col("x5"), col("x6")]).alias("x9")]);
    assert_same_as_cpu(
        lf,
        crate::fuzz::Compare {
            ordered: false,
            ..CLOSE
        },
    );
}

/// A mean of timestamps read from three Parquet files (seed 1092, case
/// 275: wrong answer, 32 ns apart): Polars adds each chunk of the column
/// apart (docs/operations.md), and the mean, cast back to ticks, shows its
/// last bits; the oracle compares such means within the documented bound
/// on their ticks now, as it does floats.
#[test]
fn fuzz_seed_1092_case_275() {
    let t0 = DataFrame::new(
        6,
        vec![
            Column::new(
                "e".into(),
                [
                    Some(0i64),
                    Some(-192397700273112276i64),
                    Some(626374800000000000i64),
                    Some(-86400000000000i64),
                    Some(382654951899191158i64),
                    Some(882217004013610483i64),
                ],
            )
            .cast(&DataType::Datetime(TimeUnit::Nanoseconds, None))
            .unwrap(),
        ],
    )
    .unwrap();
    let lf = crate::fuzz::parquet_files(&t0).with_columns([col("e").mean().alias("x0")]);
    assert_same_as_cpu(lf, CLOSE);
}

/// Sums of lists of floats over a list column read from several files,
/// one file's lists holding a null and another's none: Polars sums each
/// file's lists by its own nulls (`[-0.0]` sums to -0.0 where its chunk
/// holds no null), the device took the column whole; such a column goes
/// to Polars now. Seed 1373 (case 136).
#[test]
fn list_sums_over_chunks_that_differ_in_nulls_are_polars_own() {
    let lists = Series::new(
        "a".into(),
        [
            Some(Series::new("".into(), [None::<f64>])),
            Some(Series::new("".into(), [Some(-0.0f64)])),
        ],
    );
    let t0 = DataFrame::new(2, vec![lists.into_column()]).unwrap();
    let lf = crate::fuzz::parquet_files(&t0).with_columns([col("a").list().sum().alias("x3")]);
    assert_same_as_cpu(lf, ORDERED);
}

/// A group of one row sums and averages to its value in Polars' group-by
/// (a fast path), so a lone -0.0 stays -0.0; the device added it to 0.0
/// (0.0). Groups of more rows start from 0.0 as Polars' Kahan sum does.
/// Found by the fuzzer (seed 1757, case 181: `list.eval(element() -
/// element().mean())` of a list holding -0.0, its mean per list).
#[test]
fn sums_and_means_of_one_row_groups_keep_the_sign_of_zero() {
    let frame = df!(
        "g" => [1i64, 2, 2, 3, 4, 4],
        "x" => [Some(-0.0f64), Some(-0.0), Some(-0.0), None, Some(-0.0), None],
    )
    .unwrap()
    .lazy();
    assert_gpu_eq(
        "per group",
        frame
            .clone()
            .group_by_stable([col("g")])
            .agg([col("x").sum().alias("sum"), col("x").mean().alias("mean")]),
    );
    assert_gpu_eq(
        "within windows",
        frame.clone().select([
            col("x").sum().over([col("g")]).unwrap().alias("sum"),
            col("x").mean().over([col("g")]).unwrap().alias("mean"),
        ]),
    );
    let lists = frame
        .group_by_stable([col("g")])
        .agg([col("x")])
        .select([col("x")
            .list()
            .eval(element() - element().mean())
            .alias("centred")]);
    assert_same_as_cpu(lists, ORDERED);
}

/// A division of floats by a literal over partitions of one row: Polars
/// divides a frame of more than one row by the literal's reciprocal, and a
/// frame of one row exactly; a partition of one row of a larger frame
/// divided exactly (1.5 / 5 is 0.3 exactly, 0.30000000000000004 by the
/// reciprocal). Partitions now hold two rows at least, a last one of one
/// row joined to the one before. Seed 3974 (case 99).
#[test]
fn divisions_by_one_value_over_partitions_of_one_row_go_by_the_reciprocal() {
    let df = df!("b" => [Some(1.5f64), Some(1.0 / 3.0), None, Some(0.7), Some(-0.0)]).unwrap();
    for rows in [1, 2, 4] {
        for height in [3, 5] {
            // In memory, and from a Parquet file read in partitions.
            let part = df.slice(0, height);
            for lf in [part.clone().lazy(), crate::fuzz::parquet(&part)] {
                let lf = lf.with_columns([
                    (col("b") / lit(5i64)).alias("x0"),
                    (col("b") + lit(0.0)).alias("x1"),
                ]);
                let how = Compare {
                    partition_rows: Some(rows),
                    ..ORDERED
                };
                let verdict = crate::fuzz::oracle::judge(&lf, how);
                assert!(
                    matches!(verdict, crate::fuzz::oracle::Verdict::Same(_)),
                    "{rows} rows a partition, {height} rows: {}",
                    match verdict {
                        crate::fuzz::oracle::Verdict::Failed(failure) =>
                            failure.detail().to_string(),
                        _ => "skipped".into(),
                    }
                );
            }
        }
    }
}

/// A rolling group-by's maximum of the floats a filter keeps: Polars
/// aggregates each window of such rows by its per-group path (NaN
/// ignored), not by its windows' kernels (NaN propagating), which the
/// device's windows followed (NaN where Polars gave -2.0). Such
/// aggregations of floats go to Polars; of plain columns they run.
/// Found by the fuzzer (seed 4573, case 96).
#[test]
fn rolling_aggregations_of_filtered_floats_stay_with_polars() {
    let t0 = df!(
        "a" => [-6.0f64, 1e300, 0.0, 0.0],
        "b" => [f64::NAN, -2.0, 0.0, 0.0],
        "c" => [-2i64, 4, -3, -2],
    )
    .unwrap();
    let options = RollingGroupOptions {
        index_column: "c".into(),
        period: Duration::parse("7i"),
        offset: Duration::parse("1i"),
        closed_window: ClosedWindow::Left,
    };
    let rolling = |agg: Expr| {
        t0.clone()
            .lazy()
            .sort(
                ["c"],
                SortMultipleOptions::default().with_maintain_order(true),
            )
            .rolling(col("c"), [] as [Expr; 0], options.clone())
            .agg([agg.alias("x0")])
    };
    let kept = || col("b").filter(col("a").strict_cast(DataType::Boolean));
    for agg in [kept().max(), kept().min(), kept().var(1)] {
        assert_same_as_cpu(rolling(agg), ORDERED);
    }
    assert_gpu_eq("a plain maximum", rolling(col("b").max()));
    assert_gpu_eq(
        "a maximum of the integers a filter keeps",
        rolling(
            col("c")
                .filter(col("a").strict_cast(DataType::Boolean))
                .max(),
        ),
    );
}

/// A horizontal mean of an f32 column and a float literal: Polars makes
/// the literal a column of f64 and adds the two in f64 (2147483648 - 1
/// is 2147483647 there, not 2147483648 as in f32), though its plan types
/// the mean f32 (the literal adapting); the device added in f32. Such a
/// mean now falls back; of two columns of f32 and f64 it runs, in f64.
/// Found by the fuzzer (seed 4624, case 98).
#[test]
fn horizontal_means_add_a_float_literal_as_a_column_of_f64() {
    let t0 = df!(
        "c" => [Some(i32::MAX), None, Some(7)],
        "f" => [Some(-1.0f64), Some(2.5), None],
    )
    .unwrap();
    let mean = |other: Expr| {
        polars::lazy::dsl::mean_horizontal([col("c").cast(DataType::Float32), other], true).unwrap()
    };
    for lf in [
        t0.clone()
            .lazy()
            .with_columns([coalesce(&[mean(lit(-1.0f64)), col("c")]).alias("x3")]),
        t0.clone().lazy().select([mean(lit(-1.0f64)).alias("m")]),
        t0.clone().lazy().select([mean(lit(3i32)).alias("m")]),
    ] {
        assert_same_as_cpu(lf, ORDERED);
    }
    assert_gpu_eq(
        "a horizontal mean of f32 and f64 columns",
        t0.lazy().select([mean(col("f")).alias("m")]),
    );
}

/// `max_horizontal` of a float column and a column a with_columns made of
/// an aggregation (a variance, NaN here): Polars holds the latter as a
/// scalar column and compares the two by its total order (NaN greatest)
/// though neither holds a null, where the device compared them as IEEE
/// numbers (NaN losing). Found by the fuzzer (seed 4654, case 32).
#[test]
fn horizontal_extremes_of_a_column_of_one_value_go_by_the_total_order() {
    let t0 = df!(
        "c" => [Some(0.0f64), Some(f64::NEG_INFINITY), Some(2.5)],
        "d" => [Some(1.0f64), Some(f64::NAN), Some(-1.0)],
    )
    .unwrap();
    let frames = [
        t0.clone().lazy().slice(0, 2),
        t0.clone().lazy().slice(2, 1),
        t0.clone().lazy(),
    ];
    for frame in frames {
        let with_one_value = frame.with_columns([col("c").var(1).alias("x1")]);
        for extreme in [
            polars::lazy::dsl::max_horizontal([col("x1"), col("c")]).unwrap(),
            polars::lazy::dsl::min_horizontal([col("c"), col("x1")]).unwrap(),
            polars::lazy::dsl::max_horizontal([col("c"), col("d")]).unwrap(),
        ] {
            let lf = with_one_value.clone().with_columns([extreme.alias("x3")]);
            assert_same_as_cpu(
                lf,
                Compare {
                    floats_close: true,
                    ..ORDERED
                },
            );
        }
    }
}
