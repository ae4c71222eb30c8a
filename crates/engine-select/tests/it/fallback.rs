//! GPU collects on a machine that cannot run them: every reason, in words, and errors when asked.

use engine_select::{
    CpuEngine, Engine, EngineError, ExecutedBy, FallbackKind, GpuEngine, LazyFrameExt,
};
use polars::prelude::*;

use crate::{driver_missing, on_the_cpu_only, orders};

fn filtered() -> LazyFrame {
    orders().filter(col("amount").gt(lit(2.0)))
}

/// A query no device runs: a user-defined function.
fn unrunnable() -> LazyFrame {
    orders().select([on_the_cpu_only(col("amount")).alias("ordering")])
}

#[test]
fn fallback_reports_cpu_engine_and_every_reason() {
    let (df, report) = unrunnable().collect_with_report(&Engine::gpu()).unwrap();
    assert!(df.equals_missing(&unrunnable().collect().unwrap()));
    assert_eq!(report.executed_by, ExecutedBy::Cpu(CpuEngine::InMemory));
    let kinds: Vec<FallbackKind> = report.fallback_reasons.iter().map(|r| r.kind).collect();
    match driver_missing() {
        Some(missing) => {
            assert_eq!(
                kinds,
                [FallbackKind::Unavailable, FallbackKind::Unsupported],
                "{report}"
            );
            assert_eq!(report.fallback_reasons[0].message, missing.to_string());
            assert_eq!(report.fallback_reasons[0].subject, None);
        }
        None => {
            println!("skipped: the no-driver expectations (a CUDA driver is present)");
            assert_eq!(kinds, [FallbackKind::Unsupported], "{report}");
        }
    }
    let unsupported = report.fallback_reasons.last().unwrap();
    assert!(
        unsupported
            .message
            .contains("user-defined functions run on the CPU only"),
        "the reason must say what is missing: {unsupported}"
    );
}

#[test]
fn a_query_the_gpu_can_run_falls_back_only_for_want_of_a_device() {
    let (df, report) = filtered().collect_with_report(&Engine::gpu()).unwrap();
    assert!(df.equals_missing(&filtered().collect().unwrap()));
    match driver_missing() {
        Some(missing) => {
            assert_eq!(report.executed_by, ExecutedBy::Cpu(CpuEngine::InMemory));
            let reasons: Vec<String> = report
                .fallback_reasons
                .iter()
                .map(|r| r.message.clone())
                .collect();
            assert_eq!(reasons, [missing.to_string()], "{report}");
        }
        None => {
            println!("skipped: the no-driver expectations (a CUDA driver is present)");
            assert_eq!(
                report.executed_by,
                ExecutedBy::Gpu {
                    device: 0,
                    emulated: false
                },
                "{report}"
            );
        }
    }
}

#[test]
fn unsupported_reason_names_the_plan_node_in_polars_notation() {
    let lf = orders().with_context([orders().select([col("id").alias("other")])]);
    let (_, report) = lf.clone().collect_with_report(&Engine::gpu()).unwrap();
    let subject = report.fallback_reasons.last().unwrap().subject.clone();
    let optimized = lf.describe_optimized_plan().unwrap();
    let line = optimized
        .lines()
        .map(str::trim)
        .find(|line| line.contains("EXTERNAL_CONTEXT"))
        .unwrap_or_else(|| panic!("no context in {optimized}"));
    assert_eq!(subject.as_deref(), Some(line), "{report}");
}

#[test]
fn raise_on_fail_gives_an_error_with_every_reason() {
    let engine = Engine::Gpu(GpuEngine::new().with_raise_on_fail(true));
    let err = unrunnable().collect_with(&engine).unwrap_err();
    let EngineError::GpuUnavailable { reasons } = &err else {
        panic!("expected GpuUnavailable, got {err}");
    };
    let text = err.to_string();
    assert!(text.contains("CPU fallback is disabled"), "{text}");
    assert!(
        text.contains("user-defined functions run on the CPU only"),
        "{text}"
    );
    match driver_missing() {
        Some(missing) => {
            assert_eq!(reasons.len(), 2, "{text}");
            assert!(text.contains(&missing.to_string()), "{text}");
            assert!(text.contains("libcuda.so"), "{text}");
        }
        None => {
            println!("skipped: the no-driver expectations (a CUDA driver is present)");
            assert_eq!(reasons.len(), 1, "{text}");
        }
    }
}

#[test]
fn polars_errors_pass_through_every_engine() {
    for engine in [
        Engine::InMemory,
        Engine::gpu(),
        Engine::Gpu(GpuEngine::new().with_raise_on_fail(true)),
    ] {
        let err = orders()
            .select([col("no_such_column")])
            .collect_with(&engine)
            .unwrap_err();
        assert!(matches!(&err, EngineError::Polars(_)), "{engine}: {err}");
        assert!(err.to_string().contains("no_such_column"), "{err}");
    }
}

#[test]
fn out_of_range_ordinal_says_how_many_devices_exist() {
    let engine = Engine::Gpu(GpuEngine::new().with_device(4096));
    let (_, report) = orders().collect_with_report(&engine).unwrap();
    let first = &report.fallback_reasons[0];
    if driver_missing().is_some() {
        println!("skipped: ordinal range check (no CUDA driver here)");
        return;
    }
    assert_eq!(first.kind, FallbackKind::Unavailable, "{report}");
    assert!(
        first.message.contains("GPU device 4096 does not exist"),
        "{report}"
    );
    assert!(first.message.contains("CUDA_VISIBLE_DEVICES"), "{report}");
}

#[test]
fn invalid_memory_configuration_is_an_error_even_with_fallback() {
    let pool = engine_select::MemoryResource::Pool {
        initial_bytes: 10,
        maximum_bytes: Some(1),
    };
    let engine = Engine::Gpu(GpuEngine::new().with_memory_resource(pool));
    let err = orders().collect_with(&engine).unwrap_err();
    assert!(matches!(err, EngineError::InvalidConfig(_)), "{err}");
}

#[test]
fn every_construct_the_gpu_cannot_run_is_a_reason_as_the_user_wrote_it() {
    let lf = orders().select([
        on_the_cpu_only(col("amount")).alias("ordering"),
        col("qty").shift(col("qty").max()).alias("shifted"),
        col("id"),
    ]);
    let (_, report) = lf.collect_with_report(&Engine::gpu()).unwrap();
    let unsupported: Vec<String> = report
        .fallback_reasons
        .iter()
        .filter(|r| r.kind == FallbackKind::Unsupported)
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        unsupported,
        [
            "unsupported: user-defined functions run on the CPU only (at \
             `col(\"amount\").map()`)",
            "unsupported: shift by a count that is not a literal integer (at \
             `col(\"qty\").shift(col(\"qty\").max())`)",
        ]
    );
}
