//! Nodes reading a bounded number of rows around their own (`shift` either way, `diff`, `pct_change`, rolling windows of rows, centred too, fills with a limit) or running from the first row (`cum_sum`, `cum_prod`, `cum_max`, `cum_min`, `cum_count`, forward fills without a limit) or from the last over partitions: each partition between the last rows of the input before it and the first rows after it, running on from the values the partitions before (or after) ended with.

use engine_select::Executor;

use super::partitioned::{assert_partitioned_in, assert_partitioned_split};
use super::*;

/// 23 rows: floats with nulls, NaN, zeros of both signs and infinities;
/// integers with nulls; a group column; floats whose sums round
/// otherwise in another order, nulls first; booleans.
fn series() -> LazyFrame {
    let x = [
        Some(1.5f64),
        None,
        Some(-0.0),
        Some(0.0),
        Some(f64::NAN),
        Some(3.0),
        None,
        None,
        Some(-2.5),
        Some(f64::INFINITY),
        Some(7.0),
        Some(7.0),
        None,
        Some(-1.0),
        Some(2.0),
        Some(0.5),
        None,
        Some(4.0),
        Some(-3.0),
        Some(9.0),
        None,
        Some(1.0),
        Some(6.0),
    ];
    let n: Vec<Option<i64>> = (0..23i64)
        .map(|i| (i % 5 != 3).then_some((i * 37) % 11 - 5))
        .collect();
    let g: Vec<i64> = (0..23i64).map(|i| i % 3).collect();
    let f: Vec<Option<f64>> = (0..23i64)
        .map(|i| (i > 2 && i % 6 != 1).then(|| i as f64 * 0.1 + 1.0 / 3.0 - 1e15 * (i % 2) as f64))
        .collect();
    let b: Vec<Option<bool>> = (0..23i64)
        .map(|i| (i % 4 != 2).then_some(i % 3 == 0))
        .collect();
    df!("x" => x, "n" => n, "g" => g, "f" => f, "b" => b)
        .unwrap()
        .lazy()
}

/// [`series`] with integers mostly null (`m`: partitions of nulls only),
/// and `n` as texts (`s`) and dates (`d`).
fn sparse_texts_and_dates() -> LazyFrame {
    let mostly_null: Vec<Option<i64>> = (0..23i64)
        .map(|i| [2, 9, 10, 17].contains(&i).then_some(i * 3 - 20))
        .collect();
    series().with_columns([
        lit(Series::new("m".into(), mostly_null)),
        col("n").cast(DataType::String).alias("s"),
        col("n").cast(DataType::Date).alias("d"),
    ])
}

fn rows(window_size: usize, min_periods: usize) -> RollingOptionsFixedWindow {
    RollingOptionsFixedWindow {
        window_size,
        min_periods,
        ..Default::default()
    }
}

#[test]
fn shifts_differences_and_rolling_extremes_run_between_the_rows_around() {
    let limited =
        |e: Expr, limit| e.fill_null_with_strategy(FillNullStrategy::Forward(Some(limit)));
    let centred = |size| RollingOptionsFixedWindow {
        center: true,
        ..rows(size, 1)
    };
    let exprs = vec![
        col("x").shift(lit(1)).alias("x1"),
        col("n").shift(lit(2)).alias("n2"),
        col("n").diff(lit(1), NullBehavior::Ignore).alias("dn"),
        col("x").diff(lit(2), NullBehavior::Ignore).alias("dx"),
        col("n").pct_change(lit(1)).alias("pn"),
        col("x").rolling_max(rows(3, 1)).alias("max3"),
        col("n").rolling_min(rows(2, 2)).alias("min2"),
        col("n").rolling_sum(rows(3, 1)).alias("sum3"),
        col("n").rolling_median(rows(3, 2)).alias("median3"),
        limited(col("n"), 1).alias("filled1"),
        // Nested: the look-backs add up.
        (col("x").shift(lit(1)) - col("x").shift(lit(1)).shift(lit(1))).alias("nested"),
        (col("n").rolling_max(rows(2, 1)).shift(lit(1)) + col("g")).alias("max_then_shift"),
        // Rows after: shifts ahead, differences with the rows after, fills
        // backward with a limit, centred windows (of an even size too).
        col("x").shift(lit(-1)).alias("x_next"),
        col("n").shift(lit(-2)).alias("n_after_next"),
        col("n")
            .diff(lit(-1), NullBehavior::Ignore)
            .alias("dn_next"),
        col("n")
            .fill_null_with_strategy(FillNullStrategy::Backward(Some(2)))
            .alias("back2"),
        col("n").rolling_max(centred(3)).alias("max_c3"),
        col("x").rolling_min(centred(4)).alias("min_c4"),
        (col("n").shift(lit(-1)) - col("n").shift(lit(2))).alias("both_ways"),
    ];
    let lf = series().with_columns(exprs.clone());
    assert_partitioned_split("with_columns", lf, false, true);
    let lf = series().select(exprs);
    assert_partitioned_split("select", lf, false, true);
}

#[test]
fn filters_by_rows_around_keep_only_their_partitions_rows() {
    // The rows put around are flagged and rejected, whatever the
    // predicate says of them.
    let predicates = [
        col("x").diff(lit(1), NullBehavior::Ignore).gt(lit(0.0)),
        col("n").shift(lit(1)).is_null(),
        col("n").gt_eq(col("n").rolling_max(rows(3, 1))),
        col("n")
            .shift(lit(2))
            .lt(col("n"))
            .or(col("g").eq(lit(1i64))),
        col("n").shift(lit(-1)).gt(col("n")),
        col("x")
            .shift(lit(-2))
            .is_not_null()
            .and(col("n").shift(lit(1)).is_null()),
    ];
    for (i, predicate) in predicates.into_iter().enumerate() {
        let lf = series().filter(predicate);
        assert_partitioned_split(&format!("filter {i}"), lf, false, true);
    }
}

#[test]
fn rows_around_chain_with_the_nodes_around_them() {
    // A row-wise filter below (its partitions of any size), a select of
    // them above, and a with_columns by them reading a shift's column.
    let lf = series()
        .filter(col("g").neq(lit(2i64)))
        .with_columns([col("n").diff(lit(1), NullBehavior::Ignore).alias("d")])
        .with_columns([
            col("d").shift(lit(1)).alias("d1"),
            col("x").shift(lit(-1)).alias("x1"),
        ])
        .select([col("d1") * lit(2i64), col("x"), col("x1")]);
    assert_partitioned_split("chain", lf, false, true);
    // Around a union and a row index.
    let lf = concat([series(), series()], UnionArgs::default())
        .unwrap()
        .with_row_index("i", None)
        .with_columns([col("i").shift(lit(3)).alias("i3"), col("x").shift(lit(1))]);
    assert_partitioned_split("union", lf, false, true);
}

#[test]
fn rows_around_beyond_a_partition_or_every_row_run_whole() {
    let whole_in_pairs = |name: &str, lf: LazyFrame| {
        assert_partitioned_in(name, lf, false, &[2, 7], |context, report| {
            let run = report.partitioned.expect("partitioned");
            let runs = run.device_runs;
            match run.rows_per_partition {
                2 => assert_eq!(runs, 1, "{context}"),
                _ => assert!(runs > 1, "{context}: {runs} device runs"),
            }
        });
    };
    // Five rows behind or three ahead: more than a partition of 2, not of 7.
    whole_in_pairs("shift(5)", series().with_columns([col("n").shift(lit(5))]));
    whole_in_pairs("shift(-3)", series().select([col("x").shift(lit(-3))]));
    whole_in_pairs(
        "rolling_min of 6",
        series().select([col("x").rolling_min(rows(6, 1))]),
    );
    // Polars' float rolling sums, means and spreads carry their state
    // from the frame's start, a rank reads every row, and running
    // functions of inputs reading rows their partitions lack: whole in any
    // partitions.
    for (name, expr) in [
        ("float rolling_sum", col("x").rolling_sum(rows(2, 1))),
        ("rolling_mean", col("n").rolling_mean(rows(2, 1))),
        ("rolling_std", col("x").rolling_std(rows(3, 1))),
        // (The rows put in front would lack the rows before them.)
        ("cum_sum of a shift", col("n").shift(lit(2)).cum_sum(false)),
        ("rank", col("n").rank(RankOptions::default(), None)),
        // (Running from the first row over one from the last.)
        (
            "a float cum_sum of a backward fill",
            col("x")
                .fill_null_with_strategy(FillNullStrategy::Backward(None))
                .cum_sum(false),
        ),
        (
            "a backward fill of a shift",
            col("n")
                .shift(lit(1))
                .fill_null_with_strategy(FillNullStrategy::Backward(None)),
        ),
    ] {
        assert_partitioned_split(name, series().with_columns([expr]), false, false);
    }
}

#[test]
fn running_functions_go_on_from_the_partitions_before() {
    let exprs = vec![
        col("n").cum_sum(false).alias("sum_n"),
        // Floats in Polars' order, bit for bit; NaN and infinities.
        col("f").cum_sum(false).alias("sum_f"),
        col("x").cum_sum(false).alias("sum_x"),
        col("b").cum_sum(false).alias("sum_b"),
        col("n").cum_prod(false).alias("prod_n"),
        col("n").cum_max(false).alias("max_n"),
        col("n").cum_min(false).alias("min_n"),
        // NaN only until a number comes; the first of equal zeros kept.
        col("x").cum_max(false).alias("max_x"),
        col("x").cum_min(false).alias("min_x"),
        col("f").cum_count(false).alias("count_f"),
        // Inside and around functions of rows before, and each other.
        col("n").cum_sum(false).shift(lit(1)).alias("sum_before"),
        (col("n").cum_max(false) - col("n").rolling_min(rows(3, 1))).alias("beside_rolling"),
        col("n").cum_sum(false).cum_sum(false).alias("sum_of_sums"),
        (col("f").cum_sum(false) / col("n").cum_count(false).cast(DataType::Float64))
            .alias("running_mean"),
    ];
    let lf = series().with_columns(exprs.clone());
    assert_partitioned_split("with_columns", lf, false, true);
    let lf = series().select(exprs);
    assert_partitioned_split("select", lf, false, true);
    // Forward fills without a limit carry the last valid value, across
    // partitions of nulls too (of numbers, booleans, texts, dates).
    let filled = |e: Expr| e.fill_null_with_strategy(FillNullStrategy::Forward(None));
    let lf = sparse_texts_and_dates().with_columns([
        filled(col("m")).alias("fill_m"),
        filled(col("x")).alias("fill_x"),
        filled(col("b")).alias("fill_b"),
        filled(col("s")).alias("fill_s"),
        filled(col("d")).alias("fill_d"),
        (filled(col("m")) + col("n").cum_sum(false)).alias("beside_sum"),
        filled(col("m").shift(lit(-1))).alias("of_the_row_after"),
    ]);
    assert_partitioned_split("forward fills without a limit", lf, false, true);
    // Extremes of floats starting with NaN (NaN only until a number
    // comes, across partitions too) and zeros of both signs (the first kept).
    let nan = f64::NAN;
    let y = [
        nan, nan, nan, nan, -0.0, 0.0, nan, 0.0, -1.0, 5.0, nan, 3.0, -0.0,
    ];
    let y: Vec<Option<f64>> = y
        .iter()
        .enumerate()
        .map(|(i, v)| (i != 2).then_some(*v))
        .collect();
    let lf = df!("y" => y).unwrap().lazy().with_columns([
        col("y").cum_max(false).alias("max"),
        col("y").cum_min(false).alias("min"),
        col("y").cum_sum(false).alias("sum"),
    ]);
    assert_partitioned_split("floats from NaN", lf, false, true);
    // A filter drops the rows whose values the next partition needs: its
    // predicate first, as a with_columns, then the filter by its column.
    let lf = series().filter(col("n").cum_sum(false).gt(lit(0i64)));
    assert_partitioned_split("filter", lf, false, true);
    let lf = series().filter(
        col("f")
            .cum_sum(false)
            .lt(lit(2.0))
            .and(col("x").shift(lit(-1)).is_not_null()),
    );
    assert_partitioned_split("filter by a running sum and the row after", lf, false, true);
}

#[test]
fn running_functions_from_the_end_go_on_from_the_partitions_after() {
    let backward = |e: Expr| e.fill_null_with_strategy(FillNullStrategy::Backward(None));
    // Floats' sums and products, extremes and backward fills run from the
    // last partition to the first; integers' sums and counts from the end
    // are the whole frame's less the running ones before each row (beside
    // aggregations over the frame).
    let exprs = vec![
        col("n").cum_sum(true).alias("sum_n"),
        col("f").cum_sum(true).alias("sum_f"),
        col("x").cum_sum(true).alias("sum_x"),
        col("b").cum_sum(true).alias("sum_b"),
        col("n").cum_prod(true).alias("prod_n"),
        col("x").cum_prod(true).alias("prod_x"),
        col("n").cum_max(true).alias("max_n"),
        col("n").cum_min(true).alias("min_n"),
        col("x").cum_max(true).alias("max_x"),
        col("x").cum_min(true).alias("min_x"),
        col("f").cum_count(true).alias("count_f"),
        backward(col("x")).alias("fill_x"),
        (backward(col("n")) * lit(2i64) - col("n").cum_max(true)).alias("of_two"),
    ];
    let lf = series().with_columns(exprs.clone());
    assert_partitioned_split("with_columns", lf, false, true);
    let lf = series().select(exprs);
    assert_partitioned_split("select", lf, false, true);
    // Backward fills across partitions of nulls (of numbers, booleans,
    // texts, dates); running shares of a total.
    let lf = sparse_texts_and_dates().with_columns([
        backward(col("m")).alias("fill_m"),
        backward(col("b")).alias("fill_b"),
        backward(col("s")).alias("fill_s"),
        backward(col("d")).alias("fill_d"),
    ]);
    assert_partitioned_split("backward fills", lf, false, true);
    let lf = series().select([
        (col("f").cum_sum(false) / col("f").sum()).alias("share"),
        (col("n").cum_sum(false) - col("n").mean()).alias("from_the_mean"),
        (col("n").cum_sum(false) + col("n").cum_sum(true)).alias("both_ways"),
    ]);
    // (The float sum over partitions adds the partitions' sums: close.)
    assert_partitioned_split("running beside aggregations", lf, true, true);
}

#[test]
fn rows_around_under_a_memory_limit_match_the_cpu() {
    let n = 200_000i64;
    let lf = df!(
        "v" => (0..n).map(|i| (i * 7919) % 1000 - 500).collect::<Vec<_>>(),
        "x" => (0..n).map(|i| ((i * 31) % 97) as f64 / 8.0).collect::<Vec<_>>(),
    )
    .unwrap()
    .lazy()
    .with_columns([
        col("v").diff(lit(1), NullBehavior::Ignore).alias("d"),
        col("x").rolling_max(rows(16, 1)).alias("m"),
        col("x").cum_sum(false).alias("running"),
        (col("v").shift(lit(-2)) - col("v")).alias("ahead"),
    ])
    .filter(
        col("d")
            .gt(lit(0i64))
            .and(col("v").shift(lit(3)).lt(col("v"))),
    );
    let engine = Engine::Gpu(
        under_test()
            .with_raise_on_fail(true)
            .with_executor(Executor::Partitioned)
            .with_device_memory_limit(1 << 20),
    );
    let (actual, report) = lf.clone().collect_with_report(&engine).unwrap();
    let run = report.partitioned.expect("partitioned");
    assert!(run.device_runs > 2, "{report}");
    let expected = lf.collect().unwrap();
    if let Some(why) = crate::fuzz::oracle::difference(&expected, &actual, EXACTLY) {
        panic!("{why}");
    }
}

/// Running functions from the first row and from the last in one node
/// (`x.forward_fill().backward_fill()`, a running sum beside one from the
/// end), which neither direction of partitions takes alone: the functions
/// from the first row first, in a with_columns whose partitions carry them
/// on, then the node reading their columns from the last partition to the
/// first.
#[test]
fn running_functions_both_ways_run_in_steps() {
    let forward = |e: Expr| e.fill_null_with_strategy(FillNullStrategy::Forward(None));
    let backward = |e: Expr| e.fill_null_with_strategy(FillNullStrategy::Backward(None));
    let exprs = vec![
        backward(forward(col("x"))).alias("filled"),
        col("f").cum_sum(false).alias("sum_f"),
        col("f").cum_sum(true).alias("sum_f_back"),
        (forward(col("x")) - col("x").cum_max(true)).alias("of_two"),
        backward(col("x").cum_min(false)).alias("min_back"),
        col("n").cum_prod(true).alias("prod_back"),
        (col("x").cum_sum(false) + col("x").cum_sum(true)).alias("both"),
    ];
    let lf = series().with_columns(exprs.clone());
    assert_partitioned_split("with_columns", lf, false, true);
    let lf = series().select(exprs);
    assert_partitioned_split("select", lf, false, true);
    // Forward, then backward fills of every type the partitions carry.
    let both = |name: &str| backward(forward(col(name))).alias(format!("fill_{name}"));
    let lf = sparse_texts_and_dates().with_columns([both("m"), both("b"), both("s"), both("d")]);
    assert_partitioned_split("fills both ways", lf, false, true);
    // A backward fill of a forward one of an input reading other rows, and
    // the other way round, run whole.
    let lf = series().select([backward(forward(col("x").shift(lit(1))))]);
    assert_partitioned_split("of a shift", lf.clone(), false, false);
    let lf = series().select([forward(backward(col("x")))]);
    assert_partitioned_split("backward first", lf, false, false);
}
