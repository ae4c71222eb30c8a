//! Stable LSD radix sort: sortable keys, every pass's digit counts, then one onesweep launch per 8-bit pass.

use gpu_runtime::memory::{DeviceBuffer, DeviceCopy, DevicePtr};
use gpu_runtime::{KernelArgs, LaunchConfig};
use kernels::{Kernel, ids};

use super::{BLOCK, Device, SIZES, device};

/// A radix sort's kernels over one key width: digit counts, a onesweep
/// pass, and the keys a pass takes per tile (`SortTile` in sort.cu).
type Radix = (Kernel, Kernel, u64);

const RADIX_U32: Radix = (ids::radix_digit_counts_u32, ids::radix_onesweep_u32, 4096);
const RADIX_U64: Radix = (ids::radix_digit_counts_u64, ids::radix_onesweep_u64, 2048);

/// The row order that sorts `keys` (via sortable keys of `U` with `bits` bits).
fn device_sort<T: DeviceCopy, U: DeviceCopy + Default>(
    device: &Device,
    sortable: Kernel,
    (digits, onesweep, tile): Radix,
    keys: &[T],
    descending: bool,
    bits: u32,
) -> Vec<u32> {
    let n = keys.len() as u64;
    let input = device.upload(keys);
    let mut keys_a: DeviceBuffer<U> = device.poisoned(keys.len(), U::default());
    let mut keys_b: DeviceBuffer<U> = device.poisoned(keys.len(), U::default());
    let rows: Vec<u32> = (0..n as u32).collect();
    let mut rows_a = device.upload(&rows);
    let mut rows_b = device.poisoned(keys.len(), u32::MAX);
    let tiles = n.div_ceil(tile).max(1);
    let per_tile = LaunchConfig {
        grid: (tiles as u32, 1, 1),
        block: (BLOCK, 1, 1),
        shared_bytes: 0,
    };
    let passes = bits / 8;
    let counts = device.upload(&vec![0u32; 256 * passes as usize]);
    // SAFETY: each launch below passes the parameters its kernel declares
    // (see sort.cu), with buffers sized for n keys, 256 counts per pass, and
    // a zero status word per digit of each tile plus the tile counter, with
    // one block of 256 threads per tile.
    unsafe {
        device.launch(
            sortable,
            LaunchConfig::linear(n, BLOCK, 64),
            KernelArgs::new()
                .buffer(&input)
                .arg(DevicePtr::NULL)
                .arg(DevicePtr::NULL)
                .arg(n)
                .arg(n)
                .arg(u32::from(descending))
                .buffer(&keys_a),
        );
        device.launch(
            digits,
            LaunchConfig::linear(n, BLOCK, 64),
            KernelArgs::new()
                .buffer(&keys_a)
                .arg(n)
                .arg(passes)
                .buffer(&counts),
        );
        for shift in (0..bits).step_by(8) {
            let status = device.upload(&vec![0u64; 256 * tiles as usize + 1]);
            device.launch(
                onesweep,
                per_tile,
                KernelArgs::new()
                    .buffer(&keys_a)
                    .buffer(&rows_a)
                    .arg(n)
                    .arg(shift)
                    .buffer(&counts)
                    .buffer(&status)
                    .buffer(&keys_b)
                    .buffer(&rows_b),
            );
            std::mem::swap(&mut keys_a, &mut keys_b);
            std::mem::swap(&mut rows_a, &mut rows_b);
        }
    }
    rows_a.to_host().unwrap()
}

/// The row order of `keys` (already sortable: unsigned order is the order)
/// by the one-launch block sort of `kernel`, over `passes` 8-bit digits.
fn device_block_sort<U: DeviceCopy>(
    device: &Device,
    kernel: Kernel,
    keys: &[U],
    passes: u32,
) -> Vec<u32> {
    let n = keys.len();
    let rows: Vec<u32> = (0..n as u32).collect();
    let (keys, rows) = (device.upload(keys), device.upload(&rows));
    let out = device.poisoned(n, u32::MAX);
    // SAFETY: radix_block_sort_U(const U* keys, const u32* rows, u32 n,
    // u32 passes, u32* rows_out), one block of 256 threads, n at most the
    // kernel's capacity (the callers' sizes).
    unsafe {
        device.launch(
            kernel,
            LaunchConfig::linear(1, BLOCK, 1),
            KernelArgs::new()
                .buffer(&keys)
                .buffer(&rows)
                .arg(n as u32)
                .arg(passes)
                .buffer(&out),
        );
    }
    out.to_host().unwrap()
}

#[test]
fn small_sorts_run_every_pass_in_one_block_stably() {
    let device = device();
    let mut rng = fastrand::Rng::with_seed(19);
    for n in [
        0, 1, 31, 32, 33, 255, 256, 257, 1000, 1023, 1024, 2047, 2048,
    ] {
        // Few distinct keys (stability shows), some passes with one digit
        // for every key (skipped), some not.
        let keys: Vec<u32> = (0..n)
            .map(|_| rng.u32(0..40) * 0x0100_0001 + (rng.u32(0..2) << 12))
            .collect();
        let rows = device_block_sort(&device, ids::radix_block_sort_u32, &keys, 4);
        assert_eq!(rows, reference(&keys, |a, b| a.cmp(b)), "u32, n = {n}");
        if n <= 1024 {
            let wide: Vec<u64> = (0..n).map(|_| rng.u64(..) >> rng.u32(0..64)).collect();
            let rows = device_block_sort(&device, ids::radix_block_sort_u64, &wide, 8);
            assert_eq!(rows, reference(&wide, |a, b| a.cmp(b)), "u64, n = {n}");
            // Only the low passes asked for: ordered by the low 16 bits.
            let rows = device_block_sort(&device, ids::radix_block_sort_u64, &wide, 2);
            let low = |k: &u64| k & 0xffff;
            assert_eq!(
                rows,
                reference(&wide, |a, b| low(a).cmp(&low(b))),
                "low 16, n = {n}"
            );
        }
    }
}

/// The stable order of rows by `compare`.
fn reference<T>(keys: &[T], compare: impl Fn(&T, &T) -> std::cmp::Ordering) -> Vec<u32> {
    let mut rows: Vec<u32> = (0..keys.len() as u32).collect();
    rows.sort_by(|a, b| compare(&keys[*a as usize], &keys[*b as usize]));
    rows
}

#[test]
fn signed_keys_sort_stably_both_ways() {
    let device = device();
    let mut rng = fastrand::Rng::with_seed(9);
    let radix = RADIX_U32;
    for &n in SIZES {
        // Few distinct keys, so stability matters.
        let keys: Vec<i32> = (0..n).map(|_| rng.i32(-50..50) * 1_000_003).collect();
        let rows =
            device_sort::<i32, u32>(&device, ids::sortable_keys_i32, radix, &keys, false, 32);
        assert_eq!(rows, reference(&keys, |a, b| a.cmp(b)), "ascending n = {n}");
        let rows = device_sort::<i32, u32>(&device, ids::sortable_keys_i32, radix, &keys, true, 32);
        assert_eq!(
            rows,
            reference(&keys, |a, b| b.cmp(a)),
            "descending n = {n}"
        );
    }
}

#[test]
fn sixty_four_bit_keys_sort() {
    let device = device();
    let mut rng = fastrand::Rng::with_seed(10);
    let radix = RADIX_U64;
    for &n in [0usize, 1, 257, 5000].iter() {
        let keys: Vec<i64> = (0..n).map(|_| rng.i64(..) >> rng.u32(0..60)).collect();
        let rows =
            device_sort::<i64, u64>(&device, ids::sortable_keys_i64, radix, &keys, false, 64);
        assert_eq!(rows, reference(&keys, |a, b| a.cmp(b)), "n = {n}");
    }
}

#[test]
fn floats_sort_in_total_order_with_nan_last_and_zeros_equal() {
    let device = device();
    let mut rng = fastrand::Rng::with_seed(11);
    let radix = RADIX_U64;
    let specials = [
        f64::NAN,
        -f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        f64::MIN_POSITIVE,
        -1e-310,
    ];
    for &n in [0usize, 1, 33, 3000].iter() {
        let keys: Vec<f64> = (0..n)
            .map(|i| {
                if i % 5 == 0 {
                    specials[rng.usize(..specials.len())]
                } else {
                    rng.f64() * 2e3 - 1e3
                }
            })
            .collect();
        // Total order: NaN greatest, -0.0 == 0.0, stable among equals.
        let rank = |x: &f64| if x.is_nan() { (1, 0.0) } else { (0, *x) };
        let ascending = |a: &f64, b: &f64| rank(a).partial_cmp(&rank(b)).unwrap();
        let rows =
            device_sort::<f64, u64>(&device, ids::sortable_keys_f64, radix, &keys, false, 64);
        assert_eq!(rows, reference(&keys, ascending), "ascending n = {n}");
        let rows = device_sort::<f64, u64>(&device, ids::sortable_keys_f64, radix, &keys, true, 64);
        assert_eq!(
            rows,
            reference(&keys, |a, b| ascending(b, a)),
            "descending n = {n}"
        );
    }
}

#[test]
fn multi_key_sorts_with_nulls_through_the_safe_operations() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(18);
    for &n in SIZES {
        let first: Vec<Option<i32>> = (0..n)
            .map(|_| (rng.u8(..6) != 0).then(|| rng.i32(-3..3)))
            .collect();
        let second: Vec<Option<f64>> = (0..n)
            .map(|_| (rng.u8(..6) != 0).then(|| [f64::NAN, 1.5, -2.0, 0.0][rng.usize(..4)]))
            .collect();
        let upload_i32 = device.upload(&first.iter().map(|v| v.unwrap_or(99)).collect::<Vec<_>>());
        let valid_i32 = device.upload(&super::bitmap(
            &first.iter().map(Option::is_some).collect::<Vec<_>>(),
        ));
        let upload_f64 =
            device.upload(&second.iter().map(|v| v.unwrap_or(7.0)).collect::<Vec<_>>());
        let valid_f64 = device.upload(&super::bitmap(
            &second.iter().map(Option::is_some).collect::<Vec<_>>(),
        ));
        for (descending, nulls_last) in [(false, false), (true, true), (false, true)] {
            // By `first` (descending?, nulls_last?), then `second` ascending, nulls first.
            let permutation = ops.rows(n).unwrap();
            let permutation = ops
                .sort_by(permutation, &upload_f64, Some(&valid_f64), false, false)
                .unwrap();
            let permutation = ops
                .sort_by(
                    permutation,
                    &upload_i32,
                    Some(&valid_i32),
                    descending,
                    nulls_last,
                )
                .unwrap();
            let rank_f = |v: Option<f64>| match v {
                None => (0, 0.0),
                Some(x) if x.is_nan() => (2, 0.0),
                Some(x) => (1, x),
            };
            let mut expected: Vec<u32> = (0..n as u32).collect();
            expected.sort_by(|&a, &b| {
                let (a, b) = (a as usize, b as usize);
                let by_first = match (first[a], first[b]) {
                    (None, None) => std::cmp::Ordering::Equal,
                    (None, Some(_)) => {
                        if nulls_last {
                            std::cmp::Ordering::Greater
                        } else {
                            std::cmp::Ordering::Less
                        }
                    }
                    (Some(_), None) => {
                        if nulls_last {
                            std::cmp::Ordering::Less
                        } else {
                            std::cmp::Ordering::Greater
                        }
                    }
                    (Some(x), Some(y)) => {
                        if descending {
                            y.cmp(&x)
                        } else {
                            x.cmp(&y)
                        }
                    }
                };
                by_first.then_with(|| rank_f(second[a]).partial_cmp(&rank_f(second[b])).unwrap())
            });
            assert_eq!(
                permutation.to_host().unwrap(),
                expected,
                "n = {n}, descending {descending}, nulls_last {nulls_last}"
            );
        }
    }
}

#[test]
fn strings_sort_in_byte_order_through_their_keys() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(19);
    // Shared prefixes, lengths around the 8-byte chunk edges, empty strings,
    // NUL bytes, multi-byte UTF-8. The longest string decides whether the
    // last key carries the lengths: 7 bytes (yes), 8 (no: the last byte is
    // a string's), 300 (no: lengths past a byte), and whatever the random
    // pieces give.
    let alphabet = ["a", "b", "\0", "é", "z", "ab"];
    for (&n, longest) in SIZES[..10]
        .iter()
        .flat_map(|n| [(n, None), (n, Some(7)), (n, Some(8)), (n, Some(300))])
    {
        let strings: Vec<Option<String>> = (0..n)
            .map(|i| {
                (rng.u8(..8) != 0 || i == 0).then(|| match longest {
                    // The first string is the longest; the others shorter.
                    Some(longest) if i == 0 => "\0".repeat(longest),
                    Some(longest) => (0..rng.usize(..longest))
                        .map(|_| ["a", "b", "\0", "z"][rng.usize(..4)])
                        .collect(),
                    None => {
                        let len = [0, 1, 7, 8, 9, 16, 17][rng.usize(..7)];
                        (0..len)
                            .map(|_| alphabet[rng.usize(..alphabet.len())])
                            .collect()
                    }
                })
            })
            .collect();
        let mut offsets = vec![0i64];
        let mut bytes = Vec::new();
        for s in &strings {
            bytes.extend_from_slice(s.as_deref().unwrap_or("").as_bytes());
            offsets.push(bytes.len() as i64);
        }
        let valid = device.upload(&super::bitmap(
            &strings.iter().map(Option::is_some).collect::<Vec<_>>(),
        ));
        let keys = ops
            .string_sort_keys(
                &device.upload(&offsets),
                &device.upload(&bytes),
                Some(&valid),
            )
            .unwrap();
        let longest = strings.iter().flatten().map(String::len).max().unwrap_or(0);
        // The lengths in the last word's free byte, or as a key of their own.
        let lengths_apart = longest % 8 == 0 || longest >= 256;
        assert_eq!(
            keys.len(),
            longest.div_ceil(8) + usize::from(lengths_apart),
            "n = {n}, longest {longest}"
        );
        for descending in [false, true] {
            let mut permutation = ops.rows(n).unwrap();
            for (i, key) in keys.iter().enumerate().rev() {
                let validity = (i == 0).then_some(&valid);
                permutation = ops
                    .sort_by(permutation, key, validity, descending, false)
                    .unwrap();
            }
            let mut expected: Vec<u32> = (0..n as u32).collect();
            expected.sort_by(
                |&a, &b| match (&strings[a as usize], &strings[b as usize]) {
                    (None, None) => std::cmp::Ordering::Equal,
                    (None, Some(_)) => std::cmp::Ordering::Less,
                    (Some(_), None) => std::cmp::Ordering::Greater,
                    (Some(x), Some(y)) if descending => y.as_bytes().cmp(x.as_bytes()),
                    (Some(x), Some(y)) => x.as_bytes().cmp(y.as_bytes()),
                },
            );
            assert_eq!(
                permutation.to_host().unwrap(),
                expected,
                "n = {n}, longest {longest}, descending {descending}"
            );
        }
    }
}

#[test]
fn sorts_skip_the_passes_that_move_nothing_and_stay_stable() {
    // Passes whose digit is one value for every key are skipped (64-bit
    // keys above the one-block sort, 32-bit ones from 2^16 keys): small
    // numbers, numbers varying only in a high byte, equal keys (no pass at
    // all), and a mix where only some bytes vary.
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(21);
    for n in [5_001, 70_001] {
        let cases: [(&str, Vec<i64>); 4] = [
            ("small", (0..n).map(|_| rng.i64(0..200)).collect()),
            ("high byte", (0..n).map(|_| rng.i64(0..50) << 40).collect()),
            ("equal", vec![42; n]),
            (
                "two bytes",
                (0..n)
                    .map(|_| (rng.i64(0..4) << 48) | (rng.i64(0..3) << 8) | 7)
                    .collect(),
            ),
        ];
        for (name, keys) in cases {
            let upload = device.upload(&keys);
            for descending in [false, true] {
                let rows = ops
                    .sort_by(ops.rows(n).unwrap(), &upload, None, descending, false)
                    .unwrap()
                    .to_host()
                    .unwrap();
                let expected =
                    reference(&keys, |a, b| if descending { b.cmp(a) } else { a.cmp(b) });
                assert_eq!(rows, expected, "{name}, descending {descending}, n = {n}");
            }
        }
    }
}

#[test]
fn sorted_rows_make_the_rows_and_read_unsigned_values_as_their_keys() {
    // Ops::sorted_rows reads no permutation (the first pass numbers the
    // rows), reads unsigned values as their own keys when ascending, and
    // its last pass writes no keys: one pass alone, several with buffers
    // written over, the one-block sort, nulls first and last.
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(23);
    for n in SIZES.iter().copied().chain([70_001]) {
        let narrow: [(&str, Vec<u32>); 3] = [
            ("any", (0..n).map(|_| rng.u32(..)).collect()),
            ("low byte", (0..n).map(|_| rng.u32(0..200)).collect()),
            (
                "high byte",
                (0..n).map(|_| (rng.u32(0..3) << 24) | 5).collect(),
            ),
        ];
        let wide: Vec<u64> = (0..n).map(|_| rng.u64(..) >> rng.u32(0..64)).collect();
        let valid: Vec<bool> = (0..n).map(|_| rng.u8(..5) != 0).collect();
        let validity = device.upload(&super::bitmap(&valid));
        for descending in [false, true] {
            let order = |a: &u64, b: &u64| if descending { b.cmp(a) } else { a.cmp(b) };
            for (name, keys) in &narrow {
                let rows = ops
                    .sorted_rows(&device.upload(keys), None, descending, false)
                    .unwrap();
                let widened: Vec<u64> = keys.iter().map(|&k| u64::from(k)).collect();
                assert_eq!(
                    rows.to_host().unwrap(),
                    reference(&widened, order),
                    "u32 {name}, n = {n}, descending {descending}"
                );
            }
            let upload = device.upload(&wide);
            for nulls_last in [false, true] {
                let rows = ops
                    .sorted_rows(&upload, Some(&validity), descending, nulls_last)
                    .unwrap();
                let keyed: Vec<(bool, u64)> = wide
                    .iter()
                    .zip(&valid)
                    .map(|(&k, &v)| (v, if v { k } else { 0 }))
                    .collect();
                let expected = reference(&keyed, |(va, a), (vb, b)| {
                    // Nulls first: valid after invalid; nulls last: before.
                    let nulls = if nulls_last { vb.cmp(va) } else { va.cmp(vb) };
                    nulls.then_with(|| order(a, b))
                });
                assert_eq!(
                    rows.to_host().unwrap(),
                    expected,
                    "u64, n = {n}, descending {descending}, nulls_last {nulls_last}"
                );
            }
        }
    }
}
