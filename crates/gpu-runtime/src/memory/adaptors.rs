//! Memory resource adaptors: statistics (current and peak bytes, counts), a byte limit, and spilling on out of memory.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use crate::error::RuntimeError;
use crate::memory::{DevicePtr, MemoryResource, aligned};
use crate::stream::Stream;

/// Counts of a [`StatisticsResource`], in allocation sizes rounded to 256 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MemoryStatistics {
    pub current_bytes: u64,
    pub peak_bytes: u64,
    pub total_bytes: u64,
    pub current_allocations: u64,
    pub total_allocations: u64,
}

/// Counts what passes through to another resource.
#[derive(Debug)]
pub struct StatisticsResource {
    inner: Arc<dyn MemoryResource>,
    current_bytes: AtomicU64,
    peak_bytes: AtomicU64,
    total_bytes: AtomicU64,
    current_allocations: AtomicU64,
    total_allocations: AtomicU64,
}

impl StatisticsResource {
    pub fn new(inner: Arc<dyn MemoryResource>) -> Self {
        StatisticsResource {
            inner,
            current_bytes: AtomicU64::new(0),
            peak_bytes: AtomicU64::new(0),
            total_bytes: AtomicU64::new(0),
            current_allocations: AtomicU64::new(0),
            total_allocations: AtomicU64::new(0),
        }
    }

    /// The counts so far.
    pub fn statistics(&self) -> MemoryStatistics {
        MemoryStatistics {
            current_bytes: self.current_bytes.load(Ordering::Acquire),
            peak_bytes: self.peak_bytes.load(Ordering::Acquire),
            total_bytes: self.total_bytes.load(Ordering::Acquire),
            current_allocations: self.current_allocations.load(Ordering::Acquire),
            total_allocations: self.total_allocations.load(Ordering::Acquire),
        }
    }
}

impl MemoryResource for StatisticsResource {
    fn allocate(&self, bytes: u64, stream: &Stream) -> Result<DevicePtr, RuntimeError> {
        let ptr = self.inner.allocate(bytes, stream)?;
        let size = aligned(bytes).unwrap_or(bytes);
        let current = self.current_bytes.fetch_add(size, Ordering::AcqRel) + size;
        self.peak_bytes.fetch_max(current, Ordering::AcqRel);
        self.total_bytes.fetch_add(size, Ordering::AcqRel);
        self.current_allocations.fetch_add(1, Ordering::AcqRel);
        self.total_allocations.fetch_add(1, Ordering::AcqRel);
        Ok(ptr)
    }

    unsafe fn deallocate(&self, ptr: DevicePtr, bytes: u64, stream: &Stream) {
        let size = aligned(bytes).unwrap_or(bytes);
        self.current_bytes.fetch_sub(size, Ordering::AcqRel);
        self.current_allocations.fetch_sub(1, Ordering::AcqRel);
        // SAFETY: forwarded from the caller's guarantee; `ptr` came from `inner`.
        unsafe { self.inner.deallocate(ptr, bytes, stream) }
    }
}

/// Refuses allocations that would take what passes through past a byte limit.
#[derive(Debug)]
pub struct LimitResource {
    inner: Arc<dyn MemoryResource>,
    limit: u64,
    used: AtomicU64,
}

impl LimitResource {
    pub fn new(inner: Arc<dyn MemoryResource>, limit_bytes: u64) -> Self {
        LimitResource {
            inner,
            limit: limit_bytes,
            used: AtomicU64::new(0),
        }
    }

    /// Bytes allocated through this adaptor and not yet returned.
    pub fn used_bytes(&self) -> u64 {
        self.used.load(Ordering::Acquire)
    }
}

impl MemoryResource for LimitResource {
    fn allocate(&self, bytes: u64, stream: &Stream) -> Result<DevicePtr, RuntimeError> {
        let size = aligned(bytes).unwrap_or(u64::MAX);
        let reserved = self
            .used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                used.checked_add(size).filter(|total| *total <= self.limit)
            });
        if let Err(used) = reserved {
            return Err(RuntimeError::OutOfMemory {
                requested: bytes,
                available: self.limit.saturating_sub(used),
            });
        }
        self.inner.allocate(bytes, stream).inspect_err(|_| {
            self.used.fetch_sub(size, Ordering::AcqRel);
        })
    }

    unsafe fn deallocate(&self, ptr: DevicePtr, bytes: u64, stream: &Stream) {
        let size = aligned(bytes).unwrap_or(bytes);
        self.used.fetch_sub(size, Ordering::AcqRel);
        // SAFETY: forwarded from the caller's guarantee; `ptr` came from `inner`.
        unsafe { self.inner.deallocate(ptr, bytes, stream) }
    }
}

/// Frees device memory on request, by moving what it holds to host memory
/// (gpu-exec's spill manager: results kept for later).
pub trait Spiller: Send + Sync + fmt::Debug {
    /// Frees at least `wanted` bytes if it can: the bytes freed (0: it
    /// could free nothing more now).
    fn spill(&self, wanted: u64) -> u64;
}

/// Allocates from another resource; an allocation that fails for lack of
/// memory asks the spiller to free some, then tries again, for as long as
/// it frees any. The spiller is held weakly: what it holds keeps buffers of
/// this resource alive, which keep this resource alive.
#[derive(Debug)]
pub struct SpillResource {
    inner: Arc<dyn MemoryResource>,
    spiller: Weak<dyn Spiller>,
}

impl SpillResource {
    pub fn new(inner: Arc<dyn MemoryResource>, spiller: Weak<dyn Spiller>) -> Self {
        SpillResource { inner, spiller }
    }
}

impl MemoryResource for SpillResource {
    fn allocate(&self, bytes: u64, stream: &Stream) -> Result<DevicePtr, RuntimeError> {
        loop {
            match self.inner.allocate(bytes, stream) {
                Err(RuntimeError::OutOfMemory {
                    requested,
                    available,
                }) => {
                    let freed = self.spiller.upgrade().map_or(0, |s| s.spill(bytes));
                    if freed == 0 {
                        return Err(RuntimeError::OutOfMemory {
                            requested,
                            available,
                        });
                    }
                }
                other => return other,
            }
        }
    }

    unsafe fn deallocate(&self, ptr: DevicePtr, bytes: u64, stream: &Stream) {
        // SAFETY: forwarded from the caller's guarantee; `ptr` came from `inner`.
        unsafe { self.inner.deallocate(ptr, bytes, stream) }
    }
}
