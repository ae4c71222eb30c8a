//! Validity bitmap operations.

use gpu_runtime::{KernelArgs, LaunchConfig};
use kernels::ids;

use super::{BLOCK, SIZES, bitmap, device, flags};

#[test]
fn and_or_popcount_and_conversions_match_rust() {
    let device = device();
    let mut rng = fastrand::Rng::with_seed(4);
    for &n in SIZES {
        let a: Vec<bool> = (0..n).map(|_| rng.bool()).collect();
        let b: Vec<bool> = (0..n).map(|_| rng.u8(..4) != 0).collect();
        let words = n.div_ceil(32);
        // Garbage past `n` in the inputs' last word must not leak out.
        let mut a_words = bitmap(&a);
        if let Some(last) = a_words.last_mut()
            && n % 32 != 0
        {
            *last |= !0u32 << (n % 32);
        }
        let (da, db) = (device.upload(&a_words), device.upload(&bitmap(&b)));
        let config = LaunchConfig::linear(words as u64, BLOCK, 16);
        for (kernel, op) in [
            (ids::bitmap_and, (|x, y| x && y) as fn(bool, bool) -> bool),
            (ids::bitmap_or, |x, y| x || y),
        ] {
            let out = device.poisoned(words, 0xdead_beefu32);
            // SAFETY: bitmap_and/or(const u32* a, const u32* b, u64 n_bits, u32* out).
            unsafe {
                device.launch(
                    kernel,
                    config,
                    KernelArgs::new()
                        .buffer(&da)
                        .buffer(&db)
                        .arg(n as u64)
                        .buffer(&out),
                )
            };
            let expected: Vec<bool> = a.iter().zip(&b).map(|(x, y)| op(*x, *y)).collect();
            assert_eq!(
                out.to_host().unwrap(),
                bitmap(&expected),
                "{} n = {n}",
                kernel.name
            );
        }

        let partials = device.poisoned(16, u64::MAX);
        // SAFETY: bitmap_popcount(const u32* bitmap, u64 n_bits, u64* partials), one per block.
        unsafe {
            device.launch(
                ids::bitmap_popcount,
                config,
                KernelArgs::new()
                    .buffer(&da)
                    .arg(n as u64)
                    .buffer(&partials),
            )
        };
        let blocks = config.grid.0 as usize;
        let count: u64 = partials.to_host().unwrap()[..blocks].iter().sum();
        assert_eq!(
            count,
            a.iter().filter(|x| **x).count() as u64,
            "popcount n = {n}"
        );
        // The same count device-wide, through the safe operation.
        assert_eq!(
            device.ops().count_set(&da, n).unwrap().to_host().unwrap(),
            [count],
            "count_set n = {n}"
        );

        let element_config = LaunchConfig::linear(n as u64, BLOCK, 16);
        let bytes = device.poisoned(n, 7u8);
        // SAFETY: bitmap_to_bool(const u32* bitmap, u64 n, u8* out).
        unsafe {
            device.launch(
                ids::bitmap_to_bool,
                element_config,
                KernelArgs::new().buffer(&da).arg(n as u64).buffer(&bytes),
            )
        };
        let host_bytes = bytes.to_host().unwrap();
        assert_eq!(
            host_bytes,
            a.iter().map(|x| u8::from(*x)).collect::<Vec<_>>(),
            "to bool n = {n}"
        );

        let back = device.poisoned(words, 0xdead_beefu32);
        // SAFETY: bool_to_bitmap(const u8* flags, u64 n, u32* out).
        unsafe {
            device.launch(
                ids::bool_to_bitmap,
                element_config,
                KernelArgs::new().buffer(&bytes).arg(n as u64).buffer(&back),
            )
        };
        let back = back.to_host().unwrap();
        assert_eq!(flags(&back, n), a, "to bitmap n = {n}");
        assert_eq!(back, bitmap(&a), "bits past n are zero, n = {n}");
    }
}
