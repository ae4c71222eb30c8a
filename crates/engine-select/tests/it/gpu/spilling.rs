//! The spill manager: results the executor keeps for later go to host memory when device memory runs short, so that a query that would not fit runs on the device.

use engine_select::{CollectReport, Executor};

use super::*;

/// Whether the query fell back, or failed, for lack of device memory.
fn out_of_memory(outcome: &Result<(DataFrame, CollectReport), EngineError>) -> bool {
    match outcome {
        Ok((_, report)) => report
            .fallback_reasons
            .iter()
            .any(|r| r.kind == FallbackKind::OutOfMemory),
        Err(EngineError::GpuUnavailable { reasons }) => {
            reasons.iter().all(|r| r.kind == FallbackKind::OutOfMemory)
        }
        Err(_) => false,
    }
}

#[test]
fn kept_results_spill_to_host_memory_under_a_tight_limit() {
    // A join whose left side (30,000 rows, kept while the right side runs)
    // is small against the right side's work (a group-by of 200,000 rows),
    // and a union of a shared subplan (kept between its uses), that
    // group-by, and the shared subplan again. Under limits 1/16 apart,
    // in memory and with fallback disabled, every collect either answers
    // as Polars does or runs out of memory: never another answer, never
    // another error; and some limit between the two is met only by
    // spilling what the executor keeps.
    let left = df!(
        "k" => (0..30_000i64).map(|i| i % 997).collect::<Vec<_>>(),
        "x" => (0..30_000i64).map(|i| i * 3).collect::<Vec<_>>(),
    )
    .unwrap()
    .lazy();
    let large = df!(
        "k" => (0..200_000i64).map(|i| i * 7 % 1_009).collect::<Vec<_>>(),
        "v" => (0..200_000i64).map(|i| i % 101).collect::<Vec<_>>(),
    )
    .unwrap()
    .lazy();
    let totals = large
        .group_by_stable([col("k")])
        .agg([col("v").sum().alias("x")]);
    let shared = left.clone().filter(col("x").gt(lit(30)));
    let queries = [
        left.join(
            totals.clone(),
            [col("k")],
            [col("k")],
            JoinArgs::new(JoinType::Inner),
        )
        .sort(["x"], Default::default()),
        concat(
            [
                shared.clone(),
                totals,
                shared.select([col("k"), col("x") * lit(2)]),
            ],
            UnionArgs::default(),
        )
        .unwrap(),
    ];
    let mut spilled_somewhere = 0;
    for (i, lf) in queries.into_iter().enumerate() {
        let expected = lf.clone().collect().unwrap();
        let mut spilled = false;
        let mut limit = 16u64 << 20;
        while limit > 1 << 20 {
            let engine = Engine::Gpu(
                under_test()
                    .with_executor(Executor::InMemory)
                    .with_device_memory_limit(limit)
                    .with_raise_on_fail(true),
            );
            let outcome = lf.clone().collect_with_report(&engine);
            if let Ok((answer, report)) = &outcome {
                assert!(
                    expected.equals_missing(answer),
                    "query {i}, limit {limit}: {report}"
                );
                assert_eq!(report.executed_by, under_test_executed_by());
                if report.spilled.frames > 0 {
                    assert!(report.spilled.bytes > 0, "{report}");
                    assert!(report.to_string().contains("spilled: "), "{report}");
                    spilled = true;
                }
            } else {
                assert!(
                    out_of_memory(&outcome),
                    "query {i}, limit {limit}: {outcome:?}"
                );
            }
            limit = limit * 15 / 16;
        }
        spilled_somewhere += usize::from(spilled);
    }
    assert_eq!(
        spilled_somewhere, 2,
        "each query ran under some limit only by spilling"
    );
}
