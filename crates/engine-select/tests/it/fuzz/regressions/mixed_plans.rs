//! Wrong answers the fuzzer found in mixed plans, where Polars runs the rest of a query over frames from the device: each a test that failed before its fix.

use polars::prelude::*;

use super::{CLOSE, ORDERED, UNORDERED};
use crate::fuzz::assert_same_as_cpu;

/// A mixed plan must not put a frame from the device where Polars holds
/// columns at one row (a with_columns of common subexpressions).
#[test]
fn mixed_plans_leave_common_subexpressions_to_polars() {
    let df = DataFrame::new(
        2,
        vec![
            Column::new("a".into(), [None::<i32>, None::<i32>])
                .cast(&DataType::Date)
                .unwrap(),
        ],
    )
    .unwrap()
    .lazy();
    assert_same_as_cpu(
        df.select([col("a").alias("x0")])
            .group_by_stable([lit(11016i32).cast(DataType::Date).alias("k1")])
            .agg([col("x0").max().alias("x3"), col("x0").max().alias("x5")]),
        ORDERED,
    );
}

/// A mixed plan hands Polars a select's one-value columns as Polars holds
/// them (scalar columns), so its engine computes the rest as on its own.
#[test]
fn mixed_plans_hand_one_value_columns_over_as_scalar_columns() {
    let df = df!("b" => [None::<u64>, Some(123)]).unwrap().lazy();
    assert_same_as_cpu(
        df.select([col("b"), lit("aaa").alias("x0")])
            .select([col("x0").alias("x1"), lit(2i64).alias("x2")])
            .with_columns([col("x2").drop_nulls().arg_max().alias("x4")]),
        ORDERED,
    );
}

/// A subplan whose root holds a column of one value (a literal beside the
/// input's columns) is not run on the device in a mixed plan: Polars holds
/// it as a scalar column, and its group-bys take a frame's column of one
/// value otherwise (an `arg_max` of the repeated value gave 0 for 1, or
/// Polars raised "returned aggregation is of different length"). Found by
/// the fuzzer (seed 2015, case 562).
#[test]
fn one_value_columns_are_not_handed_from_the_device_to_polars() {
    for with_nulls in [true, false] {
        let frame = |b: &[i64], c: &[f64]| {
            let mut columns = vec![
                Column::new("b".into(), b)
                    .cast(&DataType::Duration(TimeUnit::Nanoseconds))
                    .unwrap(),
                Column::new("c".into(), c),
            ];
            if with_nulls {
                columns.insert(0, Column::new("a".into(), vec![None::<u32>; b.len()]));
            }
            DataFrame::new(b.len(), columns).unwrap()
        };
        let mut t0 = frame(
            &[6_000_000_000, -100_000_000_000, 86_400_000_000_000],
            &[-0.0, -2.0, f64::NAN],
        );
        // Two chunks, as Polars holds a stacked frame.
        t0.vstack_mut(&frame(&[-81_000_000_000], &[0.0])).unwrap();
        let lf = t0
            .lazy()
            .with_columns([lit(14_802i32).cast(DataType::Date).alias("x2")])
            .group_by([col("c")])
            .agg([col("b").alias("x8"), col("x2").arg_max().alias("x9")]);
        assert_same_as_cpu(lf, UNORDERED);
    }
}

/// A part of a mixed plan that gives one row stays with Polars: Polars
/// holds a column of one row as a scalar column where it computed it and as
/// a series where it read it, and its group-by answers by which (`arg_max`
/// of an empty slice: null of a series, 0 of a scalar column). Found by the
/// fuzzer (seed 2025, case 181).
#[test]
fn parts_of_mixed_plans_of_one_row_stay_with_polars() {
    // (A series column, as `df!` would not make one of one row.)
    let t0 = DataFrame::new(1, vec![Column::new("d".into(), [Some(1i64)])]).unwrap();
    let lf = t0
        .lazy()
        .with_columns([col("d").alias("b")])
        .group_by([col("b")])
        .agg([col("d").head(Some(0)).arg_max().alias("x2")]);
    assert_same_as_cpu(lf, UNORDERED);
}

/// A part of a mixed plan that gives no rows stays with Polars too: its
/// rolling group-by of no rows types an aggregation null or as its values
/// by whether it holds the empty index column as a scalar column (where it
/// made it) or a series. Found by the fuzzer (seed 2948, case 176).
#[test]
fn parts_of_mixed_plans_of_no_rows_stay_with_polars() {
    let t0 = DataFrame::new(
        2,
        vec![Column::new("a".into(), [Some(i32::MIN), Some(-2i32)])],
    )
    .unwrap();
    let dynamic = DynamicGroupOptions {
        every: Duration::parse("50i"),
        period: Duration::parse("50i"),
        offset: Duration::parse("1i"),
        closed_window: ClosedWindow::Right,
        label: Label::Left,
        ..Default::default()
    };
    let rolling = RollingGroupOptions {
        index_column: "a".into(),
        period: Duration::parse("2i"),
        offset: Duration::parse("-2i"),
        closed_window: ClosedWindow::Left,
    };
    let sorted = SortMultipleOptions::default().with_maintain_order(true);
    let small = || col("a").is_between(lit(-100_000), lit(100_000), ClosedInterval::Both);
    let lf = t0
        .lazy()
        .filter(lit(false))
        .filter(small())
        .sort(["a"], sorted.clone())
        .group_by_dynamic(col("a"), [] as [Expr; 0], dynamic)
        .agg([lit("日本").alias("x1")])
        .filter(small())
        .sort(["a"], sorted)
        .rolling(col("a"), [] as [Expr; 0], rolling)
        .agg([
            col("a")
                .fill_null_with_strategy(FillNullStrategy::Backward(None))
                .product()
                .alias("x3"),
            col("x1").alias("x4"),
        ]);
    assert_same_as_cpu(lf, ORDERED);
}

/// An `arg_max` or `arg_min` Polars computes over a frame from the device
/// stays with Polars: it takes the last of tied extremes where it knows the
/// values sorted (two filters of one row each, stacked), and the device's
/// frames carry no such knowledge. Found by the fuzzer (seed 2035, case
/// 820).
#[test]
fn places_of_extremes_over_frames_from_the_device_stay_with_polars() {
    let t0 = df!(
        "a" => [None::<i64>, Some(1)],
        "b" => [4i64, -248],
        "e" => [-1i16, -2],
    )
    .unwrap();
    let kept = || t0.clone().lazy().filter(lit(4i64).eq_missing(col("b")));
    let lf = concat([kept(), kept()], UnionArgs::default())
        .unwrap()
        .group_by([lit("x y").alias("k0")])
        .agg([col("e").alias("x1"), col("e").arg_max().alias("x2")]);
    assert_same_as_cpu(lf, UNORDERED);
}

/// Polars raising over a frame from the device where it answers its own
/// plan (a length check of a column of one value over a union the device
/// made) reruns the query on the CPU, reported as unsupported: Polars takes
/// the device's frame otherwise than its own, no bug of the device's (it
/// was reported as internal). Found by the fuzzer (seed 4099, case 23).
#[test]
fn polars_raising_on_the_rest_of_a_mixed_plan_is_no_internal_error() {
    let one = df!("b" => ["a"], "c" => [-3i8]).unwrap().lazy();
    let texts = ["", "😀", "a", "1", "b", "nan", "x y ", "0", "ab", "abc"];
    let many = df!("b" => texts, "c" => [0i8; 10]).unwrap().lazy();
    let x0 = lit(23_314i64).cast(DataType::Duration(TimeUnit::Milliseconds));
    let micros = lit(803_358i64).cast(DataType::Duration(TimeUnit::Microseconds));
    let lf = concat([one, many], UnionArgs::default())
        .unwrap()
        .select([x0.alias("x0"), col("b")])
        .with_columns([
            (lit(-1i32).cast(DataType::Date) - col("x0")).alias("x2"),
            micros.eq_missing(col("x0")).or(lit(-1000i64)).alias("x3"),
        ]);
    assert_same_as_cpu(lf, ORDERED);
}

/// A select making a column of one value in the part of a mixed plan Polars
/// runs: Polars holds it as a scalar column or repeats it by how its input
/// came, and `is_duplicated` over it answers by which (false over the
/// device's frame, true over its own), so no mixed plan. Found by the
/// fuzzer (seed 5017, case 178).
#[test]
fn columns_of_one_value_above_a_mixed_plan_stay_with_polars() {
    let t0 = df!(
        "a" => [false, true, false, true, false, false],
        "b" => [0i64, -1, -4, 5, 4, 3],
    )
    .unwrap();
    let lf = t0
        .lazy()
        .drop_nulls(None)
        .select([lit(4u32).alias("x1"), col("a").alias("x2")])
        .select([
            lit("x y").head(Some(2)).alias("x5"),
            lit(-1i64)
                .neq(col("x1").cast(DataType::Float64))
                .is_duplicated()
                .any(false)
                .alias("x6"),
        ]);
    assert_same_as_cpu(lf, ORDERED);
}

/// A float `max_horizontal` (which runs on the CPU) over a union the
/// device made: with NaN, Polars' answer depends on how its input is held
/// in chunks (-3.0 over its own union of two frames, NaN over the device's
/// one frame), so no mixed plan. Found by the fuzzer (seed 6021, case 0).
#[test]
fn horizontal_extremes_above_a_mixed_plan_stay_with_polars() {
    let one = df!("b" => [None::<f64>], "c" => [Some(-0.0f64)])
        .unwrap()
        .lazy();
    let four = df!("b" => [-3.0f64, -1.0, 0.0, 3.0], "c" => [-5.5f64, -4.0, -3.0, -2.5e-300])
        .unwrap()
        .lazy();
    let most = polars::lazy::dsl::max_horizontal([col("c").sqrt(), col("b")]).unwrap();
    let lf = concat([one, four], UnionArgs::default())
        .unwrap()
        .select([most.alias("x1")]);
    assert_same_as_cpu(lf, ORDERED);
}

/// Polars flags a sort's first key sorted and hands the flag on through
/// projections; a group-by by a sorted key takes groups as slices, where
/// `std` of a group of nulls is 0.0 (by row indices: null). The device's
/// part of a mixed plan (a sort under a projection) flags it too.
#[test]
fn sorted_flags_pass_through_projections_of_a_sort_on_the_device() {
    let df = DataFrame::new(
        2,
        vec![
            Column::new("a".into(), [None::<f32>, None]),
            Column::new("b".into(), [None::<i64>, Some(-55_000_000_000)])
                .cast(&DataType::Duration(TimeUnit::Nanoseconds))
                .unwrap(),
            Column::new("e".into(), [Some(4i64), Some(-2)]),
        ],
    )
    .unwrap();
    let lf = df
        .lazy()
        .sort_by_exprs(
            [col("b"), col("e")],
            SortMultipleOptions::default()
                .with_order_descending_multi(vec![true, false])
                .with_nulls_last_multi(vec![false, true])
                .with_maintain_order(true),
        )
        .group_by_stable([col("b")])
        .agg([col("a").std(0u8).alias("x2")]);
    assert_same_as_cpu(lf, CLOSE);
}

/// A row index made on the device, grouped by in Polars' part of a mixed
/// plan: Polars flags its own row index sorted and takes the groups as
/// slices (the spread of a group of one infinite value: 0.0, not the NaN
/// of index groups), so the device's row index carries the flag. Found by
/// the fuzzer (seed 19094, case 104).
#[test]
fn row_indices_from_the_device_are_flagged_sorted() {
    let t0 = df!("e" => [f32::INFINITY, -0.0]).unwrap();
    let lf = t0
        .lazy()
        .with_row_index("idx0", Some(0))
        .group_by([col("idx0")])
        .agg([col("e").std(0).alias("x1")]);
    assert_same_as_cpu(lf, UNORDERED);
}

/// `drop_nans` of floats per group reads the value Polars stores under
/// each null (`a % a` of a null is NaN there, so the null is dropped): a
/// mixed plan would hand Polars the device's values under the nulls of
/// the select below, so the whole query is Polars'. Found by the fuzzer
/// (seed 4761, case 186).
#[test]
fn drop_nans_per_group_leaves_the_whole_query_to_polars() {
    let df = df!("a" => [None::<f64>, Some(2.0), Some(5.0)]).unwrap();
    let lf = df
        .lazy()
        .select([(col("a") % col("a")).alias("x0")])
        .group_by([col("x0")])
        .agg([col("x0").drop_nans().alias("x4")]);
    assert_same_as_cpu(lf, UNORDERED);
}

/// A sort's first key keeps Polars' sorted flag through a filter (and a
/// slice), and Polars' group-by by it then takes groups as slices, whose
/// variance of a group of no valid value is 0.0 (null by other groups): a
/// frame from the device carries the flag as Polars' own would. Found by
/// the fuzzer (seed 20036, case 2).
#[test]
fn sorted_keys_keep_their_flag_through_filters_and_slices_from_the_device() {
    let t0 = df!(
        "a" => [Some(1u16), Some(4u16), Some(2)],
        "b" => [Some(0u32), None, Some(3)],
        "c" => [None::<f64>, None, None],
        "e" => [None::<u8>, Some(1), None],
    )
    .unwrap();
    let sorted = || {
        t0.clone().lazy().sort_by_exprs(
            [col("a")],
            SortMultipleOptions::default()
                .with_order_descending(true)
                .with_maintain_order(true),
        )
    };
    let grouped = |lf: LazyFrame| {
        lf.group_by([col("a")]).agg([
            col("c").std(0u8).alias("x1"),
            col("b").null_count().product().alias("x2"),
        ])
    };
    assert_same_as_cpu(
        grouped(sorted().filter(col("e").is_duplicated())),
        UNORDERED,
    );
    assert_same_as_cpu(grouped(sorted().slice(1, 2)), UNORDERED);
}

/// A cast of texts to an enum over a frame from the device stays with
/// Polars as a whole query: of a text outside the enum, Polars' cast raises
/// over its own union (two chunks) but gives null over one chunk, as a
/// frame from the device comes. Found by the fuzzer (seed 4867, case 125).
#[test]
fn casts_to_enums_over_frames_from_the_device_leave_the_query_to_polars() {
    let frame = |f: &[&str]| df!("f" => f, "n" => vec![1i64; f.len()]).unwrap().lazy();
    let union = || {
        concat([frame(&["a", "zz"]), frame(&["b"])], UnionArgs::default())
            .unwrap()
            .filter(col("n").gt(lit(0)))
    };
    let categories = FrozenCategories::new(["a", "b"]).unwrap();
    let cast = col("f").cast(DataType::from_frozen_categories(categories));
    let lf = union().with_columns([cast
        .is_between(col("f"), col("f"), ClosedInterval::Left)
        .alias("x")]);
    assert!(lf.clone().collect().is_err(), "Polars raises here");
    assert_same_as_cpu(lf, ORDERED);
}

/// A running sum of decimals (here within lists) stays with Polars as a
/// whole query: its plan types the sums as their input, its engine gives
/// precision 38 or not by how it holds the input, so a frame from the
/// device (one chunk) changed the answer's type of a union of two frames.
/// Found by the stress fuzzer (seed 23198, case 29).
#[test]
fn running_sums_of_decimals_leave_the_query_to_polars() {
    let frame = |lists: Vec<Option<Series>>| {
        let dtype = DataType::List(Box::new(DataType::Decimal(10, 2)));
        let lists = Series::new("b".into(), lists).cast(&dtype).unwrap();
        let n = lists.len();
        DataFrame::new(
            n,
            vec![lists.into(), Column::new("c".into(), vec![true; n])],
        )
        .unwrap()
        .lazy()
    };
    let empty = Series::new_empty("".into(), &DataType::Decimal(10, 2));
    let union = concat(
        [frame(vec![None]), frame(vec![Some(empty)])],
        UnionArgs::default(),
    )
    .unwrap()
    .with_columns([col("b").alias("x0")])
    .with_columns([col("b").list().eval(col("").cum_sum(false)).alias("x1")]);
    assert_same_as_cpu(union, ORDERED);
}

/// A search of structs in lists of structs (`list.contains`, `is_in`)
/// stays with Polars as a whole query: Polars' search panics over null
/// lists of structs held in one chunk, as a frame from the device comes,
/// where its own union of two chunks answers. Found by the stress fuzzer
/// (seed 23203, case 140).
#[test]
fn searches_of_structs_in_lists_leave_the_query_to_polars() {
    let frame = |a: Option<u64>| {
        let fields = [
            Series::new_empty("n".into(), &DataType::Int64),
            Series::new_empty("t".into(), &DataType::String),
        ];
        let pairs = StructChunked::from_series("".into(), 0, fields.iter())
            .unwrap()
            .into_series();
        let lists = Series::new("b".into(), [None::<Series>])
            .cast(&DataType::List(Box::new(pairs.dtype().clone())))
            .unwrap();
        DataFrame::new(1, vec![Column::new("a".into(), [a]), lists.into()])
            .unwrap()
            .lazy()
    };
    let lf = concat([frame(Some(5)), frame(None)], UnionArgs::default())
        .unwrap()
        .with_columns([col("b").alias("x1")])
        .with_columns([col("x1")
            .list()
            .contains(col("x1").list().get(lit(5i64), true), false)
            .alias("x4")]);
    assert_same_as_cpu(lf, ORDERED);
}

/// A `list.slice` by each row's bounds (here `list.tail(list.len())`) in
/// the part Polars runs over a frame from the device made by a union:
/// Polars slices a union's inputs one by one, an input of one row by its
/// bounds as single values (a null one its error), the device's frame as
/// one. The whole query is Polars'. Found by the stress fuzzer (seed
/// 23268, case 240), the union on the device beside a refused search.
#[test]
fn list_slices_by_rows_over_a_union_from_the_device_leave_the_query_to_polars() {
    let frame = |lists: Option<Series>, f: f64| {
        let lists = Series::new("b".into(), [lists])
            .cast(&DataType::List(Box::new(DataType::Int64)))
            .unwrap();
        DataFrame::new(1, vec![lists.into(), Column::new("f".into(), [f])])
            .unwrap()
            .lazy()
    };
    let union = || {
        concat(
            [
                frame(None, 1.0),
                frame(Some(Series::new("".into(), [1i64, 2])), 2.0),
            ],
            UnionArgs::default(),
        )
        .unwrap()
    };
    // (The user-defined function stays with Polars: the rest is a mixed
    // plan.)
    for tail in [
        col("b")
            .list()
            .tail(col("b").list().len())
            .list()
            .agg(element().count()),
        col("b").list().tail(col("b").list().len()),
        col("b").list().sum(),
    ] {
        let lf = union().with_columns([
            tail.alias("x0"),
            crate::on_the_cpu_only(col("f")).alias("e"),
        ]);
        assert_same_as_cpu(lf, ORDERED);
    }
}

/// A window of a constant in Polars' part of a mixed plan: Polars computes
/// it by the group-by path the keys' columns lead it to, and panics on
/// `lit(999).sort().over(b)` over keys it does not know sorted, as the
/// device's frame holds them (its own filter marks them sorted here): an
/// internal-error fallback. Such a window now keeps the whole plan on the
/// CPU. Seed 6606, case 168.
#[test]
fn windows_of_constants_keep_the_whole_plan_with_polars() {
    let t0 = DataFrame::new(
        2,
        vec![
            Column::new("a".into(), [Some(1.0f64), Some(-1.0f64)]),
            Int128Chunked::from_iter_options(
                "b".into(),
                [Some(-3i128), Some(-200i128)].into_iter(),
            )
            .into_decimal(10, 2)
            .unwrap()
            .into_series()
            .into_column(),
        ],
    )
    .unwrap();
    let sorted = SortOptions::default()
        .with_order_descending(true)
        .with_nulls_last(false);
    let lf = t0
        .lazy()
        .drop_nulls(Some(cols(["a"])))
        .with_columns([lit(999i64)
            .sort(sorted)
            .over(vec![col("b")])
            .unwrap()
            .alias("x0")]);
    assert_same_as_cpu(lf, ORDERED);
}
