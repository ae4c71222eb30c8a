//! `join_asof` on the device: backward, forward and nearest matches of sorted keys (integer, temporal, decimal, float; columns or expressions of each side's rows), exact matches allowed or not, within a tolerance, by groups (of numbers, texts, categoricals, decimals); Polars' answer or error where the keys are not sorted.

use super::*;

/// Polars' `join_asof` arguments (without `by` groups; see [`by`]).
pub(super) fn asof(
    strategy: AsofStrategy,
    allow_eq: bool,
    tolerance: Option<Scalar>,
    check_sortedness: bool,
) -> JoinArgs {
    JoinArgs::new(JoinType::AsOf(Box::new(AsOfOptions {
        strategy,
        tolerance,
        tolerance_str: None,
        left_by: None,
        right_by: None,
        allow_eq,
        check_sortedness,
    })))
}

pub(super) const STRATEGIES: [AsofStrategy; 3] = [
    AsofStrategy::Backward,
    AsofStrategy::Forward,
    AsofStrategy::Nearest,
];

/// Left and right frames keyed by `t`, ascending with nulls first and
/// runs of equal keys; both have a column `v` (the right one suffixed).
pub(super) fn sides() -> (LazyFrame, LazyFrame) {
    let left = df!(
        "t" => [None, None, Some(1i64), Some(2), Some(2), Some(4), Some(7), Some(10), Some(15), Some(20), Some(31)],
        "v" => [10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20],
    )
    .unwrap()
    .lazy();
    let right = df!(
        "t" => [None, Some(0i64), Some(2), Some(2), Some(3), Some(7), Some(7), Some(12), Some(30)],
        "v" => [Some(-1i32), Some(0), None, Some(2), Some(3), Some(4), Some(5), Some(6), Some(7)],
        "s" => [Some("n"), Some("a"), Some("b"), None, Some("d"), Some("e"), Some("f"), Some("g"), Some("h")],
    )
    .unwrap()
    .lazy();
    (left, right)
}

#[test]
fn join_asof_matches_polars_for_every_strategy_and_tolerance() {
    let (left, right) = sides();
    for strategy in STRATEGIES {
        for allow_eq in [true, false] {
            // (A fraction Polars truncates toward zero.)
            let tolerances = [
                None,
                Some(Scalar::from(0i64)),
                Some(Scalar::from(2i64)),
                Some(Scalar::from(-3i64)),
                Some(Scalar::from(2.7f64)),
                Some(Scalar::from(-1.5f64)),
            ];
            for tolerance in tolerances {
                let args = asof(strategy, allow_eq, tolerance.clone(), true);
                let lf = left
                    .clone()
                    .join(right.clone(), [col("t")], [col("t")], args);
                let name = format!("{strategy:?} allow_eq={allow_eq} tolerance={tolerance:?}");
                assert_gpu_eq(&name, lf);
            }
        }
    }
}

#[test]
fn join_asof_on_keys_of_every_integer_temporal_and_decimal_type() {
    let (left, right) = sides();
    let day = 86_400_000i64;
    let types = [
        DataType::Int8,
        DataType::Int16,
        DataType::Int32,
        DataType::UInt8,
        DataType::UInt16,
        DataType::UInt32,
        DataType::UInt64,
        DataType::Date,
        DataType::Duration(TimeUnit::Milliseconds),
        DataType::Time,
    ];
    for dtype in types {
        for strategy in STRATEGIES {
            let key = || col("t").cast(dtype.clone());
            let (l, r) = (
                left.clone().with_column(key()),
                right.clone().with_column(key()),
            );
            let args = asof(strategy, true, Some(Scalar::from(2i32)), true);
            let lf = l.join(r, [col("t")], [col("t")], args);
            assert_gpu_eq(&format!("{dtype} {strategy:?}"), lf);
        }
    }
    // Decimals: by their scaled integers, a tolerance in units of their
    // scale (Polars' i128 of it: 150 is 1.50 at scale 2, 2.7 is 2).
    for strategy in STRATEGIES {
        for tolerance in [None, Some(Scalar::from(150i64)), Some(Scalar::from(2.7f64))] {
            let key =
                || (col("t").cast(DataType::Float64) / lit(4.0)).cast(DataType::Decimal(12, 2));
            let (l, r) = (
                left.clone().with_column(key()),
                right.clone().with_column(key()),
            );
            let args = asof(strategy, true, tolerance.clone(), true);
            let lf = l.join(r, [col("t")], [col("t")], args);
            assert_gpu_eq(&format!("decimals {strategy:?} {tolerance:?}"), lf);
        }
    }
    // Timestamps within a tolerance given as a duration ("2d": Polars
    // takes it in the keys' unit).
    let stamp = || (col("t") * lit(day)).cast(DataType::Datetime(TimeUnit::Milliseconds, None));
    for strategy in STRATEGIES {
        let mut args = asof(strategy, true, None, true);
        if let JoinType::AsOf(options) = &mut args.how {
            options.tolerance_str = Some("2d".into());
        }
        let lf = (left.clone().with_column(stamp())).join(
            right.clone().with_column(stamp()),
            [col("t")],
            [col("t")],
            args,
        );
        assert_gpu_eq(&format!("timestamps {strategy:?}"), lf);
    }
}

#[test]
fn join_asof_keeps_both_keys_of_other_names_and_takes_slices_and_empty_sides() {
    let (left, right) = sides();
    let renamed = right.clone().rename(["t"], ["u"], true);
    for strategy in STRATEGIES {
        let args = || asof(strategy, true, None, true);
        let lf = (left.clone()).join(renamed.clone(), [col("t")], [col("u")], args());
        assert_gpu_eq(&format!("{strategy:?} of other names"), lf);
        let lf = (left.clone())
            .join(right.clone(), [col("t")], [col("t")], args())
            .slice(3, 4);
        assert_gpu_eq(&format!("{strategy:?} sliced"), lf);
        let none = |lf: LazyFrame| lf.filter(col("t").gt(lit(100i64)));
        let lf = none(left.clone()).join(right.clone(), [col("t")], [col("t")], args());
        assert_gpu_eq(&format!("{strategy:?} of no left rows"), lf);
        let lf = (left.clone()).join(none(right.clone()), [col("t")], [col("t")], args());
        assert_gpu_eq(&format!("{strategy:?} of no right rows"), lf);
        // Nulls last on both sides, where Polars reads the keys unchecked.
        let last = |lf: LazyFrame| {
            lf.sort(
                ["t"],
                SortMultipleOptions::default()
                    .with_nulls_last(true)
                    .with_maintain_order(true),
            )
        };
        let unchecked = asof(strategy, false, None, false);
        let lf = last(left.clone()).join(last(right.clone()), [col("t")], [col("t")], unchecked);
        assert_gpu_eq(&format!("{strategy:?} of nulls last"), lf);
    }
}

#[test]
fn join_asof_on_expressions_of_each_sides_rows_matches_polars() {
    // Keys computed (Polars adds no column for them; keys named alike
    // drop the right column of that name): integers, floats, temporal
    // values, of other names too.
    let (left, right) = sides();
    let day = 86_400_000i64;
    let stamp = |of: Expr| (of * lit(day)).cast(DataType::Datetime(TimeUnit::Milliseconds, None));
    let keys = [
        (col("t") * lit(2i64), col("t") + lit(3i64)),
        (
            col("t").cast(DataType::Float64) * lit(0.5),
            col("t").cast(DataType::Float64) / lit(2.0),
        ),
        (stamp(col("t")), stamp(col("t") - lit(1i64))),
        (
            col("v").cast(DataType::Int32),
            col("t").cast(DataType::Int32) * lit(3i32),
        ),
    ];
    for (i, (left_on, right_on)) in keys.into_iter().enumerate() {
        for strategy in STRATEGIES {
            let args = asof(strategy, true, None, true);
            let lf =
                (left.clone()).join(right.clone(), [left_on.clone()], [right_on.clone()], args);
            assert_gpu_eq(&format!("keys {i} {strategy:?}"), lf);
        }
    }
    // By groups too.
    let (left, right) = grouped_sides();
    let args = by(
        asof(AsofStrategy::Nearest, true, None, false),
        &["g"],
        &["g"],
    );
    let ten = || col("t") * lit(10i64);
    let lf = left.join(right, [ten()], [ten()], args);
    assert_gpu_eq("keys computed, by g", lf);
}

#[test]
fn join_asof_of_unsorted_keys_leaves_polars_its_error_or_its_answer() {
    let (left, right) = sides();
    let reversed = right.clone().reverse();
    for strategy in STRATEGIES {
        // Polars checks the keys sorted and raises; the device checks too.
        let checked = asof(strategy, true, None, true);
        let lf = (left.clone()).join(reversed.clone(), [col("t")], [col("t")], checked);
        assert_cpu_error(lf);
        // Unchecked, Polars' scans read the keys as they come.
        let unchecked = || asof(strategy, true, None, false);
        let lf = (left.clone()).join(reversed.clone(), [col("t")], [col("t")], unchecked());
        assert_cpu_answer_with_reason(lf, "the right key `col(\"t\")` is not sorted");
        let lf = (left.clone().reverse()).join(right.clone(), [col("t")], [col("t")], unchecked());
        assert_cpu_answer_with_reason(lf, "the left key `col(\"t\")` is not sorted");
    }
    // A key computed from its side's rows is named as Polars writes it.
    let negated = || col("t") * lit(-1i64);
    let unchecked = asof(AsofStrategy::Backward, true, None, false);
    let lf = left.join(right, [negated()], [negated()], unchecked);
    assert_cpu_answer_with_reason(lf, "the left key `col(\"t\") * -1` is not sorted");
}

#[test]
fn join_asof_takes_left_nulls_anywhere_and_right_nulls_at_either_end_where_polars_does() {
    // Unchecked, a left key's nulls anywhere (Polars' scans pass them by);
    // by groups (where Polars checks nothing), a left group's nulls
    // anywhere and a right group's at either end of it.
    let left = df!(
        "t" => [Some(1i64), None, Some(2), Some(4), None, Some(7), Some(10), None],
        "g" => ["a", "b", "a", "b", "a", "b", "a", "b"],
        "v" => [1, 2, 3, 4, 5, 6, 7, 8],
    )
    .unwrap()
    .lazy();
    let right = df!(
        "t" => [Some(0i64), Some(2), Some(6), None, None, None, Some(3), Some(5), Some(9)],
        "g" => ["a", "a", "a", "a", "b", "b", "b", "b", "b"],
        "w" => [10, 11, 12, 13, 14, 15, 16, 17, 18],
    )
    .unwrap()
    .lazy();
    for strategy in STRATEGIES {
        for allow_eq in [true, false] {
            let unchecked = || asof(strategy, allow_eq, Some(Scalar::from(3i64)), false);
            let ungrouped = right.clone().filter(col("g").eq(lit("a")));
            let lf = (left.clone()).join(ungrouped, [col("t")], [col("t")], unchecked());
            assert_gpu_eq(&format!("{strategy:?} allow_eq={allow_eq}, left nulls"), lf);
            let lf = (left.clone()).join(
                right.clone(),
                [col("t")],
                [col("t")],
                by(unchecked(), &["g"], &["g"]),
            );
            assert_gpu_eq(&format!("{strategy:?} allow_eq={allow_eq} by g"), lf);
        }
    }
    // A right group's null between its keys: Polars reads them as they come.
    let inside = df!(
        "t" => [Some(0i64), None, Some(2), Some(3)],
        "g" => ["a", "a", "a", "b"],
        "w" => [10, 11, 12, 13],
    )
    .unwrap()
    .lazy();
    let lf = left.join(
        inside,
        [col("t")],
        [col("t")],
        by(
            asof(AsofStrategy::Nearest, true, None, false),
            &["g"],
            &["g"],
        ),
    );
    assert_cpu_answer_with_reason(
        lf,
        "the right key `col(\"t\")` is not sorted within its groups",
    );
}

/// `args` by the groups of the columns named.
pub(super) fn by(mut args: JoinArgs, left: &[&str], right: &[&str]) -> JoinArgs {
    if let JoinType::AsOf(options) = &mut args.how {
        options.left_by = Some(left.iter().map(|&name| name.into()).collect());
        options.right_by = Some(right.iter().map(|&name| name.into()).collect());
    }
    args
}

/// Sides keyed by `t` within groups `g` (texts, a null group on each side;
/// `k` and `q` the same groups as integers):
/// the left keys ascending throughout, the right ones within each group
/// only, nulls first in each.
pub(super) fn grouped_sides() -> (LazyFrame, LazyFrame) {
    let left = df!(
        "t" => [None, Some(1i64), Some(2), Some(2), Some(4), Some(6), Some(7), Some(10), Some(15), Some(20), Some(31)],
        "g" => [Some("a"), Some("b"), Some("a"), Some("b"), None, Some("a"), Some("c"), Some("b"), Some("a"), Some("b"), Some("a")],
        "k" => [Some(1i16), Some(2), Some(1), Some(2), None, Some(1), Some(3), Some(2), Some(1), Some(2), Some(1)],
        "v" => [10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20],
    )
    .unwrap()
    .lazy();
    let right = df!(
        "t" => [Some(5i64), None, Some(0), Some(2), Some(12), Some(2), Some(7), Some(30), Some(7), Some(3)],
        "g" => [Some("b"), Some("a"), Some("a"), Some("a"), Some("b"), None, Some("a"), Some("b"), Some("a"), None],
        "q" => [Some(2i16), Some(1), Some(1), Some(1), Some(2), None, Some(1), Some(2), Some(1), None],
        "v" => [Some(-1i32), Some(0), None, Some(2), Some(3), Some(4), Some(5), Some(6), Some(7), Some(8)],
    )
    .unwrap()
    .lazy();
    (left, right)
}

#[test]
fn join_asof_by_groups_matches_polars_within_each_group() {
    let (left, right) = grouped_sides();
    for strategy in STRATEGIES {
        for allow_eq in [true, false] {
            for tolerance in [None, Some(1i64)] {
                let args = asof(strategy, allow_eq, tolerance.map(Scalar::from), true);
                let lf = (left.clone()).join(
                    right.clone(),
                    [col("t")],
                    [col("t")],
                    by(args, &["g"], &["g"]),
                );
                let name = format!("{strategy:?} by g allow_eq={allow_eq} tolerance={tolerance:?}");
                assert_gpu_eq(&name, lf);
            }
        }
        // By integers of other names (the right ones dropped), sliced.
        let args = asof(strategy, true, None, false);
        let lf = (left.clone())
            .join(
                right.clone(),
                [col("t")],
                [col("t")],
                by(args, &["k"], &["q"]),
            )
            .slice(2, 6);
        assert_gpu_eq(&format!("{strategy:?} by integers, sliced"), lf);
        // No rows on one side.
        let none = |lf: LazyFrame| lf.filter(col("t").gt(lit(100i64)));
        let args = || by(asof(strategy, true, None, true), &["g"], &["g"]);
        let lf = none(left.clone()).join(right.clone(), [col("t")], [col("t")], args());
        assert_gpu_eq(&format!("{strategy:?} by g of no left rows"), lf);
        let lf = (left.clone()).join(none(right.clone()), [col("t")], [col("t")], args());
        assert_gpu_eq(&format!("{strategy:?} by g of no right rows"), lf);
    }
    // Not sorted within a group: Polars reads the keys as they come.
    let lf = (left.clone()).join(
        right.clone().reverse(),
        [col("t")],
        [col("t")],
        by(
            asof(AsofStrategy::Backward, true, None, true),
            &["g"],
            &["g"],
        ),
    );
    assert_cpu_answer_with_reason(lf, "is not sorted within its groups");
}

#[test]
fn join_asof_by_several_columns_and_by_floats_matches_polars() {
    // Groups of two and three columns (texts, integers, booleans, floats:
    // a row with a null among them matches nothing), and of one float
    // column (-0.0 with 0.0, every NaN alike, as Polars' hashes take
    // them).
    let (left, right) = grouped_sides();
    let floats = |lf: LazyFrame, of: &str| {
        lf.with_columns([
            when(col(of).eq(lit(1i16)))
                .then(lit(-0.0f64))
                .when(col(of).eq(lit(2i16)))
                .then(lit(f64::NAN))
                .otherwise(col(of).cast(DataType::Float64))
                .alias("f"),
            (col("v") % lit(2)).eq(lit(0)).alias("even"),
        ])
    };
    let right = right.with_columns([
        when(col("q").eq(lit(1i16)))
            .then(lit(0.0f64))
            .when(col("q").eq(lit(2i16)))
            .then(lit(-f64::NAN))
            .otherwise(col("q").cast(DataType::Float64))
            .alias("f"),
        (col("t") % lit(3i64)).eq(lit(0)).alias("even"),
    ]);
    let left = floats(left, "k");
    let pairs: [(&[&str], &[&str]); 4] = [
        (&["g", "k"], &["g", "q"]),
        (&["k", "even"], &["q", "even"]),
        (&["g", "f", "even"], &["g", "f", "even"]),
        (&["f"], &["f"]),
    ];
    assert_by_groups_match(&left, &right, &pairs, None);
}

/// Every strategy of `left` and `right` on `t` by each pair of `by`
/// columns, within `tolerance`, against Polars.
fn assert_by_groups_match(
    left: &LazyFrame,
    right: &LazyFrame,
    pairs: &[(&[&str], &[&str])],
    tolerance: Option<Scalar>,
) {
    for strategy in STRATEGIES {
        for (left_by, right_by) in pairs {
            let args = asof(strategy, true, tolerance.clone(), false);
            let lf = (left.clone()).join(
                right.clone(),
                [col("t")],
                [col("t")],
                by(args, left_by, right_by),
            );
            assert_gpu_eq(&format!("{strategy:?} by {left_by:?}, {right_by:?}"), lf);
        }
    }
}

#[test]
fn join_asof_by_categoricals_enums_and_decimals_matches_polars() {
    // The groups `g` as a categorical (the global categories, cast on the
    // CPU on each side, so each side adds its texts in its own order) and
    // as an enum, `k`/`q` as decimals: equal by code, by value.
    let (left, right) = grouped_sides();
    let categorical = DataType::from_categories(Categories::global());
    let enumeration =
        DataType::from_frozen_categories(FrozenCategories::new(["c", "b", "a"]).unwrap());
    let typed = |lf: LazyFrame, number: &str| {
        lf.with_columns([
            col("g").cast(categorical.clone()).alias("gc"),
            col("g").cast(enumeration.clone()).alias("ge"),
            col(number).cast(DataType::Decimal(10, 2)).alias("d"),
        ])
        .collect()
        .unwrap()
        .lazy()
    };
    let (left, right) = (typed(left, "k"), typed(right, "q"));
    let pairs: [(&[&str], &[&str]); 4] = [
        (&["gc"], &["gc"]),
        (&["ge"], &["ge"]),
        (&["d"], &["d"]),
        (&["gc", "d"], &["gc", "d"]),
    ];
    assert_by_groups_match(&left, &right, &pairs, Some(Scalar::from(3i64)));
}

#[test]
fn join_asof_on_text_and_boolean_keys_matches_polars_backward_and_forward() {
    // Texts by their bytes (an empty text, a prefix, non-ASCII letters),
    // ranked among both sides' texts; booleans false before true. By the
    // nearest key, or within a tolerance, Polars raises its error.
    let left = df!(
        "s" => [None, Some(""), Some("a"), Some("ab"), Some("b"), Some("z"), Some("é")],
        "v" => [1, 2, 3, 4, 5, 6, 7],
    )
    .unwrap()
    .lazy();
    let right = df!(
        "s" => [None, Some("a"), Some("a"), Some("abc"), Some("ba"), Some("é")],
        "w" => [10, 11, 12, 13, 14, 15],
    )
    .unwrap()
    .lazy();
    let flags = |lf: LazyFrame| lf.with_column(col("s").str().len_bytes().gt(lit(1u32)).alias("b"));
    let (left_flags, right_flags) = (
        flags(left.clone()).sort(["b"], Default::default()),
        flags(right.clone()).sort(["b"], Default::default()),
    );
    for strategy in [AsofStrategy::Backward, AsofStrategy::Forward] {
        for allow_eq in [true, false] {
            let args = || asof(strategy, allow_eq, None, true);
            let lf = (left.clone()).join(right.clone(), [col("s")], [col("s")], args());
            assert_gpu_eq(&format!("texts {strategy:?} allow_eq={allow_eq}"), lf);
            let lf = (left_flags.clone()).join(right_flags.clone(), [col("b")], [col("b")], args());
            assert_gpu_eq(&format!("booleans {strategy:?} allow_eq={allow_eq}"), lf);
        }
    }
    for args in [
        asof(AsofStrategy::Nearest, true, None, true),
        asof(AsofStrategy::Backward, true, Some(Scalar::from(1i64)), true),
    ] {
        let lf = (left.clone()).join(right.clone(), [col("s")], [col("s")], args);
        assert_cpu_error(lf);
    }
    // Of a list, Polars' error too.
    let lists = |lf: LazyFrame| lf.with_column(col("s").str().split(lit(" ")));
    let args = asof(AsofStrategy::Backward, true, None, false);
    let lf = lists(left).join(lists(right), [col("s")], [col("s")], args);
    assert_cpu_error(lf);
}

#[test]
fn join_asof_on_float_keys_compares_them_in_polars_total_order() {
    // Nulls first, -0.0 beside 0.0, NaN last (Polars' order of floats);
    // right sides ending in a NaN, in a null (which Polars does not check
    // sorted), in an infinity.
    let left = df!(
        "x" => [None, Some(-1.5f64), Some(-0.0), Some(0.0), Some(0.5), Some(1.0), Some(2.0), Some(f64::INFINITY), Some(f64::NAN), Some(f64::NAN)],
        "v" => [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    )
    .unwrap()
    .lazy();
    let rights = [
        (
            df!(
                "x" => [None, Some(-2.0f64), Some(0.0), Some(-0.0), Some(1.0), Some(f64::NAN)],
                "w" => ["n", "a", "b", "c", "d", "e"],
            ),
            true,
        ),
        (
            df!(
                "x" => [Some(-2.0f64), Some(0.0), Some(0.75), Some(1.0), Some(1.0), None],
                "w" => ["a", "b", "c", "d", "e", "n"],
            ),
            false,
        ),
        (
            df!(
                "x" => [Some(f64::NEG_INFINITY), Some(0.25), Some(1.0), Some(f64::INFINITY)],
                "w" => ["a", "b", "c", "d"],
            ),
            true,
        ),
    ];
    let tolerances = [
        None,
        Some(Scalar::from(0.5f64)),
        Some(Scalar::from(1i64)),
        Some(Scalar::from(-0.25f64)),
        Some(Scalar::from(f64::NAN)),
        Some(Scalar::from(f64::INFINITY)),
    ];
    for (i, (right, checked)) in rights.into_iter().enumerate() {
        let right = right.unwrap().lazy();
        for dtype in [DataType::Float64, DataType::Float32] {
            for strategy in STRATEGIES {
                for allow_eq in [true, false] {
                    for tolerance in &tolerances {
                        let key = || col("x").cast(dtype.clone());
                        let lf = (left.clone().with_column(key())).join(
                            right.clone().with_column(key()),
                            [col("x")],
                            [col("x")],
                            asof(strategy, allow_eq, tolerance.clone(), checked),
                        );
                        let name = format!(
                            "right {i} {dtype} {strategy:?} allow_eq={allow_eq} \
                             tolerance={tolerance:?}"
                        );
                        assert_gpu_eq(&name, lf);
                    }
                }
            }
        }
    }
}
