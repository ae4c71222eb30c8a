//! `set_sorted` on the device: the values as they are where they are sorted as claimed (and the operators after it, which Polars runs by paths of its own), Polars' answer where they are not.

use super::*;
use polars_plan::plans::AExprSorted;

/// `expr.set_sorted(..)` claiming `descending` (and, where given, where
/// the nulls are).
fn claimed(expr: Expr, descending: bool, nulls_last: Option<bool>) -> Expr {
    expr.set_sorted_flag(AExprSorted {
        descending: Some(descending),
        nulls_last,
    })
}

/// Columns sorted each its own way: ascending with nulls first, descending
/// with nulls last, texts ascending, dates descending without nulls, and
/// one not sorted at all.
fn sorted_frame() -> LazyFrame {
    df!(
        "up" => [None, None, Some(-3i64), Some(-3), Some(0), Some(7), Some(7), Some(9)],
        "down" => [Some(9i32), Some(4), Some(4), Some(1), Some(-2), Some(-8), None, None],
        "text" => [Some(""), Some("a"), Some("a"), Some("ab"), Some("b"), Some("ba"), Some("z"), Some("zz")],
        "day" => [20i32, 19, 19, 18, 10, 5, 0, -1],
        "v" => [5i64, 1, 4, 2, 8, 3, 6, 7],
    )
    .unwrap()
    .lazy()
    .with_columns([col("day").cast(DataType::Date)])
}

#[test]
fn set_sorted_of_sorted_values_runs_on_the_device_and_the_operators_after_it_agree() {
    let frame = sorted_frame().with_columns([
        claimed(col("up"), false, None),
        claimed(col("down"), true, Some(true)),
        claimed(col("text"), false, Some(false)),
        claimed(col("day"), true, None),
    ]);
    assert_gpu_eq("the values as they are", frame.clone());
    assert_gpu_eq(
        "extremes, distinct values and their count",
        frame.clone().select([
            col("up").max().alias("up max"),
            col("up").min().alias("up min"),
            col("down").max().alias("down max"),
            col("text").n_unique().alias("texts"),
            col("day").min().alias("first day"),
        ]),
    );
    assert_gpu_eq(
        "grouped by a sorted key",
        frame
            .clone()
            .group_by_stable([col("up")])
            .agg([col("v").sum(), col("down").first()]),
    );
    assert_gpu_eq(
        "sorted by a claimed key",
        frame.clone().sort(["text"], Default::default()),
    );
    assert_gpu_eq(
        "inside an expression",
        sorted_frame().select([
            (claimed(col("up"), false, None) * lit(2)).alias("twice"),
            claimed(col("v").cum_sum(false), false, None).alias("running"),
        ]),
    );
    // The result's columns flagged sorted as Polars' are.
    let expected = frame.clone().collect().unwrap();
    let engine = Engine::Gpu(under_test().with_raise_on_fail(true));
    let (actual, _) = frame.collect_with_report(&engine).unwrap();
    for name in ["up", "down", "text", "day", "v"] {
        assert_eq!(
            expected.column(name).unwrap().is_sorted_flag(),
            actual.column(name).unwrap().is_sorted_flag(),
            "{name}"
        );
    }
}

#[test]
fn set_sorted_of_values_not_sorted_as_claimed_leaves_them_to_polars() {
    let reason = "not sorted as claimed";
    let frame = sorted_frame();
    let claims = [
        // Out of order, sorted the other way (numbers and texts), nulls at
        // the other end than claimed.
        claimed(col("v"), false, None),
        claimed(col("up"), true, None),
        claimed(col("text"), true, None),
        claimed(col("up"), false, Some(true)),
        claimed(col("down"), true, Some(false)),
    ];
    for claim in claims {
        let lf = frame.clone().with_columns([claim]);
        assert_cpu_answer_with_reason(lf.clone().select([all().as_expr().max()]), reason);
        assert_cpu_answer_with_reason(lf, reason);
    }
    // The reason names the claim as Polars writes it.
    assert_cpu_answer_with_reason(
        frame.with_columns([claimed(col("v") * lit(2), false, None).alias("twice")]),
        r#"`((col("v") * 2)).set_sorted()`: the values are not sorted as claimed"#,
    );
    // Nulls in the middle: every value in order, the nulls in two runs.
    let middle = df!("x" => [Some(1i64), None, Some(2), Some(3)])
        .unwrap()
        .lazy()
        .with_columns([claimed(col("x"), false, None)]);
    assert_cpu_answer_with_reason(middle, reason);
}

#[test]
fn set_sorted_is_refused_where_the_device_does_not_check_it() {
    let frame = sorted_frame().with_columns([col("v").cast(DataType::Float64).alias("f")]);
    assert_cpu_answer_with_reason(
        frame.clone().with_columns([claimed(col("f"), false, None)]),
        "set_sorted of f64",
    );
    assert_cpu_answer_with_reason(
        frame
            .clone()
            .group_by_stable([col("day")])
            .agg([claimed(col("v"), false, None).max()]),
        "set_sorted within groups",
    );
}
