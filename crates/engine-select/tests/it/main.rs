//! Integration tests of the façade: parity with `collect()`, fallback reasons, errors, threads.

mod emulated;
mod fallback;
mod parity;
mod pdsh_gpu;
mod properties;

use gpu_runtime::{RuntimeError, Unavailable};
use polars::prelude::*;

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

/// Whether this machine has a working CUDA driver with a device. Tests whose
/// expectation depends on it say "skipped" for the other case.
pub fn driver_missing() -> Option<Unavailable> {
    match gpu_runtime::driver() {
        Err(RuntimeError::Unavailable(u)) => Some(u),
        _ => None,
    }
}
