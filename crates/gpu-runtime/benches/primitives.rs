//! Kernel primitives on the device under test beside its own copy bandwidth: reduce, scan, compaction and the radix sort, as the kernels issue asks them measured.
//!
//! `PRIMITIVES_ELEMENTS` sets the input size (default 2^20; the device check
//! uses 2^28 on a GPU). Each primitive is timed under criterion from device
//! memory to device memory (and the uploads and downloads of the values
//! through the staging blocks, into a new vector and into a reused one,
//! beside); the table printed last gives, for each, the
//! bytes it must read and write, its median time, that as GB/s, and its share
//! of the device-to-device copy's bandwidth measured in the same run (the
//! sort as keys per second). On the emulated device the figures describe the
//! host, not a GPU.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput};
use gpu_runtime::memory::{DeviceBuffer, DeviceCopy, MemoryResource, PoolOptions, PoolResource};
use gpu_runtime::ops::Ops;
use gpu_runtime::{Device, DriverPoolResource, RuntimeError, Stream};

/// Per-iteration times of one primitive, from every criterion call.
type Samples = Arc<Mutex<Vec<f64>>>;

struct Primitive {
    name: &'static str,
    /// Bytes the primitive must read and write at the least.
    bytes: u64,
    samples: Samples,
}

fn upload<T: DeviceCopy>(
    values: &[T],
    memory: &Arc<dyn MemoryResource>,
    stream: &Stream,
) -> DeviceBuffer<T> {
    DeviceBuffer::from_host(values, memory.clone(), stream).expect("upload")
}

/// Times `iterations` runs of `work` (synchronised once at the end) and
/// records the time per run.
fn timed(
    samples: &Samples,
    stream: &Stream,
    iterations: u64,
    mut work: impl FnMut() -> Result<(), RuntimeError>,
) -> Duration {
    stream.synchronize().expect("stream");
    let started = Instant::now();
    for _ in 0..iterations {
        work().expect("primitive");
    }
    stream.synchronize().expect("stream");
    let elapsed = started.elapsed();
    if let Ok(mut samples) = samples.lock() {
        samples.push(elapsed.as_secs_f64() / iterations.max(1) as f64);
    }
    elapsed
}

fn median(samples: &Samples) -> f64 {
    let mut values = samples.lock().map(|s| s.clone()).unwrap_or_default();
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(f64::NAN)
}

fn main() {
    let elements: usize = std::env::var("PRIMITIVES_ELEMENTS")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(1 << 20);
    let device = Arc::new(Device::under_test(64 << 30).expect("the device under test"));
    let stream = device.create_stream().expect("stream");
    let memory: Arc<dyn MemoryResource> = match device.as_ref() {
        Device::Cuda(gpu) => Arc::new(DriverPoolResource::new(gpu.clone(), None).expect("pool")),
        Device::Emulated(_) => {
            Arc::new(PoolResource::new(device.clone(), PoolOptions::default()).expect("pool"))
        }
    };
    let ops = Ops {
        memory: &memory,
        stream: &stream,
    };
    let mut rng = fastrand::Rng::with_seed(5);
    let n = elements as u64;
    let keys: Vec<u32> = (0..elements).map(|_| rng.u32(..)).collect();
    let wide: Vec<i64> = (0..elements).map(|_| rng.i64(0..1000)).collect();
    // Every other row selected, at random.
    let bits: Vec<u32> = (0..elements.div_ceil(32)).map(|_| rng.u32(..)).collect();
    let host_keys = keys.clone();
    let (keys, wide, bits) = (
        upload(&keys, &memory, &stream),
        upload(&wide, &memory, &stream),
        upload(&bits, &memory, &stream),
    );
    let copy = DeviceBuffer::<u32>::zeroed(elements, memory.clone(), &stream).expect("buffer");
    let mut uploaded =
        DeviceBuffer::<u32>::zeroed(elements, memory.clone(), &stream).expect("buffer");
    let one_group = upload(&[0i64], &memory, &stream);
    let mut reused = vec![0u32; elements];

    let primitive = |name, bytes| Primitive {
        name,
        bytes,
        samples: Arc::default(),
    };
    let table = [
        primitive("copy (u32)", 8 * n),
        primitive("reduce: sum (u32)", 4 * n),
        // The same sum as the group-by's kernels take it: one group.
        primitive("group sum: one group (u32)", 4 * n),
        primitive("scan: exclusive (i64)", 16 * n),
        primitive("compaction (half of rows)", n / 8 + 4 * n),
        // The rows in the order of the keys: the radix passes with the row
        // numbers as payload (`Ops::sorted_rows`).
        primitive("radix sort (u32 keys)", 8 * n),
        // A sort key after the first (`Ops::sort_by`): the keys read
        // through the permutation so far, then the same passes.
        primitive("sort_by (u32, permuted)", 8 * n),
        // The host link, through the staging blocks as every column goes.
        primitive("upload (host to device)", 4 * n),
        primitive("download (device to host)", 4 * n),
        // The same into a vector made once: no fresh pages to map, so the
        // two side by side show what the new vector's pages cost.
        primitive("download into reused (device to host)", 4 * n),
    ];
    println!(
        "primitives over {elements} elements on {}",
        device.describe()
    );
    let mut criterion = Criterion::default().sample_size(10).configure_from_args();
    let mut group = criterion.benchmark_group("primitives");
    for (index, entry) in table.iter().enumerate() {
        group.throughput(Throughput::Bytes(entry.bytes));
        let samples = entry.samples.clone();
        group.bench_function(entry.name, |b| {
            b.iter_custom(|iterations| {
                timed(&samples, &stream, iterations, || match index {
                    0 => copy.copy_from_device(0, &keys),
                    1 => ops.reduce_sum(&keys, None).map(drop),
                    2 => ops.segment_sum(&keys, None, &one_group).map(drop),
                    3 => ops.exclusive_scan_i64(&wide).map(drop),
                    4 => ops.filter_indices(&bits, None, elements).map(drop),
                    5 => ops.sorted_rows(&keys, None, false, false).map(drop),
                    6 => {
                        let rows = ops.rows(elements)?;
                        ops.sort_by(rows, &keys, None, false, false).map(drop)
                    }
                    7 => uploaded.copy_from_host(&host_keys),
                    8 => keys.to_host().map(drop),
                    _ => keys.copy_to_host(&mut reused),
                })
            })
        });
    }
    group.finish();
    criterion.final_summary();

    let copy_rate = table[0].bytes as f64 / median(&table[0].samples);
    println!(
        "\nprimitives over {elements} elements on {} (median of criterion's runs)",
        device.describe()
    );
    println!(
        "{:<40} {:>10} {:>10} {:>10} {:>12}",
        "primitive", "MB moved", "ms", "GB/s", "of copy"
    );
    for entry in &table {
        let seconds = median(&entry.samples);
        let rate = entry.bytes as f64 / seconds;
        let share = if entry.name.contains("sort") {
            format!("{:.2} Gkeys/s", n as f64 / seconds / 1e9)
        } else if entry.name.contains("host") {
            "host link".to_string()
        } else {
            format!("{:.0}%", 100.0 * rate / copy_rate)
        };
        println!(
            "{:<40} {:>10.1} {:>10.3} {:>10.1} {:>12}",
            entry.name,
            entry.bytes as f64 / 1e6,
            seconds * 1e3,
            rate / 1e9,
            share
        );
    }
}
