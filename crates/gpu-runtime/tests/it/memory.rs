//! A memory-resource suite in the spirit of RMM's, run over every resource of the device under test.

use std::collections::BTreeMap;
use std::sync::Arc;

use gpu_runtime::memory::{
    DeviceBuffer, DevicePtr, DeviceResource, LimitResource, MemoryResource, POISON_BYTE,
    PoolOptions, PoolResource, StatisticsResource,
};
use gpu_runtime::{DEVICE_ALIGNMENT, Device, DriverPoolResource, RuntimeError, Stream};

/// A stream on the device under test.
fn stream() -> Stream {
    device().create_stream().unwrap()
}

/// The device under test (`GPU_TEST_DEVICE`): a fresh emulated device with
/// 64 GiB, unless it names a GPU.
fn device() -> Arc<Device> {
    Arc::new(Device::under_test(64 << 30).expect("the device under test"))
}

/// Every resource, each over its own device.
fn resources() -> Vec<(&'static str, Arc<dyn MemoryResource>)> {
    let pool = |device| -> Arc<dyn MemoryResource> {
        Arc::new(
            PoolResource::new(
                device,
                PoolOptions {
                    initial_bytes: 32 << 20,
                    maximum_bytes: None,
                },
            )
            .unwrap(),
        )
    };
    let driver_pool = match device().as_ref() {
        Device::Cuda(gpu) => Some((
            "driver pool",
            Arc::new(DriverPoolResource::new(gpu.clone(), None).unwrap())
                as Arc<dyn MemoryResource>,
        )),
        Device::Emulated(_) => None,
    };
    let mut resources: Vec<(&'static str, Arc<dyn MemoryResource>)> = vec![
        ("device", Arc::new(DeviceResource::new(device()))),
        ("pool", pool(device())),
        (
            "statistics(pool)",
            Arc::new(StatisticsResource::new(pool(device()))),
        ),
        (
            "limit(pool)",
            Arc::new(LimitResource::new(pool(device()), 1 << 40)),
        ),
    ];
    resources.extend(driver_pool);
    resources
}

/// Live allocations by address, checked for overlap and alignment.
#[derive(Default)]
struct Shadow(BTreeMap<u64, u64>);

impl Shadow {
    fn insert(&mut self, name: &str, ptr: DevicePtr, bytes: u64) {
        let (address, end) = (ptr.address(), ptr.address() + bytes);
        assert_eq!(
            address % DEVICE_ALIGNMENT as u64,
            0,
            "{name}: {ptr} misaligned"
        );
        if let Some((&before, &size)) = self.0.range(..=address).next_back() {
            assert!(
                before + size <= address,
                "{name}: {ptr} overlaps {before:#x}+{size}"
            );
        }
        if let Some((&after, _)) = self.0.range(address..).next() {
            assert!(end <= after, "{name}: {ptr}+{bytes} overlaps {after:#x}");
        }
        self.0.insert(address, bytes);
    }

    fn remove(&mut self, ptr: DevicePtr) {
        self.0.remove(&ptr.address());
    }
}

#[test]
fn allocations_are_distinct_aligned_and_never_overlap() {
    for (name, resource) in resources() {
        let stream = stream();
        let mut rng = fastrand::Rng::with_seed(42);
        let mut shadow = Shadow::default();
        let mut live = Vec::new();
        for _ in 0..1000 {
            let bytes = 1 + rng.u64(..8 << 20);
            let ptr = resource.allocate(bytes, &stream).unwrap();
            shadow.insert(name, ptr, bytes);
            live.push((ptr, bytes));
        }
        rng.shuffle(&mut live);
        for (ptr, bytes) in live {
            shadow.remove(ptr);
            // SAFETY: allocated above with these bytes, freed once, unused.
            unsafe { resource.deallocate(ptr, bytes, &stream) };
        }
        stream.synchronize().unwrap();
    }
}

#[test]
fn interleaved_allocations_and_frees_stay_disjoint() {
    for (name, resource) in resources() {
        let stream = stream();
        let mut rng = fastrand::Rng::with_seed(7);
        let mut shadow = Shadow::default();
        let mut live: Vec<(DevicePtr, u64)> = Vec::new();
        for _ in 0..3000 {
            if live.is_empty() || rng.u64(..3) > 0 {
                let bytes = 1 + rng.u64(..1 << 16);
                let ptr = resource.allocate(bytes, &stream).unwrap();
                shadow.insert(name, ptr, bytes);
                live.push((ptr, bytes));
            } else {
                let (ptr, bytes) = live.swap_remove(rng.usize(..live.len()));
                shadow.remove(ptr);
                // SAFETY: allocated above with these bytes, freed once, unused.
                unsafe { resource.deallocate(ptr, bytes, &stream) };
            }
        }
        for (ptr, bytes) in live {
            // SAFETY: as above.
            unsafe { resource.deallocate(ptr, bytes, &stream) };
        }
    }
}

#[test]
fn zero_bytes_give_null_and_free_as_a_no_op() {
    for (name, resource) in resources() {
        let stream = stream();
        let ptr = resource.allocate(0, &stream).unwrap();
        assert!(ptr.is_null(), "{name}");
        // SAFETY: the zero-byte allocation above.
        unsafe { resource.deallocate(ptr, 0, &stream) };
    }
}

#[test]
fn a_pebibyte_is_out_of_memory_not_a_crash() {
    for (name, resource) in resources() {
        let stream = stream();
        match resource.allocate(1 << 50, &stream) {
            Err(RuntimeError::OutOfMemory {
                requested,
                available,
            }) => {
                assert_eq!(requested, 1 << 50, "{name}");
                assert!(available < 1 << 50, "{name}: {available}");
            }
            other => panic!("{name}: expected OutOfMemory, got {other:?}"),
        }
        // The resource still works.
        let ptr = resource.allocate(1024, &stream).unwrap();
        // SAFETY: allocated just above.
        unsafe { resource.deallocate(ptr, 1024, &stream) };
    }
}

#[test]
fn allocate_on_one_stream_free_on_another() {
    for (name, resource) in resources() {
        let (a, b) = (stream(), stream());
        let mut shadow = Shadow::default();
        let mut on_a = Vec::new();
        for i in 1..=64u64 {
            let ptr = resource.allocate(i * 4096, &a).unwrap();
            shadow.insert(name, ptr, i * 4096);
            on_a.push((ptr, i * 4096));
        }
        for (ptr, bytes) in on_a {
            shadow.remove(ptr);
            // SAFETY: allocated above, freed once; stream b orders the free.
            unsafe { resource.deallocate(ptr, bytes, &b) };
        }
        for i in 1..=64u64 {
            let ptr = resource.allocate(i * 4096, &a).unwrap();
            shadow.insert(name, ptr, i * 4096);
        }
    }
}

#[test]
fn eight_threads_two_streams_each_keep_their_data() {
    for (name, resource) in resources() {
        std::thread::scope(|scope| {
            for thread in 0..8u64 {
                let resource = resource.clone();
                scope.spawn(move || {
                    let streams = [stream(), stream()];
                    let mut rng = fastrand::Rng::with_seed(thread + 1);
                    for round in 0..100u64 {
                        let stream = &streams[(round % 2) as usize];
                        let len = 1 + rng.usize(..5000);
                        let values: Vec<u64> = (0..len as u64)
                            .map(|i| i ^ (thread << 32) ^ round)
                            .collect();
                        let buffer =
                            DeviceBuffer::from_host(&values, resource.clone(), stream).unwrap();
                        assert_eq!(
                            buffer.to_host().unwrap(),
                            values,
                            "{name}: thread {thread} round {round}"
                        );
                    }
                });
            }
        });
    }
}

#[test]
fn copies_round_trip_byte_for_byte() {
    for (name, resource) in resources() {
        let stream = stream();
        // The last sizes span several 4 MiB staging blocks, which copy in
        // parallel, the last one partly filled.
        for len in [0usize, 1, 31, 255, 256, 257, 1 << 20, (5 << 20) + 3] {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 131 % 251) as u8).collect();
            let buffer = DeviceBuffer::from_host(&bytes, resource.clone(), &stream).unwrap();
            assert_eq!(buffer.len(), len);
            assert_eq!(buffer.to_host().unwrap(), bytes, "{name}: {len} bytes");
            let floats: Vec<f64> = (0..len).map(|i| i as f64 * -0.5).collect();
            let mut buffer = DeviceBuffer::from_host(&floats, resource.clone(), &stream).unwrap();
            assert_eq!(buffer.to_host().unwrap(), floats, "{name}: {len} doubles");
            let (start, part) = (len / 3, len / 2);
            assert_eq!(
                buffer.to_host_range(start, part).unwrap(),
                floats[start..start + part],
                "{name}: doubles {start}.. of {len}"
            );
            let reversed: Vec<f64> = floats.iter().rev().copied().collect();
            buffer.copy_from_host(&reversed).unwrap();
            assert_eq!(buffer.to_host().unwrap(), reversed, "{name}");
            assert!(buffer.copy_from_host(&[1.0; 3]).is_err() || len == 3);
            // Into memory the caller has, written over whole.
            let mut into = vec![f64::NAN; len];
            buffer.copy_to_host(&mut into).unwrap();
            assert_eq!(into, reversed, "{name}: {len} doubles into a slice");
            let mut short = vec![0.0; len.saturating_sub(1)];
            assert!(buffer.copy_to_host(&mut short).is_err() || len == 0);
        }
        let zeroes = DeviceBuffer::<i32>::zeroed(1000, resource.clone(), &stream).unwrap();
        assert_eq!(zeroes.to_host().unwrap(), vec![0; 1000], "{name}");
    }
}

#[test]
fn buffers_for_overwrite_are_poisoned_on_the_emulated_device_and_take_what_is_written() {
    for (name, resource) in resources() {
        let stream = stream();
        for len in [0usize, 1, 1000] {
            let mut buffer =
                DeviceBuffer::<u32>::for_overwrite(len, resource.clone(), &stream).unwrap();
            assert_eq!(buffer.len(), len, "{name}");
            if stream.is_emulated() {
                // What a kernel leaves unwritten shows in the tests.
                let poison = u32::from_ne_bytes([POISON_BYTE; 4]);
                assert_eq!(buffer.to_host().unwrap(), vec![poison; len], "{name}");
            }
            let values: Vec<u32> = (0..len as u32).collect();
            buffer.copy_from_host(&values).unwrap();
            assert_eq!(buffer.to_host().unwrap(), values, "{name}");
        }
    }
}

#[test]
fn pool_grows_to_its_maximum_and_releases_free_chunks() {
    let device = device();
    let options = PoolOptions {
        initial_bytes: 1 << 20,
        maximum_bytes: Some(8 << 20),
    };
    let pool = PoolResource::new(device.clone(), options).unwrap();
    let stream = stream();
    assert_eq!(pool.reserved_bytes(), 0);
    let a = pool.allocate(3 << 20, &stream).unwrap();
    let b = pool.allocate(512 << 10, &stream).unwrap();
    assert_eq!(
        pool.reserved_bytes(),
        4 << 20,
        "a 3 MiB chunk and a 1 MiB chunk"
    );
    if device.is_emulated() {
        assert_eq!(device.free_memory(), Ok(device.total_memory() - (4 << 20)));
    }
    match pool.allocate(5 << 20, &stream) {
        Err(RuntimeError::OutOfMemory {
            requested,
            available,
        }) => {
            assert_eq!(requested, 5 << 20);
            assert_eq!(available, (8 << 20) - (3 << 20) - (512 << 10));
        }
        other => panic!("expected OutOfMemory, got {other:?}"),
    }
    // SAFETY: allocated above, freed once, unused.
    unsafe {
        pool.deallocate(a, 3 << 20, &stream);
        pool.deallocate(b, 512 << 10, &stream);
    }
    assert_eq!(pool.in_use_bytes(), 0);
    assert_eq!(pool.release().unwrap(), 4 << 20);
    assert_eq!(pool.reserved_bytes(), 0);
    if device.is_emulated() {
        assert_eq!(device.free_memory(), Ok(device.total_memory()));
    }
    assert!(
        PoolResource::new(
            device,
            PoolOptions {
                initial_bytes: 2,
                maximum_bytes: Some(1)
            }
        )
        .is_err()
    );
}

#[test]
fn pool_reuses_freed_blocks_and_coalesces_neighbours() {
    let pool = PoolResource::new(
        device(),
        PoolOptions {
            initial_bytes: 1 << 20,
            maximum_bytes: Some(1 << 20),
        },
    )
    .unwrap();
    let stream = stream();
    let quarter = 256 << 10;
    let blocks: Vec<DevicePtr> = (0..4)
        .map(|_| pool.allocate(quarter, &stream).unwrap())
        .collect();
    assert!(pool.allocate(1, &stream).is_err(), "the pool is full");
    for block in &blocks {
        // SAFETY: allocated above, freed once, unused.
        unsafe { pool.deallocate(*block, quarter, &stream) };
    }
    // Only a coalesced free block can hold the whole chunk again.
    let whole = pool.allocate(1 << 20, &stream).unwrap();
    assert_eq!(whole, blocks[0]);
    // SAFETY: allocated just above.
    unsafe { pool.deallocate(whole, 1 << 20, &stream) };
}

#[test]
fn limit_adaptor_refuses_beyond_its_limit() {
    let pool: Arc<dyn MemoryResource> =
        Arc::new(PoolResource::new(device(), PoolOptions::default()).unwrap());
    let limit = LimitResource::new(pool, 1 << 20);
    let stream = stream();
    let a = limit.allocate(768 << 10, &stream).unwrap();
    match limit.allocate(512 << 10, &stream) {
        Err(RuntimeError::OutOfMemory {
            requested,
            available,
        }) => {
            assert_eq!((requested, available), (512 << 10, 256 << 10));
        }
        other => panic!("expected OutOfMemory, got {other:?}"),
    }
    let b = limit.allocate(256 << 10, &stream).unwrap();
    assert_eq!(limit.used_bytes(), 1 << 20);
    // SAFETY: allocated above, freed once, unused.
    unsafe {
        limit.deallocate(a, 768 << 10, &stream);
        limit.deallocate(b, 256 << 10, &stream);
    }
    assert_eq!(limit.used_bytes(), 0);
}

#[test]
fn statistics_count_current_peak_and_totals() {
    let pool: Arc<dyn MemoryResource> =
        Arc::new(PoolResource::new(device(), PoolOptions::default()).unwrap());
    let stats = StatisticsResource::new(pool);
    let stream = stream();
    let a = stats.allocate(1000, &stream).unwrap();
    let b = stats.allocate(3000, &stream).unwrap();
    // SAFETY: allocated above, freed once, unused.
    unsafe { stats.deallocate(a, 1000, &stream) };
    let s = stats.statistics();
    assert_eq!(s.current_bytes, 3072);
    assert_eq!(s.peak_bytes, 1024 + 3072);
    assert_eq!(s.total_bytes, 1024 + 3072);
    assert_eq!((s.current_allocations, s.total_allocations), (1, 2));
    // SAFETY: allocated above.
    unsafe { stats.deallocate(b, 3000, &stream) };
    assert_eq!(stats.statistics().current_bytes, 0);
}

#[test]
fn copies_larger_than_the_staging_pool_round_trip_from_several_threads() {
    // 10 MiB of u32 per buffer: three staging blocks each, and four threads
    // at once need more blocks than the pool keeps.
    let resource = resources().swap_remove(1).1;
    std::thread::scope(|scope| {
        for thread in 0..4u32 {
            let resource = resource.clone();
            scope.spawn(move || {
                let stream = stream();
                let values: Vec<u32> = (0..(10u32 << 18))
                    .map(|i| i.wrapping_mul(2_654_435_761) ^ thread)
                    .collect();
                let buffer = DeviceBuffer::from_host(&values, resource.clone(), &stream).unwrap();
                let back = buffer.to_host().unwrap();
                assert!(back == values, "thread {thread}: the copy differs");
                let tail = buffer.to_host_range(values.len() - 5, 5).unwrap();
                assert_eq!(tail, values[values.len() - 5..], "thread {thread}");
            });
        }
    });
}

/// Two threads run "queries" as the engine does: two fresh streams each,
/// allocations of mixed sizes freed on either stream, then the streams
/// dropped. A stream that adopted the free blocks and is being dropped must
/// not make the other thread's allocations grow the pool: before the pool
/// waited for such streams, it grew by a chunk each time and ran the device
/// out of memory within a few thousand queries.
#[test]
fn pool_stays_bounded_while_queries_on_two_threads_drop_their_streams() {
    let device = device();
    let pool = Arc::new(PoolResource::new(device.clone(), PoolOptions::default()).unwrap());
    std::thread::scope(|scope| {
        for seed in 0..2u64 {
            let (device, pool) = (device.clone(), pool.clone());
            scope.spawn(move || {
                let mut rng = fastrand::Rng::with_seed(seed);
                for _ in 0..3000 {
                    let streams = [
                        device.create_stream().unwrap(),
                        device.create_stream().unwrap(),
                    ];
                    let mut held = Vec::new();
                    for _ in 0..rng.usize(1..20) {
                        let size = if rng.u8(..10) == 0 {
                            rng.u64(1..40 << 20)
                        } else {
                            rng.u64(1..100_000)
                        };
                        let stream = &streams[rng.usize(..2)];
                        held.push((pool.allocate(size, stream).unwrap(), size));
                    }
                    for (address, size) in held {
                        // SAFETY: allocated above, freed once, never used.
                        unsafe { pool.deallocate(address, size, &streams[rng.usize(..2)]) };
                    }
                }
            });
        }
    });
    assert_eq!(pool.in_use_bytes(), 0);
    // At most 2 x 19 x 40 MiB live at once; the pool grew to 64 GiB before.
    assert!(
        pool.reserved_bytes() <= 2 << 30,
        "the pool grew to {} MiB",
        pool.reserved_bytes() >> 20
    );
}

/// Holds buffers allocated through a spill adaptor and drops them (as if
/// moved to host memory) when asked to spill.
#[derive(Debug, Default)]
struct DroppingSpiller {
    held: std::sync::Mutex<Vec<DeviceBuffer<u8>>>,
    asked: std::sync::atomic::AtomicUsize,
}

impl gpu_runtime::memory::Spiller for DroppingSpiller {
    fn spill(&self, wanted: u64) -> u64 {
        self.asked
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut held = self.held.lock().unwrap();
        let mut freed = 0;
        while freed < wanted
            && let Some(buffer) = held.pop()
        {
            freed += buffer.len() as u64;
        }
        freed
    }
}

#[test]
fn spill_adaptor_frees_through_its_spiller_and_tries_again() {
    use gpu_runtime::memory::{SpillResource, Spiller};
    let pool: Arc<dyn MemoryResource> =
        Arc::new(PoolResource::new(device(), PoolOptions::default()).unwrap());
    let limit: Arc<dyn MemoryResource> = Arc::new(LimitResource::new(pool, 1 << 20));
    let spiller = Arc::new(DroppingSpiller::default());
    let weak: std::sync::Weak<dyn Spiller> = Arc::downgrade(&(spiller.clone() as Arc<dyn Spiller>));
    let spilling: Arc<dyn MemoryResource> = Arc::new(SpillResource::new(limit.clone(), weak));
    let stream = stream();
    for _ in 0..3 {
        let buffer = DeviceBuffer::<u8>::zeroed(256 << 10, spilling.clone(), &stream).unwrap();
        spiller.held.lock().unwrap().push(buffer);
    }
    // 768 KiB held: 512 more fit only once the spiller frees one.
    let big = DeviceBuffer::<u8>::zeroed(512 << 10, spilling.clone(), &stream).unwrap();
    assert_eq!(spiller.held.lock().unwrap().len(), 1);
    assert_eq!(spiller.asked.load(std::sync::atomic::Ordering::Relaxed), 1);
    // More than the limit frees everything it can, then fails as out of memory.
    match DeviceBuffer::<u8>::zeroed(2 << 20, spilling.clone(), &stream) {
        Err(RuntimeError::OutOfMemory { requested, .. }) => assert_eq!(requested, 2 << 20),
        other => panic!("expected OutOfMemory, got {other:?}"),
    }
    assert!(spiller.held.lock().unwrap().is_empty());
    drop(big);
    // Without its spiller (dropped), the adaptor only forwards.
    drop(spiller);
    let fits = DeviceBuffer::<u8>::zeroed(1 << 20, spilling.clone(), &stream).unwrap();
    assert!(matches!(
        DeviceBuffer::<u8>::zeroed(1, spilling.clone(), &stream),
        Err(RuntimeError::OutOfMemory { .. })
    ));
    drop(fits);
}

#[test]
fn values_move_to_host_and_back_exactly() {
    use gpu_runtime::memory::{Child, HostValues, ToDevice, ToHost, Values};
    let resource: Arc<dyn MemoryResource> = Arc::new(DeviceResource::new(device()));
    let stream = stream();
    let up = |values: &[i64]| DeviceBuffer::from_host(values, resource.clone(), &stream).unwrap();
    // Lists of texts (with a null text) and a struct of a boolean field.
    let texts = Child {
        len: 3,
        values: Values::Str {
            offsets: up(&[0, 2, 2, 5]),
            bytes: DeviceBuffer::from_host(b"abcde", resource.clone(), &stream).unwrap(),
        },
        validity: Some(DeviceBuffer::from_host(&[0b101u32], resource.clone(), &stream).unwrap()),
    };
    let lists = Values::List {
        offsets: up(&[0, 1, 3]),
        child: Box::new(texts),
    };
    let fields = Values::Struct {
        fields: vec![Child {
            len: 2,
            values: Values::Bits(
                DeviceBuffer::from_host(&[0b10u32], resource.clone(), &stream).unwrap(),
            ),
            validity: None,
        }],
    };
    let mut to_host = ToHost::default();
    let host: Vec<HostValues> = vec![
        lists.moved(&mut to_host).unwrap(),
        fields.moved(&mut to_host).unwrap(),
    ];
    assert_eq!(to_host.bytes, 3 * 8 + 4 * 8 + 5 + 4 + 4);
    let HostValues::List { offsets, child } = &host[0] else {
        panic!("lists came back as {:?}", host[0]);
    };
    assert_eq!(offsets, &[0, 1, 3]);
    assert!(matches!(&child.values, HostValues::Str { bytes, .. } if bytes == b"abcde"));
    let mut to_device = ToDevice {
        resource: &resource,
        stream: &stream,
        bytes: 0,
    };
    let back: Vec<Values> = host
        .into_iter()
        .map(|values| values.moved(&mut to_device).unwrap())
        .collect();
    assert_eq!(to_device.bytes, to_host.bytes);
    let mut back = back.into_iter();
    let Some(Values::List { offsets, child }) = back.next() else {
        panic!("not lists");
    };
    assert_eq!(offsets.to_host().unwrap(), [0, 1, 3]);
    let Values::Str { offsets, bytes } = child.values else {
        panic!("not texts");
    };
    assert_eq!(offsets.to_host().unwrap(), [0, 2, 2, 5]);
    assert_eq!(bytes.to_host().unwrap(), b"abcde");
    assert_eq!(child.validity.unwrap().to_host().unwrap(), [0b101]);
    let Some(Values::Struct { fields }) = back.next() else {
        panic!("not a struct");
    };
    assert!(matches!(&fields[0].values, Values::Bits(bits) if bits.to_host().unwrap() == [0b10]));
}
