//! Wrong answers of expressions taken per group (in windows, in group-by aggregations): each a test that failed before its fix.

use polars::prelude::*;

use super::{CLOSE, ORDERED, UNORDERED};
use crate::fuzz::assert_same_as_cpu;

fn frame() -> DataFrame {
    df!(
        "b" => [Some("20"), Some("19"), Some("20"), None, Some("19")],
        "i" => [Some(3i64), Some(1), Some(2), None, Some(5)],
        "g" => [1i64, 2, 1, 2, 1],
    )
    .unwrap()
}

/// Text made by a function of the rows in order (a reverse, a shift) inside
/// something taken per group (a sort, a membership, a length's running
/// sum) is made per group too: it was made over the whole frame. Found by
/// the fuzzer (seed 2047, case 715), the rest of the family by hand.
#[test]
fn text_of_row_order_functions_per_group_is_per_group() {
    let in_order = || SortOptions::default();
    let exprs = [
        (col("b").reverse().sort(in_order()), "b"),
        (
            col("b")
                .shift(lit(1i64))
                .str()
                .to_uppercase()
                .sort(in_order()),
            "g",
        ),
        (
            col("b")
                .reverse()
                .is_in(col("b").shift(lit(1i64)).implode(false), false),
            "g",
        ),
        (
            col("b").shift(lit(1i64)).str().len_chars().cum_sum(false),
            "g",
        ),
    ];
    for (expr, by) in exprs {
        let windowed = expr.over([col(by)]).unwrap().alias("x");
        assert_same_as_cpu(frame().lazy().select([windowed]), ORDERED);
    }
}

/// A `sort_by` per group whose values or keys are reordered first (a
/// reverse, a sort): Polars pairs them by the rows they came from or by
/// their places, as its group bookkeeping goes, so such sorts stay with
/// Polars (over the whole frame they pair by place, as the device does).
#[test]
fn sorts_per_group_of_reordered_values_or_keys_are_polars_own() {
    let options = || SortMultipleOptions::default();
    let sorts = || {
        [
            col("i").reverse().sort_by([col("b")], options()),
            col("i").sort_by([col("b").sort(SortOptions::default())], options()),
            col("b").sort_by([col("i").reverse()], options()),
            col("i").sort_by([col("i").reverse()], options()),
        ]
    };
    for sort in sorts() {
        let windowed = sort.clone().over([col("g")]).unwrap().alias("x");
        assert_same_as_cpu(frame().lazy().select([windowed]), ORDERED);
        let whole = frame().lazy().select([sort.clone().alias("x")]);
        assert_same_as_cpu(whole, ORDERED);
        let first = sort.first().alias("x");
        let grouped = frame().lazy().group_by_stable([col("g")]).agg([first]);
        assert_same_as_cpu(grouped, ORDERED);
    }
}

/// A constant Polars computes otherwise by how many groups there are
/// (`arg_min` of a slice of a literal: null over one group, 0 over two)
/// stays with Polars. Found by the fuzzer (seed 2009, case 767).
#[test]
fn constants_polars_computes_by_the_number_of_groups_are_its_own() {
    let options = StrptimeOptions {
        format: Some("%Y%m%d".into()),
        strict: false,
        ..Default::default()
    };
    let constant = lit("É")
        .str()
        .to_date(options)
        .slice(lit(0i64), lit(2u64))
        .arg_min()
        .alias("x0");
    for keys in [vec![Some(1i64), None], vec![Some(1)]] {
        let df = df!("c" => keys).unwrap();
        let lf = df
            .lazy()
            .group_by_stable([col("c")])
            .agg([constant.clone()]);
        assert_same_as_cpu(lf, UNORDERED);
    }
}

/// A parse of texts by a format Polars infers from them is no function of
/// each row alone: Polars takes it per group as a list, and `arg_max` of a
/// group of one null is 0 there (null of a column), so such groups stay
/// with Polars. Found by the fuzzer (seed 3010, case 219).
#[test]
fn places_of_extremes_of_parses_by_inferred_formats_per_group_are_polars_own() {
    let t0 = DataFrame::new(
        3,
        vec![
            Column::new("a".into(), [None::<f32>, None, None]),
            Column::new("b".into(), [6u16, 0, 6]),
        ],
    )
    .unwrap();
    let inferred = StrptimeOptions {
        format: None,
        strict: false,
        ..Default::default()
    };
    let parsed = col("a").cast(DataType::String).str().to_date(inferred);
    let lf = t0
        .lazy()
        .group_by_stable([col("b")])
        .agg([parsed.arg_max().alias("x2")]);
    assert_same_as_cpu(lf, ORDERED);
}

/// Text made of an aggregation inside a filter inside an aggregation
/// (`d.fill_null(d.last()).filter(c).last()`): the executor makes text over
/// the whole frame only, and its support check now says so for filters
/// too (it accepted the plan, then refused it: an internal error). Found
/// by the fuzzer (seed 5022, case 738).
#[test]
fn text_of_aggregations_inside_filtered_aggregations_falls_back() {
    let t0 = DataFrame::new(
        1,
        vec![
            Column::new("c".into(), [Some(false)]),
            Column::new("d".into(), [None::<&str>]),
            Column::new("e".into(), [Some(46u32)]),
        ],
    )
    .unwrap();
    let kept = col("d").fill_null(col("d").last()).filter(col("c"));
    let lf = t0
        .lazy()
        .group_by_stable([col("e")])
        .agg([kept.last().alias("x1")]);
    assert_same_as_cpu(lf, ORDERED);
}

/// A slice of a group-by that keeps no group: Polars evaluates the
/// aggregations over no groups, where a ternary of an aggregation and a
/// column under `round` raises (the same query without the slice answers);
/// the CPU answers it, or raises.
#[test]
fn sliced_group_bys_keeping_no_group_are_polars_own() {
    let df = df!("a" => [Some(true), Some(true)], "b" => [Some(-4.0f64), Some(5.0)])
        .unwrap()
        .lazy();
    let lf = df
        .group_by_stable([col("a")])
        .agg([col("a")
            .mean()
            .fill_nan(col("b"))
            .quantile(lit(0.9f64), QuantileMethod::Lower)
            .round(2u32, RoundMode::HalfToEven)
            .alias("x0")])
        .slice(-4, 2);
    assert_same_as_cpu(lf, CLOSE);
}

/// `drop_nans` of floats per group: Polars tests the value it stores under
/// each null as if it were valid (a null of `mean_horizontal` holds NaN
/// there and is dropped; a null of a column is kept), where over the frame
/// it keeps every null. Per group it falls back with the reason; over the
/// frame it runs on the device. Found by the fuzzer (seed 11077, case 568).
#[test]
fn drop_nans_of_floats_per_group_are_polars_own() {
    let df = df!(
        "b" => [None, Some(2i64), None, Some(-314), Some(-4), Some(-4), Some(-4)],
        "d" => [-2.5f64, -2.0, -0.5, 1.0, -1.0, -2.0, -2.5],
    )
    .unwrap();
    let mean = polars::lazy::dsl::mean_horizontal(&[col("b"), col("b")], true).unwrap();
    let lf = df.clone().lazy().group_by_stable([col("d")]).agg([mean
        .clone()
        .drop_nans()
        .first()
        .alias("x")]);
    assert_same_as_cpu(lf.clone(), ORDERED);
    let engine = engine_select::Engine::Gpu(crate::under_test());
    let (_, report) = engine_select::LazyFrameExt::collect_with_report(lf, &engine).unwrap();
    assert!(
        report
            .fallback_reasons
            .iter()
            .any(|r| r.message.contains("drop_nans of floats per group")),
        "{report}"
    );
    let window = df.clone().lazy().select([mean
        .clone()
        .drop_nans()
        .first()
        .over([col("d")])
        .unwrap()
        .alias("x")]);
    assert_same_as_cpu(window, ORDERED);
    let whole = df.lazy().select([mean.drop_nans().first().alias("x")]);
    crate::gpu::assert_gpu_eq("drop_nans over the frame", whole);
}

/// A spread of a filter by a literal per group: Polars takes the kept
/// values as a list per group, whose spread of one infinite value, or of
/// one null, is 0.0 (Welford's over a column gives NaN and null). Such a
/// group falls back; the others run on the device. Found by the fuzzer
/// (seed 20079, case 633; seed 20050, case 453: of one null, under a second
/// key).
#[test]
fn spreads_of_a_literal_filter_per_group_are_polars_own() {
    let df = df!(
        "a" => [Some(f64::NEG_INFINITY), Some(f64::NEG_INFINITY), Some(3.0)],
        "b" => [Some(4.0f64), Some(0.0), Some(4.0)],
    )
    .unwrap();
    // (Beside a slice of the key: Polars takes the group-by's
    // aggregations as lists then.)
    let spread = |lf: LazyFrame| {
        lf.group_by_stable([col("b")]).agg([
            col("a").filter(lit(true)).std(0u8).alias("x"),
            col("b").slice(lit(-2i64), lit(2u64)).mean().alias("y"),
        ])
    };
    assert_same_as_cpu(spread(df.clone().lazy()), CLOSE);
    let null = df!(
        "b" => [None, Some(2.5f64), Some(0.0)],
        "c" => [Some(""), Some("x"), Some("y")],
    )
    .unwrap();
    let two_keys = null
        .lazy()
        .group_by_stable([col("b")])
        .agg([col("b").mean().alias("m")])
        .group_by_stable([col("m"), lit("ab").alias("k")])
        .agg([col("b").filter(lit(true)).std(0u8).alias("x")]);
    assert_same_as_cpu(two_keys, CLOSE);
    // Finite values in every group: on the device.
    let finite = df.lazy().filter(col("a").gt(lit(0.0)));
    crate::gpu::assert_gpu_eq("finite spreads of a literal filter", spread(finite));
}

/// Run AN (seed 171, case 415): `get` of a literal per group took the
/// literal on each of the group's rows, where Polars takes one value per
/// group (a place beyond it null); `get` of one value is refused now.
#[test]
fn get_of_a_literal_per_group_is_polars_own() {
    let t0 = DataFrame::new(
        3,
        vec![Column::new(
            "f".into(),
            [None::<i8>, None::<i8>, None::<i8>],
        )],
    )
    .unwrap();
    let lf = t0.lazy().group_by_stable([lit(1i64).alias("k0")]).agg([
        lit(Scalar::from(11943i32))
            .cast(DataType::Date)
            .get(lit(-3i64), true)
            .alias("x1"),
        col("f").sum().get(lit(0i64), true).alias("x2"),
    ]);
    assert_same_as_cpu(lf, ORDERED);
}

/// A gather by indices inside an aggregation of the whole frame (seed 9,
/// case 280, while the grammar grew `gather`): the device was asked for
/// the indices per group (the frame's one group), which it does not read;
/// refused in ir-lower now, instead of an internal fallback.
#[test]
fn a_gather_inside_an_aggregation_is_refused_before_it_runs() {
    let t0 = DataFrame::new(
        1,
        vec![
            Column::new("a".into(), [Some(i8::MAX)]),
            Column::new("b".into(), [Some(-0.0f64)]),
        ],
    )
    .unwrap();
    let lf = t0
        .lazy()
        .select([col("b").gather(col("a"), true).mean().alias("x0")]);
    assert_same_as_cpu(lf, CLOSE);
}

/// A gather inside `all` (an aggregation lowering builds of comparisons):
/// accepted by ir-lower, refused by the executor, an internal error the
/// user saw as a fallback reason. Gathers inside any aggregation in a
/// lowered expression are refused now. Found by the fuzzer (run BB, seed
/// 305, case 406).
#[test]
fn a_gather_inside_an_aggregation_lowering_builds_is_refused() {
    let df = df!("d" => [None::<u32>, Some(0)]).unwrap();
    let lf = df.lazy().filter(col("d").gather(col("d"), true).all(false));
    assert_same_as_cpu(lf, ORDERED);
}

/// The greatest text of each list where a list is empty: the texts ordered
/// within each list lost the empty list's group, and the picks came one
/// short of the lists, an internal error (debug fuzz seed 67, case 41).
/// An empty list's pick is null now.
#[test]
fn texts_picked_per_list_keep_the_empty_lists() {
    let v = Series::new("".into(), [Some("3.5"), Some("aaa"), Some("A")]);
    let lists = Series::new("b".into(), [Some(v.slice(0, 0)), Some(v.slice(2, 1))]);
    let t0 = DataFrame::new(2, vec![lists.into_column()]).unwrap();
    let lf = t0
        .lazy()
        .with_columns([col("b").list().agg(element().max()).alias("x0")]);
    assert_same_as_cpu(lf, ORDERED);
}

/// A gather by indices sorted (`x.gather(i).sort_by(..)`): the device sorts
/// within groups, the frame one group, and computes a gather over the
/// whole frame only, so the executor refused at run time a plan it had
/// accepted (an internal error, fell back). Found by the fuzzer (debug
/// seed 377, case 178): refused in ir-lower now, with its reason.
#[test]
fn a_gather_inside_a_sort_is_refused_before_the_run() {
    let df = df!(
        "a" => [Some("ab"), None, Some("c")],
        "d" => [Some(1i64), Some(2), None],
    )
    .unwrap();
    let lf = df.lazy().with_columns([col("d")
        .gather(col("a").str().len_chars(), true)
        .sort_by(
            [col("a")],
            SortMultipleOptions::default()
                .with_nulls_last(true)
                .with_maintain_order(true),
        )
        .alias("x2")]);
    assert_same_as_cpu(lf, ORDERED);
}

/// `arg_min` per group of a computed column all of nulls (a decimal
/// quotient) in a group-by with a slice: Polars made the column whole of
/// nulls, marked sorted, and of the sliced groups gave each group's first
/// place, 0; the device gave null. Found by the fuzzer (debug seed 686,
/// case 224): a group with no valid value of a computed input now leaves
/// the query to Polars.
#[test]
fn the_place_of_an_extreme_of_computed_nulls_is_polars_own() {
    let df = df!(
        "b" => [None::<i64>, None, None, None, None, None],
        "c" => [-4i64, i64::MIN, -2, 2, 5, -4],
    )
    .unwrap();
    let lf = df
        .lazy()
        .group_by_stable([col("c")])
        .agg([(col("b") / lit(-1i64).cast(DataType::Decimal(3, 2)))
            .arg_min()
            .alias("x3")])
        .slice(-4, 11);
    assert_same_as_cpu(lf, ORDERED);
}

/// A group-by's median of a datetime of a frame of one row (seed 1083,
/// case 218: wrong answer): Polars holds the frame's columns as scalars
/// and gives the value itself, exactly; the device's median went through
/// f64, which rounds nanoseconds past 2^53. Refused there now; a frame of
/// more rows, or of one row Polars holds as a series (after a filter),
/// runs on the device (Polars' median goes through f64 there too).
#[test]
fn fuzz_seed_1083_case_218() {
    let big = 225636010649048932i64;
    let frame = |values: Vec<i64>| {
        let keys = vec![true; values.len()];
        DataFrame::new(
            values.len(),
            vec![
                Column::new("a".into(), keys),
                Column::new("b".into(), values)
                    .cast(&DataType::Datetime(TimeUnit::Nanoseconds, None))
                    .unwrap(),
            ],
        )
        .unwrap()
    };
    let aggs = [
        col("b").median().alias("median"),
        col("b").mean().alias("mean"),
        (col("b") - col("b").min()).median().alias("spread"),
    ];
    let one = frame(vec![big]).lazy();
    let lf = one.clone().group_by_stable([col("a")]).agg(aggs.clone());
    assert_same_as_cpu(lf, ORDERED);
    let lf = crate::fuzz::parquet(&frame(vec![big]))
        .group_by_stable([col("a")])
        .agg(aggs.clone());
    assert_same_as_cpu(lf, ORDERED);
    // (Runs on the device.)
    let filtered = frame(vec![big, 3])
        .lazy()
        .filter(col("b").dt().timestamp(TimeUnit::Nanoseconds).gt(lit(5)));
    for lf in [filtered, frame(vec![big, big + 4, big + 100]).lazy()] {
        let lf = lf.group_by_stable([col("a")]).agg(aggs.clone());
        let strict = engine_select::Engine::Gpu(crate::under_test().with_raise_on_fail(true));
        let answer = engine_select::LazyFrameExt::collect_with(lf.clone(), &strict).unwrap();
        assert!(answer.equals_missing(&lf.collect().unwrap()));
    }
}

/// The place of an extreme of a time window with no valid value, in a
/// `group_by_dynamic` with keys: Polars gives null where it holds the
/// windows by index, 0 where it holds them as slices, by its own
/// bookkeeping of the keys (and `x.get(k.arg_min())` then the window's
/// first value); the device gave null. Such places and spreads with keys
/// are refused now. Found by the fuzzer (seeds 1881 and 1903).
#[test]
fn places_of_extremes_in_time_windows_with_keys_stay_with_polars() {
    let options = |closed_window, label| DynamicGroupOptions {
        every: Duration::parse("7i"),
        period: Duration::parse("7i"),
        offset: Duration::parse("0i"),
        closed_window,
        label,
        ..Default::default()
    };
    let frame = df!(
        "c" => [5i32, 1],
        "e" => [None, Some(2i64)],
        "a" => [32_400_000_000_000i64, 54_000_000_000_000],
    )
    .unwrap()
    .lazy()
    .with_columns([col("a").cast(DataType::Time)]);
    let lf = frame
        .sort(
            ["c"],
            SortMultipleOptions::default().with_maintain_order(true),
        )
        .group_by_dynamic(
            col("c"),
            [col("e"), col("a")],
            options(ClosedWindow::Left, Label::Left),
        )
        .agg([col("e").arg_max().alias("x1")]);
    assert_same_as_cpu(lf, ORDERED);
    let frame = df!(
        "d" => [-3i64, 4],
        "x1" => [None, Some(5u8)],
        "f" => [Some(8058i32), None],
    )
    .unwrap()
    .lazy()
    .with_columns([col("f").cast(DataType::Date)]);
    let lf = frame
        .sort(
            ["d"],
            SortMultipleOptions::default().with_maintain_order(true),
        )
        .group_by_dynamic(
            col("d"),
            [col("f"), col("x1")],
            options(ClosedWindow::Right, Label::Right),
        )
        .agg([col("d").get(col("f").arg_min(), false).alias("x4")]);
    assert_same_as_cpu(lf, ORDERED);
}

/// The value at the place of an extreme reached twice in a time window, of
/// a date cast from the window's sorted index: Polars' `arg_max` takes the
/// last place of a value it knows sorted (here NaN, the second row), the
/// device took the first (null). Values at extremes reached more than once
/// are left to Polars now, as places of extremes were. Found by the fuzzer
/// (seed 2194, case 2).
#[test]
fn values_at_extremes_reached_twice_stay_with_polars() {
    let frame = DataFrame::new(
        2,
        vec![
            Column::new("a".into(), [None::<f64>, Some(f64::NAN)]),
            Column::new("c".into(), [Some(-200448000000i64), Some(-200399408885i64)])
                .cast(&DataType::Datetime(TimeUnit::Milliseconds, None))
                .unwrap(),
        ],
    )
    .unwrap();
    let options = DynamicGroupOptions {
        every: Duration::parse("3d"),
        period: Duration::parse("3d"),
        offset: Duration::parse("0ns"),
        closed_window: ClosedWindow::Right,
        label: Label::DataPoint,
        ..Default::default()
    };
    let lf = frame
        .lazy()
        .sort(
            ["c"],
            SortMultipleOptions::default().with_maintain_order(true),
        )
        .group_by_dynamic(col("c"), [] as [Expr; 0], options)
        .agg([col("a")
            .get(col("c").cast(DataType::Date).arg_max(), false)
            .alias("x0")]);
    assert_same_as_cpu(lf, ORDERED);
}

/// A group-by of no groups (a filter keeps no row) of `not` of the sum of
/// values gathered in another's order (`x.gather(k.arg_sort().head(2))`):
/// Polars types that sum null over no groups and raises at `not`, the
/// device answered with no rows. Such aggregations over no groups go to
/// Polars now. Found by the fuzzer (seed 2799, case 285).
#[test]
fn gathers_in_another_order_over_no_groups_stay_with_polars() {
    let frame = df!(
        "a" => [None::<i64>, Some(3)],
        "b" => [None::<f64>, Some(0.0)],
        "c" => ["0", "1"],
    )
    .unwrap()
    .lazy();
    let gathered = || {
        col("a")
            .gather(col("b").arg_sort(false, false).head(Some(2)), true)
            .sum()
    };
    let whole = || col("a").gather(col("b").arg_sort(false, false), true).sum();
    for aggregation in [gathered().not(), gathered(), whole().not(), whole()] {
        let lf = frame
            .clone()
            .filter(col("b").cast(DataType::Boolean))
            .group_by_stable([col("c")])
            .agg([aggregation.alias("x1")]);
        assert_same_as_cpu(lf, ORDERED);
    }
}

/// A group-by by a window partitioned by literals alone, over an input
/// Polars' optimiser leaves without columns, groups by the window over
/// every row, as Polars' select computes it; Polars' group-by computes it
/// over one row there, and the oracle skips such a case. Found by the
/// fuzzer (seed 3178, case 26).
#[test]
fn windows_over_literals_in_keys_of_no_columns_span_every_row() {
    let t0 = df!("b" => [Some(4i32), Some(1), Some(3)]).unwrap().lazy();
    let key = || {
        int_range(lit(-2i64), len() + lit(-2i64), 1, DataType::Int64)
            .over([lit(-2.0f64)])
            .unwrap()
            .alias("k0")
    };
    let grouped = t0.clone().group_by_stable([key()]).agg([]);
    let strict = engine_select::Engine::Gpu(crate::under_test().with_raise_on_fail(true));
    let (actual, _) =
        engine_select::LazyFrameExt::collect_with_report(grouped.clone(), &strict).unwrap();
    let expected = t0
        .select([key()])
        .unique_stable(None, UniqueKeepStrategy::First)
        .collect()
        .unwrap();
    assert!(
        expected.equals_missing(&actual),
        "expected {expected}\nactual {actual}"
    );
    assert_same_as_cpu(grouped, ORDERED);
}

/// The largest index of a `group_by_dynamic` by keys: Polars flags the
/// index column sorted, though it is sorted within each key only, and its
/// `max` takes the last value; the device takes the largest, and the
/// oracle skips such a case. Found by the fuzzer (seed 3457, case 38).
#[test]
fn the_index_of_a_keyed_dynamic_group_by_is_read_by_its_values() {
    let t2 = df!(
        "c" => [Some(0u32), Some(2u32), None],
        "e" => [2i64, -2, 4],
        "f" => [Some("ΣΑ"), None, Some("a")],
    )
    .unwrap();
    let options = DynamicGroupOptions {
        every: Duration::parse("7i"),
        period: Duration::parse("7i"),
        offset: Duration::parse("-2i"),
        closed_window: ClosedWindow::Right,
        label: Label::DataPoint,
        ..Default::default()
    };
    let grouped = t2
        .lazy()
        .sort(
            ["e"],
            SortMultipleOptions::default().with_maintain_order(true),
        )
        .group_by_dynamic(col("e"), [col("f"), col("c")], options)
        .agg([len()]);
    let index = grouped.clone().collect().unwrap();
    let largest = (index.column("e").unwrap().as_materialized_series().iter())
        .filter_map(|value| value.extract::<i64>())
        .max();
    let lf = grouped.select([col("e").max().alias("x4")]);
    let strict = engine_select::Engine::Gpu(crate::under_test().with_raise_on_fail(true));
    let (actual, _) =
        engine_select::LazyFrameExt::collect_with_report(lf.clone(), &strict).unwrap();
    let got = actual.column("x4").unwrap().i64().unwrap().get(0);
    assert_eq!(got, largest);
    assert_same_as_cpu(lf, ORDERED);
}

/// A `group_by_dynamic` with boundaries over no rows (a filter keeps
/// none): Polars gives no boundary columns there, and raises where a node
/// above reads them; the device gave an empty frame with them. Over no
/// rows such windows are Polars' own now. Found by the fuzzer (seed 4618,
/// case 278).
#[test]
fn time_windows_with_boundaries_over_no_rows_are_polars_own() {
    let t0 = df!(
        "a" => [None::<i32>, Some(5)],
        "d" => [Some(i16::MIN), Some(3)],
        "e" => [None::<&str>, Some("x")],
    )
    .unwrap();
    let options = DynamicGroupOptions {
        every: Duration::parse("7i"),
        period: Duration::parse("7i"),
        offset: Duration::parse("0i"),
        closed_window: ClosedWindow::Right,
        label: Label::Right,
        include_boundaries: true,
        ..Default::default()
    };
    for kept in [lit(false), col("a").is_not_null()] {
        let windows = t0
            .clone()
            .lazy()
            .filter(kept)
            .sort(
                ["a"],
                SortMultipleOptions::default().with_maintain_order(true),
            )
            .group_by_dynamic(col("a"), [col("e"), col("d")], options.clone())
            .agg([col("e").alias("x0")]);
        assert_same_as_cpu(windows.clone(), ORDERED);
        assert_same_as_cpu(
            windows.with_columns([col("e").alias("_upper_boundary")]),
            ORDERED,
        );
    }
}

/// Boundaries of a `group_by_dynamic` by a column named `_lower_boundary`
/// (the boundaries of an earlier one): Polars raises (a duplicate column);
/// the device gave one such column (seed 9121 case 105).
#[test]
fn group_by_dynamic_boundaries_named_as_its_index_leave_polars_its_error() {
    let options = |every: &str| DynamicGroupOptions {
        every: Duration::parse(every),
        period: Duration::parse("20i"),
        offset: Duration::parse("0i"),
        include_boundaries: true,
        ..Default::default()
    };
    let lf = df!("x1" => [-4i64])
        .unwrap()
        .lazy()
        .group_by_dynamic(col("x1"), [] as [Expr; 0], options("2i"))
        .agg([col("x1").alias("x5")])
        .group_by_dynamic(col("_lower_boundary"), [] as [Expr; 0], options("7i"))
        .agg([col("x1").alias("x6")]);
    assert_same_as_cpu(lf, ORDERED);
}

/// A sum of `arg_sort`'s places per group reads no key, but Polars computes
/// the key and raises on its strict cast (a clip's bound that does not
/// fit): the query stays with Polars. Found by the fuzzer (seed 23007,
/// case 69; older than the build that found it).
#[test]
fn order_free_aggregations_of_sorts_by_keys_that_raise_stay_with_polars() {
    let t0 = df!("c" => [Some(u16::MAX)], "f" => [None::<u8>]).unwrap();
    let lf = t0.lazy().group_by([col("f")]).agg([col("f")
        .clip(col("c"), col("f"))
        .arg_sort(true, true)
        .sum()
        .alias("x2")]);
    assert_same_as_cpu(lf, UNORDERED);
    // A strict parse of texts as the key (a strict cast of text to a
    // timestamp): Polars raises on a text that is none. Found by the
    // fuzzer (partitioned-stress seed 9919, case 117).
    let t0 = df!("a" => [Some("A")], "b" => [Some(false)]).unwrap();
    let key = col("a")
        .strict_cast(DataType::Datetime(TimeUnit::Microseconds, None))
        .arg_sort(true, false);
    let lf = t0.lazy().group_by_stable([col("b")]).agg([col("a")
        .gt(lit("1"))
        .gather(key, true)
        .any(false)
        .alias("x2")]);
    assert_same_as_cpu(lf, ORDERED);
}

/// A median of timestamps through a function of a filter's rows per group
/// (`x.drop_nulls().shift(-1).median()`): the list of the kept values took
/// the median of their ticks read as floats (an internal error). Found by
/// the fuzzer (seed 23007, case 134, in a build drawing mostly such
/// functions).
#[test]
fn medians_of_timestamps_through_functions_of_a_filters_rows_stay_with_polars() {
    let t0 = df!("x0" => [Some(56_438_063_515_416_132i64), None, Some(5)])
        .unwrap()
        .lazy()
        .with_column(col("x0").cast(DataType::Datetime(TimeUnit::Nanoseconds, None)));
    let lf = t0.group_by_stable([col("x0")]).agg([col("x0")
        .drop_nulls()
        .shift(lit(-1i64))
        .median()
        .alias("x1")]);
    assert_same_as_cpu(lf, ORDERED);
}
