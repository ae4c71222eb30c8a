//! Device faults injected at every seam of gpu-runtime (the `faults` feature): each query still gets Polars' answer, with the fault as its reason, and gives back all it held.
//!
//! `cargo test -p engine-select --features faults --test faults`. On the
//! emulated device unless `GPU_TEST_DEVICE` names a GPU.

use engine_select::{DeviceKind, Engine, EngineError, FallbackKind, GpuEngine, LazyFrameExt};
use fail::FailScenario;
use gpu_runtime::TestDevice;
use gpu_runtime::faults::{self, Seam};
use polars::prelude::*;

fn engine() -> GpuEngine {
    match TestDevice::from_env().unwrap_or_else(|e| panic!("{e}")) {
        TestDevice::Emulated => GpuEngine::new().with_device_kind(DeviceKind::Emulated),
        TestDevice::Cuda(ordinal) => GpuEngine::new().with_device(ordinal),
    }
}

/// A query that meets every seam: uploads, kernels of a join, a group-by
/// and a sort, copies within the device (the union), downloads, waits.
fn query() -> LazyFrame {
    let n = 3_000i64;
    let orders = df!(
        "key" => (0..n).map(|i| i % 97).collect::<Vec<_>>(),
        "amount" => (0..n).map(|i| i * 7 % 1_000).collect::<Vec<_>>(),
        "tag" => (0..n).map(|i| format!("t{}", i % 13)).collect::<Vec<_>>(),
    )
    .unwrap()
    .lazy();
    let keys = df!(
        "key" => (0..97i64).collect::<Vec<_>>(),
        "region" => (0..97).map(|i| format!("r{}", i % 5)).collect::<Vec<_>>(),
    )
    .unwrap()
    .lazy();
    let more = orders.clone().slice(0, 500);
    concat([orders, more], UnionArgs::default())
        .unwrap()
        .join(
            keys,
            [col("key")],
            [col("key")],
            JoinArgs::new(JoinType::Inner),
        )
        .filter(col("amount").gt(lit(50i64)))
        .group_by([col("region"), col("tag")])
        .agg([col("amount").sum().alias("total"), len().alias("rows")])
        .sort(["region", "tag"], Default::default())
}

/// For each seam, the first, second, ... call fails (once), until a query
/// runs without reaching the failing call: every query answers as Polars
/// does, on the device where the engine recovers, else by fallback with the
/// fault as the reason (or, with `raise_on_fail`, an error naming it); the
/// device's memory in use returns to its level, and the next query runs on
/// the device.
#[test]
fn a_fault_at_any_call_of_any_seam_costs_no_answer_and_no_memory() {
    let scenario = FailScenario::setup();
    let expected = query().collect().unwrap();
    let engine = engine();
    let on_device = |what: &str| {
        let (df, report) = query()
            .collect_with_report(&Engine::Gpu(engine.clone().with_raise_on_fail(true)))
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(df.equals_missing(&expected), "{what}: {df}");
        report
    };
    on_device("before any fault");
    let level = engine.memory_in_use().expect("the device started");
    assert_eq!(level, 0, "memory held between queries");
    let mut faults = 0;
    for seam in Seam::ALL {
        // Calls 0 to 4, then every half again as far: the first calls and a
        // spread of the later ones.
        let calls = std::iter::successors(Some(0usize), |&c| {
            Some(if c < 4 { c + 1 } else { c * 3 / 2 })
        });
        for call in calls {
            let skipped = if call == 0 {
                String::new()
            } else {
                format!("{call}*off->")
            };
            fail::cfg(seam.name(), &format!("{skipped}1*return->off")).unwrap();
            let before = faults::injected();
            let (df, report) = query()
                .collect_with_report(&Engine::Gpu(engine.clone()))
                .unwrap_or_else(|e| panic!("{seam:?} call {call}: {e}"));
            fail::remove(seam.name());
            let what = format!("{seam:?} failing at call {call}");
            assert!(df.equals_missing(&expected), "{what}: {df}");
            assert_eq!(engine.memory_in_use(), Some(level), "{what}: memory held");
            if faults::injected() == before {
                // The query no longer reaches the failing call.
                assert!(call > 0, "{seam:?} is never called: {report}");
                break;
            }
            faults += 1;
            // A fault the engine recovers from (an input the upload worker
            // could not make is made again by the executor; out of memory
            // runs the plan again without uploads ahead) gives the device's
            // answer; any other falls back, saying so.
            if !report.fallback_reasons.is_empty() {
                let reason = &report.fallback_reasons[0];
                let named = match seam {
                    Seam::Allocate => reason.kind == FallbackKind::OutOfMemory,
                    _ => {
                        reason.kind == FallbackKind::Unavailable
                            && reason.message.contains(seam.name())
                    }
                };
                assert!(named, "{what}: {report}");
            }
            // The device is not the worse for it.
            on_device(&format!("after {what}"));
            assert_eq!(engine.memory_in_use(), Some(level), "{what}: memory held");
        }
    }
    assert!(faults >= Seam::ALL.len(), "{faults} faults injected");
    // With raise_on_fail, the fault is the error (a download: after the
    // upload worker, whose faults the executor recovers from).
    fail::cfg(Seam::Download.name(), "1*return->off").unwrap();
    let raised = query().collect_with_report(&Engine::Gpu(engine.clone().with_raise_on_fail(true)));
    fail::remove(Seam::Download.name());
    match raised {
        Err(EngineError::GpuUnavailable { reasons }) => assert!(
            reasons
                .iter()
                .any(|r| r.message.contains(Seam::Download.name())),
            "{reasons:?}"
        ),
        other => panic!("expected the fault as the error, got {other:?}"),
    }
    assert_eq!(engine.memory_in_use(), Some(level));
    scenario.teardown();
}

/// Four threads run queries on one device while every seam fails at
/// random (3 % of calls): every query answers as Polars does, none hangs,
/// and when all are done the device holds no memory and runs the next
/// query.
#[test]
fn concurrent_queries_under_random_faults_all_answer() {
    let scenario = FailScenario::setup();
    let expected = query().collect().unwrap();
    let engine = engine();
    // Started before the faults, so that its start is not what fails.
    query()
        .collect_with_report(&Engine::Gpu(engine.clone().with_raise_on_fail(true)))
        .unwrap();
    let before = faults::injected();
    for seam in Seam::ALL {
        fail::cfg(seam.name(), "3%return").unwrap();
    }
    std::thread::scope(|s| {
        for thread in 0..4 {
            let (engine, expected) = (engine.clone(), &expected);
            s.spawn(move || {
                for run in 0..8 {
                    let (df, report) = query()
                        .collect_with_report(&Engine::Gpu(engine.clone()))
                        .unwrap_or_else(|e| panic!("thread {thread} run {run}: {e}"));
                    assert!(
                        df.equals_missing(expected),
                        "thread {thread} run {run}: {report}"
                    );
                }
            });
        }
    });
    for seam in Seam::ALL {
        fail::remove(seam.name());
    }
    assert!(faults::injected() > before, "no fault injected");
    assert_eq!(
        engine.memory_in_use(),
        Some(0),
        "memory held after the faults"
    );
    let (_, report) = query()
        .collect_with_report(&Engine::Gpu(engine.with_raise_on_fail(true)))
        .unwrap();
    assert!(report.fallback_reasons.is_empty(), "{report}");
    scenario.teardown();
}
