//! The emulated device: the runtime's API over host memory, for machines without a GPU.
//!
//! Device memory is host memory aligned to 256 bytes (as `cuMemAlloc`
//! aligns), bounded by a capacity so that out-of-memory paths are exercised.
//! Streams run their work on worker threads (see `stream.rs`). The emulated
//! device is a test and development target: it is only ever used when asked
//! for by name, never in place of a missing GPU.

pub(crate) mod stream;

use std::alloc::Layout;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::RuntimeError;
use crate::health::Health;
use crate::memory::DevicePtr;
use crate::staging::{PlainHost, StagingPool};
use crate::stream::Stream;

/// Alignment of every device allocation, as the CUDA driver guarantees.
pub const DEVICE_ALIGNMENT: usize = 256;

/// An emulated GPU backed by host memory.
#[derive(Debug)]
pub struct EmulatedDevice {
    ordinal: usize,
    capacity: u64,
    used: AtomicU64,
    host_threads: u32,
    staging: Arc<StagingPool>,
    /// The emulated context's sticky error (an injected one), shared with
    /// its streams.
    health: Arc<Health>,
}

impl EmulatedDevice {
    /// An emulated device with `capacity` bytes of device memory.
    pub fn new(ordinal: usize, capacity: u64) -> Self {
        EmulatedDevice {
            ordinal,
            capacity,
            used: AtomicU64::new(0),
            host_threads: 0,
            staging: Arc::new(StagingPool::new(Box::new(PlainHost))),
            health: Arc::default(),
        }
    }

    /// Runs each launch's blocks on at most `threads` host threads (default
    /// 0: one per core).
    pub fn with_host_threads(mut self, threads: u32) -> Self {
        self.host_threads = threads;
        self
    }

    /// The device's ordinal.
    pub fn ordinal(&self) -> usize {
        self.ordinal
    }

    /// Total device memory in bytes.
    pub fn total_memory(&self) -> u64 {
        self.capacity
    }

    /// Device memory not allocated, in bytes.
    pub fn free_memory(&self) -> u64 {
        self.capacity
            .saturating_sub(self.used.load(Ordering::Relaxed))
    }

    /// A new stream on this device.
    pub fn create_stream(&self) -> Result<Stream, RuntimeError> {
        Stream::new_emulated(
            self.ordinal,
            self.host_threads,
            self.staging.clone(),
            self.health.clone(),
        )
    }

    /// The sticky error that left the emulated context unusable, if any.
    pub(crate) fn health(&self) -> &Health {
        &self.health
    }

    /// Rebuilds the emulated context after a sticky error (see
    /// [`crate::Device::reset`]); `handles`: the handles to this device the
    /// caller knows of.
    pub(crate) fn reset(self: &Arc<Self>, handles: usize) -> Result<(), RuntimeError> {
        // As on a GPU: every stream holds the health, every memory resource
        // the device, and nothing may outlive the context.
        if Arc::strong_count(self) > handles || Arc::strong_count(&self.health) > 1 {
            return Err(RuntimeError::InvalidArgument(format!(
                "emulated device {} cannot be reset while streams, buffers or memory resources \
                 made on it live",
                self.ordinal
            )));
        }
        self.health.clear();
        Ok(())
    }

    /// Allocates `bytes` at once (not stream-ordered), like `cuMemAlloc`.
    /// Zero bytes give the null pointer.
    pub fn allocate_raw(&self, bytes: u64) -> Result<DevicePtr, RuntimeError> {
        self.health.check()?;
        if bytes == 0 {
            return Ok(DevicePtr::NULL);
        }
        let reserved = self
            .used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                used.checked_add(bytes)
                    .filter(|total| *total <= self.capacity)
            });
        if let Err(used) = reserved {
            return Err(RuntimeError::OutOfMemory {
                requested: bytes,
                available: self.capacity.saturating_sub(used),
            });
        }
        let layout = usize::try_from(bytes)
            .ok()
            .and_then(|size| Layout::from_size_align(size, DEVICE_ALIGNMENT).ok());
        let Some(layout) = layout else {
            self.used.fetch_sub(bytes, Ordering::AcqRel);
            return Err(RuntimeError::OutOfMemory {
                requested: bytes,
                available: self.free_memory(),
            });
        };
        // SAFETY: `layout` has a non-zero size (bytes > 0) and a valid alignment.
        let ptr = unsafe { std::alloc::alloc(layout) };
        if ptr.is_null() {
            self.used.fetch_sub(bytes, Ordering::AcqRel);
            return Err(RuntimeError::OutOfMemory {
                requested: bytes,
                available: self.free_memory(),
            });
        }
        Ok(DevicePtr(ptr as u64))
    }

    /// Frees memory from [`EmulatedDevice::allocate_raw`] at once.
    ///
    /// # Safety
    /// `ptr` must come from `allocate_raw(bytes)` on this device, not be freed
    /// yet, and no work that uses it may be pending on any stream.
    pub unsafe fn free_raw(&self, ptr: DevicePtr, bytes: u64) {
        if ptr.is_null() || bytes == 0 {
            return;
        }
        if let Ok(layout) = Layout::from_size_align(bytes as usize, DEVICE_ALIGNMENT) {
            // SAFETY: the caller guarantees `ptr` came from `allocate_raw` with
            // this size, so it was allocated with this very layout.
            unsafe { std::alloc::dealloc(ptr.0 as *mut u8, layout) };
            self.used.fetch_sub(bytes, Ordering::AcqRel);
        }
    }
}
