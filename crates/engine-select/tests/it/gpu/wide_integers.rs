//! u64 compared with and joined to signed integers on the device, which Polars casts both to i128: in 64 bits, a u64 beyond i64 greater than every signed value and matching none.

use super::*;

/// u64 values around i64's end beside signed values of several widths,
/// nulls in both.
fn wide_frame() -> LazyFrame {
    df!(
        "u" => [Some(1u64), Some(u64::MAX), None, Some(i64::MAX as u64), Some(1 << 63), Some(0), Some(5)],
        "i" => [Some(1i64), Some(-1), Some(3), Some(i64::MAX), None, Some(i64::MIN), Some(7)],
        "s" => [Some(1i8), Some(-1), None, Some(127), Some(-128), Some(0), Some(5)],
        "v" => [1i32, 2, 3, 4, 5, 6, 7],
    )
    .unwrap()
    .lazy()
}

#[test]
fn comparisons_of_u64_with_signed_integers_match_the_cpu() {
    let (u, i, s) = (|| col("u"), || col("i"), || col("s"));
    assert_gpu_eq(
        "every comparison, either side",
        wide_frame().select([
            u().eq(i()).alias("u == i"),
            u().neq(i()).alias("u != i"),
            u().lt(i()).alias("u < i"),
            u().lt_eq(i()).alias("u <= i"),
            i().gt(u()).alias("i > u"),
            i().gt_eq(u()).alias("i >= u"),
            s().lt(u()).alias("s < u"),
            u().gt(s()).alias("u > s"),
            u().eq_missing(i()).alias("u eq_missing i"),
            i().neq_missing(u()).alias("i neq_missing u"),
            s().eq_missing(u()).alias("s eq_missing u"),
        ]),
    );
    assert_gpu_eq(
        "filters by them, then a sum",
        wide_frame()
            .filter(u().gt_eq(i()).or(s().eq(u())))
            .select([col("v").sum()]),
    );
}

/// A join of kind `how` that keeps the rows in `order`.
fn ordered(how: JoinType, order: MaintainOrderJoin) -> JoinArgs {
    JoinArgs {
        maintain_order: order,
        ..JoinArgs::new(how)
    }
}

#[test]
fn joins_of_u64_with_signed_keys_match_the_cpu() {
    let left = || wide_frame().select([col("i"), col("s"), col("v")]);
    let right = || wide_frame().select([col("u"), (col("v") * lit(10)).alias("w")]);
    for how in [
        JoinType::Inner,
        JoinType::Left,
        JoinType::Right,
        JoinType::Semi,
        JoinType::Anti,
    ] {
        for key in ["i", "s"] {
            let args = ordered(how.clone(), MaintainOrderJoin::LeftRight);
            assert_gpu_eq(
                &format!("{how:?} by {key}"),
                left().join(right(), [col(key)], [col("u")], args),
            );
        }
    }
    // (Polars' own order for a left join: the left rows'.)
    assert_gpu_eq(
        "left, in Polars' order",
        left().join(
            right(),
            [col("i")],
            [col("u")],
            JoinArgs::new(JoinType::Left),
        ),
    );
    // Both keys kept.
    let full = ordered(JoinType::Full, MaintainOrderJoin::LeftRight);
    assert_gpu_eq(
        "full, keys apart",
        right().join(left(), [col("u")], [col("i")], full),
    );
    assert_gpu_eq(
        "two keys, one wide",
        left().with_column(col("v").alias("k")).join(
            right().with_column((col("w") / lit(10)).alias("k")),
            [col("i"), col("k")],
            [col("u"), col("k")],
            ordered(JoinType::Inner, MaintainOrderJoin::Left),
        ),
    );
    // Where nulls match, and where the key is coalesced (an i128), Polars.
    let nulls_match = JoinArgs {
        nulls_equal: true,
        ..JoinArgs::new(JoinType::Inner)
    };
    assert_cpu_answer_with_reason(
        left().join(right(), [col("i")], [col("u")], nulls_match),
        "whose nulls match",
    );
    let coalesced = ordered(JoinType::Full, MaintainOrderJoin::LeftRight)
        .with_coalesce(JoinCoalesce::CoalesceColumns);
    assert_cpu_answer_with_reason(
        left().join(right(), [col("i")], [col("u")], coalesced),
        "dtype i128",
    );
}
