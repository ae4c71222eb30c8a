//! Each kernel of the kernels crate against a plain Rust reference on the device under test, at awkward sizes, outputs poisoned first.

mod asof;
mod bitmap;
mod elementwise;
mod emulator;
mod gather;
mod groupby;
mod hash;
mod lists;
mod matches;
mod partition;
mod predicate;
mod reduce;
mod rolling;
mod scan;
mod sort;
mod strings;
mod zones;

use std::sync::Arc;

use gpu_runtime::memory::{DeviceBuffer, DeviceCopy, MemoryResource, PoolOptions, PoolResource};
use gpu_runtime::{EmulatedDevice, KernelArgs, KernelRef, LaunchConfig, Stream};

/// Emulated device memory for a suite's device.
const CAPACITY: u64 = 8 << 30;
use kernels::Kernel;

/// Sizes around warp and block boundaries, several blocks, and about 10^5.
pub const SIZES: &[usize] = &[0, 1, 31, 32, 33, 255, 256, 257, 1000, 4099, 100_003];

pub const BLOCK: u32 = 256;

/// Every quantile method, as the kernels number them.
pub const QUANTILE_METHODS: [gpu_runtime::ops::QuantileMethod; 6] = {
    use gpu_runtime::ops::QuantileMethod::*;
    [Nearest, Lower, Higher, Midpoint, Linear, Equiprobable]
};

#[derive(Debug)]
pub struct Device {
    pub memory: Arc<dyn MemoryResource>,
    pub stream: Stream,
}

impl Device {
    /// The safe operations on this device's stream and pool.
    pub fn ops(&self) -> gpu_runtime::ops::Ops<'_> {
        gpu_runtime::ops::Ops {
            memory: &self.memory,
            stream: &self.stream,
        }
    }
}

/// A stream and a pool on the device under test (`GPU_TEST_DEVICE`: the
/// emulated device unless it names a GPU).
pub fn device() -> Device {
    on(gpu_runtime::Device::under_test(CAPACITY).expect("the device under test"))
}

/// A stream and a pool on an emulated device, for the emulator's own tests.
pub fn emulated() -> Device {
    on(gpu_runtime::Device::Emulated(Arc::new(
        EmulatedDevice::new(0, CAPACITY),
    )))
}

fn on(device: gpu_runtime::Device) -> Device {
    let stream = device.create_stream().unwrap();
    let memory = Arc::new(PoolResource::new(Arc::new(device), PoolOptions::default()).unwrap());
    Device { memory, stream }
}

impl Device {
    pub fn upload<T: DeviceCopy>(&self, values: &[T]) -> DeviceBuffer<T> {
        DeviceBuffer::from_host(values, self.memory.clone(), &self.stream).unwrap()
    }

    /// A buffer of `len` copies of `poison`, so that an unwritten element shows.
    /// `rows` on the device: offsets, bytes, and the validity `valid`.
    pub fn upload_texts(
        &self,
        rows: &[String],
        valid: &[bool],
    ) -> (DeviceBuffer<i64>, DeviceBuffer<u8>, DeviceBuffer<u32>) {
        let (offsets, bytes) = offsets_of(rows);
        (
            self.upload(&offsets),
            self.upload(&bytes),
            self.upload(&bitmap(valid)),
        )
    }

    pub fn poisoned<T: DeviceCopy>(&self, len: usize, poison: T) -> DeviceBuffer<T> {
        self.upload(&vec![poison; len])
    }

    /// Launches `kernel`.
    ///
    /// # Safety
    /// As `Stream::launch`: `args` match the kernel, buffers outlive it.
    pub unsafe fn launch(&self, kernel: Kernel, config: LaunchConfig, args: KernelArgs) {
        let kernel = KernelRef::from(kernel); // SAFETY: forwarded from the caller.
        unsafe { self.stream.launch(&kernel, config, args) }.unwrap();
    }
}

/// Strings as Arrow holds them: offsets (one more than the strings) and bytes.
pub fn offsets_of(strings: &[String]) -> (Vec<i64>, Vec<u8>) {
    let mut offsets = vec![0i64];
    let mut bytes = Vec::new();
    for s in strings {
        bytes.extend_from_slice(s.as_bytes());
        offsets.push(bytes.len() as i64);
    }
    (offsets, bytes)
}

/// `n` random texts, each of fewer than `most` random `pieces`, and random
/// validity (one in five null).
pub fn texts_of_pieces(
    rng: &mut fastrand::Rng,
    n: usize,
    pieces: &[&str],
    most: usize,
) -> (Vec<String>, Vec<bool>) {
    let rows = (0..n)
        .map(|_| {
            (0..rng.usize(..most))
                .map(|_| pieces[rng.usize(..pieces.len())])
                .collect()
        })
        .collect();
    let valid = (0..n).map(|_| rng.u8(..5) != 0).collect();
    (rows, valid)
}

/// Byte classes of the test DFAs: `a` 1, `b` 2, every other byte 0.
pub fn classes_of_a_and_b() -> Vec<u8> {
    (0..=255u8)
        .map(|b| match b {
            b'a' => 1,
            b'b' => 2,
            _ => 0,
        })
        .collect()
}

/// An Arrow validity bitmap of `flags`, as 32-bit words.
pub fn bitmap(flags: &[bool]) -> Vec<u32> {
    let mut words = vec![0u32; flags.len().div_ceil(32)];
    for (i, set) in flags.iter().enumerate() {
        if *set {
            words[i / 32] |= 1 << (i % 32);
        }
    }
    words
}

/// The flags of the first `n` bits of `words`.
pub fn flags(words: &[u32], n: usize) -> Vec<bool> {
    (0..n).map(|i| words[i / 32] >> (i % 32) & 1 == 1).collect()
}
