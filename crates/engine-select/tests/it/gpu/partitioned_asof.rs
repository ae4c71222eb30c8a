//! `join_asof` over partitions: the left input in partitions against the whole right one, or both in buckets by the `by` groups; the keys' order checked across partitions as over the whole.

use engine_select::Executor;

use super::asof_joins::{STRATEGIES, asof, by, grouped_sides, sides};
use super::partitioned::assert_partitioned_split;
use super::*;

#[test]
fn join_asof_over_left_partitions_matches_polars() {
    // The left key's two nulls first fill a partition of their own in
    // partitions of 2: the next partition has no valid key before it.
    let (left, right) = sides();
    for strategy in STRATEGIES {
        for allow_eq in [true, false] {
            for tolerance in [None, Some(Scalar::from(2i64))] {
                let args = asof(strategy, allow_eq, tolerance.clone(), true);
                let lf = (left.clone()).join(right.clone(), [col("t")], [col("t")], args);
                let name = format!("{strategy:?} allow_eq={allow_eq} tolerance={tolerance:?}");
                assert_partitioned_split(&name, lf, false, true);
            }
        }
    }
    // Keys computed from each side's rows, and slices of the result.
    let args = || asof(AsofStrategy::Nearest, true, None, true);
    let ten = || col("t") * lit(10i64);
    let lf = (left.clone()).join(right.clone(), [ten()], [ten()], args());
    assert_partitioned_split("computed keys", lf, false, true);
    let joined = (left.clone()).join(right.clone(), [col("t")], [col("t")], args());
    assert_partitioned_split("a slice", joined.clone().slice(3, 5), false, true);
    assert_partitioned_split("a slice from the end", joined.slice(-4, 3), false, true);
}

#[test]
fn join_asof_over_left_partitions_takes_left_nulls_anywhere_where_polars_does() {
    // Unchecked, Polars' scans pass a null left key by wherever it is: a
    // partition may start or end with nulls, or hold only nulls.
    let left = df!(
        "t" => [Some(1i64), None, None, None, Some(2), Some(4), None, Some(7), Some(10), None],
        "v" => [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    )
    .unwrap()
    .lazy();
    let right = df!(
        "t" => [Some(0i64), Some(2), Some(6), Some(9)],
        "w" => [10, 11, 12, 13],
    )
    .unwrap()
    .lazy();
    for strategy in STRATEGIES {
        let args = asof(strategy, true, None, false);
        let lf = (left.clone()).join(right.clone(), [col("t")], [col("t")], args);
        assert_partitioned_split(&format!("{strategy:?}"), lf, false, true);
    }
}

/// The partitioned engine in partitions of 2 rows, fallback allowed.
fn in_pairs_with_fallback() -> Engine {
    Engine::Gpu(
        under_test()
            .with_executor(Executor::Partitioned)
            .with_partition_rows(2),
    )
}

#[test]
fn join_asof_of_a_left_key_unsorted_only_across_partitions_leaves_polars_its_answer() {
    // Each partition of 2 rows is sorted, the whole is not (and a null
    // follows valid keys where Polars checks nulls first): the query goes
    // to Polars, which raises its error where it checks, and answers from
    // the keys as they come where it does not.
    let right = df!("t" => [0i64, 3, 6], "w" => [1, 2, 3]).unwrap().lazy();
    let lefts = [
        (vec![Some(1i64), Some(5), Some(2), Some(6)], true),
        (vec![Some(1i64), Some(5), Some(2), Some(6)], false),
        (vec![Some(1i64), Some(2), None, Some(3)], true),
        (vec![Some(4i64), None, None, Some(3)], false),
    ];
    for (keys, checked) in lefts {
        let left = df!("t" => keys.clone(), "v" => [1, 2, 3, 4])
            .unwrap()
            .lazy();
        let args = asof(AsofStrategy::Backward, true, None, checked);
        let lf = left.join(right.clone(), [col("t")], [col("t")], args);
        let name = format!("{keys:?} checked={checked}");
        match lf.clone().collect() {
            Err(expected) => match lf.collect_with_report(&in_pairs_with_fallback()) {
                Err(EngineError::Polars(e)) => assert_eq!(e.to_string(), expected.to_string()),
                other => panic!("{name}: expected {expected}, got {:?}", other.map(|r| r.1)),
            },
            Ok(expected) => {
                let (actual, report) = lf
                    .collect_with_report(&in_pairs_with_fallback())
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
                assert!(expected.equals_missing(&actual), "{name}: {report}");
                let reason = "the left key `col(\"t\")` is not sorted";
                let reasons = &report.fallback_reasons;
                assert!(
                    reasons.iter().any(|r| r.message.contains(reason)),
                    "{name}: expected a reason with {reason:?}: {report}"
                );
            }
        }
    }
}

#[test]
fn join_asof_by_groups_over_buckets_matches_polars() {
    let (left, right) = grouped_sides();
    for strategy in STRATEGIES {
        for allow_eq in [true, false] {
            let args = by(asof(strategy, allow_eq, None, true), &["g"], &["g"]);
            let lf = (left.clone()).join(right.clone(), [col("t")], [col("t")], args);
            let name = format!("{strategy:?} allow_eq={allow_eq} by g");
            assert_partitioned_split(&name, lf, false, true);
        }
    }
    // By integer groups named otherwise on each side, with a tolerance;
    // by two columns; a slice.
    let args = by(
        asof(AsofStrategy::Forward, true, Some(Scalar::from(3i64)), true),
        &["k"],
        &["q"],
    );
    let lf = (left.clone()).join(right.clone(), [col("t")], [col("t")], args);
    assert_partitioned_split("by k and q", lf, false, true);
    let args = || {
        by(
            asof(AsofStrategy::Backward, true, None, true),
            &["g", "k"],
            &["g", "q"],
        )
    };
    let lf = (left.clone()).join(right.clone(), [col("t")], [col("t")], args());
    assert_partitioned_split("by g and k", lf.clone(), false, true);
    assert_partitioned_split("by g and k, a slice", lf.slice(2, 6), false, true);
    // A right side of one group: the left rows of the others match nothing.
    let one_group = right.filter(col("g").eq(lit("b")));
    let lf = left.join(one_group, [col("t")], [col("t")], args());
    assert_partitioned_split("one right group", lf, false, true);
}
