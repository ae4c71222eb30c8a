//! Device memory on CUDA: plain allocations (a pool's upstream) and the driver's stream-ordered pool.

use std::sync::Arc;

use cudarc::driver::sys;

use super::{Context, CudaDevice, ERROR_OUT_OF_MEMORY, check};
use crate::error::RuntimeError;
use crate::memory::{DevicePtr, MemoryResource, Upstream};
use crate::staging::HostMemory;
use crate::stream::Stream;

impl CudaDevice {
    /// The error for `requested` bytes the driver refused (`result`).
    fn allocation_error(
        &self,
        call: &'static str,
        requested: u64,
        result: sys::CUresult,
    ) -> RuntimeError {
        if result as u32 == ERROR_OUT_OF_MEMORY {
            return RuntimeError::OutOfMemory {
                requested,
                available: self.free_memory().unwrap_or(0),
            };
        }
        check(call, result).err().unwrap_or_else(|| {
            RuntimeError::Internal(format!("{call} failed and succeeded at once"))
        })
    }
}

impl Upstream for CudaDevice {
    fn allocate_raw(&self, bytes: u64) -> Result<DevicePtr, RuntimeError> {
        if bytes == 0 {
            return Ok(DevicePtr::NULL);
        }
        let size = usize::try_from(bytes).map_err(|_| RuntimeError::OutOfMemory {
            requested: bytes,
            available: self.free_memory().unwrap_or(0),
        })?;
        self.health().check()?;
        self.context().bind()?;
        let mut ptr: sys::CUdeviceptr = 0;
        // SAFETY: the context is bound; the pointer is to a live local.
        let result = unsafe { sys::cuMemAlloc_v2(&mut ptr, size) };
        if result != sys::CUresult::CUDA_SUCCESS {
            let error = self.allocation_error("cuMemAlloc_v2", bytes, result);
            return Err(self.health().observe(error));
        }
        Ok(DevicePtr(ptr))
    }

    unsafe fn free_raw(&self, ptr: DevicePtr, bytes: u64) {
        if ptr.is_null() || bytes == 0 {
            return;
        }
        if let Err(e) = self.context().bind() {
            tracing::error!("leaking {bytes} bytes of device memory at {ptr}: {e}");
            return;
        }
        // SAFETY: the caller guarantees `ptr` came from `cuMemAlloc_v2` in this
        // context, is freed once and that no pending work uses it.
        let result = unsafe { sys::cuMemFree_v2(ptr.0) };
        if let Err(e) = check("cuMemFree_v2", result) {
            tracing::error!("{e}");
        }
    }
}

/// Page-locked host memory of a context: staging blocks the driver copies
/// from and to asynchronously. Portable, so every context may use it.
#[derive(Debug)]
pub(crate) struct PinnedHost {
    pub context: Arc<Context>,
}

impl HostMemory for PinnedHost {
    fn allocate(&self, bytes: usize) -> Result<usize, RuntimeError> {
        self.context.bind()?;
        let mut ptr: *mut std::ffi::c_void = std::ptr::null_mut();
        // SAFETY: the context is bound; the pointer is to a live local.
        check("cuMemHostAlloc", unsafe {
            sys::cuMemHostAlloc(&mut ptr, bytes, sys::CU_MEMHOSTALLOC_PORTABLE)
        })?;
        Ok(ptr as usize)
    }

    unsafe fn free(&self, address: usize, bytes: usize) {
        let freed = self.context.bind().and_then(|()| {
            // SAFETY: the caller guarantees `address` came from `cuMemHostAlloc`
            // here, is freed once and that no pending copy uses it.
            check("cuMemFreeHost", unsafe {
                sys::cuMemFreeHost(address as *mut std::ffi::c_void)
            })
        });
        if let Err(e) = freed {
            tracing::error!("leaking {bytes} bytes of page-locked memory: {e}");
        }
    }
}

/// The driver's stream-ordered pool (`cuMemAllocAsync`, `cuMemFreeAsync`)
/// of one device: the device's default memory pool.
///
/// The release threshold is the memory the pool keeps reserved at a
/// synchronisation: `None` keeps everything (as RMM does), so memory freed
/// by one query is reused by the next without going back to the driver.
#[derive(Debug)]
pub struct DriverPoolResource {
    device: Arc<CudaDevice>,
    pool: usize,
}

impl DriverPoolResource {
    /// The driver pool of `device`, with its release threshold set.
    pub fn new(
        device: Arc<CudaDevice>,
        release_threshold: Option<u64>,
    ) -> Result<Self, RuntimeError> {
        device.context().bind()?;
        let mut pool: sys::CUmemoryPool = std::ptr::null_mut();
        // SAFETY: the device handle came from `cuDeviceGet`; the pointer is to
        // a live local.
        check("cuDeviceGetDefaultMemPool", unsafe {
            sys::cuDeviceGetDefaultMemPool(&mut pool, device.context().device())
        })?;
        let mut threshold: u64 = release_threshold.unwrap_or(u64::MAX);
        // SAFETY: `pool` is the device's default pool; the release threshold
        // attribute is a `cuuint64_t`, read from a live local.
        check("cuMemPoolSetAttribute", unsafe {
            sys::cuMemPoolSetAttribute(
                pool,
                sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                (&mut threshold as *mut u64).cast(),
            )
        })?;
        Ok(DriverPoolResource {
            device,
            pool: pool as usize,
        })
    }

    /// Returns the pool's unused memory to the driver, keeping at least
    /// `keep_bytes` reserved.
    pub fn trim_to(&self, keep_bytes: u64) -> Result<(), RuntimeError> {
        self.device.context().bind()?;
        let keep = usize::try_from(keep_bytes).unwrap_or(usize::MAX);
        // SAFETY: `pool` is the device's default pool, which lives as long as
        // the context.
        check("cuMemPoolTrimTo", unsafe {
            sys::cuMemPoolTrimTo(self.pool as sys::CUmemoryPool, keep)
        })
    }

    /// `stream` as a CUDA stream of this pool's device, or why not.
    fn raw_stream(&self, stream: &Stream) -> Result<sys::CUstream, RuntimeError> {
        match stream.cuda() {
            Some(cuda) if cuda.context().same(self.device.context()) => Ok(cuda.raw()),
            _ => Err(RuntimeError::InvalidArgument(format!(
                "the driver pool of CUDA device {} was given a stream of another device",
                self.device.ordinal()
            ))),
        }
    }
}

impl MemoryResource for DriverPoolResource {
    fn allocate(&self, bytes: u64, stream: &Stream) -> Result<DevicePtr, RuntimeError> {
        if bytes == 0 {
            return Ok(DevicePtr::NULL);
        }
        let raw = self.raw_stream(stream)?;
        let size = usize::try_from(bytes).map_err(|_| RuntimeError::OutOfMemory {
            requested: bytes,
            available: self.device.free_memory().unwrap_or(0),
        })?;
        self.device.context().bind()?;
        let mut ptr: sys::CUdeviceptr = 0;
        // SAFETY: the context is bound and `raw` is a live stream of it; the
        // pointer is to a live local.
        let result = unsafe { sys::cuMemAllocAsync(&mut ptr, size, raw) };
        if result != sys::CUresult::CUDA_SUCCESS {
            return Err(self
                .device
                .allocation_error("cuMemAllocAsync", bytes, result));
        }
        Ok(DevicePtr(ptr))
    }

    unsafe fn deallocate(&self, ptr: DevicePtr, bytes: u64, stream: &Stream) {
        if ptr.is_null() || bytes == 0 {
            return;
        }
        let freed = self.raw_stream(stream).and_then(|raw| {
            self.device.context().bind()?;
            // SAFETY: the caller guarantees `ptr` came from `allocate` here and
            // is freed once; the driver frees it after the work enqueued on
            // `raw` so far, which may still use it.
            check("cuMemFreeAsync", unsafe { sys::cuMemFreeAsync(ptr.0, raw) })
        });
        if let Err(e) = freed {
            tracing::error!("leaking {bytes} bytes of device memory at {ptr}: {e}");
        }
    }
}
