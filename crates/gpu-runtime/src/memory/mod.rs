//! Device memory: stream-ordered memory resources, adaptors, and typed RAII buffers.
//!
//! A [`MemoryResource`] hands out device memory in stream order: memory freed
//! on a stream may be reused by later work on that stream at once, and by
//! another stream only after that stream waits for the first one. Resources
//! stack: [`PoolResource`] sub-allocates chunks from a device,
//! [`StatisticsResource`] counts, [`LimitResource`] caps, [`SpillResource`]
//! asks a [`Spiller`] to free memory when an allocation fails. [`DeviceBuffer`]
//! owns an allocation and frees it in stream order when dropped.

mod adaptors;
mod buffer;
mod pool;
mod values;

use std::fmt;
use std::sync::Arc;

pub use adaptors::{LimitResource, MemoryStatistics, SpillResource, Spiller, StatisticsResource};
pub use buffer::{DeviceBuffer, DeviceCopy, POISON_BYTE};
pub use pool::{PoolOptions, PoolResource};
pub use values::{
    Child, ChildIn, HostValues, MoveBuffer, OnDevice, OnHost, Storage, ToDevice, ToHost, Values,
    ValuesIn,
};

use crate::emulated::EmulatedDevice;
use crate::error::RuntimeError;
use crate::stream::Stream;

/// An address in device memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DevicePtr(pub(crate) u64);

impl DevicePtr {
    /// The address of zero-byte allocations.
    pub const NULL: DevicePtr = DevicePtr(0);

    /// The numeric address.
    pub fn address(self) -> u64 {
        self.0
    }

    /// Whether this is the null address.
    pub fn is_null(self) -> bool {
        self.0 == 0
    }
}

impl fmt::Display for DevicePtr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#x}", self.0)
    }
}

/// A source of device memory, allocated and freed in stream order.
///
/// Rules every implementation keeps:
/// - `allocate` returns memory that no live allocation overlaps, aligned to
///   256 bytes; zero bytes give [`DevicePtr::NULL`].
/// - Memory may be used by work enqueued on `stream` after `allocate`
///   returns, and by other streams only once they wait for `stream`.
/// - After `deallocate(ptr, bytes, stream)`, work enqueued on `stream` before
///   the call may still use the memory; the resource reuses it for other
///   streams only after making them wait for `stream`.
/// - Failure to allocate is [`RuntimeError::OutOfMemory`] with the requested
///   and available bytes, never a panic or an abort.
pub trait MemoryResource: Send + Sync + fmt::Debug {
    /// Allocates `bytes` for use on `stream`.
    fn allocate(&self, bytes: u64, stream: &Stream) -> Result<DevicePtr, RuntimeError>;

    /// Returns memory to the resource, in the order of `stream`.
    ///
    /// # Safety
    /// `ptr` must come from `allocate(bytes, _)` on this resource and not be
    /// deallocated already; no work enqueued after this call on any stream
    /// may use it.
    unsafe fn deallocate(&self, ptr: DevicePtr, bytes: u64, stream: &Stream);
}

/// Where a pool gets its chunks: a device's plain allocation.
pub trait Upstream: Send + Sync + fmt::Debug {
    /// Allocates `bytes` at once, not stream-ordered.
    fn allocate_raw(&self, bytes: u64) -> Result<DevicePtr, RuntimeError>;

    /// Frees memory at once.
    ///
    /// # Safety
    /// `ptr` must come from `allocate_raw(bytes)`, not be freed yet, and no
    /// pending work on any stream may use it.
    unsafe fn free_raw(&self, ptr: DevicePtr, bytes: u64);
}

impl Upstream for EmulatedDevice {
    fn allocate_raw(&self, bytes: u64) -> Result<DevicePtr, RuntimeError> {
        EmulatedDevice::allocate_raw(self, bytes)
    }

    unsafe fn free_raw(&self, ptr: DevicePtr, bytes: u64) {
        // SAFETY: forwarded from the caller's guarantee.
        unsafe { EmulatedDevice::free_raw(self, ptr, bytes) }
    }
}

/// Plain allocation straight from a device for every request, freed in
/// stream order (the baseline the pool is measured against).
#[derive(Debug)]
pub struct DeviceResource<U: Upstream> {
    upstream: Arc<U>,
}

impl<U: Upstream> DeviceResource<U> {
    pub fn new(upstream: Arc<U>) -> Self {
        DeviceResource { upstream }
    }
}

impl<U: Upstream + 'static> MemoryResource for DeviceResource<U> {
    fn allocate(&self, bytes: u64, _stream: &Stream) -> Result<DevicePtr, RuntimeError> {
        self.upstream.allocate_raw(bytes)
    }

    unsafe fn deallocate(&self, ptr: DevicePtr, bytes: u64, stream: &Stream) {
        let upstream = self.upstream.clone();
        let free = move || {
            // SAFETY: this runs after the work enqueued on the stream before
            // `deallocate`, which the caller guarantees is the last to use `ptr`.
            unsafe { upstream.free_raw(ptr, bytes) }
        };
        if let Err(e) = stream.after_work(free) {
            // Freeing now could pull memory from under pending work: leak it.
            tracing::error!("leaking {bytes} bytes of device memory at {ptr}: {e}");
        }
    }
}

/// Rounds `bytes` up to the device alignment.
pub(crate) fn aligned(bytes: u64) -> Option<u64> {
    let alignment = crate::emulated::DEVICE_ALIGNMENT as u64;
    bytes
        .checked_add(alignment - 1)
        .map(|b| b / alignment * alignment)
}
