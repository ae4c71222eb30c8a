//! Integration tests of the façade: parity with `collect()`, fallback reasons, errors, threads.

#[path = "../common/frames.rs"]
mod frames;

mod fallback;
mod fuzz;
mod gpu;
mod parity;
mod pdsh_gpu;
mod properties;

use engine_select::{DeviceKind, ExecutedBy, GpuEngine};
use gpu_runtime::{RuntimeError, TestDevice, Unavailable};
use polars::prelude::*;

/// Every quantile method.
pub const QUANTILE_METHODS: [QuantileMethod; 6] = {
    use QuantileMethod::*;
    [Nearest, Lower, Higher, Midpoint, Linear, Equiprobable]
};

/// `expr` through a user-defined function (the identity): what no device
/// runs, by nature, in a query the tests want on the CPU, in whole or in
/// part.
pub fn on_the_cpu_only(expr: Expr) -> Expr {
    expr.map(Ok, |_, field| Ok(field.clone()))
}

/// Orders and customers with nulls in keys and values, NaN and empty strings.
pub fn orders() -> LazyFrame {
    df!(
        "id" => [1i64, 2, 3, 4, 5, 6, 7, 8, 9, 10],
        "customer" => [Some(1i64), Some(2), None, Some(1), Some(3), Some(2), None, Some(4), Some(1), Some(3)],
        "amount" => [Some(10.5), None, Some(3.0), Some(f64::NAN), Some(7.25), Some(-1.0), Some(2.0), None, Some(8.0), Some(0.0)],
        "qty" => [Some(1i32), Some(2), Some(3), None, Some(5), Some(6), Some(7), Some(8), None, Some(10)],
        "status" => [Some("open"), Some("shipped"), None, Some("open"), Some(""), Some("returned"), Some("open"), Some("shipped"), Some("open"), None],
    )
    .unwrap()
    .lazy()
}

pub fn customers() -> LazyFrame {
    df!(
        "customer" => [Some(1i64), Some(2), Some(3), None, Some(5)],
        "name" => [Some("ada"), Some("bob"), None, Some("nil"), Some("eve")],
    )
    .unwrap()
    .lazy()
}

/// The GPU engine on the device under test: the emulated device, or the
/// GPU that `GPU_TEST_DEVICE` names (`cuda`, `cuda:N`), so that the same
/// parity tests run in CI and, through the device check, on a real GPU.
pub fn under_test() -> GpuEngine {
    match TestDevice::from_env().unwrap_or_else(|e| panic!("{e}")) {
        TestDevice::Emulated => GpuEngine::new().with_device_kind(DeviceKind::Emulated),
        TestDevice::Cuda(ordinal) => GpuEngine::new().with_device(ordinal),
    }
}

/// Where a query that runs whole on the device under test says it ran.
pub fn under_test_executed_by() -> ExecutedBy {
    let engine = under_test();
    ExecutedBy::Gpu {
        device: engine.device().unwrap_or(0),
        emulated: engine.device_kind() == DeviceKind::Emulated,
    }
}

/// Whether this machine has a working CUDA driver with a device. Tests whose
/// expectation depends on it say "skipped" for the other case.
pub fn driver_missing() -> Option<Unavailable> {
    match gpu_runtime::driver() {
        Err(RuntimeError::Unavailable(u)) => Some(u),
        _ => None,
    }
}

/// Equal dtypes, nulls and values, floats within a relative 1e-9 (parallel
/// sums add in different orders from run to run).
pub fn assert_frames_close(expected: &DataFrame, actual: &DataFrame, context: &str) {
    if let Some(why) = frames::frames_differ(expected, actual) {
        panic!("{context}: {why}");
    }
}
