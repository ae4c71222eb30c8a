//! Device-wide sums, minima and maxima: block partials, then one block over the partials.

use gpu_runtime::memory::{DeviceCopy, DevicePtr};
use gpu_runtime::{KernelArgs, LaunchConfig};
use kernels::{Kernel, ids};

use super::{BLOCK, Device, SIZES, bitmap, device};

/// Reduces `values` (with an optional validity bitmap) on the device:
/// `kernel` writes block partials, `second` reduces them in one block.
fn device_reduce<T: DeviceCopy, A: DeviceCopy>(
    device: &Device,
    (kernel, second): (Kernel, Kernel),
    values: &[T],
    validity: Option<&[bool]>,
    poison: A,
) -> A {
    let n = values.len() as u64;
    let input = device.upload(values);
    let validity = validity.map(|v| device.upload(&bitmap(v)));
    let validity_ptr = validity
        .as_ref()
        .map_or(DevicePtr::NULL, |b| b.device_ptr());
    let config = LaunchConfig::linear(n, BLOCK, 64);
    let blocks = config.grid.0 as usize;
    let partials = device.poisoned(blocks, poison);
    let total = device.poisoned(1, poison);
    // SAFETY: reduce_*(const T* in, const u32* validity, u64 n, A* partials)
    // with one partial per block; then over the partials with one block.
    unsafe {
        let args = KernelArgs::new()
            .buffer(&input)
            .arg(validity_ptr)
            .arg(n)
            .buffer(&partials);
        device.launch(kernel, config, args);
        let args = KernelArgs::new()
            .buffer(&partials)
            .arg(DevicePtr::NULL)
            .arg(blocks as u64)
            .buffer(&total);
        device.launch(second, LaunchConfig::linear(blocks as u64, BLOCK, 1), args);
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
        let kernels = (ids::reduce_sum_i64, ids::reduce_sum_i64);
        assert_eq!(
            device_reduce(&device, kernels, &values, None, i64::MIN),
            expected,
            "n = {n}"
        );

        let values: Vec<u32> = (0..n).map(|_| rng.u32(..)).collect();
        let valid: Vec<bool> = (0..n).map(|_| rng.u8(..4) != 0).collect();
        let expected: u64 = values
            .iter()
            .zip(&valid)
            .filter(|(_, v)| **v)
            .map(|(x, _)| u64::from(*x))
            .sum();
        let kernels = (ids::reduce_sum_u32, ids::reduce_sum_u64);
        let sum = device_reduce(&device, kernels, &values, Some(&valid), u64::MAX);
        assert_eq!(sum, expected, "n = {n}, with nulls");
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
        let kernels = (ids::reduce_sum_f64, ids::reduce_sum_f64);
        let sum = device_reduce(&device, kernels, &values, None, f64::NAN);
        let tolerance = 1e-9 * values.iter().map(|v| v.abs()).sum::<f64>().max(1.0);
        assert!(
            (sum - expected).abs() <= tolerance,
            "n = {n}: {sum} vs {expected}"
        );
    }
}

/// Polars' float sum of one chunk (polars-compute's `float_sum`, without
/// SIMD), in the values' type: the reference the pairwise sum must equal
/// bit for bit.
pub(super) fn polars_float_sum<F>(values: &[F], valid: &[bool]) -> F
where
    F: Copy + Default + std::ops::Add<Output = F> + std::iter::Sum,
{
    let value = |i: usize| if valid[i] { values[i] } else { F::default() };
    let block = |first: usize| {
        let mut lanes = [F::default(); 16];
        for chunk in 0..8 {
            for (j, lane) in lanes.iter_mut().enumerate() {
                *lane = *lane + value(first + 16 * chunk + j);
            }
        }
        let mut width = 16;
        while width > 4 {
            for j in 0..width / 2 {
                lanes[j] = lanes[j] + lanes[width / 2 + j];
            }
            width /= 2;
        }
        (lanes[0] + lanes[2]) + (lanes[1] + lanes[3])
    };
    fn pairwise<F: Copy + std::ops::Add<Output = F>>(
        first: usize,
        blocks: usize,
        block: &dyn Fn(usize) -> F,
    ) -> F {
        if blocks == 1 {
            return block(first);
        }
        let left = blocks / 2;
        pairwise(first, left, block) + pairwise(first + 128 * left, blocks - left, block)
    }
    let head = values.len() % 128;
    let main = match values.len() / 128 {
        0 => F::default(),
        blocks => pairwise(head, blocks, &block),
    };
    let rest: F = (0..head).map(value).sum();
    main + rest
}

#[test]
fn pairwise_sums_equal_polars_float_sum_bit_for_bit() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(4);
    let sizes = SIZES
        .iter()
        .copied()
        .chain([128, 384, 640, 128 * 1000 + 77, 128 * 1023]);
    for n in sizes {
        let values: Vec<f64> = (0..n)
            .map(|i| match i % 97 {
                5 => -0.0,
                11 => 1e300,
                12 => -1e300,
                _ => (rng.f64() - 0.5) * 10f64.powi(rng.i32(-3..9)),
            })
            .collect();
        // The same values as f32 (the extremes as f32's), summed in f32.
        let floats: Vec<f32> = values
            .iter()
            .map(|&x| match x {
                1e300 => 3e38,
                -1e300 => -3e38,
                x => x as f32,
            })
            .collect();
        for nulls in [false, true] {
            let valid: Vec<bool> = (0..n).map(|_| !nulls || rng.u8(..5) != 0).collect();
            let bits = nulls.then(|| device.upload(&bitmap(&valid)));
            let sum = ops
                .pairwise_sum(&device.upload(&values), bits.as_ref())
                .unwrap()
                .to_host()
                .unwrap()[0];
            let expected = polars_float_sum(&values, &valid);
            assert_eq!(
                sum.to_bits(),
                expected.to_bits(),
                "n = {n}, nulls {nulls}: {sum} vs {expected}"
            );
            let sum = ops
                .pairwise_sum(&device.upload(&floats), bits.as_ref())
                .unwrap()
                .to_host()
                .unwrap()[0];
            let expected = polars_float_sum(&floats, &valid);
            assert_eq!(
                sum.to_bits(),
                expected.to_bits(),
                "f32, n = {n}, nulls {nulls}: {sum} vs {expected}"
            );
        }
    }
}

#[test]
fn minima_and_maxima_skip_nulls_and_nan() {
    let device = device();
    let mut rng = fastrand::Rng::with_seed(3);
    for &n in SIZES {
        let values: Vec<i32> = (0..n).map(|_| rng.i32(..)).collect();
        let valid: Vec<bool> = (0..n).map(|_| rng.bool()).collect();
        let kept = || {
            values
                .iter()
                .zip(&valid)
                .filter(|(_, v)| **v)
                .map(|(x, _)| *x)
        };
        let min = device_reduce(
            &device,
            (ids::reduce_min_i32, ids::reduce_min_i32),
            &values,
            Some(&valid),
            0,
        );
        let max = device_reduce(
            &device,
            (ids::reduce_max_i32, ids::reduce_max_i32),
            &values,
            Some(&valid),
            0,
        );
        assert_eq!(min, kept().min().unwrap_or(i32::MAX), "n = {n}");
        assert_eq!(max, kept().max().unwrap_or(i32::MIN), "n = {n}");

        // Some NaN among numbers, and only NaN: NaN is skipped unless
        // every value is NaN (and it is the answer for no value at all),
        // as Rust's f64::min and max from a NaN start.
        let some_nan: Vec<f64> = (0..n)
            .map(|i| {
                if i % 7 == 3 {
                    f64::NAN
                } else {
                    rng.f64() * 100.0 - 50.0
                }
            })
            .collect();
        for floats in [some_nan, vec![f64::NAN; n]] {
            let lo = floats.iter().fold(f64::NAN, |lo, x| lo.min(*x));
            let hi = floats.iter().fold(f64::NAN, |hi, x| hi.max(*x));
            let min: f64 = device_reduce(
                &device,
                (ids::reduce_min_f64, ids::reduce_min_f64),
                &floats,
                None,
                0.0,
            );
            let max: f64 = device_reduce(
                &device,
                (ids::reduce_max_f64, ids::reduce_max_f64),
                &floats,
                None,
                0.0,
            );
            assert_eq!(
                (min.to_bits(), max.to_bits()),
                (lo.to_bits(), hi.to_bits()),
                "n = {n}: ({min}, {max}) for ({lo}, {hi})"
            );
        }
    }
}

#[test]
fn whole_buffer_reductions_through_ops_match_rust() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(4);
    // The last size gives every thread of the largest grid several rounds
    // of four loads.
    for &n in SIZES.iter().chain(&[(1 << 22) + 5]) {
        let values: Vec<i32> = (0..n).map(|_| rng.i32(..)).collect();
        let valid: Vec<bool> = (0..n).map(|_| rng.u8(..4) != 0).collect();
        let kept: Vec<i32> = values
            .iter()
            .zip(&valid)
            .filter(|(_, v)| **v)
            .map(|(x, _)| *x)
            .collect();
        let (d_values, d_valid) = (device.upload(&values), device.upload(&bitmap(&valid)));
        let sum = ops.reduce_sum(&d_values, Some(&d_valid)).unwrap();
        let expected: i64 = kept.iter().map(|x| i64::from(*x)).sum();
        assert_eq!(sum.to_host().unwrap(), [expected], "sum, n = {n}");
        let min = ops
            .reduce_extreme(&d_values, Some(&d_valid), false)
            .unwrap();
        let max = ops.reduce_extreme(&d_values, Some(&d_valid), true).unwrap();
        assert_eq!(
            (min.to_host().unwrap()[0], max.to_host().unwrap()[0]),
            (
                kept.iter().copied().min().unwrap_or(i32::MAX),
                kept.iter().copied().max().unwrap_or(i32::MIN)
            ),
            "min and max, n = {n}"
        );
        let unsigned: Vec<u32> = values.iter().map(|x| *x as u32).collect();
        let sum = ops.reduce_sum(&device.upload(&unsigned), None).unwrap();
        let expected: u64 = unsigned.iter().map(|x| u64::from(*x)).sum();
        assert_eq!(sum.to_host().unwrap(), [expected], "u32 sum, n = {n}");
    }
    let bad = ops.reduce_sum(&device.upload(&[1i64; 40]), Some(&device.upload(&[0u32])));
    assert!(bad.is_err(), "a bitmap too short for the values is refused");
}
