//! The emulated device's speed: a 2^20-element block reduce with 256-thread blocks on one host thread (target: under 1 s).

use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use gpu_runtime::memory::{DeviceBuffer, DevicePtr, MemoryResource, PoolOptions, PoolResource};
use gpu_runtime::{EmulatedDevice, KernelArgs, KernelRef, LaunchConfig};
use kernels::ids;

fn block_reduce(c: &mut Criterion) {
    let device = Arc::new(EmulatedDevice::new(0, 1 << 30).with_host_threads(1));
    let stream = device.create_stream().expect("stream");
    let memory: Arc<dyn MemoryResource> =
        Arc::new(PoolResource::new(device, PoolOptions::default()).expect("pool"));
    let n: u64 = 1 << 20;
    let values: Vec<i64> = (0..n as i64).collect();
    let input = DeviceBuffer::from_host(&values, memory.clone(), &stream).expect("input");
    // One element per thread: 4096 blocks of 256 threads.
    let config = LaunchConfig::linear(n, 256, u32::MAX);
    let partials =
        DeviceBuffer::<i64>::zeroed(config.grid.0 as usize, memory, &stream).expect("partials");
    let kernel = KernelRef::from(ids::reduce_sum_i64);
    let mut group = c.benchmark_group("emulated_device");
    group.sample_size(10);
    group.bench_function("block_reduce_2^20_i64_256_threads_1_core", |b| {
        b.iter(|| {
            let args = KernelArgs::new()
                .buffer(&input)
                .arg(DevicePtr::NULL)
                .arg(n)
                .buffer(&partials);
            // SAFETY: reduce_sum_i64(const i64* in, const u32* validity, u64 n,
            // i64* partials), no validity, one
            // partial per block; the buffers outlive the synchronised launch.
            unsafe { stream.launch(&kernel, config, args) }.expect("launch");
            stream.synchronize().expect("reduce");
        })
    });
    group.finish();
    let sum: i64 = partials.to_host().expect("partials").iter().sum();
    assert_eq!(sum, (n as i64 - 1) * n as i64 / 2);
}

criterion_group!(benches, block_reduce);
criterion_main!(benches);
