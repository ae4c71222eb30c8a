//! Joins validating uniqueness over partitions: every bucket of a side that must be unique is checked, and joins validating the side they keep in order run by buckets.

use engine_select::Executor;

use super::partitioned::assert_partitioned_split;
use super::*;

/// `rows` rows of unique keys `0..rows` (their order reversed), with one
/// more row repeating key `repeated` where given.
fn keyed(rows: i64, repeated: Option<i64>) -> LazyFrame {
    let mut keys: Vec<i64> = (0..rows).rev().collect();
    keys.extend(repeated);
    let values: Vec<i64> = (0..keys.len() as i64).map(|i| i * 7 % 11).collect();
    df!("k" => keys, "v" => values).unwrap().lazy()
}

/// A join of `left` and `right` by `k`, of kind `how`, keeping the order
/// of the left rows (of the right ones for a right join), validated.
fn validated(
    left: LazyFrame,
    right: LazyFrame,
    how: JoinType,
    validation: JoinValidation,
) -> LazyFrame {
    let maintain_order = match how {
        JoinType::Right => MaintainOrderJoin::Right,
        _ => MaintainOrderJoin::Left,
    };
    left.join(
        right,
        [col("k")],
        [col("k")],
        JoinArgs {
            validation,
            maintain_order,
            ..JoinArgs::new(how)
        },
    )
}

/// The partitioned engine in partitions of 2 rows, fallback allowed.
fn partitioned_with_fallback() -> Engine {
    Engine::Gpu(
        under_test()
            .with_executor(Executor::Partitioned)
            .with_partition_rows(2),
    )
}

#[test]
fn a_duplicate_key_in_a_bucket_of_one_side_alone_fails_validation() {
    // The duplicate key 1000 of the side that must be unique matches no
    // row of the other side: its bucket joins to nothing, and is checked
    // all the same (a duplicate leaves the join to Polars, which raises
    // its error or joins, by the side it builds).
    let cases = [
        (
            keyed(6, None),
            keyed(40, Some(1000)),
            JoinType::Inner,
            JoinValidation::ManyToOne,
        ),
        (
            keyed(6, None),
            keyed(40, Some(1000)),
            JoinType::Left,
            JoinValidation::ManyToOne,
        ),
        (
            keyed(40, Some(1000)),
            keyed(6, None),
            JoinType::Inner,
            JoinValidation::OneToMany,
        ),
        (
            keyed(40, Some(1000)),
            keyed(6, None),
            JoinType::Left,
            JoinValidation::OneToMany,
        ),
        (
            keyed(40, Some(1000)),
            keyed(6, None),
            JoinType::Right,
            JoinValidation::OneToMany,
        ),
        (
            keyed(40, None),
            keyed(30, Some(1000)),
            JoinType::Inner,
            JoinValidation::OneToOne,
        ),
    ];
    for (left, right, how, validation) in cases {
        let lf = validated(left, right, how.clone(), validation);
        let context = format!("{how} {validation:?}");
        let actual = lf.clone().collect_with(&partitioned_with_fallback());
        match (lf.collect(), actual) {
            (Err(expected), Err(EngineError::Polars(e))) => {
                assert_eq!(e.to_string(), expected.to_string(), "{context}")
            }
            (Ok(expected), Ok(actual)) => {
                assert!(
                    expected.equals_missing(&actual),
                    "{context}: {expected} {actual}"
                )
            }
            (expected, actual) => panic!("{context}: expected {expected:?}, got {actual:?}"),
        }
    }
}

#[test]
fn joins_validating_the_side_they_keep_in_order_run_by_buckets() {
    // (Polars validates no semi or anti join, and a right join by its
    // left keys alone.)
    for how in [JoinType::Inner, JoinType::Left] {
        for validation in [JoinValidation::OneToMany, JoinValidation::OneToOne] {
            let lf = validated(keyed(30, None), keyed(20, None), how.clone(), validation);
            assert_partitioned_split(&format!("{how} {validation:?}"), lf, false, true);
        }
    }
}
