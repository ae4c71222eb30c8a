//! Device-wide sums: block partials, then one block over the partials.

use gpu_runtime::memory::DeviceCopy;
use gpu_runtime::{KernelArgs, LaunchConfig};
use kernels::{Kernel, ids};

use crate::{BLOCK, Device, SIZES, device};

/// Sums `values` on the device with `kernel` (partials, then their sum).
fn device_sum<T: DeviceCopy, A: DeviceCopy>(
    device: &Device,
    kernel: Kernel,
    second: Kernel,
    values: &[T],
    poison: A,
) -> A {
    let n = values.len() as u64;
    let input = device.upload(values);
    let config = LaunchConfig::linear(n, BLOCK, 64);
    let blocks = config.grid.0 as usize;
    let partials = device.poisoned(blocks, poison);
    let total = device.poisoned(1, poison);
    // SAFETY: reduce_sum_*(const T* in, u64 n, A* partials) with one partial
    // per block; then over the partials (of type A) with one block.
    unsafe {
        device.launch(
            kernel,
            config,
            KernelArgs::new().buffer(&input).arg(n).buffer(&partials),
        );
        device.launch(
            second,
            LaunchConfig::linear(blocks as u64, BLOCK, 1),
            KernelArgs::new()
                .buffer(&partials)
                .arg(blocks as u64)
                .buffer(&total),
        );
    }
    total.to_host().unwrap()[0]
}

#[test]
fn integer_sums_match_wrapping_rust_sums() {
    let device = device();
    let mut rng = fastrand::Rng::with_seed(1);
    for &n in SIZES {
        let values: Vec<i64> = (0..n).map(|_| rng.i64(..) >> 8).collect();
        let expected = values.iter().fold(0i64, |a, v| a.wrapping_add(*v));
        let sum = device_sum(
            &device,
            ids::reduce_sum_i64,
            ids::reduce_sum_i64,
            &values,
            i64::MIN,
        );
        assert_eq!(sum, expected, "n = {n}");

        let values: Vec<u32> = (0..n).map(|_| rng.u32(..)).collect();
        let expected: u64 = values.iter().map(|v| u64::from(*v)).sum();
        let sum = device_sum(
            &device,
            ids::reduce_sum_u32,
            ids::reduce_sum_u64,
            &values,
            u64::MAX,
        );
        assert_eq!(sum, expected, "n = {n}");
    }
}

#[test]
fn float_sums_match_within_rounding() {
    let device = device();
    let mut rng = fastrand::Rng::with_seed(2);
    for &n in SIZES {
        let values: Vec<f64> = (0..n)
            .map(|_| rng.u64(..2_000_001) as f64 / 1000.0 - 1000.0)
            .collect();
        let expected: f64 = values.iter().sum();
        let sum = device_sum(
            &device,
            ids::reduce_sum_f64,
            ids::reduce_sum_f64,
            &values,
            f64::NAN,
        );
        let tolerance = 1e-9 * values.iter().map(|v| v.abs()).sum::<f64>().max(1.0);
        assert!(
            (sum - expected).abs() <= tolerance,
            "n = {n}: {sum} vs {expected}"
        );
    }
}
