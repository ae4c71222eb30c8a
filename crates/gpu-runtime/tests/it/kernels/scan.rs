//! Inclusive and exclusive single-pass scans, stream compaction, the source rows of forward and backward fills, and sequential float sums.

use gpu_runtime::memory::{DeviceBuffer, DeviceCopy};
use gpu_runtime::{KernelArgs, LaunchConfig};
use kernels::{Kernel, ids};

use super::{BLOCK, Device, SIZES, bitmap, device};

/// Elements per tile of the single-pass scan (`kScanBlock` x `kScanItems`).
const TILE: u64 = 2048;

/// The scan of `input` (n values) with a single-pass scan kernel, its
/// look-back values poisoned.
pub(super) fn device_scan<T: DeviceCopy, A: DeviceCopy>(
    device: &Device,
    kernel: Kernel,
    input: &DeviceBuffer<T>,
    inclusive: bool,
    poison: A,
) -> DeviceBuffer<A> {
    let n = input.len() as u64;
    let tiles = n.div_ceil(TILE).max(1);
    let per_tile = LaunchConfig {
        grid: (tiles as u32, 1, 1),
        block: (BLOCK, 1, 1),
        shared_bytes: 0,
    };
    let status = device.upload(&vec![0u32; tiles as usize + 1]);
    let totals = device.poisoned(tiles as usize, poison);
    let prefixes = device.poisoned(tiles as usize, poison);
    let out = device.poisoned(n as usize, poison);
    // SAFETY: scan_T(const T* in, u64 n, A* out, u32 inclusive, u32* status,
    // A* totals, A* prefixes) with one block of 256 threads per tile, a zero
    // status word per tile plus the tile counter, and a value per tile in
    // `totals` and `prefixes`.
    unsafe {
        device.launch(
            kernel,
            per_tile,
            KernelArgs::new()
                .buffer(input)
                .arg(n)
                .buffer(&out)
                .arg(u32::from(inclusive))
                .buffer(&status)
                .buffer(&totals)
                .buffer(&prefixes),
        );
    }
    out
}

#[test]
fn integer_scans_match_rust() {
    let device = device();
    let mut rng = fastrand::Rng::with_seed(7);
    let kernels = ids::scan_i64;
    // Sizes past 32 tiles make the look-back go on over several windows.
    for &n in SIZES.iter().chain(&[65_537, 300_001]) {
        let values: Vec<i64> = (0..n).map(|_| rng.i64(-1000..1000)).collect();
        let input = device.upload(&values);
        let mut running = 0i64;
        let inclusive: Vec<i64> = values
            .iter()
            .map(|v| {
                running += v;
                running
            })
            .collect();
        let exclusive: Vec<i64> = inclusive.iter().zip(&values).map(|(s, v)| s - v).collect();
        let out = device_scan(&device, kernels, &input, true, i64::MIN);
        assert_eq!(out.to_host().unwrap(), inclusive, "inclusive n = {n}");
        let out = device_scan(&device, kernels, &input, false, i64::MIN);
        assert_eq!(out.to_host().unwrap(), exclusive, "exclusive n = {n}");
    }
}

#[test]
fn float_exclusive_scan_is_the_sum_of_the_values_before() {
    let device = device();
    let kernels = ids::scan_f64;
    for &n in SIZES {
        // Values whose sums are exact in doubles, so any order gives the same bits.
        let values: Vec<f64> = (0..n).map(|i| (i % 17) as f64 * 0.25).collect();
        let input = device.upload(&values);
        let mut running = 0.0;
        let exclusive: Vec<f64> = values
            .iter()
            .map(|v| {
                let before = running;
                running += v;
                before
            })
            .collect();
        let out = device_scan(&device, kernels, &input, false, f64::NAN);
        assert_eq!(out.to_host().unwrap(), exclusive, "n = {n}");
    }
}

#[test]
fn compaction_gives_the_indices_of_set_flags_in_order() {
    let device = device();
    let mut rng = fastrand::Rng::with_seed(8);
    let kernels = ids::scan_u8;
    for &n in SIZES {
        let flags: Vec<u8> = (0..n).map(|_| u8::from(rng.u8(..3) == 0)).collect();
        let input = device.upload(&flags);
        let positions = device_scan(&device, kernels, &input, false, u64::MAX);
        let expected: Vec<u64> = (0..n as u64).filter(|i| flags[*i as usize] != 0).collect();
        let out = device.poisoned(expected.len(), u64::MAX);
        // SAFETY: compact_indices(const u8* flags, const u64* positions, u64 n, u64* out),
        // `out` has room for every set flag.
        unsafe {
            device.launch(
                ids::compact_indices,
                LaunchConfig::linear(n as u64, BLOCK, 8),
                KernelArgs::new()
                    .buffer(&input)
                    .buffer(&positions)
                    .arg(n as u64)
                    .buffer(&out),
            )
        };
        assert_eq!(out.to_host().unwrap(), expected, "n = {n}");
    }
}

#[test]
fn fill_sources_are_the_nearest_valid_rows_within_the_limit() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(53);
    for &n in SIZES {
        let valid: Vec<bool> = (0..n).map(|_| rng.u8(..4) == 0).collect();
        let d_valid = device.upload(&bitmap(&valid));
        for forward in [true, false] {
            for limit in [None, Some(0u64), Some(1), Some(5)] {
                let got = ops
                    .fill_sources(&d_valid, n, forward, limit)
                    .unwrap()
                    .to_host()
                    .unwrap();
                let expected: Vec<i64> = (0..n)
                    .map(|i| {
                        let source = if forward {
                            (0..=i).rev().find(|&j| valid[j])
                        } else {
                            (i..n).find(|&j| valid[j])
                        };
                        match source {
                            Some(j) if limit.is_none_or(|l| i.abs_diff(j) as u64 <= l) => j as i64,
                            _ => -1,
                        }
                    })
                    .collect();
                assert_eq!(got, expected, "n = {n}, forward {forward}, limit {limit:?}");
            }
        }
    }
}

/// `n` rows in a shuffled order cut into random groups: the rows in group
/// order, each group's first position, and each group's end.
pub(super) fn shuffled_groups(
    rng: &mut fastrand::Rng,
    n: usize,
) -> (Vec<i64>, Vec<i64>, Vec<usize>) {
    let mut rows: Vec<i64> = (0..n as i64).collect();
    rng.shuffle(&mut rows);
    let mut starts: Vec<i64> = (0..n as i64).filter(|_| rng.u8(..6) == 0).collect();
    if starts.first() != Some(&0) {
        starts.insert(0, 0);
    }
    let ends: Vec<usize> = starts[1..].iter().map(|&s| s as usize).chain([n]).collect();
    (rows, starts, ends)
}

/// Polars' `cum_prod` per group: each group's valid values multiplied in
/// order from 1 in their own type, integers wrapping (as Polars' release
/// build), floats in order (the order shows in the last bits).
#[test]
fn sequential_products_multiply_each_groups_values_in_order() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(61);
    for &n in SIZES {
        let ints: Vec<i64> = (0..n).map(|_| rng.i64(-1000..1000)).collect();
        let floats: Vec<f64> = (0..n).map(|_| 1.0 + (rng.f64() - 0.5) * 1e-3).collect();
        let valid: Vec<bool> = (0..n).map(|_| rng.u8(..5) != 0).collect();
        let (rows, starts, ends) = shuffled_groups(&mut rng, n);
        let (mut expected_ints, mut expected_floats) = (vec![0i64; n], vec![0f64; n]);
        for (g, &start) in starts.iter().enumerate() {
            let (mut int, mut float) = (1i64, 1f64);
            for &row in &rows[start as usize..ends[g]] {
                let row = row as usize;
                if valid[row] {
                    int = int.wrapping_mul(ints[row]);
                    float *= floats[row];
                    expected_ints[row] = int;
                    expected_floats[row] = float;
                }
            }
        }
        let (d_valid, d_rows) = (device.upload(&bitmap(&valid)), device.upload(&rows));
        let d_starts = device.upload(&starts);
        let got_ints = ops
            .sequential_products(&device.upload(&ints), Some(&d_valid), &d_rows, &d_starts)
            .unwrap()
            .to_host()
            .unwrap();
        let got_floats = ops
            .sequential_products(&device.upload(&floats), Some(&d_valid), &d_rows, &d_starts)
            .unwrap()
            .to_host()
            .unwrap();
        assert_eq!(got_ints, expected_ints, "n = {n}");
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&got_floats), bits(&expected_floats), "n = {n}");
    }
}

#[test]
fn sequential_sums_add_each_groups_floats_in_order_as_polars_loop_does() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(59);
    for &n in SIZES {
        // Values of mixed magnitudes (so the order of the additions shows
        // in the last bits), some null; rows in a shuffled group order.
        let values: Vec<f64> = (0..n)
            .map(|_| (rng.f64() - 0.5) * 10f64.powi(rng.i32(-3..17)))
            .collect();
        let valid: Vec<bool> = (0..n).map(|_| rng.u8(..5) != 0).collect();
        let (rows, starts, ends) = shuffled_groups(&mut rng, n);
        let mut expected64 = vec![0f64; n];
        let mut expected32 = vec![0f32; n];
        let singles: Vec<f32> = values.iter().map(|&v| v as f32).collect();
        for (g, &start) in starts.iter().enumerate() {
            let (mut sum64, mut sum32) = (0f64, 0f64);
            for &row in &rows[start as usize..ends[g]] {
                let row = row as usize;
                if valid[row] {
                    sum64 += values[row];
                    sum32 += f64::from(singles[row]);
                    expected64[row] = sum64;
                    expected32[row] = sum32 as f32;
                }
            }
        }
        let (d_valid, d_rows) = (device.upload(&bitmap(&valid)), device.upload(&rows));
        let d_starts = device.upload(&starts);
        let got64 = ops
            .sequential_sums(&device.upload(&values), Some(&d_valid), &d_rows, &d_starts)
            .unwrap()
            .to_host()
            .unwrap();
        let got32 = ops
            .sequential_sums(&device.upload(&singles), Some(&d_valid), &d_rows, &d_starts)
            .unwrap()
            .to_host()
            .unwrap();
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let bits32 = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&got64), bits(&expected64), "n = {n}");
        assert_eq!(bits32(&got32), bits32(&expected32), "n = {n}");
    }
}
