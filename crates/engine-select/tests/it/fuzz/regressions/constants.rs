//! Wrong answers of literals and constants the fuzzer found (Polars holds them as one value, casts them strictly, folds them its own way): each a test that failed before its fix.

use polars::prelude::*;

use super::*;

/// Polars takes a literal as one value, not as a column: functions of it
/// (an aggregation, a shift) see one row, also per group.
#[test]
fn functions_of_literals_see_one_value() {
    let groups = df!("g" => [1i64, 1, 2], "x" => [1.0f64, 2.0, 3.0])
        .unwrap()
        .lazy();
    let two = df!("a" => [4i8, 5]).unwrap().lazy();
    let cases = [
        groups
            .clone()
            .group_by_stable([col("g")])
            .agg([lit("z").count().alias("n")]),
        groups
            .clone()
            .group_by_stable([col("g")])
            .agg([lit(f64::INFINITY).var(1).alias("v")]),
        groups
            .clone()
            .group_by_stable([col("g")])
            .agg([lit(19000i32)
                .cast(DataType::Date)
                .dt()
                .week()
                .sum()
                .alias("w")]),
        two.clone().with_columns([lit(-3.5f64)
            .diff(lit(1i64), polars::series::ops::NullBehavior::Ignore)
            .alias("d")]),
        two.clone()
            .with_columns([lit(-2i64).shift(lit(-3i64)).alias("s")]),
        two.clone()
            .filter(lit(false).shift_and_fill(lit(-1i64), lit(true))),
        two.clone()
            .select([lit("aaa").str().find(lit("a.*b"), false).alias("f")]),
    ];
    for lf in cases {
        assert_same_as_cpu(lf, ORDERED);
    }
}

/// A bound of `clip` that does not fit the input's type: Polars raises,
/// whatever the rows (none here).
#[test]
fn clips_by_bounds_that_do_not_fit_raise_as_polars_does() {
    let df = df!("b" => Vec::<i64>::new()).unwrap().lazy();
    assert_same_as_cpu(
        df.select([col("b"), lit(3).alias("x0")])
            .with_columns([col("x0").clip(lit(i64::MAX), col("x0")).alias("x2")]),
        ORDERED,
    );
}

/// A constant bound computed of dynamic integers (`min_horizontal` of
/// literals) whose value does not fit the input's type: Polars raises
/// where it casts the bound; the folded constant became null (no bound).
/// Found by the fuzzer (seed 12027, case 691).
#[test]
fn computed_constants_beyond_their_planned_type_are_refused() {
    let df = df!("b" => [Some(true)]).unwrap().lazy();
    let bound = polars::lazy::dsl::min_horizontal(&[lit(-2i64), lit(i64::MIN)]).unwrap();
    assert_same_as_cpu(
        df.with_columns([(col("b") + lit(Scalar::from(-1i32)))
            .clip(bound, lit(-4i64))
            .alias("x0")]),
        ORDERED,
    );
}

/// A constant of dynamic integers that Polars' plan types as i32 (the
/// first literal fits it) and its engine computes as i64 (the second does
/// not): the folded constant took the plan's type. Found by the fuzzer
/// (seed 33006, case 33).
#[test]
fn constants_polars_computes_in_another_type_than_planned_are_refused() {
    let df = df!("e" => [None::<f64>]).unwrap().lazy();
    assert_same_as_cpu(
        df.select([(lit(5i64) / (-lit(i64::MAX))).alias("x1")]),
        ORDERED,
    );
}

/// An integer division of literals by zero (Polars' literal arithmetic
/// panics on it; its engine gives null).
#[test]
fn integer_divisions_of_literals_by_zero_are_null() {
    let df = df!("e" => [-3.0f64]).unwrap().lazy();
    assert_same_as_cpu(
        df.with_columns([
            (lit(Scalar::from(3u8)) / lit(Scalar::from(0u32))).alias("x0"),
            (lit(Scalar::from(0u32)) / lit(Scalar::from(0u8))).alias("x1"),
        ]),
        ORDERED,
    );
}

/// A function of the rows in order over a literal (a shift): Polars takes
/// the literal as one value or as the group's rows by context, so it is
/// computed ahead as a constant only where Polars gives the same value per
/// group as over the frame (and not in windows).
#[test]
fn row_order_functions_of_literals_are_polars_own() {
    let df = df!("c" => [None::<i16>, Some(3), Some(3)], "b" => [3i64, 2, 2])
        .unwrap()
        .lazy();
    let cases = [
        df.clone()
            .group_by_stable([col("c")])
            .agg([lit(false).shift(lit(-3i64)).all(true).alias("x")]),
        df.clone().group_by_stable([col("b")]).agg([lit(11016i32)
            .cast(DataType::Date)
            .shift(lit(1i64))
            .arg_min()
            .alias("x")]),
        df.clone().with_columns([lit(456_909i64)
            .cast(DataType::Duration(TimeUnit::Nanoseconds))
            .shift(lit(-3i64))
            .arg_min()
            .over([col("c")])
            .unwrap()
            .alias("x")]),
    ];
    for lf in cases {
        assert_same_as_cpu(lf, ORDERED);
    }
}

/// A dynamic literal beyond the integer type Polars plans for the result.
#[test]
fn dynamic_literals_beyond_the_planned_type_fall_back() {
    let df = df!("a" => [None::<i16>], "c" => [Some(-3i32)])
        .unwrap()
        .lazy();
    assert_same_as_cpu(
        df.with_columns([(lit(i64::MAX) / col("c")).alias("x0")])
            .with_columns([col("a").clip(col("x0") % lit(-2i64), len()).alias("f")])
            .select([col("f")]),
        ORDERED,
    );
}

/// Polars takes some aggregations of literals its own way per group
/// (`lit(NULL).all()` is false there, true over a frame): such a constant
/// is left to Polars.
#[test]
fn constants_polars_computes_otherwise_per_group_are_its_own() {
    let df = df!("d" => [Some(-1i64), None, Some(-1)]).unwrap().lazy();
    let cases = [
        df.clone()
            .group_by_stable([col("d")])
            .agg([lit(NULL).all(true).alias("x")]),
        df.clone().group_by_stable([col("d")]).agg([lit("aaa")
            .str()
            .to_date(StrptimeOptions {
                format: Some("%d.%m.%Y".into()),
                strict: false,
                ..Default::default()
            })
            .is_between(
                lit(19000i32).cast(DataType::Date),
                lit(20000i32).cast(DataType::Date),
                ClosedInterval::Left,
            )
            .all(true)
            .alias("x")]),
        df.select([lit(NULL).all(true).alias("x")]),
    ];
    for lf in cases {
        assert_same_as_cpu(lf, ORDERED);
    }
}

/// A bound of clip that is a constant Polars computes, of another type than
/// the input: Polars casts its one value strictly, raising where it does
/// not fit even over no rows.
#[test]
fn computed_constant_bounds_of_clip_raise_as_polars_does() {
    let df = df!("a" => Vec::<i32>::new()).unwrap().lazy();
    assert_same_as_cpu(
        df.select([col("a")
            .clip(lit(NULL).fill_null(lit(i64::MAX)), lit(NULL))
            .alias("x")]),
        ORDERED,
    );
}

/// Functions of literals in windows and slices of literals per group keep
/// Polars' answers.
#[test]
fn constants_in_windows_and_slices_of_literals_are_polars_own() {
    let df = df!("b" => [6u64, 7]).unwrap().lazy();
    assert_same_as_cpu(
        df.clone()
            .filter(lit(NULL).all(true).over(vec![col("b")]).unwrap()),
        ORDERED,
    );
    let floats = df!("b" => [-2.0f64]).unwrap().lazy();
    assert_same_as_cpu(
        floats.group_by([col("b")]).agg([lit(f64::INFINITY)
            .slice(lit(-2i64), lit(2u64))
            .std(0)
            .alias("x")]),
        UNORDERED,
    );
}

/// A select reading only columns of one value the step below made (a
/// literal, which Polars holds as a scalar column): `lit(5) != col(x0)`
/// over it is one row in Polars, `col(x0) + 1` every row, so such selects
/// stay with Polars. Found by the fuzzer (seeds 7007 and 7037).
#[test]
fn selects_of_only_repeated_literals_are_polars_own() {
    let t0 = DataFrame::new(
        2,
        vec![
            Column::new("b".into(), [None::<i8>, Some(1)]),
            Column::new("d".into(), [None::<bool>, None]),
        ],
    )
    .unwrap();
    let date = |days: i32| lit(days).cast(DataType::Date);
    let cases = [
        t0.clone()
            .lazy()
            .select([col("b"), lit(5i64).alias("x0")])
            .select([lit(5i64).neq(col("x0")).alias("x2")]),
        t0.clone()
            .lazy()
            .select([col("b"), lit(5i64).alias("x0")])
            .select([(col("x0") + lit(1)).alias("x2")]),
        t0.lazy()
            .with_columns([date(579).alias("a")])
            .select([date(17_116).eq_missing(col("a")).alias("x1")]),
    ];
    for lf in cases {
        assert_same_as_cpu(lf, ORDERED);
    }
}

/// A group-by's aggregation of a literal alone, which Polars holds as a
/// scalar column: a select reading only it (`lit(false) != col(x5)`) is one
/// row in Polars. Such selects stay with Polars, as over a select's
/// literals. Found by the fuzzer (seed 13043, case 27).
#[test]
fn selects_of_only_literals_a_group_by_made_are_polars_own() {
    let t0 = df!("a" => [-1.0f32, 4.0, 0.1]).unwrap();
    let lf = t0
        .lazy()
        .group_by_stable([col("a").alias("k3")])
        .agg([lit(true).alias("x5")])
        .select([lit(false).neq_missing(col("x5")).alias("x7")]);
    assert_same_as_cpu(lf, ORDERED);
}

/// A copy of a column of one value (`col(x1).alias(x2)` in a with_columns
/// above the select that made `x1`) is a scalar column in Polars too: a
/// select reading only it is one row there. Found by the fuzzer (seed
/// 14040, case 247).
#[test]
fn selects_of_only_copies_of_columns_of_one_value_are_polars_own() {
    let t0 = df!("b" => [false, true, true]).unwrap();
    let day = |days: i32| lit(days).cast(DataType::Date);
    let lf = t0
        .lazy()
        .select([col("b").alias("x0"), day(19_000).dt().day().alias("x1")])
        .with_columns([col("x1").alias("x2")])
        .select([day(11_016)
            .dt()
            .weekday()
            .neq_missing(col("x2"))
            .alias("x3")]);
    assert_same_as_cpu(lf, ORDERED);
}

/// A group-by's aggregation of a literal (a scalar column in Polars)
/// divided into another column by a select above, a projection between:
/// Polars multiplies by the reciprocal of its scalar (5 / 1.5 is
/// 3.333333333333333 so), and the device now sees the scalar column
/// through the projection. Found by the fuzzer (seed 18002, case 685).
#[test]
fn divisions_by_a_group_bys_literal_aggregations_through_projections_are_by_scalars() {
    let t0 = df!("b" => [5i64, 3, -1]).unwrap();
    let lf = t0
        .lazy()
        .group_by([col("b"), lit(false).alias("k0")])
        .agg([lit(1.5f64).alias("x1")])
        .select([(col("b") / col("x1")).alias("x6")]);
    assert_same_as_cpu(
        lf,
        Compare {
            ordered: false,
            floats_close: false,
            partition_rows: None,
            spill_kept: false,
        },
    );
}

/// A group-by of no groups (its input filtered to nothing) with an
/// aggregation of literals: Polars makes that a column of nulls of no type,
/// on which a later addition of a duration raises; the device answered an
/// empty frame. It falls back. Found by the fuzzer (seed 21046, case 158).
#[test]
fn literal_aggregations_of_no_groups_are_polars_own() {
    let df = df!(
        "b" => [None::<u32>],
        "c" => [None::<f64>],
    )
    .unwrap();
    let mean = polars::lazy::dsl::mean_horizontal(&[col("b"), col("b"), col("b")], true).unwrap();
    let date = lit(Scalar::from(19664i32)).cast(DataType::Date);
    let lf = df
        .lazy()
        .filter(col("b").fill_null(col("b")).is_duplicated())
        .group_by([col("c")])
        .agg([mean.gather_every(2, 1).std(1).alias("x0")])
        .group_by([col("x0").alias("k2")])
        .agg([
            date.alias("x3"),
            col("x0")
                .quantile(lit(0.0f64), QuantileMethod::Equiprobable)
                .alias("x4"),
        ])
        .group_by_stable([col("x4")])
        .agg(
            [(when(lit(false)).then(col("x3").max()).otherwise(col("x3"))
                + lit(0i64).cast(DataType::Duration(TimeUnit::Microseconds)))
            .min()
            .alias("x5")],
        );
    assert_same_as_cpu(lf, UNORDERED);
}

/// Over no groups Polars takes an aggregation's literals as nulls of no
/// type: a date literal plus a duration then raises. Found by the fuzzer
/// (seed 23022, case 17).
#[test]
fn literals_inside_aggregations_of_no_groups_are_polars_own() {
    let df = df!(
        "a" => [None, Some(-1i32), Some(2)],
        "b" => [1u32, 6, 7],
    )
    .unwrap();
    let date = lit(Scalar::from(19000i32)).cast(DataType::Date);
    let duration = lit(Scalar::from(41685i64)).cast(DataType::Duration(TimeUnit::Milliseconds));
    let otherwise = col("x1").cast(DataType::Duration(TimeUnit::Nanoseconds));
    let lf = df
        .lazy()
        .filter(lit(false))
        .select([
            lit("ab").str().len_chars().alias("x0"),
            col("a").alias("x1"),
        ])
        .group_by([col("x0")])
        .agg([(date
            + when(lit(2i64).is_in(col("x0").implode(false), false))
                .then(duration)
                .otherwise(otherwise))
        .n_unique()
        .alias("x5")]);
    assert_same_as_cpu(lf, UNORDERED);
}

/// Polars clips a literal by bounds of every row with the first bound of
/// each chunk of its input (its answer then depends on how the frame is
/// chunked): such a clip falls back, and a mixed plan with one in Polars'
/// part runs on the CPU. Found by the fuzzer (seed 23009, case 381: the
/// device's union, one chunk, under Polars' clip and `log1p`).
#[test]
fn clips_of_a_literal_by_every_rows_bounds_are_polars_own() {
    let t0 = df!("a" => [-2.0f64], "d" => [Some("-2aaa")]).unwrap();
    let t2 = df!(
        "a" => [0.5f64, 1.0, -3.0],
        "d" => [Some("-2"), Some("-2"), None],
    )
    .unwrap();
    let clipped =
        (col("a") + lit(-4i64).clip(col("d").cast(DataType::Int8), lit(1i64))).alias("x0");
    let union = || concat([t0.clone().lazy(), t2.clone().lazy()], UnionArgs::default()).unwrap();
    // On the device it falls back; in Polars' part of a mixed plan too.
    assert_same_as_cpu(union().with_columns([clipped.clone()]), ORDERED);
    assert_same_as_cpu(union().with_columns([clipped.log1p()]), ORDERED);
}

/// `replace_strict` of a literal with a default of another length (`len()`
/// per group): Polars raises on their lengths, where the device repeated
/// the literal. Found by the fuzzer (seed 883, case 293): refused in
/// ir-lower now, so that Polars raises its error.
#[test]
fn replace_strict_of_a_constant_with_a_default_of_rows_is_polars_error() {
    let df = df!("c" => [Some(f64::NAN), Some(-6.0)]).unwrap();
    let lf = df.lazy().group_by_stable([col("c")]).agg([lit(3i64)
        .replace_strict(
            lit(Series::new("".into(), [0i64])),
            lit(Series::new("".into(), [-2i64])),
            Some(len()),
            None::<DataType>,
        )
        .sum()
        .alias("x4")]);
    assert_same_as_cpu(lf, CLOSE);
}

/// `replace_strict` of no old values with a constant default: every row
/// takes the default, one per row of the input, not one row. Seed 1356
/// (case 10).
#[test]
fn replace_strict_of_no_old_values_gives_the_default_on_every_row() {
    let t0 = df!("f" => [Some(5i64), Some(57), None]).unwrap();
    let empty = || lit(Series::new("".into(), Vec::<i64>::new()));
    let default = lit(Scalar::from(39_600_000_000_000i64)).cast(DataType::Time);
    let lf = t0.lazy().select([
        col("f")
            .replace_strict(empty(), empty(), Some(default), None::<DataType>)
            .alias("x0"),
        col("f")
            .replace_strict(empty(), empty(), Some(lit(7i64)), None::<DataType>)
            .alias("x1"),
    ]);
    assert_same_as_cpu(lf, ORDERED);
}

/// A text sliced by each row's offset and a literal negative length: Polars
/// casts the length strictly once and raises, whatever the rows (none here,
/// after a join that matches nothing); the device cast it on each row, of
/// which there were none. Found by the fuzzer (seed 22206, case 10).
#[test]
fn a_literal_length_polars_cannot_cast_raises_over_no_rows() {
    let t0 = df!(
        "b" => [None::<u64>],
        "d" => ["20"],
        "e" => [4u16],
    )
    .unwrap();
    let lf = t0
        .clone()
        .lazy()
        .join(
            t0.lazy(),
            [col("e")],
            [col("b")],
            JoinArgs::new(JoinType::Inner),
        )
        .group_by_stable([col("d")])
        .agg([len().alias("x4")])
        .group_by_stable([lit(4i64).alias("k6")])
        .agg([col("x4")
            .cast(DataType::String)
            .str()
            .slice(lit(-2i64), lit(Scalar::from(-2i32)))
            .alias("x9")]);
    assert_same_as_cpu(lf, UNORDERED);
}

/// Per group, Polars takes a literal as many rows as the group has for
/// `is_empty` (though its count there is one): a rolling window of no row
/// (closed on neither side, the row's own time left out) is empty. The
/// device folded it over groups of rows (false). Found by the fuzzer
/// (seed 5596, case 65).
#[test]
fn is_empty_of_a_literal_is_its_groups() {
    let windows = |aggs: Vec<Expr>| {
        df!("a" => [-2i64, 10, 11, 40])
            .unwrap()
            .lazy()
            .sort(
                ["a"],
                SortMultipleOptions::default().with_maintain_order(true),
            )
            .rolling(
                col("a"),
                [] as [Expr; 0],
                RollingGroupOptions {
                    index_column: "a".into(),
                    period: polars::prelude::Duration::parse("5i"),
                    offset: polars::prelude::Duration::parse("-5i"),
                    closed_window: ClosedWindow::None,
                },
            )
            .agg(aggs)
    };
    crate::gpu::assert_gpu_eq(
        "is_empty of a literal per rolling window",
        windows(vec![
            lit(834393600000000000i64).is_empty(false).alias("x0"),
            lit("a").is_empty(true).alias("x1"),
            lit(7i64).count().alias("x2"),
            len().alias("x3"),
        ]),
    );
    assert_same_as_cpu(
        windows(vec![
            lit(NULL).cast(DataType::Int64).is_empty(false).alias("x0"),
        ]),
        ORDERED,
    );
    // Over the frame, one value (not empty, even over no rows).
    let none = df!("a" => [1i64])
        .unwrap()
        .lazy()
        .filter(col("a").gt(lit(5)));
    crate::gpu::assert_gpu_eq(
        "is_empty of a literal over no rows",
        none.select([lit(7i64).is_empty(false)]),
    );
}

/// Seed 6519 case 204: a select of literal Series alone (which reads none
/// of its input's columns) over a select Polars raises on (`str.head` of a
/// null literal in a window): Polars computes the input all the same and
/// raises, the device answered with the Series. The input now lowers too:
/// here it may not, so Polars runs the whole query (and raises); where it
/// does, the Series select runs on the device.
#[test]
fn fuzz_seed_6519_case_204() {
    let t0 = DataFrame::new(
        1,
        vec![
            Column::new("a".into(), [Some("É")])
                .cast(&crate::fuzz::table::enumeration())
                .unwrap(),
        ],
    )
    .unwrap();
    let places = || lit(Series::new("".into(), vec![0i64, -3i64]));
    let lf = t0
        .clone()
        .lazy()
        .select([lit(NULL)
            .str()
            .head(lit(3i64))
            .over(vec![col("a")])
            .unwrap()
            .alias("x2")])
        .select([lit(Scalar::from(-1i32))
            .cast(DataType::Date)
            .gather(places(), true)
            .alias("x6")])
        .group_by_stable([col("x6")])
        .agg([]);
    assert_same_as_cpu(lf, ORDERED);
    crate::gpu::assert_gpu_eq(
        "a Series alone over a select the device runs",
        t0.lazy()
            .select([col("a").cast(DataType::String).alias("x2")])
            .select([places().alias("x6")]),
    );
}
