//! Wrong answers, errors and internal errors the fuzzer (and the correctness issue) found: each a test that failed before its fix.

use polars::prelude::*;

use super::{Compare, assert_same_as_cpu};
use crate::gpu::assert_gpu_eq;

mod common_subexpressions;
mod constants;
mod floats;
mod late_refusals;
mod mixed_plans;
mod per_group;
mod types;

const ORDERED: Compare = Compare {
    ordered: true,
    floats_close: false,
    partition_rows: None,
    spill_kept: false,
};

const UNORDERED: Compare = Compare {
    ordered: false,
    floats_close: false,
    partition_rows: None,
    spill_kept: false,
};

/// In order, floats within docs/operations.md's bound.
const CLOSE: Compare = Compare {
    ordered: true,
    floats_close: true,
    partition_rows: None,
    spill_kept: false,
};

fn ints(name: &str, values: &[Option<i64>]) -> Column {
    Column::new(name.into(), values)
}

/// A select of one values only is one row, also of an empty frame; an
/// aggregation of one value (`len().sum()`) is that value.
#[test]
fn selects_of_single_values_are_one_row() {
    let empty = df!("a" => Vec::<i64>::new()).unwrap().lazy();
    let two = df!("a" => [Some(-3i16), Some(2)]).unwrap().lazy();
    let cases = [
        empty.clone().select([lit("日本").alias("t")]),
        two.clone().select([lit(2u32).alias("x")]),
        two.clone().select([lit(Scalar::from(5u8)).alias("x")]),
        two.clone().select([len().sum().alias("n")]),
        two.clone().select([len().drop_nulls().sum().alias("n")]),
        two.clone().select([lit(0i64)
            .clip(col("a").cast(DataType::Int64), lit(3i64))
            .alias("c")]),
        two.clone()
            .select([lit("aaa").alias("x")])
            .filter(lit("ab").str().ends_with(lit("[^a]"))),
        empty.clone().group_by([lit(1).alias("one")]).agg([len()]),
    ];
    for lf in cases {
        assert_same_as_cpu(lf, ORDERED);
    }
}

/// Polars raises where a sort key, or a window's order, is one value.
#[test]
fn sorts_by_single_values_raise_as_polars_does() {
    let two = df!("b" => [4.0f64, 0.0], "c" => ["aB", "b"])
        .unwrap()
        .lazy();
    let cases = [
        two.clone()
            .sort_by_exprs([lit(true)], SortMultipleOptions::default()),
        two.clone()
            .select([col("b").sort_by([lit(0.5f64)], SortMultipleOptions::default())]),
        two.clone().select([col("c")
            .shift(lit(2i64))
            .over_with_options(
                Some([col("c")]),
                Some(([lit(false)], SortOptions::default())),
                WindowMapping::GroupsToRows,
            )
            .unwrap()]),
    ];
    for lf in cases {
        assert_same_as_cpu(lf, ORDERED);
    }
}

/// `is_in` a literal list: a null in the list matches nothing without
/// `nulls_equal`; values the column's type cannot hold match nothing.
#[test]
fn membership_in_literal_lists_is_by_exact_value() {
    let list = |values: &[Option<i64>]| lit(Series::new("".into(), values)).implode(false);
    let df = DataFrame::new(
        3,
        vec![
            ints("k", &[Some(11), None, Some(2)]),
            Column::new("w".into(), [Some(9u16), Some(u16::MAX), None]),
            Column::new("f".into(), [Some(f64::NAN), Some(-0.0), Some(2.0)]),
        ],
    )
    .unwrap()
    .lazy();
    assert_same_as_cpu(
        df.clone().select([
            col("k")
                .is_in(list(&[Some(2), Some(5), None, Some(10)]), false)
                .alias("a"),
            col("k").is_in(list(&[Some(2), None]), true).alias("b"),
            col("k").is_in(list(&[]), false).alias("c"),
            col("w")
                .is_in(list(&[Some(9), Some(70_000)]), false)
                .alias("d"),
            col("w").is_in(list(&[]), true).alias("e"),
            col("f")
                .is_in(
                    lit(Series::new("".into(), [Some(f64::NAN), Some(0.0)])).implode(false),
                    false,
                )
                .alias("g"),
            col("k")
                .is_in(
                    lit(Series::new("".into(), [Some(1.5f64), Some(2.0)])).implode(false),
                    false,
                )
                .alias("h"),
        ]),
        ORDERED,
    );
    assert_same_as_cpu(df.filter(col("w").is_in(list(&[Some(0)]), false)), ORDERED);
}

/// Polars raises on the negation of unsigned integers.
#[test]
fn negations_of_unsigned_integers_raise_as_polars_does() {
    let df = DataFrame::new(
        1,
        vec![
            Column::new("a".into(), [Some(8u8)]),
            Column::new("b".into(), [Some(8u16)]),
            Column::new("c".into(), [Some(8u32)]),
            Column::new("d".into(), [None::<u64>]),
            Column::new("s".into(), [Some("tr")]),
        ],
    )
    .unwrap()
    .lazy();
    for e in [
        -col("a"),
        -col("b"),
        -col("c"),
        -col("d"),
        -col("s").str().len_bytes(),
    ] {
        assert_same_as_cpu(df.clone().select([e]), ORDERED);
    }
}

/// Memberships in columns of small integers (the join widens them).
#[test]
fn memberships_in_columns_of_small_integers_run() {
    let df = df!(
        "g" => [1i64, 1, 2, 2],
        "k1" => [Some(4u8), None, Some(4), Some(7)],
        "x" => [Some(3u16), Some(5), None, Some(3)],
    )
    .unwrap()
    .lazy();
    assert_gpu_eq(
        "u8 in itself, nulls equal",
        df.clone()
            .select([col("k1").is_in(col("k1").implode(false), true).alias("m")]),
    );
    assert_gpu_eq(
        "u16 in itself per group",
        df.group_by_stable([col("g")]).agg([col("x")
            .is_in(col("x").implode(false), false)
            .max()
            .alias("m")]),
    );
}

/// A float key of -0.0 in a group-by on several keys: Polars gives 0.0 or
/// -0.0 by its hash path for the frame's size, so the device leaves it to
/// Polars.
#[test]
fn negative_zero_keys_of_several_key_group_bys_are_polars_own() {
    let c = [
        -0.0,
        -0.0,
        f64::NAN,
        4.0,
        5.0,
        f64::MAX,
        3.0,
        -0.0,
        f64::MAX,
        f64::NEG_INFINITY,
        0.0,
        4.0,
        0.0,
        2.0,
        -1.0,
    ];
    let e = [
        Some(4i32),
        Some(-4),
        Some(395),
        Some(-2),
        Some(5),
        Some(3),
        Some(-4),
        Some(4),
        Some(-4),
        Some(3),
        Some(-3),
        Some(-4),
        None,
        None,
        Some(1),
    ];
    let df = df!("c" => c, "e" => e).unwrap().lazy();
    assert_same_as_cpu(df.group_by([col("e"), col("c")]).agg([]), UNORDERED);
}

/// Text made of a group's aggregation inside another aggregation runs on
/// the CPU (it was an internal error).
#[test]
fn text_made_of_aggregations_inside_aggregations_falls_back() {
    let df = df!("c" => [Some("-2"), Some("\n")], "d" => [Some(7u16), Some(7)])
        .unwrap()
        .lazy();
    assert_same_as_cpu(
        df.clone()
            .group_by_stable([col("c")])
            .agg([(col("c").last() + col("c")).str().join(", ", true)]),
        ORDERED,
    );
    assert_same_as_cpu(
        df.select([col("c")
            .tail(Some(2))
            .count()
            .over([col("d").cast(DataType::Float64)])
            .unwrap()]),
        ORDERED,
    );
}

/// Text in the rows' order within each group (a reverse, a shift) inside an
/// aggregation: the device made it over the whole frame.
#[test]
fn text_in_row_order_inside_aggregations_is_per_group() {
    let df = df!("b" => ["na", "a", "x", "y", "z"], "c" => [1i32, 0, 2, 2, 1])
        .unwrap()
        .lazy();
    for agg in [
        col("b").reverse().last(),
        col("b").shift(lit(1)).first(),
        col("b").reverse().str().join(",", false),
    ] {
        assert_same_as_cpu(df.clone().group_by_stable([col("c")]).agg([agg]), ORDERED);
    }
}

/// A rank within windows of a running maximum taken back to front.
#[test]
fn ranks_of_running_maxima_within_windows_match() {
    let df = df!("ks" => ["É", " 91", "É"], "e1" => [0i16, 7, 1])
        .unwrap()
        .lazy();
    let rank = col("e1")
        .cum_max(true)
        .rank(
            RankOptions {
                method: RankMethod::Max,
                descending: true,
            },
            None,
        )
        .over([col("ks")])
        .unwrap();
    assert_same_as_cpu(df.with_columns([rank.alias("r")]), ORDERED);
}

/// Quantiles pick the zero Polars picks; the spread of a group of one null.
#[test]
fn quantiles_of_zeros_and_spreads_of_nulls_match() {
    let df = DataFrame::new(
        4,
        vec![
            ints("g", &[Some(1), Some(1), Some(2), Some(3)]),
            Column::new("x".into(), [Some(-0.0f64), Some(0.0), None, Some(5.0)]),
        ],
    )
    .unwrap()
    .lazy();
    assert_same_as_cpu(
        df.clone().group_by_stable([col("g")]).agg([
            (lit(1.0) / col("x").quantile(lit(0.9), QuantileMethod::Higher)).alias("q"),
            col("x").std(0).alias("s0"),
            col("x").var(0).alias("v0"),
            col("x").std(1).alias("s1"),
        ]),
        ORDERED,
    );
    assert_same_as_cpu(
        df.filter(col("g").eq(lit(2i64)))
            .select([col("x").std(0).alias("s0"), col("x").var(1).alias("v1")]),
        ORDERED,
    );
}

/// Sorts, group-bys, distinct rows and joins keyed by small integers run on
/// the device (they fell back, though integers are claimed).
#[test]
fn small_integer_keys_sort_group_and_join_on_the_device() {
    let df = df!(
        "a" => [Some(3i8), Some(-1), None, Some(-128), Some(127), Some(-1)],
        "b" => [Some(1u16), Some(65535), Some(1), None, Some(0), Some(1)],
        "c" => [Some(-300i16), Some(2), Some(2), Some(-300), None, Some(7)],
        "d" => [Some(5u8), Some(5), Some(255), Some(0), None, Some(5)],
        "v" => [1i64, 2, 3, 4, 5, 6],
    )
    .unwrap()
    .lazy();
    let right = df!(
        "b" => [Some(1u16), Some(0), None, Some(65535)],
        "a" => [Some(-1i8), Some(127), Some(3), None],
        "w" => [10i64, 20, 30, 40],
    )
    .unwrap()
    .lazy();
    let sorted = |by: &[&str], descending: bool| {
        df.clone().sort(
            by.to_vec(),
            SortMultipleOptions::default()
                .with_order_descending(descending)
                .with_nulls_last(descending)
                .with_maintain_order(true),
        )
    };
    assert_gpu_eq("sort by i8", sorted(&["a"], false));
    assert_gpu_eq("sort by u16 and i16, descending", sorted(&["b", "c"], true));
    assert_gpu_eq(
        "group by i8 and u8",
        df.clone()
            .group_by_stable([col("a"), col("d")])
            .agg([col("v").sum(), len()]),
    );
    assert_gpu_eq(
        "group by i16",
        df.clone().group_by_stable([col("c")]).agg([col("v").max()]),
    );
    assert_gpu_eq(
        "distinct by u16",
        df.clone()
            .unique_stable(Some(cols(["b"])), UniqueKeepStrategy::First),
    );
    assert_gpu_eq(
        "unique of u8",
        df.clone().select([col("d").unique_stable()]),
    );
    for how in [
        JoinType::Inner,
        JoinType::Left,
        JoinType::Semi,
        JoinType::Anti,
    ] {
        let args = JoinArgs {
            maintain_order: MaintainOrderJoin::LeftRight,
            ..JoinArgs::new(how.clone())
        };
        assert_gpu_eq(
            &format!("{how:?} join on u16"),
            df.clone()
                .join(right.clone(), [col("b")], [col("b")], args.clone()),
        );
        assert_gpu_eq(
            &format!("{how:?} join on u16 and i8"),
            df.clone().join(
                right.clone(),
                [col("b"), col("a")],
                [col("b"), col("a")],
                args.clone(),
            ),
        );
    }
    assert_gpu_eq(
        "join on i8 with nulls equal",
        df.clone().join(
            right,
            [col("a")],
            [col("a")],
            JoinArgs {
                nulls_equal: true,
                maintain_order: MaintainOrderJoin::LeftRight,
                ..JoinArgs::new(JoinType::Left)
            },
        ),
    );
}

/// A variance of a filter (`gather_every`, `filter`) where no kept value is
/// valid: Polars gives 0.0 or null by its path, so the device leaves it.
#[test]
fn variances_of_filters_keeping_no_valid_value_are_polars_own() {
    let df = df!("g" => [1i64, 1, 2, 2, 3], "d" => [None, None, Some(1.0f64), None, None])
        .unwrap()
        .lazy();
    assert_same_as_cpu(
        df.group_by_stable([col("g")]).agg([
            col("d").gather_every(3, 1).var(0).alias("v"),
            col("d").gather_every(3, 1).std(1).alias("s"),
            col("d").filter(lit(true)).std(0).alias("f"),
        ]),
        ORDERED,
    );
}

/// An aggregation of a filter of one value (`min(c).drop_nulls().product()`)
/// is of that one value, not of it repeated on every row.
#[test]
fn aggregations_of_filters_of_single_values_fall_back() {
    let df = DataFrame::new(2, vec![ints("c", &[None, Some(-4)])])
        .unwrap()
        .lazy();
    assert_same_as_cpu(
        df.select([col("c").min().drop_nulls().product().alias("x0")]),
        ORDERED,
    );
}

/// A filter inside an aggregation of the rows in order within each group
/// (a reverse, a shift, a distinctness test): the device took them over the
/// whole frame.
#[test]
fn filters_of_row_order_functions_inside_aggregations_are_per_group() {
    let df = df!(
        "a" => [5.5f32, -2.5, 1.0, 7.0],
        "d" => [-1i32, 1, 0, 2],
        "e" => [-4i64, -3, -4, -3],
        "b" => ["a", "a", "tr", "1e"],
        "t" => [true, true, false, false],
    )
    .unwrap()
    .lazy();
    let cases = [
        col("a")
            .reverse()
            .filter(col("d").cast(DataType::Boolean))
            .first(),
        (lit(1e300f64).gt_eq(col("a")))
            .is_unique()
            .drop_nulls()
            .last(),
        col("t").shift(lit(-3i64)).gather_every(3, 1).last(),
    ];
    for agg in cases {
        assert_same_as_cpu(
            df.clone().group_by_stable([col("e")]).agg([agg.alias("x")]),
            ORDERED,
        );
    }
}

/// A group-by on a literal becomes, in Polars' optimiser, a select of one
/// row over columns of common subexpressions that Polars holds at one row.
#[test]
fn selects_over_one_row_constants_of_common_subexpressions_are_one_row() {
    let df = df!("b" => [Some(2i64), Some(i64::MAX)]).unwrap().lazy();
    assert_same_as_cpu(
        df.group_by_stable([lit(Scalar::from(5u32)).alias("k0")])
            .agg([lit(true).sum().alias("x1"), lit(true).sum().alias("x2")]),
        ORDERED,
    );
}

/// Floor division and modulo of f32 round each step to f32, as Polars'
/// f32 arithmetic does.
#[test]
fn floor_divisions_and_modulos_of_f32_round_each_step() {
    let df = df!(
        "a" => [-5.0f32, 7.25, -0.1, 1e30],
        "b" => [0.333_333_34f32, -0.1, 0.3, 7.0],
    )
    .unwrap()
    .lazy();
    assert_gpu_eq(
        "f32 floor division and modulo",
        df.select([
            (col("a") % col("b")).alias("mod"),
            col("a").floor_div(col("b")).alias("floordiv"),
        ]),
    );
}

/// Membership of f32 values in a column (the join compares them as f64).
#[test]
fn memberships_of_f32_in_columns_run() {
    let df = df!("a" => [Some(5.0f32), Some(-0.0), None, Some(0.0), Some(f32::NAN)])
        .unwrap()
        .lazy();
    assert_gpu_eq(
        "f32 in itself per group",
        df.group_by_stable([col("a")]).agg([col("a")
            .is_in(col("a").implode(false), false)
            .count()
            .alias("n")]),
    );
}

/// A spread of an input holding aggregations, of a group with no valid
/// value: Polars gives 0.0 on that path (null on others).
#[test]
fn spreads_of_inputs_holding_aggregations_are_polars_own() {
    let df = df!("a" => [None::<f64>, Some(2.0)], "b" => ["É", "x"], "c" => [-5.0f64, 1.0])
        .unwrap()
        .lazy();
    assert_same_as_cpu(
        df.group_by_stable([col("b")])
            .agg([(col("a") + col("c").max()).std(0).alias("x0")]),
        ORDERED,
    );
}

/// Polars' optimiser renames a right join's key column, turned inner by a
/// `drop_nulls`, without its cast: the plan is left to Polars.
#[test]
fn columns_whose_planned_type_is_not_their_expression_type_fall_back() {
    let t0 = df!("c" => ["tr"], "e" => [-2i64]).unwrap().lazy();
    let t1 = df!("p" => [-1i16]).unwrap().lazy();
    assert_same_as_cpu(
        t0.join(
            t1,
            [col("e")],
            [col("p")],
            JoinArgs {
                nulls_equal: true,
                ..JoinArgs::new(JoinType::Right)
            },
        )
        .drop_nulls(None)
        .group_by([col("c")])
        .agg([col("p").any(false).alias("x2")]),
        UNORDERED,
    );
}

/// Polars sorts a frame of one float column by its values, putting -0.0
/// and 0.0 in an order of its own; with other columns its sort is stable.
#[test]
fn sorts_of_one_float_column_holding_both_zeros_are_polars_own() {
    let b = [
        f64::INFINITY,
        -1.0,
        0.0,
        4.0,
        -1.0,
        f64::INFINITY,
        -3.0,
        4.0,
        1e300,
        -0.0,
        f64::NEG_INFINITY,
        -1.0,
        f64::MAX,
        -4.0,
        0.0,
        1e300,
        f64::INFINITY,
        1.0,
        -0.0,
        0.0,
        -0.0,
    ];
    let df = df!("b" => b).unwrap().lazy();
    for descending in [false, true] {
        let options = SortMultipleOptions::default()
            .with_order_descending(descending)
            .with_maintain_order(true);
        assert_same_as_cpu(
            df.clone().sort_by_exprs([col("b")], options.clone()),
            ORDERED,
        );
        assert_gpu_eq(
            "a sort by a float column beside others",
            df.clone()
                .with_row_index("i", None)
                .sort_by_exprs([col("b")], options),
        );
    }
}

/// Per-group variances follow Polars' own algorithm (Welford's, in row
/// order) bit for bit; quantiles count a group's nulls in their place, as
/// Polars does, which rounds an interpolation's proportion its way.
#[test]
fn variances_and_quantiles_per_group_are_polars_bit_for_bit() {
    let df = df!(
        "g" => [1i64, 1, 1, 2, 2, 2, 3, 3, 3],
        "d" => [Some(0.1f64), Some(0.1), Some(0.1), Some(5.0), Some(5.5), Some(5.0), Some(-2.5e-300), None, Some(0.0)],
    )
    .unwrap()
    .lazy();
    assert_gpu_eq(
        "variances and quantiles",
        df.clone().group_by_stable([col("g")]).agg([
            col("d").var(1).alias("var"),
            col("d").std(0).alias("std"),
            col("d")
                .quantile(lit(0.9), QuantileMethod::Linear)
                .alias("linear"),
            col("d")
                .quantile(lit(0.3), QuantileMethod::Midpoint)
                .alias("midpoint"),
        ]),
    );
    assert_gpu_eq(
        "a whole frame's quantile with nulls",
        df.filter(col("g").eq(lit(3i64))).with_columns([col("d")
            .quantile(lit(0.9), QuantileMethod::Linear)
            .alias("q")]),
    );
}

/// A spread or a place of an extreme of a group with no valid value, of an
/// input Polars takes per group as lists (a `diff`, a `shift`): Polars gives
/// 0.0 or 0 there, null of a column; the device leaves it to Polars.
#[test]
fn aggregations_of_groups_without_a_valid_value_are_polars_own() {
    let df = DataFrame::new(
        3,
        vec![
            Column::new("c".into(), [Some(0u64), None, Some(1)]),
            Column::new("d".into(), [None::<f64>, None, Some(2.0)]),
            Column::new("a".into(), [Some(4i16), None, None]),
            Column::new("b".into(), [5.0f64, -0.0, -0.0]),
        ],
    )
    .unwrap()
    .lazy();
    let cases = [
        df.clone().group_by_stable([col("c")]).agg([col("a")
            .diff(lit(1), polars::series::ops::NullBehavior::Ignore)
            .var(0)
            .alias("x")]),
        df.clone()
            .group_by_stable([col("b")])
            .agg([col("a").shift(lit(0i64)).arg_min().alias("x")]),
    ];
    for lf in cases {
        assert_same_as_cpu(lf, ORDERED);
    }
}

/// The place of an extreme of the rows `gather_every` keeps, each group's
/// taken as a list: of a group keeping one null, Polars gives 0 here (fuzz
/// seed 5774, case 265); the device leaves a list of no valid value to
/// Polars.
#[test]
fn places_of_extremes_of_kept_rows_without_a_valid_value_are_polars_own() {
    let t0 = DataFrame::new(
        2,
        vec![
            Column::new("b".into(), [None::<i32>, Some(59i32)])
                .cast(&DataType::Date)
                .unwrap(),
        ],
    )
    .unwrap();
    let time = lit(Scalar::from(46800000000001i64)).cast(DataType::Time);
    let lf = t0
        .lazy()
        .group_by_stable([time.alias("k3"), col("b")])
        .agg([col("b").gather_every(3usize, 0usize).arg_min().alias("x5")]);
    assert_same_as_cpu(lf, ORDERED);
    // The same of a `list.agg` written by the user: a list of one null,
    // whose `arg_min` Polars gives as 0 there.
    let lists = df!("g" => [1i64, 2, 1])
        .unwrap()
        .lazy()
        .with_columns([when(col("g").eq(lit(2)))
            .then(concat_list([lit(NULL).cast(DataType::Int64)]).unwrap())
            .otherwise(concat_list([col("g"), col("g")]).unwrap())
            .alias("l")]);
    let places = element().arg_min() + element().fill_null(lit(0i64)).arg_max();
    assert_same_as_cpu(
        lists.select([col("l").list().agg(places).alias("x")]),
        ORDERED,
    );
}

/// Polars' `sort` of floats is unstable: where -0.0 and 0.0 meet, the
/// order is its own.
#[test]
fn sorts_of_floats_with_both_zeros_fall_back() {
    let values = [
        -1.0, 0.1, 0.5, -0.0, -7.5, 2.0, 5.0, 1e10, 0.25, 1.0, -4.0, 0.0, -2.0, -3.0, 1e300, 1.0,
        -5.0, 2.0, -3.5, -0.0, -0.0,
    ];
    let df = df!("f" => values).unwrap().lazy();
    let options = SortOptions::default();
    assert_same_as_cpu(
        df.clone().with_columns([col("f").sort(options).alias("x")]),
        ORDERED,
    );
    assert_same_as_cpu(
        df.with_columns([col("f")
            .sort(options)
            .over([col("f").is_null()])
            .unwrap()
            .alias("x")]),
        ORDERED,
    );
}

/// An `is_in` of one value in an imploded column is one value.
#[test]
fn memberships_of_one_value_are_one_value() {
    let df = df!("a" => [Some(-1i64), None, Some(0)]).unwrap().lazy();
    let is_in = || lit(0i64).is_in(col("a").implode(false), true).alias("x");
    assert_same_as_cpu(df.clone().select([is_in()]), ORDERED);
    assert_same_as_cpu(
        df.clone().select([is_in(), col("a").sum().alias("s")]),
        ORDERED,
    );
    assert_same_as_cpu(df.with_columns([is_in()]), ORDERED);
}

/// A sort marks its first key sorted, and Polars' engine, running the rest
/// of a mixed plan, takes paths of its own over sorted columns.
#[test]
fn sorted_keys_reach_polars_marked_sorted() {
    let df = df!("c" => [Some("x "), Some("x ")]).unwrap().lazy();
    assert_same_as_cpu(
        df.sort_by_exprs(
            [col("c")],
            SortMultipleOptions::default().with_maintain_order(true),
        )
        .group_by_stable([col("c")])
        .agg([col("c").arg_max().alias("x")]),
        ORDERED,
    );
}

/// Polars takes the groups of a key it holds marked sorted (the first key
/// of a sort, a column of one row, sorted frames concatenated in order) as
/// slices of rows, where a group of no valid value has a spread of 0.0 and
/// a place of an extreme of 0; keys whose groups are not runs of rows run
/// on the device.
#[test]
fn groups_of_keys_polars_holds_sorted_keep_its_answers() {
    let sorted_first = df!("b" => [None::<f64>, None], "f" => [i64::MIN, 2])
        .unwrap()
        .lazy()
        .sort_by_exprs(
            [col("f")],
            SortMultipleOptions::default()
                .with_order_descending(true)
                .with_maintain_order(true),
        );
    let one_row =
        |b: u16, a: Option<i64>| df!("a" => [a], "b" => [b], "c" => [4.0f64]).unwrap().lazy();
    let concatenated = concat(
        [one_row(8, None), one_row(u16::MAX, Some(-2))],
        UnionArgs::default(),
    )
    .unwrap();
    let cases = [
        sorted_first
            .clone()
            .group_by_stable([col("f").alias("k")])
            .agg([
                col("b").arg_min().alias("arg"),
                col("b").var(1).alias("var"),
            ]),
        sorted_first.with_columns([col("b").std(1).over([col("f")]).unwrap().alias("w")]),
        concatenated
            .group_by_stable([col("b")])
            .agg([col("a").arg_max().alias("x")]),
    ];
    for lf in cases {
        assert_same_as_cpu(lf, ORDERED);
    }
    // Groups that are not runs of rows: the key is not sorted.
    let unsorted = df!("k" => [1i64, 2, 1], "v" => [None::<f64>, None, Some(1.0)])
        .unwrap()
        .lazy();
    assert_gpu_eq(
        "spreads of keys not sorted",
        unsorted.group_by_stable([col("k")]).agg([
            col("v").var(1).alias("var"),
            col("v").arg_max().alias("arg"),
        ]),
    );
}

/// A spread of a group holding an infinite value, of an input Polars takes
/// per group as lists, is Polars' own (0.0 there for one value, where its
/// running variance of a column gives NaN).
#[test]
fn spreads_of_infinite_values_by_other_paths_are_polars_own() {
    let df = df!(
        "c" => [f64::NEG_INFINITY, 1.0, f64::INFINITY, 2.0],
        "k" => [1i64, 2, 3, 3]
    )
    .unwrap()
    .lazy();
    for ddof in [0u8, 1] {
        assert_same_as_cpu(
            df.clone()
                .group_by_stable([col("k")])
                .agg([col("c").filter(lit(true)).std(ddof).alias("x")]),
            ORDERED,
        );
    }
}

/// A float partition key of -0.0 in a window is Polars' own: it counts it
/// apart from 0.0 in aggregations, with it where the window is ordered.
#[test]
fn windows_partitioned_by_negative_zero_are_polars_own() {
    let df = df!(
        "c" => [Some(-0.0f32), Some(0.0)],
        "d" => [None::<&str>, Some("1e3")]
    )
    .unwrap()
    .lazy();
    let ordered = Some((vec![col("d")], SortOptions::default().with_nulls_last(true)));
    for (order, e) in [
        (ordered.clone(), col("d").shift(lit(1i64)).shift(lit(-1i64))),
        (ordered, col("d").count()),
        (None, col("d").shift(lit(1i64))),
    ] {
        let over = e
            .over_with_options(Some(vec![col("c")]), order, WindowMapping::GroupsToRows)
            .unwrap();
        assert_same_as_cpu(df.clone().select([over.alias("x")]), ORDERED);
    }
}

/// Aggregations other than a first or last row of values sorted (by
/// `sort` or `sort_by`, or filtered): of all of the group's values, not
/// of its first (found by the fuzzer as an i32 where the plan said i64).
#[test]
fn aggregations_of_sorted_values_take_every_value() {
    let df = df!("b" => [-2i32, 1, 0, 5, -3], "g" => [1i64, 1, 2, 2, 1])
        .unwrap()
        .lazy();
    let by_b = SortMultipleOptions::default().with_maintain_order(true);
    let inputs = [
        ("sort_by", col("b").sort_by([col("b")], by_b)),
        ("sort", col("b").sort(SortOptions::default())),
        ("filter", col("b").filter(col("b").gt(lit(-5)))),
    ];
    for (name, input) in inputs {
        let aggregations = || {
            let mut all = vec![
                input.clone().product().alias("product"),
                input.clone().sum().alias("sum"),
                input.clone().min().alias("min"),
                input.clone().last().alias("last"),
            ];
            // (Of a filter: Polars' own.)
            if name != "filter" {
                all.push(input.clone().n_unique().alias("n_unique"));
            }
            all
        };
        assert_gpu_eq(name, df.clone().select(aggregations()));
        let grouped = df.clone().group_by([col("g")]).agg(aggregations());
        assert_gpu_eq(name, grouped.sort(["g"], Default::default()));
    }
}

/// Fractional `dt.total_*` divides by Polars' own number with its scalar
/// kernel (a product with the reciprocal), on one row too (found by the
/// fuzzer: 5 ms in hours differed in the last bit).
#[test]
fn fractional_totals_of_one_row_multiply_by_the_reciprocal() {
    let df = df!("b" => [5i16]).unwrap().lazy();
    let duration = col("b").cast(DataType::Duration(TimeUnit::Milliseconds));
    assert_gpu_eq(
        "total_hours",
        df.with_columns([
            duration.clone().dt().total_hours(true).alias("hours"),
            duration.clone().dt().total_days(true).alias("days"),
            duration.dt().total_microseconds(true).alias("micros"),
        ]),
    );
}

/// A group-by's aggregation whose planned type is not its expression's
/// (Polars plans `lit(-3i64) * str.find(..)` as u32, computes i64): below
/// the root, the node above reads the planned type, so the group-by is
/// refused as a select would be (a join read it as u32: an internal error).
/// Found by the fuzzer (seed 3090, case 755).
#[test]
fn group_bys_whose_planned_types_are_not_their_expressions_fall_back() {
    let t0 = DataFrame::new(
        0,
        vec![
            Column::new("b".into(), Vec::<Option<i8>>::new()),
            Column::new("c".into(), Vec::<Option<&str>>::new()),
        ],
    )
    .unwrap();
    let t1 = df!("q" => [true, false], "s" => [-4i64, 2]).unwrap();
    let found = lit(-3i64) * col("c").str().find(lit("[^a]"), false);
    let args = JoinArgs {
        nulls_equal: true,
        maintain_order: MaintainOrderJoin::Right,
        ..JoinArgs::new(JoinType::Left)
    };
    let lf = t0
        .lazy()
        .group_by_stable([col("b")])
        .agg([found.max().alias("x0")])
        .join(t1.lazy(), [col("x0")], [col("s")], args)
        .select([lit(153_136i64).alias("x4")]);
    assert_same_as_cpu(lf, UNORDERED);
}

/// A group-by on one float key holding both -0.0 and 0.0: the group's key
/// is its first row's zero, first in an order Polars may leave its own
/// (after a distinct it need not keep in order), so such keys are Polars'.
/// Found by the fuzzer (seed 4036, case 416).
#[test]
fn float_keys_holding_both_zeros_are_polars_own() {
    let inf = f32::INFINITY;
    let a = [5u8, 5, 0, 8, 2, 2, 6, 2, 0, 0, 2, 5, 1, 3];
    let b = [
        Some(0.0f32),
        Some(3.0),
        Some(-inf),
        Some(-2.0),
        Some(2.0),
        Some(1.0),
        Some(0.0),
        None,
        Some(inf),
        Some(-0.0),
        Some(1.5),
        Some(1.0),
        Some(-4.0),
        Some(-3.0),
    ];
    let columns = vec![Column::new("a".into(), a), Column::new("b".into(), b)];
    let lf = DataFrame::new(14, columns)
        .unwrap()
        .lazy()
        .unique_stable_generic(None, UniqueKeepStrategy::Last)
        .group_by([col("b")])
        .agg([])
        .with_columns([concat_str(vec![col("b")], "-", true).alias("x2")]);
    assert_same_as_cpu(lf.clone(), UNORDERED);
    // The device does not answer it whichever zero its own order meets first.
    let engine = engine_select::Engine::Gpu(crate::under_test().with_raise_on_fail(true));
    match engine_select::LazyFrameExt::collect_with(lf, &engine) {
        Err(engine_select::EngineError::GpuUnavailable { reasons }) => assert!(
            reasons
                .iter()
                .any(|r| r.message.contains("both -0.0 and 0.0")),
            "{reasons:?}"
        ),
        other => panic!("{other:?}"),
    }
}

/// Polars' in-memory engine flags a group-by's `gather_every(..).max()`
/// column sorted though it is not (`[null, null, null, 2d, null, ..]`), and
/// a later `n_unique` counts runs of it: 3 where the column holds 2
/// distinct values, on most runs. Its streaming engine, like the GPU,
/// answers 2: the oracle takes the disagreement of Polars' engines as
/// Polars' own.
#[test]
fn answers_of_polars_streaming_engine_where_its_engines_disagree_are_polars_own() {
    let d = ints(
        "d",
        &[
            Some(40_000_000_000),
            Some(-4),
            Some(-2),
            Some(172_800_000_000_000),
            Some(5),
            Some(-172_800_000_000_000),
            Some(-5),
            Some(-56_000_000_000),
            Some(-1),
            Some(172_800_000_000_000),
            Some(-86_400_000_000_000),
        ],
    )
    .cast(&DataType::Duration(TimeUnit::Nanoseconds))
    .unwrap();
    let lf = DataFrame::new(11, vec![d])
        .unwrap()
        .lazy()
        .group_by_stable([col("d")])
        .agg([
            lit("ab").alias("x0"),
            col("d").gather_every(3, 1).max().alias("x1"),
        ])
        .group_by_stable([lit(376_101i64)
            .cast(DataType::Duration(TimeUnit::Milliseconds))
            .alias("k")])
        .agg([col("x1").n_unique().alias("x4")]);
    use engine_select::{Engine, LazyFrameExt};
    let engine = Engine::Gpu(crate::under_test().with_raise_on_fail(true));
    let (gpu, _) = lf.clone().collect_with_report(&engine).unwrap();
    let streaming = lf
        .clone()
        .collect_with_engine(polars::prelude::Engine::Streaming)
        .unwrap()
        .unwrap_single();
    assert!(gpu.equals_missing(&streaming), "{gpu}\n{streaming}");
    assert_eq!(
        gpu.column("x4").unwrap().get(0).unwrap(),
        AnyValue::UInt32(2)
    );
    // The in-memory engine answers 3 on most runs (on others 2).
    assert_same_as_cpu(lf, ORDERED);
}

/// Parts of dates and datetimes beyond chrono's calendar (years past
/// ±262,142, reached by adding a huge duration): Polars takes them through
/// chrono and gives null. Found by the fuzzer (seeds 15008 case 547 and
/// 15011 case 261).
#[test]
fn parts_of_dates_beyond_chronos_calendar_are_null() {
    let date = |days: i32| lit(days).cast(DataType::Date);
    let micros = |v: i64| lit(v).cast(DataType::Duration(TimeUnit::Microseconds));
    let t0 = df!("b" => [Some(i64::MAX), Some(i64::MIN), Some(0), None]).unwrap();
    let lf = t0.lazy().with_columns([
        (date(19_000) + col("b").cast(DataType::Duration(TimeUnit::Microseconds)))
            .dt()
            .week()
            .alias("week"),
        (date(17_122).cast(DataType::Datetime(TimeUnit::Microseconds, None))
            - col("b").cast(DataType::Duration(TimeUnit::Microseconds)))
        .dt()
        .minute()
        .alias("minute"),
        (date(95_026_236) + micros(86_400_000_000))
            .dt()
            .day()
            .alias("past the last day"),
        date(95_026_236).dt().weekday().alias("the last day"),
        date(-96_465_293).dt().ordinal_day().alias("the first day"),
        (date(-96_465_293) - micros(1))
            .dt()
            .month()
            .alias("before the first day"),
    ]);
    assert_gpu_eq("parts of dates beyond chrono's calendar", lf.clone());
    assert_same_as_cpu(lf, ORDERED);
}

/// A stable distinct on the right of a cross join keeping the left order:
/// Polars' optimiser drops the distinct's order (the join does not promise
/// the right side's), though the rows' order within each left row then
/// comes from it; Polars' answer there is its own, and the oracle skips
/// it. Found by the fuzzer (seed 16098, case 601).
#[test]
fn orders_polars_optimiser_drops_are_its_own() {
    let t0 = df!("d" => [Some(4i64), None]).unwrap();
    let args = JoinArgs {
        maintain_order: MaintainOrderJoin::Left,
        ..JoinArgs::new(JoinType::Cross)
    };
    let distinct = t0
        .clone()
        .lazy()
        .unique_stable_generic(None, UniqueKeepStrategy::None);
    let lf = t0.lazy().join(distinct, [], [], args);
    assert_same_as_cpu(lf, ORDERED);
}

/// A `list.slice` by each row's bounds of lists from a scan of several
/// files: Polars evaluates the files one by one, one of a row by its bounds
/// as single values (a null offset its error); the device took the rows
/// together and answered. So of a frame of several chunks. Found by the
/// fuzzer (stress seed 23392, case 155).
#[test]
fn list_slices_by_rows_over_a_scan_of_several_files_stay_with_polars() {
    let lists = Series::new(
        "b".into(),
        [
            Some(Series::new("".into(), [Some(1i32), None, Some(2), Some(3)])),
            Some(Series::new("".into(), [None::<i32>, Some(4)])),
        ],
    );
    let t0 = DataFrame::new(2, vec![lists.into()]).unwrap();
    let lf = crate::fuzz::parquet_files(&t0).with_columns([col("b")
        .list()
        .slice(col("b").list().get(lit(0i64), true), lit(1i64))
        .alias("x1")]);
    let reason = crate::gpu::raised_error(lf.clone());
    assert!(reason.contains("a scan of several files"), "{reason}");
    assert_same_as_cpu(lf, ORDERED);
    // So over a frame in memory of several chunks, which Polars takes chunk
    // by chunk.
    let chunks = t0.slice(0, 1).vstack(&t0.slice(1, 1)).unwrap();
    assert_eq!(chunks.first_col_n_chunks(), 2);
    let slice = col("b")
        .list()
        .slice(col("b").list().get(lit(0i64), true), lit(1i64));
    assert_same_as_cpu(chunks.lazy().with_columns([slice.alias("x1")]), ORDERED);
}
