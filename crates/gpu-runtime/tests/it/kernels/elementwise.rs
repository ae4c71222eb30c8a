//! iota and fill.

use gpu_runtime::{KernelArgs, LaunchConfig};
use kernels::ids;

use super::{BLOCK, SIZES, device};

#[test]
fn iota_counts_from_start_at_every_size() {
    let device = device();
    for &n in SIZES {
        // Few blocks so that the grid-stride loop runs too.
        let config = LaunchConfig::linear(n as u64, BLOCK, 8);
        let out = device.poisoned(n, u32::MAX);
        // SAFETY: iota_u32(u32* out, u64 n, u32 start); `out` holds n values.
        unsafe {
            device.launch(
                ids::iota_u32,
                config,
                KernelArgs::new().buffer(&out).arg(n as u64).arg(7u32),
            )
        };
        let expected: Vec<u32> = (0..n as u32).map(|i| i + 7).collect();
        assert_eq!(out.to_host().unwrap(), expected, "n = {n}");

        let out = device.poisoned(n, i64::MIN);
        // SAFETY: iota_i64(i64* out, u64 n, i64 start); `out` holds n values.
        unsafe {
            device.launch(
                ids::iota_i64,
                config,
                KernelArgs::new().buffer(&out).arg(n as u64).arg(-3i64),
            )
        };
        let expected: Vec<i64> = (0..n as i64).map(|i| i - 3).collect();
        assert_eq!(out.to_host().unwrap(), expected, "n = {n}");
    }
}

#[test]
fn fill_writes_every_element() {
    let device = device();
    for &n in SIZES {
        let config = LaunchConfig::linear(n as u64, BLOCK, 1024);
        let out = device.poisoned(n, f64::NAN);
        // SAFETY: fill_f64(double* out, u64 n, double value); `out` holds n values.
        unsafe {
            device.launch(
                ids::fill_f64,
                config,
                KernelArgs::new().buffer(&out).arg(n as u64).arg(2.5f64),
            )
        };
        assert_eq!(out.to_host().unwrap(), vec![2.5; n], "n = {n}");
    }
}
