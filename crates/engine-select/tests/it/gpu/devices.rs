//! Devices: a missing one, out of memory, several at once.

use super::*;

#[test]
fn a_missing_emulated_device_is_a_clear_reason_or_error() {
    let engine = Engine::Gpu(emulated().with_device(9).with_raise_on_fail(true));
    let err = table().collect_with(&engine).unwrap_err();
    assert!(matches!(err, EngineError::GpuUnavailable { .. }), "{err}");
    assert!(
        err.to_string().contains("emulated device 9 does not exist"),
        "{err}"
    );
}

/// The emulated device only this test uses: its first query fixes its
/// memory resource, a pool that may not grow past 1 MiB.
const SMALL_DEVICE: usize = 7;

#[test]
fn device_out_of_memory_falls_back_with_the_reason_or_raises() {
    let small = emulated()
        .with_device(SMALL_DEVICE)
        .with_memory_resource(MemoryResource::Pool {
            initial_bytes: 0,
            maximum_bytes: Some(1 << 20),
        });
    let tiny_runs_on_the_device = |engine: GpuEngine| {
        let tiny = table().filter(col("i").gt(lit(0i64)));
        let (_, report) = tiny.collect_with_report(&Engine::Gpu(engine)).unwrap();
        assert!(
            matches!(
                report.executed_by,
                ExecutedBy::Gpu {
                    device: SMALL_DEVICE,
                    ..
                }
            ),
            "{report}"
        );
    };
    // A small query fits: the device works.
    tiny_runs_on_the_device(small.clone());
    // 400,000 rows of i64 and f64 (6.4 MB) do not.
    let big = df!(
        "k" => (0..400_000i64).map(|i| i % 7).collect::<Vec<_>>(),
        "x" => (0..400_000).map(f64::from).collect::<Vec<_>>(),
    )
    .unwrap()
    .lazy()
    .group_by([col("k")])
    .agg([col("x").sum()])
    .sort(["k"], Default::default());
    let expected = big.clone().collect().unwrap();
    let (df, report) = big
        .clone()
        .collect_with_report(&Engine::Gpu(small.clone()))
        .unwrap();
    assert!(df.equals_missing(&expected), "the CPU's answer, whole");
    assert_eq!(
        report.executed_by,
        ExecutedBy::Cpu(engine_select::CpuEngine::InMemory),
        "{report}"
    );
    assert!(
        report
            .fallback_reasons
            .iter()
            .any(|r| r.kind == FallbackKind::OutOfMemory
                && r.message
                    .contains("out of device memory: 3200000 bytes requested")),
        "{report}"
    );
    let err = big
        .collect_with(&Engine::Gpu(small.with_raise_on_fail(true)))
        .unwrap_err();
    assert!(err.to_string().contains("out of device memory"), "{err}");
    // The device is still usable after running out.
    tiny_runs_on_the_device(emulated().with_device(SMALL_DEVICE));
}

#[test]
fn several_emulated_devices_run_queries_at_the_same_time() {
    std::thread::scope(|scope| {
        for device in 0..4 {
            scope.spawn(move || {
                let engine = Engine::Gpu(emulated().with_device(device).with_raise_on_fail(true));
                for _ in 0..5 {
                    let lf = table().filter(col("i").gt(lit(-10i64)));
                    let (df, report) = lf.clone().collect_with_report(&engine).unwrap();
                    assert_eq!(
                        report.executed_by,
                        ExecutedBy::Gpu {
                            device,
                            emulated: true
                        }
                    );
                    assert!(df.equals_missing(&lf.collect().unwrap()));
                }
            });
        }
    });
}
