//! GPU collects that really run, on the device under test (the emulated device unless `GPU_TEST_DEVICE` names a GPU), compared with Polars' CPU engine.
//!
//! Helpers here; the tests by family: `operators`, `joins`, `aggregations`
//! (per group), `whole_frame`, `expressions`, `casts`, `categoricals`, `decimals`, `float_lists`, `list_places`, `moved_nested`, `nested_choices`, `null_type`, `strings`,
//! `products`, `series_literals`, `temporal`, `temporal_parts`, `row_order`, `neighbours`, `rolling`, `windows`, `devices`, `partitioned` (the
//! partitioned executor), `partitioned_scans` (file scans it reads in
//! partitions), `spilling` (results kept for later moved to host memory),
//! `unpivot`.

use engine_select::{
    DeviceKind, Engine, EngineError, ExecutedBy, FallbackKind, GpuEngine, LazyFrameExt,
    MemoryResource,
};
use polars::prelude::*;
use polars_core::chunked_array::cast::CastOptions;
use polars_core::series::ops::NullBehavior;

use crate::{on_the_cpu_only, orders, under_test, under_test_executed_by};

mod aggregations;
mod asof_joins;
mod casts;
mod categoricals;
mod decimals;
mod devices;
mod exploded;
mod expressions;
mod filtered;
mod float_lists;
mod gathers;
mod held_inputs;
mod host_math;
mod joins;
mod list_concat;
mod list_equality;
mod list_filters;
mod list_keys;
mod list_literals;
mod list_places;
mod lists;
mod memory_limits;
mod modes;
mod moved_nested;
mod neighbours;
mod nested_choices;
mod nested_lists;
mod null_type;
mod one_value;
mod operators;
mod parsed_temporals;
mod partitioned;
mod partitioned_around;
mod partitioned_asof;
mod partitioned_beside;
mod partitioned_counts;
mod partitioned_keys;
mod partitioned_quantiles;
mod partitioned_scans;
mod partitioned_validation;
mod partitioned_windows;
mod products;
mod replace;
mod replace_many;
mod rolling;
mod row_order;
mod series_literals;
mod sorted_claims;
mod spilling;
mod spreads;
mod strings;
mod structs;
mod temporal;
mod temporal_parts;
mod time_windows;
mod unpivot;
mod whole_frame;
mod wide_integers;
mod windows;
mod zones;

/// The engine on the emulated device, for what only it has (eight devices,
/// one of them with a tiny pool).
fn emulated() -> GpuEngine {
    GpuEngine::new().with_device_kind(DeviceKind::Emulated)
}

/// Frames compared as the engines' answers must agree exactly: rows in
/// order, floats bit for bit (-0.0 apart from 0.0).
pub(crate) const EXACTLY: crate::fuzz::oracle::Compare = crate::fuzz::oracle::Compare {
    ordered: true,
    floats_close: false,
    partition_rows: None,
    spill_kept: false,
};

/// Runs `lf` on the CPU and, with fallback disabled (so a fallback can never
/// pass as a GPU result), on the emulated device; both must agree on dtypes,
/// nulls, values and row order (floats bit for bit, -0.0 apart from 0.0:
/// filters move values).
pub fn assert_gpu_eq(name: &str, lf: LazyFrame) {
    let expected = lf.clone().collect().unwrap();
    let engine = Engine::Gpu(under_test().with_raise_on_fail(true));
    let (actual, report) = lf
        .collect_with_report(&engine)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(report.executed_by, under_test_executed_by(), "{name}");
    assert_eq!(expected.schema(), actual.schema(), "{name}: dtypes");
    assert!(
        expected.equals_missing(&actual),
        "{name}\nexpected {expected}\nactual {actual}"
    );
    if let Some(why) = crate::fuzz::oracle::difference(&expected, &actual, EXACTLY) {
        panic!("{name}: {why}");
    }
}

/// Runs `lf` through the GPU engine, fallback allowed: the CPU's answer,
/// with a fallback reason that contains `reason`.
fn assert_cpu_answer_with_reason(lf: LazyFrame, reason: &str) {
    let expected = lf.clone().collect().unwrap();
    let (actual, report) = lf.collect_with_report(&Engine::Gpu(under_test())).unwrap();
    assert!(expected.equals_missing(&actual), "{reason}: {report}");
    assert!(
        report
            .fallback_reasons
            .iter()
            .any(|r| r.message.contains(reason)),
        "expected a reason with {reason:?}: {report}"
    );
}

/// The error of `lf`, a query Polars rejects, through the GPU engine with
/// fallback disabled (the engine's reason, which names the data at fault).
pub fn raised_error(lf: LazyFrame) -> String {
    let raising = Engine::Gpu(under_test().with_raise_on_fail(true));
    match lf.collect_with_report(&raising) {
        Err(e) => e.to_string(),
        Ok((_, report)) => panic!("expected an error, got {report}"),
    }
}

/// Runs `lf`, a query Polars rejects, through the GPU engine, fallback
/// allowed: Polars' own error, word for word.
fn assert_cpu_error(lf: LazyFrame) {
    let expected = lf.clone().collect().unwrap_err().to_string();
    match lf.collect_with_report(&Engine::Gpu(under_test())) {
        Err(EngineError::Polars(e)) => assert_eq!(e.to_string(), expected),
        other => panic!(
            "expected {expected}, got {:?}",
            other.map(|(_, report)| report)
        ),
    }
}

/// As [`assert_gpu_eq`], floats within a relative 1e-9: for aggregations
/// whose summation order differs from Polars' (variance, interpolated
/// quantiles).
fn assert_gpu_close(name: &str, lf: LazyFrame) {
    let expected = lf.clone().collect().unwrap();
    let engine = Engine::Gpu(under_test().with_raise_on_fail(true));
    let (actual, report) = lf
        .collect_with_report(&engine)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(report.executed_by == under_test_executed_by(), "{name}");
    crate::assert_frames_close(&expected, &actual, name);
}

fn table() -> LazyFrame {
    let mut df = df!(
        "i" => [Some(5i64), None, Some(-3), Some(5), Some(0), Some(i64::MAX), Some(i64::MIN), None],
        "k" => [Some(4i64), Some(1), Some(-3), None, Some(0), Some(i64::MIN), Some(i64::MAX), None],
        "u" => [Some(1u32), Some(2), None, Some(4), Some(5), Some(6), Some(7), Some(8)],
        "f" => [Some(1.5), Some(f64::NAN), None, Some(-0.0), Some(f64::INFINITY), Some(2.5), Some(0.0), Some(f64::NAN)],
        "b" => [Some(true), Some(false), None, Some(true), Some(false), Some(true), None, Some(false)],
        "s" => [Some("a"), Some(""), None, Some("long string with ünïcode"), Some("x"), None, Some("y"), Some("z")],
    )
    .unwrap();
    let days = Series::new(
        "d".into(),
        [
            Some(19_000i32),
            Some(19_001),
            None,
            Some(18_999),
            Some(19_000),
            Some(0),
            Some(-1),
            Some(20_000),
        ],
    );
    df.with_column(days.cast(&DataType::Date).unwrap().into())
        .unwrap();
    df.lazy()
}

/// A date literal from days since 1970-01-01.
fn date_literal(days: i32) -> Expr {
    lit(days).cast(DataType::Date)
}

/// `n` rows of every physical type, nulls every `null_every` rows (0: none).
fn rows(n: usize, seed: i64, null_every: usize) -> LazyFrame {
    fn pick<T>(i: usize, null_every: usize, value: T) -> Option<T> {
        (null_every == 0 || !i.is_multiple_of(null_every)).then_some(value)
    }
    df!(
        "i" => (0..n).map(|i| pick(i, null_every, seed * 1000 + i as i64)).collect::<Vec<_>>(),
        "b" => (0..n).map(|i| pick(i, null_every, (i + seed as usize).is_multiple_of(3))).collect::<Vec<_>>(),
        "f" => (0..n).map(|i| pick(i, null_every, i as f64 / 4.0 - seed as f64)).collect::<Vec<_>>(),
        "s" => (0..n).map(|i| pick(i, null_every, format!("{seed}-{}", "é".repeat(i % 5)))).collect::<Vec<_>>(),
        "u8" => (0..n).map(|i| pick(i, null_every, (i % 250) as u8)).collect::<Vec<_>>(),
    )
    .unwrap()
    .lazy()
}

fn groups() -> LazyFrame {
    df!(
        "g" => [Some(1i64), Some(2), Some(1), None, Some(3), Some(2), None, Some(1), Some(3), Some(3)],
        "h" => [1u32, 1, 2, 1, 2, 1, 1, 1, 2, 2],
        "v" => [Some(10i64), None, Some(-3), Some(7), Some(1), Some(1 << 40), None, Some(2), Some(-(1 << 41)), Some(5)],
        "x" => [Some(1.5), Some(f64::NAN), None, Some(-2.0), Some(0.0), Some(3.25), Some(1.0), None, Some(2.0), Some(-0.5)],
        "s" => [Some("shared prefix one"), Some("a"), Some("shared prefix one"), None, Some("shared prefix two"), Some("a"), None, Some("shared prefix one"), Some("shared prefix two"), Some("")],
    )
    .unwrap()
    .lazy()
}

/// Six rows in groups by `g` (a null key too) and `h`, with integers and
/// texts holding a null each.
fn small_groups() -> LazyFrame {
    df!(
        "g" => [Some(1i64), Some(2), None, Some(1), Some(2), Some(1)],
        "h" => ["a", "b", "a", "a", "b", "b"],
        "x" => [Some(1i64), None, Some(3), Some(4), Some(5), Some(6)],
        "s" => [Some("p"), Some("q"), None, Some("r"), Some("s"), Some("t")],
    )
    .unwrap()
    .lazy()
}

/// A xorshift generator: reproducible pseudo-random words.
pub(crate) fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}
