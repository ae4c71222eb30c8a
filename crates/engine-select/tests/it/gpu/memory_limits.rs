//! Queries larger than the device memory limit: run partitioned (by ranges, by buckets, windows by buckets, quantiles by ranks, rows beside aggregations, a key too frequent split), uploads ahead, and a limit too small for any partition.

use engine_select::Executor;

use super::partitioned::{fell_back_out_of_memory, partitioned};
use super::*;

/// A frame of `rows` rows of two i64 columns.
pub(super) fn large(rows: i64) -> LazyFrame {
    df!(
        "a" => (0..rows).collect::<Vec<_>>(),
        "b" => (0..rows).map(|i| i % 1000).collect::<Vec<_>>(),
    )
    .unwrap()
    .lazy()
}

#[test]
fn a_query_larger_than_the_memory_limit_runs_partitioned() {
    // 200,000 rows of two i64 (3.2 MB) under a limit of 1 MiB.
    let lf = large(200_000)
        .filter(col("b").lt(lit(900)))
        .group_by_stable([col("b")])
        .agg([col("a").sum(), col("a").min().alias("first")]);
    let expected = lf.clone().collect().unwrap();
    let limited = under_test().with_device_memory_limit(1 << 20);
    // In memory alone it runs out of memory and falls back.
    let in_memory = Engine::Gpu(limited.clone().with_executor(Executor::InMemory));
    let (answer, report) = lf.clone().collect_with_report(&in_memory).unwrap();
    assert!(expected.equals_missing(&answer));
    assert!(fell_back_out_of_memory(&report), "{report}");
    // The automatic choice runs it partitioned, on the device.
    for executor in [Executor::Auto, Executor::Partitioned] {
        let engine = Engine::Gpu(
            limited
                .clone()
                .with_executor(executor)
                .with_raise_on_fail(true),
        );
        let (answer, report) = lf.clone().collect_with_report(&engine).unwrap();
        assert_eq!(report.executed_by, under_test_executed_by());
        let run = report.partitioned.expect("partitioned");
        assert!(run.device_runs > 2, "{report}");
        assert!(expected.equals_missing(&answer), "{report}");
    }
}

/// `lf` partitioned under a device memory limit of 1 MiB (fallback
/// disabled): on the device, in more than 20 device runs; its answer.
fn run_in_a_mebibyte(lf: LazyFrame) -> DataFrame {
    let engine = Engine::Gpu(
        under_test()
            .with_device_memory_limit(1 << 20)
            .with_executor(Executor::Partitioned)
            .with_raise_on_fail(true),
    );
    let (answer, report) = lf.collect_with_report(&engine).unwrap();
    assert_eq!(report.executed_by, under_test_executed_by());
    let run = report.partitioned.expect("partitioned");
    assert!(run.device_runs > 20, "{report}");
    answer
}

/// `lf` run as [`run_in_a_mebibyte`] does gives Polars' answer.
fn assert_cpu_answer_in_a_mebibyte(lf: LazyFrame) {
    let expected = lf.clone().collect().unwrap();
    let answer = run_in_a_mebibyte(lf);
    assert!(expected.equals_missing(&answer), "{expected}\n{answer}");
}

/// `lf` run as [`run_in_a_mebibyte`] does gives Polars' answer, floats
/// within a relative 1e-9 (sums and spreads merged from partitions).
fn assert_close_in_a_mebibyte(lf: LazyFrame, context: &str) {
    let expected = lf.clone().collect().unwrap();
    let answer = run_in_a_mebibyte(lf);
    crate::assert_frames_close(&expected, &answer, context);
}

/// The join `lf` (of `args`) run as [`run_in_a_mebibyte`] does gives the
/// CPU's answer, in the same order where the join keeps one.
fn assert_join_in_a_mebibyte(lf: LazyFrame, args: &JoinArgs) {
    let mut expected = lf.clone().collect().unwrap();
    let mut answer = run_in_a_mebibyte(lf);
    if args.maintain_order == MaintainOrderJoin::None {
        let by = expected.get_column_names_owned();
        expected = expected.sort(by.clone(), Default::default()).unwrap();
        answer = answer.sort(by, Default::default()).unwrap();
    }
    assert!(expected.equals_missing(&answer), "{:?}", args.how);
}

#[test]
fn a_sort_larger_than_the_memory_limit_runs_by_ranges() {
    // 200,000 rows of two i64 (3.2 MB) under a limit of 1 MiB: a key of
    // 1,000 values, each in every partition (ties in the order of the
    // input), then the rows from the end.
    let stable = SortMultipleOptions::default().with_maintain_order(true);
    let cases = [
        large(200_000).sort(["b"], stable.clone().with_order_descending(true)),
        large(200_000)
            .with_columns([(col("a") % lit(7)).alias("c")])
            .sort_by_exprs([col("c"), col("b") * lit(-1)], stable)
            .slice(-1_000, 600),
    ];
    for lf in cases {
        assert_cpu_answer_in_a_mebibyte(lf);
    }
}

#[test]
fn windows_larger_than_the_memory_limit_run_by_buckets_of_their_keys() {
    // 200,000 rows of two i64 (3.2 MB) under a limit of 1 MiB: windows by
    // a key of 1,000 values (each in every partition), one beside a
    // filter by another window of the same key and a second key.
    let cases = [
        large(200_000).with_columns([
            col("a").sum().over([col("b")]).unwrap().alias("sum"),
            col("a")
                .cum_count(false)
                .over([col("b")])
                .unwrap()
                .alias("nth"),
        ]),
        large(200_000)
            .filter(
                col("a").gt(col("a")
                    .median()
                    .over([col("b"), col("a") % lit(3)])
                    .unwrap()),
            )
            .select([
                col("b"),
                col("a")
                    .rank(RankOptions::default(), None)
                    .over([col("b")])
                    .unwrap(),
            ]),
    ];
    for lf in cases {
        assert_cpu_answer_in_a_mebibyte(lf);
    }
}

#[test]
fn quantiles_of_keys_too_frequent_for_one_bucket_read_ranks_of_sorted_values() {
    // 200,000 rows of two i64 (3.2 MB) under a limit of 1 MiB: medians and
    // quantiles by a key of two values, and over the whole frame, which
    // no bucket of a key's rows would fit.
    let cases = [
        large(200_000).group_by_stable([col("a") % lit(2)]).agg([
            col("b").median().alias("median"),
            col("a")
                .quantile(lit(0.9), QuantileMethod::Nearest)
                .alias("nearest"),
            col("a").sum().alias("sum"),
            len(),
        ]),
        large(200_000).select([
            col("a").median().alias("median"),
            (col("b") * lit(-1))
                .quantile(lit(0.3), QuantileMethod::Linear)
                .alias("linear"),
        ]),
    ];
    for lf in cases {
        assert_cpu_answer_in_a_mebibyte(lf);
    }
}

#[test]
fn rows_beside_aggregations_over_the_frame_larger_than_the_memory_limit_run_in_partitions() {
    // 200,000 rows of two i64 (3.2 MB) under a limit of 1 MiB: columns
    // less their minimum and median, and the rows above a sum's share.
    let cases = [
        large(200_000).with_columns([
            (col("a") - col("a").min()).alias("from min"),
            (col("b").cast(DataType::Float64) - col("b").median()).alias("from median"),
        ]),
        large(200_000)
            .filter(col("b").gt(col("b").sum() / len().cast(DataType::Int64)))
            .select([col("a"), (col("b") * col("a").max()).alias("x")]),
    ];
    for lf in cases {
        assert_cpu_answer_in_a_mebibyte(lf);
    }
}

#[test]
fn sorts_of_a_key_too_frequent_for_one_range_keep_its_rows_in_order() {
    // 60,000 of 100,000 rows (1.4 MB of the 2.4 with the key) hold one key
    // (a value, or null), under a limit of 1 MiB: the rows of that key
    // are a range of their own, already in the input's order (each
    // partition's piece sorted stably), which no device run sorts again.
    let stable = SortMultipleOptions::default().with_maintain_order(true);
    let skewed = |heavy: Expr| {
        large(100_000).with_columns([when(col("a").lt(lit(60_000)))
            .then(heavy)
            .otherwise(col("b"))
            .alias("k")])
    };
    let cases = [
        skewed(lit(7i64)).sort(["k"], stable.clone()),
        skewed(lit(500i64)).sort(["k"], stable.clone().with_order_descending(true)),
        skewed(lit(NULL).cast(DataType::Int64)).sort(["k"], stable.clone().with_nulls_last(true)),
    ];
    for lf in cases {
        assert_cpu_answer_in_a_mebibyte(lf);
    }
}

#[test]
fn joins_larger_than_the_memory_limit_run_by_buckets() {
    // 200,000 rows against 150,000 (of which 100,000 match) under a limit
    // of 1 MiB: full and right joins in no order, left and full joins in
    // the left's order and a right join in the right's (their rows put
    // back in order).
    let other = large(150_000).select([(col("a") + lit(100_000)).alias("x"), col("b")]);
    let left_ordered = JoinArgs {
        maintain_order: MaintainOrderJoin::Left,
        ..JoinArgs::new(JoinType::Left)
    };
    let full_ordered = JoinArgs {
        maintain_order: MaintainOrderJoin::LeftRight,
        ..JoinArgs::new(JoinType::Full)
    };
    let right_ordered = JoinArgs {
        maintain_order: MaintainOrderJoin::Right,
        ..JoinArgs::new(JoinType::Right)
    };
    for args in [
        JoinArgs::new(JoinType::Full),
        JoinArgs::new(JoinType::Right),
        left_ordered,
        full_ordered,
        right_ordered,
    ] {
        let lf = large(200_000).join(other.clone(), [col("a")], [col("x")], args.clone());
        assert_join_in_a_mebibyte(lf, &args);
    }
}

#[test]
fn joins_of_a_key_too_frequent_for_one_bucket_split_the_bucket() {
    // 60,000 of 100,000 rows (1.4 MB of the 2.4 with the key) hold one
    // key, which every bucket keeps whole, under a limit of 1 MiB: the
    // bucket of that key
    // is joined a slice of its rows at a time, on the side the join's kind
    // lets go in slices (left rows of inner, left, semi and anti joins,
    // right rows of inner and right joins). The other side's rows of the
    // key: three.
    let skewed = || {
        large(100_000).with_columns([when(col("a").lt(lit(60_000)))
            .then(lit(7i64))
            .otherwise(col("a"))
            .alias("k")])
    };
    let other = || {
        large(75_000).select([
            when(col("a").lt(lit(3)))
                .then(lit(7i64))
                .otherwise(col("a") + lit(100_000))
                .alias("k"),
            col("b").alias("c"),
        ])
    };
    let ordered = |how: JoinType, maintain_order| JoinArgs {
        maintain_order,
        ..JoinArgs::new(how)
    };
    let cases = [
        (skewed(), other(), JoinArgs::new(JoinType::Inner)),
        (
            skewed(),
            other(),
            ordered(JoinType::Left, MaintainOrderJoin::Left),
        ),
        (
            skewed(),
            other(),
            ordered(JoinType::Anti, MaintainOrderJoin::Left),
        ),
        (
            other(),
            skewed(),
            ordered(JoinType::Right, MaintainOrderJoin::Right),
        ),
    ];
    for (left, right, args) in cases {
        let lf = left.join(right, [col("k")], [col("k")], args.clone());
        assert_join_in_a_mebibyte(lf, &args);
    }
}

#[test]
fn distinct_counts_of_keys_too_frequent_for_one_bucket_count_distinct_pairs() {
    // 200,000 rows (3.2 MB) in two or three groups under a limit of 1 MiB:
    // a bucket holding one key's rows would need the memory of a half or
    // a third of the input; the distinct pairs of keys and value go to
    // buckets by a hash of both, and are counted per key. Values of few
    // distinct values and of all distinct ones, texts with nulls, several
    // keys, a slice, groups in no order, and other aggregations beside.
    let texts = || {
        large(200_000).with_columns([when(col("b").lt(lit(10)))
            .then(lit(NULL).cast(DataType::String))
            .otherwise(col("b").cast(DataType::String))
            .alias("t")])
    };
    let cases = [
        large(200_000)
            .group_by_stable([(col("a") % lit(2)).alias("k")])
            .agg([
                col("b").n_unique().alias("few"),
                col("b").n_unique().alias("again"),
            ]),
        large(200_000)
            .group_by_stable([(col("a") % lit(3)).alias("k")])
            .agg([col("a").n_unique()]),
        texts()
            .group_by_stable([
                (col("a") % lit(2)).alias("k"),
                (col("b") % lit(2)).alias("m"),
            ])
            .agg([col("t").n_unique()])
            .slice(1, 2),
        texts()
            .group_by([(col("a") % lit(2)).alias("k")])
            .agg([(col("t") + lit("!")).n_unique()])
            .sort(["k"], Default::default()),
        // Beside aggregations that add up over the pairs.
        large(200_000)
            .group_by_stable([(col("a") % lit(2)).alias("k")])
            .agg([
                len(),
                col("b").n_unique(),
                col("a").sum().alias("sum"),
                col("b").mean().alias("mean"),
                (col("a").max() - col("a").min()).alias("range"),
                col("a").first().alias("first"),
            ]),
    ];
    for lf in cases {
        assert_cpu_answer_in_a_mebibyte(lf);
    }
}

#[test]
fn spreads_of_keys_too_frequent_for_one_bucket_merge_each_partitions_moments() {
    // 200,000 rows in two groups under a limit of 1 MiB: each partition's
    // count, mean and sum of squared deviations per key, merged (Chan's
    // combination), within the bound docs/operations.md gives for spreads;
    // then aggregations over the whole frame, a row of partial results a
    // partition.
    let lf = large(200_000)
        .with_columns([(col("a").cast(DataType::Float64) * lit(0.001)).alias("x")])
        .group_by_stable([(col("a") % lit(2)).alias("k")])
        .agg([
            col("b").std(1).alias("std"),
            col("x").var(0).alias("var"),
            col("x").mean().alias("mean"),
            len(),
        ]);
    assert_close_in_a_mebibyte(lf, "spreads in a mebibyte");
    // And over the whole frame.
    let lf = large(200_000).select([
        col("a").sum().alias("sum"),
        col("b").mean().alias("mean"),
        col("a").std(1).alias("std"),
        col("b").max().alias("max"),
        len(),
    ]);
    assert_close_in_a_mebibyte(lf, "aggregations over the frame");
}

#[test]
fn a_limit_too_small_for_any_partition_says_so() {
    let lf = large(10_000).with_columns([(col("a") * lit(3)).alias("c")]);
    let tiny = under_test()
        .with_device_memory_limit(64)
        .with_executor(Executor::Partitioned);
    let expected = lf.clone().collect().unwrap();
    let (answer, report) = lf
        .clone()
        .collect_with_report(&Engine::Gpu(tiny.clone()))
        .unwrap();
    assert!(expected.equals_missing(&answer));
    let reason = &report.fallback_reasons[0];
    assert_eq!(reason.kind, FallbackKind::OutOfMemory, "{report}");
    match lf.collect_with_report(&Engine::Gpu(tiny.with_raise_on_fail(true))) {
        Err(EngineError::GpuUnavailable { reasons }) => {
            assert_eq!(reasons[0].kind, FallbackKind::OutOfMemory);
        }
        other => panic!("expected out of memory, got {:?}", other.map(|(_, r)| r)),
    }
}

#[test]
fn partitions_upload_on_the_copy_stream_while_the_one_before_runs() {
    // A chain of row-wise nodes over ten partitions, and a join of each
    // with a whole small input (kept on the device): every partition but
    // the first is uploaded while the device runs the one before, and the
    // answers are Polars'.
    let lf = large(100)
        .filter(col("b").gt(lit(3)))
        .with_columns([(col("a") * lit(2)).alias("c")]);
    let small = df!("b" => [4i32, 50, 99], "name" => ["four", "fifty", "ninety-nine"])
        .unwrap()
        .lazy();
    let joined = large(100).join(
        small,
        [col("b")],
        [col("b")],
        JoinArgs {
            maintain_order: MaintainOrderJoin::Left,
            ..JoinArgs::new(JoinType::Left)
        },
    );
    for lf in [lf, joined] {
        let expected = lf.clone().collect().unwrap();
        let (answer, report) = lf.collect_with_report(&partitioned(10)).unwrap();
        assert!(expected.equals_missing(&answer), "{expected}\n{answer}");
        let run = report.partitioned.expect("partitioned");
        assert!(run.device_runs >= 10, "{report}");
        assert_eq!(run.uploaded_ahead, 9, "{report}");
        assert!(
            report.to_string().contains("uploaded ahead of their run"),
            "{report}"
        );
    }
}

#[test]
fn as_of_joins_larger_than_the_memory_limit_run_by_left_partitions_or_buckets() {
    // 200,000 rows of two i64 (3.2 MB) under a limit of 1 MiB, joined as
    // of a key sorted throughout (the left's) against 2,000 rows: without
    // groups each left partition against the whole right input; by
    // groups of 1,000 values, both inputs in buckets of them.
    let right = || {
        df!(
            "t" => (0..2_000i64).map(|i| i * 100).collect::<Vec<_>>(),
            "g" => (0..2_000i64).map(|i| i % 1000).collect::<Vec<_>>(),
            "w" => (0..2_000i64).map(|i| i * 7 % 13).collect::<Vec<_>>(),
        )
        .unwrap()
        .lazy()
    };
    let args = |by: bool| {
        let (left_by, right_by) = match by {
            true => (Some(vec!["b".into()]), Some(vec!["g".into()])),
            false => (None, None),
        };
        JoinArgs::new(JoinType::AsOf(Box::new(AsOfOptions {
            strategy: AsofStrategy::Backward,
            tolerance: None,
            tolerance_str: None,
            left_by,
            right_by,
            allow_eq: true,
            check_sortedness: true,
        })))
    };
    for by in [false, true] {
        let lf = large(200_000).join(right(), [col("a")], [col("t")], args(by));
        assert_cpu_answer_in_a_mebibyte(lf);
    }
}

#[test]
fn windows_of_several_keys_and_sorts_by_windows_larger_than_the_memory_limit_run_in_steps() {
    // 200,000 rows of two i64 (3.2 MB) under a limit of 1 MiB: windows by
    // keys sharing none (and one beside a mean over the frame), and a sort
    // and a group-by by a window's value.
    let by_other = || col("a") % lit(997);
    let cases = [
        large(200_000).with_columns([
            (col("a").sum().over([col("b")]).unwrap() - col("a").max().over([by_other()]).unwrap())
                .alias("d"),
            (col("a").min().over([col("b")]).unwrap() - col("a").mean()).alias("m"),
        ]),
        large(200_000)
            .sort_by_exprs(
                [col("a").max().over([col("b")]).unwrap(), col("a")],
                SortMultipleOptions::default()
                    .with_order_descending_multi([true, false])
                    .with_maintain_order(true),
            )
            .slice(0, 50),
        large(200_000)
            .group_by_stable([col("b").max().over([by_other()]).unwrap().alias("top")])
            .agg([col("a").sum(), len()]),
    ];
    for lf in cases {
        assert_cpu_answer_in_a_mebibyte(lf);
    }
}
