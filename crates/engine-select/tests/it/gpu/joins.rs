//! Joins on the device: every kind, keys of every type and of expressions, nulls, validation, order and slices.

use super::*;

fn customers() -> LazyFrame {
    let mut df = df!(
        "key" => [Some(5i64), Some(0), None, Some(5), Some(42), Some(-3)],
        "name" => [Some("five"), Some("zero"), Some("nobody"), Some("five again"), None, Some("minus three")],
        "score" => [Some(1.5), None, Some(3.0), Some(4.0), Some(5.0), Some(6.0)],
    )
    .unwrap();
    let days = Series::new(
        "day".into(),
        [
            Some(19_000i32),
            None,
            Some(19_001),
            Some(18_999),
            Some(0),
            Some(19_000),
        ],
    );
    df.with_column(days.cast(&DataType::Date).unwrap().into())
        .unwrap();
    df.lazy()
}

#[test]
fn joins_match_the_cpu() {
    let ordered = |how| JoinArgs {
        maintain_order: MaintainOrderJoin::Left,
        ..JoinArgs::new(how)
    };
    let cases: Vec<(&str, LazyFrame)> = vec![
        (
            "inner",
            table().join(
                customers(),
                [col("i")],
                [col("key")],
                ordered(JoinType::Inner),
            ),
        ),
        (
            "left",
            table().join(
                customers(),
                [col("i")],
                [col("key")],
                ordered(JoinType::Left),
            ),
        ),
        (
            "semi",
            table().join(
                customers(),
                [col("i")],
                [col("key")],
                JoinArgs::new(JoinType::Semi),
            ),
        ),
        (
            "anti",
            table().join(
                customers(),
                [col("i")],
                [col("key")],
                JoinArgs::new(JoinType::Anti),
            ),
        ),
        (
            "dates",
            table().join(
                customers(),
                [col("d")],
                [col("day")],
                ordered(JoinType::Inner),
            ),
        ),
        (
            "two keys",
            table().join(
                customers(),
                [col("i"), col("d")],
                [col("key"), col("day")],
                ordered(JoinType::Inner),
            ),
        ),
        (
            "a float key and an integer key",
            table().join(
                customers(),
                [col("f"), col("i")],
                [col("score"), col("key")],
                ordered(JoinType::Inner),
            ),
        ),
        ("cross", table().cross_join(customers(), None)),
        (
            "cross with one aggregated row",
            table().cross_join(customers().select([col("score").max().alias("best")]), None),
        ),
        (
            "cross fused with a filter",
            table()
                .cross_join(customers(), None)
                .filter(col("i").gt(col("key")).and(col("s").neq(lit("x")))),
        ),
        (
            "cross with an empty side",
            table().cross_join(customers().filter(col("key").gt(lit(100i64))), None),
        ),
        (
            "suffix clash",
            table().select([col("i"), col("s").alias("name")]).join(
                customers(),
                [col("i")],
                [col("key")],
                ordered(JoinType::Left),
            ),
        ),
        (
            "join then filter and sort",
            table()
                .join(
                    customers(),
                    [col("i")],
                    [col("key")],
                    ordered(JoinType::Inner),
                )
                .filter(col("score").gt(lit(2.0)))
                .sort(
                    ["score", "i"],
                    SortMultipleOptions::default().with_maintain_order(true),
                ),
        ),
    ];
    for (name, lf) in cases {
        assert_gpu_eq(name, lf);
    }
}

/// `left` joined with `right` on the named keys as an inner, left, semi and
/// anti join: each on the device equals the CPU's.
fn assert_joins_eq(
    name: &str,
    (left, left_on): (LazyFrame, &[&str]),
    (right, right_on): (LazyFrame, &[&str]),
) {
    let columns = |names: &[&str]| names.iter().map(|name| col(*name)).collect::<Vec<_>>();
    for kind in [
        JoinType::Inner,
        JoinType::Left,
        JoinType::Semi,
        JoinType::Anti,
    ] {
        assert_gpu_eq(
            &format!("{kind:?} join on {name}"),
            left.clone().join(
                right.clone(),
                columns(left_on),
                columns(right_on),
                JoinArgs::new(kind),
            ),
        );
    }
}

#[test]
fn joins_on_several_or_text_keys_match_the_cpu() {
    assert_joins_eq(
        "an integer and a date key",
        (table(), &["i", "d"]),
        (customers(), &["key", "day"]),
    );
    assert_joins_eq(
        "a float and an integer key",
        (table(), &["f", "i"]),
        (customers(), &["score", "key"]),
    );
    assert_joins_eq(
        "a text key (nulls, empty and repeated texts)",
        (orders(), &["status"]),
        (
            customers().with_columns([col("name").alias("status")]),
            &["status"],
        ),
    );
    assert_joins_eq(
        "a text and a float key",
        (table(), &["s", "f"]),
        (customers(), &["name", "score"]),
    );
}

#[test]
fn joins_on_float_and_boolean_keys_match_the_cpu() {
    let left = df!(
        "f" => [Some(1.5), Some(f64::NAN), Some(-0.0), Some(0.0), None, Some(2.0), Some(f64::NAN), Some(1.5)],
        "b" => [Some(true), Some(false), None, Some(true), Some(false), Some(true), None, Some(false)],
        "v" => [0i64, 1, 2, 3, 4, 5, 6, 7],
    )
    .unwrap()
    .lazy()
    .with_columns([col("f").cast(DataType::Float32).alias("g")]);
    let right = df!(
        "f" => [Some(f64::NAN), Some(0.0), Some(1.5), None, Some(3.0), Some(-0.0)],
        "b" => [Some(false), None, Some(true), Some(true), Some(false), Some(false)],
        "w" => [10i64, 11, 12, 13, 14, 15],
    )
    .unwrap()
    .lazy()
    .with_columns([col("f").cast(DataType::Float32).alias("g")]);
    assert_joins_eq(
        "a float key (NaN, -0.0 and 0.0, nulls, repeats)",
        (left.clone(), &["f"]),
        (right.clone(), &["f"]),
    );
    assert_joins_eq(
        "an f32 key",
        (left.clone(), &["g"]),
        (right.clone(), &["g"]),
    );
    assert_joins_eq(
        "a boolean key (nulls)",
        (left.clone(), &["b"]),
        (right.clone(), &["b"]),
    );
    assert_joins_eq(
        "a boolean and a float key",
        (left.clone(), &["b", "f"]),
        (right.clone(), &["b", "f"]),
    );
    // A boolean beside a key that is hashed: compared as 0 and 1; an f32
    // as f64.
    let parity =
        |lf: LazyFrame, column: &str| lf.with_columns([(col(column) % lit(2i64)).alias("p")]);
    assert_joins_eq(
        "a float and a boolean key",
        (left.clone(), &["f", "b"]),
        (right.clone(), &["f", "b"]),
    );
    assert_joins_eq(
        "a boolean and an f32 key",
        (left.clone(), &["b", "g"]),
        (right.clone(), &["b", "g"]),
    );
    assert_joins_eq(
        "an integer and a boolean key",
        (parity(left, "v"), &["p", "b"]),
        (parity(right, "w"), &["p", "b"]),
    );
}

#[test]
fn joins_with_nulls_equal_match_nulls_on_the_device() {
    // With several keys, every key is coded: null one value among the others.
    for (name, left_on, right_on) in [
        ("an integer key", vec!["i"], vec!["key"]),
        ("a text key", vec!["s"], vec!["name"]),
        ("a float key", vec!["f"], vec!["score"]),
        ("two keys", vec!["i", "d"], vec!["key", "day"]),
    ] {
        for how in keyed_joins_but_full() {
            let mut args = JoinArgs::new(how.clone());
            args.nulls_equal = true;
            let columns = |names: &[&str]| names.iter().map(|name| col(*name)).collect::<Vec<_>>();
            assert_gpu_eq(
                &format!("{how:?} join with nulls equal on {name}"),
                table().join(customers(), columns(&left_on), columns(&right_on), args),
            );
        }
    }
}

#[test]
fn right_and_full_joins_match_the_cpu() {
    let customers = || {
        customers().with_columns([
            // Initials: some equal a text of the left side ("z").
            col("name")
                .str()
                .slice(lit(0i64), lit(1u64))
                .alias("initial"),
            (col("key") * lit(2i64)).alias("double"),
        ])
    };
    for (name, left_on, right_on) in [
        ("an integer key", vec![col("i")], vec![col("key")]),
        ("a text key", vec![col("s")], vec![col("initial")]),
        ("a float key", vec![col("f")], vec![col("score")]),
        (
            "two keys",
            vec![col("i"), col("d")],
            vec![col("key"), col("day")],
        ),
    ] {
        assert_every_join_eq(
            name,
            (table(), left_on),
            (customers(), right_on),
            &[
                JoinCoalesce::JoinSpecific,
                JoinCoalesce::CoalesceColumns,
                JoinCoalesce::KeepColumns,
            ],
        );
    }
}

/// The kinds of joins on keys whose rows come in an order Polars defines.
fn keyed_joins_but_full() -> [JoinType; 5] {
    [
        JoinType::Inner,
        JoinType::Left,
        JoinType::Semi,
        JoinType::Anti,
        JoinType::Right,
    ]
}

/// `left` joined with `right` on the keys in every kind but cross, with
/// each of the `coalesce` options: on the device each equals the CPU's (a
/// full join's rows sorted, their order being Polars' to choose).
fn assert_every_join_eq(
    name: &str,
    (left, left_on): (LazyFrame, Vec<Expr>),
    (right, right_on): (LazyFrame, Vec<Expr>),
    coalesce: &[JoinCoalesce],
) {
    for &coalesce in coalesce {
        let join = |how| {
            left.clone().join(
                right.clone(),
                left_on.clone(),
                right_on.clone(),
                JoinArgs::new(how).with_coalesce(coalesce),
            )
        };
        for how in keyed_joins_but_full() {
            assert_gpu_eq(&format!("{how:?} join on {name} ({coalesce:?})"), join(how));
        }
        assert_gpu_eq(
            &format!("full join on {name} ({coalesce:?})"),
            sorted_rows(join(JoinType::Full)),
        );
    }
}

/// `lf` sorted by all its columns (booleans aside: the device sorts none),
/// for results in an order Polars leaves open.
fn sorted_rows(lf: LazyFrame) -> LazyFrame {
    let names: Vec<PlSmallStr> = lf
        .clone()
        .collect_schema()
        .unwrap()
        .iter()
        .filter(|(_, dtype)| **dtype != DataType::Boolean)
        .map(|(name, _)| name.clone())
        .collect();
    lf.sort(
        names,
        SortMultipleOptions::default()
            .with_nulls_last(true)
            .with_maintain_order(true),
    )
}

#[test]
fn joins_on_expressions_and_on_keys_of_differing_types_match_the_cpu() {
    let left = || {
        df!(
            "a" => [Some(1i32), Some(2), None, Some(4), Some(2), Some(-5), Some(7)],
            "s" => [Some("Ab"), Some("b"), Some("C"), None, Some("ab"), Some(""), Some("B")],
            "v" => [0i64, 1, 2, 3, 4, 5, 6],
        )
        .unwrap()
        .lazy()
    };
    let right = || {
        df!(
            "k" => [Some(2i64), Some(4), Some(8), None, Some(1), Some(-5)],
            "t" => [Some("ab"), None, Some("c"), Some("b"), Some(""), Some("x")],
            "w" => [10i64, 11, 12, 13, 14, 15],
        )
        .unwrap()
        .lazy()
    };
    for (name, left_on, right_on) in [
        ("i32 to i64 keys", vec![col("a")], vec![col("k")]),
        (
            "integer expressions",
            vec![col("a") % lit(3i32)],
            vec![(col("k") % lit(3i64)).cast(DataType::Int32)],
        ),
        (
            "text expressions",
            vec![col("s").str().to_lowercase()],
            vec![col("t")],
        ),
        (
            "an expression and a column",
            vec![col("a") * lit(2i32), col("s").str().to_lowercase()],
            vec![col("k").cast(DataType::Int32), col("t")],
        ),
    ] {
        assert_every_join_eq(
            name,
            (left(), left_on),
            (right(), right_on),
            &[JoinCoalesce::JoinSpecific, JoinCoalesce::KeepColumns],
        );
    }
    // Coalesced full join keys of differing types: Polars casts the key
    // column in a projection before the join, whose schema still gives the
    // old type; that projection falls back.
    assert_cpu_answer_with_reason(
        sorted_rows(left().join(
            right(),
            [col("a")],
            [col("k")],
            JoinArgs::new(JoinType::Full).with_coalesce(JoinCoalesce::CoalesceColumns),
        )),
        "is i32 in Polars' plan but its expression gives i64",
    );
}

#[test]
fn sliced_joins_and_ordered_group_bys_run_on_the_device() {
    for how in [
        JoinType::Inner,
        JoinType::Left,
        JoinType::Right,
        JoinType::Semi,
        JoinType::Anti,
    ] {
        for (offset, len) in [(0i64, 2u32), (1, 3), (-2, 5), (10, 3)] {
            assert_gpu_eq(
                &format!("{how:?} join sliced at ({offset}, {len})"),
                table()
                    .join(
                        customers(),
                        [col("i")],
                        [col("key")],
                        JoinArgs::new(how.clone()),
                    )
                    .slice(offset, len),
            );
        }
    }
    for (offset, len) in [(0i64, 2u32), (1, 2), (-1, 1)] {
        assert_gpu_eq(
            &format!("ordered group-by sliced at ({offset}, {len})"),
            table()
                .group_by_stable([col("b")])
                .agg([col("u").sum()])
                .slice(offset, len),
        );
    }
}

#[test]
fn join_validation_matches_the_cpu() {
    let left = || {
        df!("k" => [Some(1i64), Some(2), Some(2), Some(3)], "a" => ["w", "x", "y", "z"])
            .unwrap()
            .lazy()
    };
    let right = |keys: &[Option<i64>]| {
        let b: Vec<i64> = (0..keys.len() as i64).collect();
        df!("k" => keys, "b" => b).unwrap().lazy()
    };
    // (A full join's rows come in an order Polars leaves open.)
    let join = |l: LazyFrame, r: LazyFrame, how: JoinType, validation| {
        let maintain_order = match how {
            JoinType::Full => MaintainOrderJoin::None,
            _ => MaintainOrderJoin::Left,
        };
        let joined = l.join(
            r,
            [col("k")],
            [col("k")],
            JoinArgs {
                validation,
                maintain_order,
                ..JoinArgs::new(how.clone())
            },
        );
        match how {
            JoinType::Full => sorted_rows(joined),
            _ => joined,
        }
    };
    let unique = [Some(2i64), Some(3), Some(9)];
    for how in [JoinType::Inner, JoinType::Left, JoinType::Full] {
        // Valid: the side that must be unique is.
        assert_gpu_eq(
            &format!("{how} m:1"),
            join(
                left(),
                right(&unique),
                how.clone(),
                JoinValidation::ManyToOne,
            ),
        );
        assert_gpu_eq(
            &format!("{how} 1:m"),
            join(
                right(&unique),
                left(),
                how.clone(),
                JoinValidation::OneToMany,
            ),
        );
        assert_gpu_eq(
            &format!("{how} 1:1"),
            join(
                right(&unique),
                right(&[Some(3), Some(4)]),
                how.clone(),
                JoinValidation::OneToOne,
            ),
        );
        // Invalid: Polars raises its own error.
        assert_cpu_error(join(left(), left(), how.clone(), JoinValidation::ManyToOne));
        assert_cpu_error(join(
            left(),
            right(&unique),
            how.clone(),
            JoinValidation::OneToOne,
        ));
    }
    // A null key on a side that must be unique: Polars' engine decides.
    assert_cpu_answer_with_reason(
        join(
            left(),
            right(&[Some(2), None, None]),
            JoinType::Left,
            JoinValidation::ManyToOne,
        ),
        "join keys did not fulfill m:1 validation",
    );
    // Polars validates no other join.
    assert_cpu_error(join(
        left(),
        right(&unique),
        JoinType::Semi,
        JoinValidation::ManyToOne,
    ));
}

#[test]
fn joins_keep_the_order_asked_for_or_fall_back() {
    let left = || {
        df!("k" => [3i64, 1, 2, 1], "a" => [0i64, 1, 2, 3])
            .unwrap()
            .lazy()
    };
    let right = || {
        df!("k" => [1i64, 9, 3, 1], "b" => [0i64, 1, 2, 3])
            .unwrap()
            .lazy()
    };
    let join = |how: JoinType, maintain_order| {
        left().join(
            right(),
            [col("k")],
            [col("k")],
            JoinArgs {
                maintain_order,
                ..JoinArgs::new(how)
            },
        )
    };
    use MaintainOrderJoin::{Left, LeftRight, Right, RightLeft};
    for (how, order) in [
        (JoinType::Inner, Left),
        (JoinType::Inner, LeftRight),
        (JoinType::Inner, Right),
        (JoinType::Inner, RightLeft),
        (JoinType::Left, Left),
        (JoinType::Left, LeftRight),
        (JoinType::Left, Right),
        (JoinType::Left, RightLeft),
        (JoinType::Right, Left),
        (JoinType::Right, LeftRight),
        (JoinType::Right, Right),
        (JoinType::Right, RightLeft),
        (JoinType::Full, LeftRight),
        (JoinType::Full, RightLeft),
        // Polars keeps a semi or anti join's left order whatever it asks.
        (JoinType::Semi, Right),
        (JoinType::Anti, RightLeft),
    ] {
        assert_gpu_eq(&format!("{how} join keeping {order:?}"), join(how, order));
    }
    // Orders the device does not produce fall back, with the CPU's rows.
    for (how, order, reason) in [
        (
            JoinType::Full,
            Left,
            "full join with maintain_order=\"left\"",
        ),
        (
            JoinType::Full,
            Right,
            "full join with maintain_order=\"right\"",
        ),
    ] {
        assert_cpu_answer_with_reason(join(how, order), reason);
    }
}

/// Right and full joins keeping the left's order, then the right's
/// (Polars sorts the pairs by left row, the right rows matching nothing
/// last, in order), full joins keeping the right's then the left's, and
/// cross joins keeping the right's: keys repeating on both sides, some
/// matching nothing, some null; coalesced or not; sliced.
#[test]
fn right_full_and_cross_joins_keeping_an_order_run_on_the_device() {
    let (left, right) = (repeating_left, repeating_right);
    use MaintainOrderJoin::{Left, LeftRight, Right, RightLeft};
    let cases = [
        (JoinType::Right, Left),
        (JoinType::Right, LeftRight),
        (JoinType::Full, LeftRight),
        (JoinType::Full, RightLeft),
    ];
    for (how, order) in cases {
        for coalesce in [JoinCoalesce::CoalesceColumns, JoinCoalesce::KeepColumns] {
            let args = JoinArgs {
                maintain_order: order,
                coalesce,
                ..JoinArgs::new(how.clone())
            };
            let joined = || left().join(right(), [col("k")], [col("k")], args.clone());
            let name = format!("{how:?} join keeping {order:?}, {coalesce:?}");
            assert_gpu_eq(&name, joined());
            assert_gpu_eq(&format!("{name}, sliced"), joined().slice(2, 5));
        }
    }
    for order in [Right, RightLeft] {
        let args = JoinArgs {
            maintain_order: order,
            ..JoinArgs::new(JoinType::Cross)
        };
        let joined = || left().join(right(), [], [], args.clone());
        assert_gpu_eq(&format!("cross join keeping {order:?}"), joined());
        assert_gpu_eq(
            &format!("cross join keeping {order:?}, sliced"),
            joined().slice(3, 9),
        );
    }
}

/// A left frame whose keys repeat, some matching nothing in
/// [`repeating_right`], one null.
fn repeating_left() -> LazyFrame {
    df!(
        "k" => [Some(2i64), Some(1), None, Some(2), Some(7), Some(1), Some(3)],
        "l" => [0i64, 1, 2, 3, 4, 5, 6],
    )
    .unwrap()
    .lazy()
}

/// A right frame whose keys repeat, some matching nothing in
/// [`repeating_left`], one null.
fn repeating_right() -> LazyFrame {
    df!(
        "k" => [Some(3i64), Some(2), Some(1), None, Some(2), Some(9)],
        "r" => ["a", "b", "c", "d", "e", "f"],
    )
    .unwrap()
    .lazy()
}

/// Inner and left joins keeping the right frame's order (`Right`,
/// `RightLeft`): Polars sorts the pairs stably by right row, each right
/// row's left rows in order, a left join's unmatched rows last; sliced
/// after. Keys repeat on both sides, some match nothing, some are null.
#[test]
fn joins_keeping_the_right_order_run_on_the_device() {
    let (left, right) = (repeating_left, repeating_right);
    for how in [JoinType::Inner, JoinType::Left] {
        for order in [MaintainOrderJoin::Right, MaintainOrderJoin::RightLeft] {
            let args = JoinArgs {
                maintain_order: order,
                ..JoinArgs::new(how.clone())
            };
            let joined = || left().join(right(), [col("k")], [col("k")], args.clone());
            assert_gpu_eq(&format!("{how:?} join keeping {order:?}"), joined());
            assert_gpu_eq(
                &format!("{how:?} join keeping {order:?}, sliced"),
                joined().slice(1, 4),
            );
        }
    }
}
