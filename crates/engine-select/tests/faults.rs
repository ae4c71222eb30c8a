//! Device faults injected at every seam of gpu-runtime (the `faults` feature): each query still gets Polars' answer (recovered on the device, or by fallback naming the fault) and gives back all it held; and the fault suite.
//!
//! `cargo test -p engine-select --features faults --test faults`. On the
//! emulated device unless `GPU_TEST_DEVICE` names a GPU.

use engine_select::{DeviceKind, Engine, EngineError, FallbackKind, GpuEngine, LazyFrameExt};
use fail::FailScenario;
use gpu_runtime::TestDevice;
use gpu_runtime::faults::{self, Seam};
use polars::prelude::*;

#[path = "common/frames.rs"]
mod frames;

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
/// device's memory in use returns to 0, and the next query runs on the
/// device.
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
    // (A device's staging blocks are made by its first queries and kept:
    // their seam has a test of its own, on a fresh device.)
    let seams = Seam::TRANSIENT
        .into_iter()
        .filter(|s| *s != Seam::AllocatePinned);
    for seam in seams {
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
    assert!(
        faults >= Seam::TRANSIENT.len() - 1,
        "{faults} faults injected"
    );
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
    for seam in Seam::TRANSIENT {
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
    for seam in Seam::TRANSIENT {
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

/// A page-locked staging block that cannot be allocated (a device's first
/// query makes them): the query answers by fallback naming the seam, holds
/// no memory after, and the next one runs on the device.
#[test]
fn a_staging_block_that_cannot_be_allocated_costs_no_answer() {
    let scenario = FailScenario::setup();
    let expected = query().collect().unwrap();
    // A device no other test starts, so that its blocks are yet to be made.
    let fresh = GpuEngine::new()
        .with_device_kind(DeviceKind::Emulated)
        .with_device(5);
    fail::cfg(Seam::AllocatePinned.name(), "return").unwrap();
    let before = faults::injected();
    let (df, report) = query()
        .collect_with_report(&Engine::Gpu(fresh.clone()))
        .unwrap();
    fail::remove(Seam::AllocatePinned.name());
    assert!(df.equals_missing(&expected), "{df}");
    assert!(faults::injected() > before, "no block was made: {report}");
    assert!(
        report
            .fallback_reasons
            .iter()
            .any(|r| r.message.contains(Seam::AllocatePinned.name())),
        "{report}"
    );
    assert_eq!(fresh.memory_in_use(), Some(0));
    let (df, _) = query()
        .collect_with_report(&Engine::Gpu(fresh.with_raise_on_fail(true)))
        .unwrap();
    assert!(df.equals_missing(&expected), "{df}");
    scenario.teardown();
}

/// A fault injected into one operator's work only (`<seam>@<operator>`):
/// every launch of a join fails, so a query with a join answers by
/// fallback naming the seam, and one without runs on the device, no fault
/// injected.
#[test]
fn a_fault_injected_into_one_operator_fails_only_its_work() {
    let scenario = FailScenario::setup();
    let engine = engine();
    let expected = query().collect().unwrap();
    let in_joins = format!("{}@Join", Seam::Launch.name());
    fail::cfg(&in_joins, "return").unwrap();
    let before = faults::injected();
    let (df, report) = query()
        .collect_with_report(&Engine::Gpu(engine.clone()))
        .unwrap();
    assert!(df.equals_missing(&expected), "{df}");
    assert!(faults::injected() > before, "no fault injected: {report}");
    assert!(
        report
            .fallback_reasons
            .iter()
            .any(|r| r.message.contains(Seam::Launch.name())),
        "{report}"
    );
    let without_join = query_without_join();
    let expected = without_join.clone().collect().unwrap();
    let before = faults::injected();
    let (df, report) = without_join
        .collect_with_report(&Engine::Gpu(engine.clone().with_raise_on_fail(true)))
        .unwrap();
    fail::remove(&in_joins);
    assert!(df.equals_missing(&expected), "{df}");
    assert_eq!(faults::injected(), before, "{report}");
    assert_eq!(engine.memory_in_use(), Some(0));
    scenario.teardown();
}

/// A group-by and a sort, without a join.
fn query_without_join() -> LazyFrame {
    df!(
        "key" => (0..500i64).map(|i| i % 7).collect::<Vec<_>>(),
        "amount" => (0..500i64).collect::<Vec<_>>(),
    )
    .unwrap()
    .lazy()
    .group_by([col("key")])
    .agg([col("amount").sum()])
    .sort(["key"], Default::default())
}

/// A sticky fault (a kernel that faults, leaving the device's context
/// unusable): the query that meets it answers by fallback, naming it; the
/// device is marked, and later queries on it fall back at once, without a
/// call to the device (every seam set to fail counts no fault), or raise
/// with `raise_on_fail`; other devices run; no memory is held; a reset
/// brings the device back.
#[test]
fn a_sticky_fault_marks_the_device_until_it_is_reset() {
    let scenario = FailScenario::setup();
    let expected = query().collect().unwrap();
    let engine = engine();
    let raising = Engine::Gpu(engine.clone().with_raise_on_fail(true));
    query().collect_with_report(&raising).unwrap();
    assert_eq!(engine.device_fault(), None);
    assert!(!engine.reset_device().unwrap(), "nothing to reset");

    fail::cfg(Seam::Sticky.name(), "1*return->off").unwrap();
    let (df, report) = query()
        .collect_with_report(&Engine::Gpu(engine.clone()))
        .unwrap();
    fail::remove(Seam::Sticky.name());
    assert!(df.equals_missing(&expected), "{df}");
    let reason = &report.fallback_reasons[0];
    assert_eq!(reason.kind, FallbackKind::DeviceFault, "{report}");
    assert!(reason.message.contains(Seam::Sticky.name()), "{report}");
    let fault = engine.device_fault().expect("the device is marked");
    assert!(
        fault.contains("CUDA_ERROR") || fault.contains(Seam::Sticky.name()),
        "{fault}"
    );
    assert_eq!(
        engine.memory_in_use(),
        Some(0),
        "memory held after the fault"
    );

    // Later queries do not touch the device: were they to call it, every
    // seam would fail and count.
    let before = faults::injected();
    for seam in Seam::TRANSIENT {
        fail::cfg(seam.name(), "return").unwrap();
    }
    let (df, report) = query()
        .collect_with_report(&Engine::Gpu(engine.clone()))
        .unwrap();
    for seam in Seam::TRANSIENT {
        fail::remove(seam.name());
    }
    assert_eq!(faults::injected(), before, "the marked device was called");
    assert!(df.equals_missing(&expected), "{df}");
    assert_eq!(report.fallback_reasons.len(), 1, "{report}");
    assert_eq!(report.fallback_reasons[0].kind, FallbackKind::DeviceFault);
    match query().collect_with_report(&raising) {
        Err(EngineError::GpuUnavailable { reasons }) => {
            assert_eq!(reasons[0].kind, FallbackKind::DeviceFault, "{reasons:?}")
        }
        other => panic!("expected the fault as the error, got {other:?}"),
    }

    // Another device is untouched.
    let other = GpuEngine::new()
        .with_device_kind(DeviceKind::Emulated)
        .with_device(3)
        .with_raise_on_fail(true);
    let (df, _) = query().collect_with_report(&Engine::Gpu(other)).unwrap();
    assert!(df.equals_missing(&expected), "{df}");

    assert!(engine.reset_device().unwrap(), "the device was marked");
    assert_eq!(engine.device_fault(), None);
    let (df, report) = query().collect_with_report(&raising).unwrap();
    assert!(df.equals_missing(&expected), "{df}");
    assert!(report.fallback_reasons.is_empty(), "{report}");
    assert_eq!(engine.memory_in_use(), Some(0));
    scenario.teardown();
}

fn setting(name: &str, default: u64) -> u64 {
    std::env::var(name).map_or(default, |v| {
        v.parse()
            .unwrap_or_else(|_| panic!("{name} must be a number, not {v:?}"))
    })
}

/// The fault suite (`cargo xtask faults` runs it large): the 22 PDS-H
/// queries and the query above, on `FAULT_SUITE_THREADS` threads (2), each
/// transient seam failing on `FAULT_SUITE_PERCENT` % of its calls (2) and
/// `FAULT_SUITE_STICKY_PER_MILLE` ‰ of kernel launches (1) faulting
/// stickily, until `FAULT_SUITE_QUERIES` (46) have run. A worker that finds
/// the device marked after its query resets it (when no other query holds
/// it). Prints one line (also written to `FAULT_SUITE_SUMMARY` when set):
/// queries, faults injected, resets, answers equal to the CPU's, bytes held
/// after, hangs (a query still running after `FAULT_SUITE_SECONDS`, 600,
/// ends the process with that line).
#[test]
fn fault_suite() {
    let queries = setting("FAULT_SUITE_QUERIES", 46) as usize;
    let threads = setting("FAULT_SUITE_THREADS", 2) as usize;
    let percent = setting("FAULT_SUITE_PERCENT", 2);
    let sticky = setting("FAULT_SUITE_STICKY_PER_MILLE", 1);
    let seconds = setting("FAULT_SUITE_SECONDS", 600);
    let scenario = FailScenario::setup();
    let tables = pdsh::Tables::generate(0.002, false).unwrap();
    let lazy: Vec<LazyFrame> = (1..=pdsh::QUERY_COUNT)
        .map(|number| pdsh::query(number, &tables).unwrap())
        .chain([query()])
        .collect();
    let expected: Vec<DataFrame> = lazy
        .iter()
        .map(|lf| lf.clone().collect().unwrap())
        .collect();
    let engine = engine();
    // Each runs on the device first, with no fault.
    for (lf, expected) in lazy.iter().zip(&expected) {
        let (df, _) = lf
            .clone()
            .collect_with_report(&Engine::Gpu(engine.clone().with_raise_on_fail(true)))
            .unwrap();
        assert_eq!(frames::frames_differ(expected, &df), None);
    }
    let before = faults::injected();
    for seam in Seam::TRANSIENT {
        fail::cfg(seam.name(), &format!("{percent}%return")).unwrap();
    }
    let sticky = format!("{}%return", sticky as f64 / 10.0);
    fail::cfg(Seam::Sticky.name(), &sticky).unwrap();
    let resets = std::sync::atomic::AtomicUsize::new(0);
    let reset = || {
        if engine.device_fault().is_some() && engine.reset_device().is_ok_and(|done| done) {
            resets.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        }
    };
    let next = std::sync::atomic::AtomicUsize::new(0);
    let wrong = std::sync::Mutex::new(Vec::new());
    let done = std::sync::atomic::AtomicBool::new(false);
    let line = |answered: usize, leaked: u64, hangs: usize| {
        format!(
            "fault suite: {queries} queries on {threads} threads, {} faults injected, {} \
             resets after sticky faults, {answered} answered equal to the CPU, {leaked} bytes \
             held after, {hangs} hangs",
            faults::injected() - before,
            resets.load(std::sync::atomic::Ordering::Acquire)
        )
    };
    std::thread::scope(|s| {
        s.spawn(|| {
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(seconds);
            while !done.load(std::sync::atomic::Ordering::Acquire) {
                if std::time::Instant::now() > deadline {
                    println!("{}", line(0, 0, 1));
                    std::process::abort();
                }
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
        });
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
                        if i >= queries {
                            break;
                        }
                        let which = i % lazy.len();
                        let answer = lazy[which]
                            .clone()
                            .collect_with_report(&Engine::Gpu(engine.clone()));
                        let why = match answer {
                            Ok((df, _)) => frames::frames_differ(&expected[which], &df),
                            Err(e) => Some(e.to_string()),
                        };
                        if let Some(why) = why {
                            wrong.lock().unwrap().push(format!("query {which}: {why}"));
                        }
                        reset();
                    }
                })
            })
            .collect();
        for worker in workers {
            worker.join().unwrap();
        }
        done.store(true, std::sync::atomic::Ordering::Release);
    });
    for seam in Seam::TRANSIENT.into_iter().chain([Seam::Sticky]) {
        fail::remove(seam.name());
    }
    let wrong = wrong.into_inner().unwrap();
    let leaked = engine.memory_in_use().unwrap_or(0);
    // With every query done, nothing holds a marked device: it resets.
    reset();
    assert_eq!(engine.device_fault(), None, "the device could not be reset");
    let line = line(queries - wrong.len(), leaked, 0);
    println!("{line}");
    if let Ok(path) = std::env::var("FAULT_SUITE_SUMMARY") {
        std::fs::write(&path, format!("{line}\n")).unwrap();
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert_eq!(leaked, 0, "bytes held after the suite");
    assert!(
        faults::injected() > before || queries == 0,
        "no fault injected"
    );
    scenario.teardown();
}
