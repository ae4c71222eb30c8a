//! Wrong answers the fuzzer found in the newer column types (times of day, time zones, categoricals, decimals): each a test that failed before its fix.

use polars::prelude::*;

use super::*;
use crate::fuzz::table::{enumeration, time_zone};

/// An enum shifted and filled with a text: the device filled with null
/// (the text was no value of its type there); Polars fills with the
/// category, by a column of the shift's length, which gives more rows than
/// the frame's where the shift passes its end (its own answer): left to
/// Polars. Found by the fuzzer (seed 36010, case 485).
#[test]
fn categoricals_shifted_and_filled_by_a_constant_are_polars_own() {
    let texts = |values: &[Option<&str>]| {
        DataFrame::new(
            values.len(),
            vec![
                Column::new("c".into(), values)
                    .cast(&enumeration())
                    .unwrap(),
            ],
        )
        .unwrap()
        .lazy()
    };
    for (frame, n) in [
        (texts(&[Some("b"), None, Some("a")]), 1i64),
        (texts(&[Some("b")]), 2),
    ] {
        assert_same_as_cpu(
            frame.select([col("c").shift_and_fill(lit(n), lit("x y")).alias("x1")]),
            ORDERED,
        );
    }
}

/// Timestamps of two time zones compared: Polars raises; the device
/// compared their instants. Found by the fuzzer (seed 36020, case 442).
#[test]
fn timestamps_of_two_zones_compared_raise_as_polars_does() {
    let zoned = |zone: &str| DataType::Datetime(TimeUnit::Microseconds, Some(time_zone(zone)));
    let t0 = DataFrame::new(
        1,
        vec![
            Column::new("d".into(), [Some(-23_940_695_800_083i64)])
                .cast(&zoned("Europe/Amsterdam"))
                .unwrap(),
        ],
    )
    .unwrap();
    let lf = t0
        .lazy()
        .filter(col("d").gt_eq(lit(1_409_360_400_000_000i64).cast(zoned("UTC"))));
    assert_same_as_cpu(lf, ORDERED);
}

/// A categorical sorted inside an expression (`sort`, `sort_by`, a
/// window's order): the device sorted the codes, where Polars orders a
/// categorical by its texts; refused there as the sort node was. Found by
/// the fuzzer (seed 37014, case 278).
#[test]
fn categoricals_ordered_inside_expressions_are_left_to_polars() {
    let t0 = DataFrame::new(
        3,
        vec![
            Column::new("a".into(), [Some("b"), Some(""), None])
                .cast(&crate::fuzz::table::categorical())
                .unwrap(),
            Column::new("k".into(), [1i64, 2, 3]),
        ],
    )
    .unwrap();
    for lf in [
        t0.clone()
            .lazy()
            .select([col("a").sort(Default::default()).alias("x0")]),
        t0.clone()
            .lazy()
            .select([col("k").sort_by([col("a")], Default::default()).alias("x0")]),
        t0.clone()
            .lazy()
            .select([col("a").arg_sort(false, false).alias("x0")]),
        t0.lazy().select([col("k")
            .cum_sum(false)
            .over_with_options(
                None::<Vec<Expr>>,
                Some((vec![col("a")], Default::default())),
                Default::default(),
            )
            .unwrap()
            .alias("x0")]),
    ] {
        assert_same_as_cpu(lf, ORDERED);
    }
}

/// Run AJ (seed 141 case 321): an unnest whose field is named as another
/// column gave an answer (one of the two kept) where Polars raises; it is
/// refused now, and Polars raises. Structs compare by their fields' values
/// (run AJ's other failures were the oracle's, which printed a struct's
/// whole array).
#[test]
fn an_unnest_clashing_with_a_column_raises_as_polars_does() {
    let t0 = DataFrame::new(
        1,
        vec![
            Column::new("b".into(), [Some(-883i64)]),
            Column::new("c".into(), [Some(1u8)]),
        ],
    )
    .unwrap();
    let lf = t0
        .clone()
        .lazy()
        .with_columns([as_struct(vec![col("c"), col("b")]).alias("x0")])
        .unnest(by_name(["x0"], true, false), None)
        .with_columns([col("b").alias("x2")]);
    assert_same_as_cpu(lf, ORDERED);
    let structs = t0
        .lazy()
        .with_columns([as_struct(vec![col("c"), col("b")]).alias("x0")])
        .filter(col("b").lt(lit(0)));
    assert_same_as_cpu(structs, ORDERED);
}

/// Run AM (seed 163 case 170, and three alike): a sort node by a
/// categorical ordered its rows by codes where Polars orders them by texts
/// (the sort node takes its keys' words by another path than sorts inside
/// expressions; both rank the texts now).
#[test]
fn a_sort_node_orders_a_categorical_by_its_texts() {
    let t0 = DataFrame::new(
        2,
        vec![
            Column::new("c".into(), [Some("a"), Some("3.5")])
                .cast(&crate::fuzz::table::categorical())
                .unwrap(),
        ],
    )
    .unwrap();
    for descending in [false, true] {
        let lf = t0.clone().lazy().sort_by_exprs(
            [col("c")],
            SortMultipleOptions::default()
                .with_order_descending(descending)
                .with_maintain_order(true),
        );
        assert_same_as_cpu(lf, ORDERED);
    }
}

/// Run AS (seed 223 case 439): `list.eval(element() - element().mean())`
/// of durations reached the executor, whose mean of durations (as f64) the
/// evaluation read as durations: an internal error. The executor's support
/// check now reads the evaluation too, and leaves it to Polars before it
/// runs.
#[test]
fn a_list_evaluation_the_executor_cannot_run_goes_to_polars_before_it_runs() {
    let values = Series::new("".into(), [Some(55_000_000i64), None, Some(-2)])
        .cast(&DataType::Duration(TimeUnit::Microseconds))
        .unwrap();
    let t0 = DataFrame::new(
        1,
        vec![
            Series::new("b".into(), [Some(values)])
                .cast(&DataType::List(Box::new(DataType::Duration(
                    TimeUnit::Microseconds,
                ))))
                .unwrap()
                .into_column(),
        ],
    )
    .unwrap();
    let lf = t0.lazy().with_columns([col("b")
        .list()
        .eval(element() - element().mean())
        .alias("x0")]);
    assert_same_as_cpu(lf, ORDERED);
}

/// A float cast to a decimal whose scaled value leaves the precision
/// (`-1.0` as `Decimal(3, 3)`: Polars checks the float against 10^3, not
/// -1000): Polars keeps that value, and raises where it meets it (a
/// group's list, "precision 3 can't fit values with 4 digits"). The device
/// gave the list. Now such a value goes to Polars, in every context.
/// Found by the fuzzer (run AY, seed 277, case 84).
#[test]
fn a_float_cast_to_a_decimal_past_its_precision_is_polars_own() {
    let df = df!("b" => [None::<i64>, Some(1)], "c" => [Some(-1.0f64), Some(0.5)]).unwrap();
    let cast = || col("c").cast(DataType::Decimal(3, 3)).alias("x1");
    let grouped = df.clone().lazy().group_by([col("b")]).agg([cast()]);
    assert_same_as_cpu(grouped, UNORDERED);
    assert_same_as_cpu(df.lazy().select([cast()]), ORDERED);
}

/// Decimals shifted and filled by a whole column's sum, beside a rounding
/// of the same column: Polars fills the row with another value than the
/// sum (-0.001 where the sum is -0.996), the device with the sum. Polars'
/// answer is the oracle: such a fill is refused, and Polars answers (debug
/// fuzz seed 80, case 145).
#[test]
fn decimals_shifted_and_filled_by_an_expression_are_polars_own() {
    let a = Int128Chunked::from_iter_options("a".into(), [Some(-999i128), Some(3i128)].into_iter())
        .into_decimal(3, 3)
        .unwrap()
        .into_series()
        .into_column();
    let t0 = DataFrame::new(2, vec![a]).unwrap();
    let lf = t0.lazy().with_columns([
        col("a").round(1, RoundMode::HalfToEven).alias("x0"),
        (col("a") / col("a"))
            .shift_and_fill(lit(-1i64), col("a").sum())
            .alias("a"),
    ]);
    assert_same_as_cpu(lf, ORDERED);
}

/// A categorical shifted past the frame's end and filled by an expression
/// (an aggregation): Polars fills by a column of the shift's length, longer
/// than the frame, and raises; the device answered. Found by the fuzzer
/// (debug seed 232, case 278). Such a `shift_and_fill` of categoricals
/// goes to Polars now, as one by a constant did.
#[test]
fn categoricals_shifted_and_filled_by_an_expression_go_to_polars() {
    let cat = DataType::from_categories(Categories::global());
    let df = df!("a" => [Some(i8::MIN)], "c" => [Some("ab")]).unwrap();
    let lf = df
        .lazy()
        .select([col("a"), col("c").cast(cat).alias("x1")])
        .with_columns([col("x1")
            .shift_and_fill(lit(2i64), col("x1").max())
            .over([col("x1")])
            .unwrap()
            .alias("k")]);
    assert_same_as_cpu(lf, ORDERED);
}

/// A choice by a predicate of the Null type (`when(lit(None))`): Polars
/// raises (it wants booleans); the device, which holds such values as
/// booleans all null, answered. Found by the fuzzer (debug seed 249, case
/// 284) as the Null type came to the device: refused now.
#[test]
fn a_choice_by_nulls_of_the_null_type_is_polars_error() {
    let df = df!("c" => [Some(true)]).unwrap();
    let lf = df.lazy().with_columns([when(lit(NULL))
        .then(col("c"))
        .otherwise(col("c"))
        .alias("x0")]);
    assert_same_as_cpu(lf, ORDERED);
}

/// A filter inside an aggregation by a predicate of the Null type
/// (`filter(lit(None))`): Polars raises; the device answered (the filter,
/// lowered with its aggregation, was not checked as a choice is). Found by
/// the fuzzer (debug seed 283, case 137).
#[test]
fn a_filter_by_nulls_of_the_null_type_is_polars_error() {
    let df = df!("b" => [None::<i64>]).unwrap();
    let lf = df
        .lazy()
        .select([col("b").filter(lit(NULL)).min().alias("x2")]);
    assert_same_as_cpu(lf, ORDERED);
}

/// `shift_and_fill` of a decimal of scale 3 with the fill 1: Polars fills
/// the fill's whole value as the scaled integer (`AnyValue::extract`: 1
/// fills 0.001), the device filled 1.000; refused in ir-lower now. Seed
/// 1416 (case 52).
#[test]
fn decimal_shift_and_fill_by_a_literal_other_than_zero_is_polars_own() {
    let t0 = df!("a" => [Some(-0.0f64)]).unwrap();
    let lf = t0.lazy().group_by([col("a")]).agg([col("a")
        .cast(DataType::Decimal(18, 3))
        .shift_and_fill(lit(1i64), lit(1i64).cast(DataType::Decimal(3, 0)))
        .alias("x2")]);
    assert_same_as_cpu(lf, UNORDERED);
}

/// An enum filled with a text where the plan types the fill as text: Polars'
/// engine keeps the enum, and `coalesce` of it and a text then raises; the
/// device cast the enum to text and answered. Such fills (and choices) of
/// a categorical and texts are left to Polars. Found by the fuzzer (seed
/// 3409, case 25).
#[test]
fn a_fill_of_an_enum_by_texts_is_polars_own() {
    let t0 = df!("e" => [None::<i64>, Some(1)]).unwrap().lazy();
    let choice = || {
        when(col("e").is_null())
            .then(col("x0").strict_cast(enumeration()))
            .otherwise(lit("a"))
    };
    let lf = t0.with_columns([lit("").alias("x0")]).with_columns([
        coalesce(&[choice().fill_null(lit("")), col("x0")]).alias("x5"),
        choice().alias("x6"),
    ]);
    assert_same_as_cpu(lf, ORDERED);
}

/// The distinct count of one value whose strict cast fails (a date beyond
/// nanoseconds): Polars raises; the device counted 1 without computing the
/// value. Found by the fuzzer (seed 3525, case 196).
#[test]
fn a_count_of_one_value_computes_the_value() {
    let t0 = df!("c" => [-719162i32])
        .unwrap()
        .lazy()
        .with_columns([col("c").cast(DataType::Date)]);
    let ns = || col("c").strict_cast(DataType::Datetime(TimeUnit::Nanoseconds, None));
    for lf in [
        t0.clone()
            .group_by_stable([lit(922190400000000i64).alias("k0")])
            .agg([ns().min().n_unique().alias("x2")]),
        t0.clone().select([ns().max().n_unique().alias("x2")]),
        t0.select([ns().first().len().alias("x2")]),
    ] {
        assert_same_as_cpu(lf, ORDERED);
    }
}

/// The weekday of a timestamp past chrono's calendar (a UTC timestamp plus
/// a duration of i64::MAX microseconds, wrapped): Polars takes the weekday
/// of dates, and of timestamps without a zone or in UTC, by a closed
/// formula of their days, a value where its other parts are null; the
/// device made it null as those. Found by the fuzzer (seed 5357, case 108).
#[test]
fn weekdays_past_the_calendar_are_days_counted() {
    let t0 = df!("b" => [Some(i64::MAX), Some(-i64::MAX), Some(0), None]).unwrap();
    let instant = |zone: Option<&str>| {
        lit(309852000000i64).cast(DataType::Datetime(
            TimeUnit::Milliseconds,
            zone.map(time_zone),
        )) + col("b").strict_cast(DataType::Duration(TimeUnit::Microseconds))
    };
    let lf = t0
        .clone()
        .lazy()
        .group_by([col("b")])
        .agg([instant(Some("UTC")).dt().weekday().alias("x1")]);
    assert_same_as_cpu(lf, UNORDERED);
    let lf = t0.lazy().select([
        instant(None).dt().weekday().alias("naive"),
        col("b")
            .cast(DataType::Datetime(TimeUnit::Nanoseconds, None))
            .dt()
            .weekday()
            .alias("nanoseconds"),
        (col("b") / lit(5_000_000_000i64))
            .cast(DataType::Int32)
            .cast(DataType::Date)
            .dt()
            .weekday()
            .alias("date"),
        instant(None).dt().year().alias("year"),
    ]);
    crate::gpu::assert_gpu_eq("weekdays past the calendar", lf);
}

/// A category literal beside a column in `concat_list`: the lowering asked
/// Polars for the literal's type, which Polars' `AnyValue::dtype` does not
/// know for a category (it panicked: an internal error). Now read by the
/// value's kind. Found by the fuzzer (partitioned-stress seed 9901, case 1).
#[test]
fn category_literals_in_lists_are_no_internal_error() {
    let t0 = df!("b" => [Some("A")]).unwrap();
    let lf = t0
        .lazy()
        .select([col("b").alias("x0")])
        .with_columns([concat_list(vec![
            lit("").cast(crate::fuzz::table::categorical()),
            col("x0"),
        ])
        .unwrap()
        .alias("x3")]);
    assert_same_as_cpu(lf, ORDERED);
}

/// A categorical compared with an enum, here a null of the enum's type (a
/// text it lacks, cast): Polars raises its error, of no rows too, so the
/// engine leaves it to Polars. Seed 6572, case 223.
#[test]
fn categoricals_compared_with_enums_are_polars_errors() {
    let t0 = DataFrame::new(
        0,
        vec![
            Column::new("a".into(), Vec::<Option<&str>>::new())
                .cast(&crate::fuzz::table::categorical())
                .unwrap(),
        ],
    )
    .unwrap();
    let enumeration = enumeration();
    for lf in [
        t0.clone().lazy().with_columns([col("a")
            .eq(lit("2024-01-15").cast(enumeration.clone()))
            .alias("x0")]),
        t0.lazy()
            .select([col("a").lt(lit("2024-01-15").cast(enumeration)).alias("x0")]),
    ] {
        crate::fuzz::assert_same_as_cpu(lf, ORDERED);
    }
}

/// A literal number beside a list of u8 in `concat_list`: Polars plans
/// list[u8] but its engine makes the literal an i32 column and answers
/// list[i32] (and a window over it then raises that the types differ). The
/// device answered list[u8]; now the lowering leaves it to Polars. Seed
/// 6593, case 170.
#[test]
fn literal_numbers_in_lists_polars_answers_as_its_own_type_stay_with_it() {
    let t0 = df!(
        "b" => [true],
        "c" => [Series::new("".into(), [None::<u8>, None]).cast(&DataType::UInt8).unwrap()],
    )
    .unwrap();
    let lf = t0
        .lazy()
        .with_columns([concat_list(vec![col("c"), lit(2i64)]).unwrap().alias("x3")])
        .with_columns([col("x3")
            .shift(lit(1i64))
            .over(vec![col("b")])
            .unwrap()
            .alias("x4")]);
    crate::fuzz::assert_same_as_cpu(lf.clone(), ORDERED);
    let lf = lf.select([col("x3")]);
    crate::fuzz::assert_same_as_cpu(lf, ORDERED);
}
