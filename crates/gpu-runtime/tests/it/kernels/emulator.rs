//! The emulator itself: barriers, shuffles and votes are real; deadlocks and unsupported operations fail the launch.

use gpu_runtime::{HostEntry, KernelArgs, KernelRef, LaunchConfig};
use kernels::emulator_selftest;

use super::emulated as device;

fn kernel(name: &'static str, host: HostEntry) -> KernelRef {
    KernelRef {
        name,
        ptx: "",
        cubins: &[],
        host: Some(host),
    }
}

#[test]
fn shuffles_votes_and_shared_memory_exchange_values() {
    let device = device();
    for block in [32u32, 64, 256] {
        let blocks = 3u32;
        let n = (block * blocks) as usize;
        let out = device.poisoned(n, u32::MAX);
        let config = LaunchConfig {
            grid: (blocks, 1, 1),
            block: (block, 1, 1),
            shared_bytes: 0,
        };
        // SAFETY: selftest_exchange(u32* out) writes one value per thread.
        unsafe {
            device
                .stream
                .launch(
                    &kernel("selftest_exchange", emulator_selftest::EXCHANGE),
                    config,
                    KernelArgs::new().buffer(&out),
                )
                .unwrap()
        };
        let expected: Vec<u32> = (0..n as u32)
            .map(|i| {
                let t = i % block;
                let lane = t % 32;
                let from_next = (t - lane + (lane + 1) % 32) * 10;
                let neighbour = (t + 1) % block;
                let votes = (0..32).filter(|l| l % 3 == 0).count() as u32;
                from_next + neighbour * 100_000 + votes * 100_000_000
            })
            .collect();
        assert_eq!(out.to_host().unwrap(), expected, "block {block}");
    }
}

#[test]
fn a_deadlock_at_a_barrier_fails_the_launch_with_a_message() {
    let device = device();
    let out = device.poisoned(64, 0u32);
    let config = LaunchConfig {
        grid: (2, 1, 1),
        block: (64, 1, 1),
        shared_bytes: 0,
    };
    // SAFETY: selftest_deadlock(u32* out) writes at most one value per thread.
    unsafe {
        device
            .stream
            .launch(
                &kernel("selftest_deadlock", emulator_selftest::DEADLOCK),
                config,
                KernelArgs::new().buffer(&out),
            )
            .unwrap()
    };
    let err = device.stream.synchronize().unwrap_err().to_string();
    assert!(err.contains("selftest_deadlock failed: deadlock"), "{err}");
}

#[test]
fn partial_warp_masks_fail_instead_of_diverging() {
    let device = device();
    let out = device.poisoned(32, 0u32);
    let config = LaunchConfig {
        grid: (1, 1, 1),
        block: (32, 1, 1),
        shared_bytes: 0,
    };
    // SAFETY: selftest_partial_mask(u32* out) writes one value per thread.
    unsafe {
        device
            .stream
            .launch(
                &kernel("selftest_partial_mask", emulator_selftest::PARTIAL_MASK),
                config,
                KernelArgs::new().buffer(&out),
            )
            .unwrap()
    };
    let err = device.stream.synchronize().unwrap_err().to_string();
    assert!(err.contains("partial masks are not supported"), "{err}");
}
