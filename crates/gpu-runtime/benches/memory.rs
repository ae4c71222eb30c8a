//! Allocate+free pairs: our pool vs the driver pool vs plain device allocation, 1 and 8 threads, on the device under test.
//!
//! The device is the emulated one unless `GPU_TEST_DEVICE` names a GPU (as
//! the device check does). On the emulated device only the pool's own
//! bookkeeping is a meaningful figure (target: under 100 ns per pair on one
//! thread); plain allocation there is the host allocator, not the driver,
//! and there is no driver pool. On a GPU all three run side by side.

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use gpu_runtime::memory::{DeviceResource, MemoryResource, PoolOptions, PoolResource};
use gpu_runtime::{Device, DriverPoolResource, Stream};

const SIZES: [u64; 4] = [256, 4096, 65_536, 1 << 20];

fn pairs(resource: &dyn MemoryResource, stream: &Stream, iterations: u64) -> Duration {
    let started = Instant::now();
    for i in 0..iterations {
        let bytes = SIZES[(i % 4) as usize];
        let ptr = resource.allocate(bytes, stream).expect("allocation");
        // SAFETY: allocated just above, freed once, never used.
        unsafe { resource.deallocate(black_box(ptr), bytes, stream) };
        if i % 256 == 255 {
            // Plain frees are stream-ordered (they run on the stream's
            // worker): let them catch up, or the device fills.
            stream.synchronize().expect("stream");
        }
    }
    stream.synchronize().expect("stream");
    started.elapsed()
}

fn device() -> Arc<Device> {
    Arc::new(Device::under_test(64 << 30).expect("the device under test"))
}

fn resources(device: &Arc<Device>) -> Vec<(&'static str, Arc<dyn MemoryResource>)> {
    let pool = PoolResource::new(device.clone(), PoolOptions::default()).expect("pool");
    let mut resources: Vec<(&'static str, Arc<dyn MemoryResource>)> = vec![
        ("pool", Arc::new(pool)),
        ("device", Arc::new(DeviceResource::new(device.clone()))),
    ];
    if let Device::Cuda(gpu) = device.as_ref() {
        let driver_pool = DriverPoolResource::new(gpu.clone(), None).expect("driver pool");
        resources.push(("driver_pool", Arc::new(driver_pool)));
    }
    resources
}

fn allocate_free(c: &mut Criterion) {
    let mut group = c.benchmark_group("allocate_free_pair");
    let device = device();
    for (name, resource) in resources(&device) {
        let stream = device.create_stream().expect("stream");
        group.bench_function(format!("{name}/1_thread"), |b| {
            b.iter_custom(|iterations| pairs(resource.as_ref(), &stream, iterations))
        });
        group.bench_function(format!("{name}/8_threads"), |b| {
            b.iter_custom(|iterations| {
                let per_thread = iterations.div_ceil(8);
                let started = Instant::now();
                std::thread::scope(|scope| {
                    for _ in 0..8 {
                        let (resource, device) = (resource.clone(), device.clone());
                        scope.spawn(move || {
                            let stream = device.create_stream().expect("stream");
                            pairs(resource.as_ref(), &stream, per_thread)
                        });
                    }
                });
                // Wall time for all pairs: criterion reports it per pair, so
                // the figure is the throughput of 8 threads, not the latency.
                started.elapsed()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, allocate_free);
criterion_main!(benches);
