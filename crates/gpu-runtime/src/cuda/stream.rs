//! CUDA streams and events: copies, fills and kernel launches enqueued on a driver stream.

use std::ffi::c_void;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use cudarc::driver::sys;

use super::{Context, check, check_kernel};
use crate::error::RuntimeError;
use crate::launch::{KernelRef, LaunchConfig};

/// Dynamic shared memory a kernel gets without opting in (48 KiB).
const DEFAULT_DYNAMIC_SHARED: u32 = 48 << 10;

/// A driver stream of one context.
pub(crate) struct CudaStream {
    id: u64,
    raw: sys::CUstream,
    context: Arc<Context>,
    /// Set once the stream's work has finished and it is destroyed.
    ended: Arc<AtomicBool>,
}

// SAFETY: a stream handle is an opaque driver handle that any thread may
// enqueue work on (the driver API is thread-safe); it is destroyed once, in
// `Drop`, when no handle to this value is left.
unsafe impl Send for CudaStream {}
// SAFETY: as for `Send`: shared use only passes the handle to the driver.
unsafe impl Sync for CudaStream {}

impl fmt::Debug for CudaStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CudaStream")
            .field("id", &self.id)
            .field("device", &self.context.ordinal())
            .finish()
    }
}

impl CudaStream {
    /// A new non-blocking stream (not ordered with the legacy default stream).
    pub fn new(context: Arc<Context>, id: u64) -> Result<Self, RuntimeError> {
        context.bind()?;
        let mut raw: sys::CUstream = std::ptr::null_mut();
        // SAFETY: the context is bound; the pointer is to a live local.
        check("cuStreamCreate", unsafe {
            sys::cuStreamCreate(&mut raw, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32)
        })?;
        Ok(CudaStream {
            id,
            raw,
            context,
            ended: Arc::default(),
        })
    }

    /// The flag set once this stream has ended (its work done).
    pub fn ended(&self) -> Arc<AtomicBool> {
        self.ended.clone()
    }

    pub fn id(&self) -> u64 {
        self.id
    }

    pub fn context(&self) -> &Arc<Context> {
        &self.context
    }

    /// The raw handle, for calls in this backend.
    pub(crate) fn raw(&self) -> sys::CUstream {
        self.raw
    }

    pub fn synchronize(&self) -> Result<(), RuntimeError> {
        self.context.bind()?;
        // SAFETY: `raw` is a live stream of the bound context.
        check("cuStreamSynchronize", unsafe {
            sys::cuStreamSynchronize(self.raw)
        })
    }

    /// Whether the stream's work has all run; an error the stream holds
    /// counts as idle (the next synchronisation reports it).
    pub fn is_idle(&self) -> bool {
        if self.context.bind().is_err() {
            return true;
        }
        // SAFETY: `raw` is a live stream of the bound context.
        let result = unsafe { sys::cuStreamQuery(self.raw) };
        result != sys::CUresult::CUDA_ERROR_NOT_READY
    }

    /// Fills `bytes` bytes at `address` with `value`, in stream order.
    ///
    /// # Safety
    /// The range must be device memory of this context that stays allocated
    /// until the work enqueued here so far has run.
    pub unsafe fn fill(&self, address: u64, bytes: usize, value: u8) -> Result<(), RuntimeError> {
        self.context.bind()?;
        // SAFETY: the caller guarantees the range; the context is bound.
        check("cuMemsetD8Async", unsafe {
            sys::cuMemsetD8Async(address, value, bytes, self.raw)
        })
    }

    /// Copies `bytes` bytes from host memory at `src` to device memory at
    /// `dst`, in stream order (asynchronously when `src` is page-locked).
    ///
    /// # Safety
    /// `dst..dst + bytes` must be device memory of this context, and
    /// `src..src + bytes` host memory, both staying allocated and unwritten
    /// until the copy has run.
    pub unsafe fn copy_to_device(
        &self,
        dst: u64,
        src: usize,
        bytes: usize,
    ) -> Result<(), RuntimeError> {
        self.context.bind()?;
        // SAFETY: the caller guarantees both ranges.
        check("cuMemcpyHtoDAsync_v2", unsafe {
            sys::cuMemcpyHtoDAsync_v2(dst, src as *const c_void, bytes, self.raw)
        })
    }

    /// Copies `bytes` bytes from `from` to `to` on the device, in stream order.
    ///
    /// # Safety
    /// Both ranges must be device memory (of any context of this process,
    /// unified addressing) that stays allocated until the copy has run, and
    /// must not overlap.
    pub unsafe fn copy(&self, from: u64, to: u64, bytes: usize) -> Result<(), RuntimeError> {
        self.context.bind()?;
        // SAFETY: the caller guarantees both ranges.
        check("cuMemcpyDtoDAsync_v2", unsafe {
            sys::cuMemcpyDtoDAsync_v2(to, from, bytes, self.raw)
        })
    }

    /// Copies `bytes` bytes from device memory at `src` to host memory at
    /// `dst`, in stream order (asynchronously when `dst` is page-locked).
    ///
    /// # Safety
    /// `src..src + bytes` must be device memory, and `dst..dst + bytes` host
    /// memory nothing else reads or writes, both staying allocated until the
    /// copy has run.
    pub unsafe fn copy_to_host(
        &self,
        dst: usize,
        src: u64,
        bytes: usize,
    ) -> Result<(), RuntimeError> {
        self.context.bind()?;
        // SAFETY: the caller guarantees both ranges.
        check("cuMemcpyDtoHAsync_v2", unsafe {
            sys::cuMemcpyDtoHAsync_v2(dst as *mut c_void, src, bytes, self.raw)
        })
    }

    /// Launches `kernel` with `slots` as its parameters (each parameter at
    /// the start of its 8-byte slot, as `cuLaunchKernel` reads them).
    ///
    /// # Safety
    /// The slots must match the kernel's parameters in number and types, and
    /// every address in them must be device memory that stays allocated
    /// until the launch has run.
    pub unsafe fn launch(
        &self,
        kernel: &KernelRef,
        config: LaunchConfig,
        slots: &mut [[u8; 8]],
    ) -> Result<(), RuntimeError> {
        let function = self.context.function(kernel)?;
        self.context.bind()?;
        if config.shared_bytes > DEFAULT_DYNAMIC_SHARED {
            // SAFETY: `function` is a live function of the bound context.
            check_kernel(kernel.name, "cuFuncSetAttribute", unsafe {
                sys::cuFuncSetAttribute(
                    function,
                    sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    config.shared_bytes as i32,
                )
            })?;
        }
        let mut params: Vec<*mut c_void> = slots
            .iter_mut()
            .map(|slot| slot.as_mut_ptr().cast::<c_void>())
            .collect();
        // SAFETY: `function` belongs to the bound context; `params` holds one
        // pointer per parameter, each to a live slot that the driver copies
        // before returning; the caller guarantees they match the kernel and
        // that the memory they name outlives the launch.
        check_kernel(kernel.name, "cuLaunchKernel", unsafe {
            sys::cuLaunchKernel(
                function,
                config.grid.0,
                config.grid.1,
                config.grid.2,
                config.block.0,
                config.block.1,
                config.block.2,
                config.shared_bytes,
                self.raw,
                params.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        })
    }
}

impl Drop for CudaStream {
    fn drop(&mut self) {
        // Memory resources hand out blocks freed on a stream that has ended
        // without waiting for it, so its work must be done when it ends.
        if let Err(e) = self.synchronize() {
            tracing::error!("stream {} ended with an error: {e}", self.id);
        }
        // SAFETY: `raw` is a live stream of this context, destroyed once,
        // here, with no handle left to enqueue on it.
        let result = unsafe { sys::cuStreamDestroy_v2(self.raw) };
        if let Err(e) = check("cuStreamDestroy_v2", result) {
            tracing::error!("{e}");
        }
        self.ended.store(true, Ordering::Release);
    }
}

/// A driver event, created in the context of the stream it is first
/// recorded on (again when recorded on a stream of another context).
#[derive(Default)]
pub(crate) struct CudaEvent {
    raw: Mutex<Option<(sys::CUevent, Arc<Context>)>>,
}

// SAFETY: an event handle is an opaque driver handle any thread may use;
// it is behind a mutex here and destroyed once, in `Drop`.
unsafe impl Send for CudaEvent {}
// SAFETY: as for `Send`.
unsafe impl Sync for CudaEvent {}

impl fmt::Debug for CudaEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CudaEvent").finish_non_exhaustive()
    }
}

fn poisoned() -> RuntimeError {
    RuntimeError::Internal("an event is poisoned".into())
}

impl CudaEvent {
    /// Records the event at the current end of `stream`.
    pub fn record(&self, stream: &CudaStream) -> Result<(), RuntimeError> {
        let mut raw = self.raw.lock().map_err(|_| poisoned())?;
        if raw
            .as_ref()
            .is_some_and(|(_, context)| !context.same(stream.context()))
            && let Some((old, context)) = raw.take()
        {
            destroy(old, &context);
        }
        let event = match raw.as_ref() {
            Some((event, _)) => *event,
            None => {
                stream.context().bind()?;
                let mut event: sys::CUevent = std::ptr::null_mut();
                // SAFETY: the context is bound; the pointer is to a live local.
                check("cuEventCreate", unsafe {
                    sys::cuEventCreate(
                        &mut event,
                        sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32,
                    )
                })?;
                *raw = Some((event, stream.context().clone()));
                event
            }
        };
        stream.context().bind()?;
        // SAFETY: `event` and the stream are live and of the bound context.
        check("cuEventRecord", unsafe {
            sys::cuEventRecord(event, stream.raw())
        })
    }

    /// Makes later work on `stream` wait for the latest record (nothing to
    /// wait for when the event was never recorded).
    pub fn wait_on(&self, stream: &CudaStream) -> Result<(), RuntimeError> {
        let raw = self.raw.lock().map_err(|_| poisoned())?;
        let Some((event, _)) = raw.as_ref() else {
            return Ok(());
        };
        stream.context().bind()?;
        // SAFETY: both handles are live; the driver allows an event of
        // another context or device.
        check("cuStreamWaitEvent", unsafe {
            sys::cuStreamWaitEvent(stream.raw(), *event, 0)
        })
    }

    /// Blocks the host until the latest record has run.
    pub fn synchronize(&self) -> Result<(), RuntimeError> {
        let raw = self.raw.lock().map_err(|_| poisoned())?;
        let Some((event, context)) = raw.as_ref() else {
            return Ok(());
        };
        context.bind()?;
        // SAFETY: `event` is live and of the bound context.
        check("cuEventSynchronize", unsafe {
            sys::cuEventSynchronize(*event)
        })
    }

    /// Whether the latest record has run (never blocks).
    pub fn is_complete(&self) -> bool {
        let Ok(raw) = self.raw.lock() else {
            return false;
        };
        let Some((event, context)) = raw.as_ref() else {
            return true;
        };
        if context.bind().is_err() {
            return false;
        }
        // SAFETY: `event` is live and of the bound context.
        let result = unsafe { sys::cuEventQuery(*event) };
        result == sys::CUresult::CUDA_SUCCESS
    }
}

fn destroy(event: sys::CUevent, context: &Context) {
    if context.bind().is_err() {
        return;
    }
    // SAFETY: `event` is live, of the bound context, and destroyed once:
    // its owner forgets it.
    let result = unsafe { sys::cuEventDestroy_v2(event) };
    if let Err(e) = check("cuEventDestroy_v2", result) {
        tracing::error!("{e}");
    }
}

impl Drop for CudaEvent {
    fn drop(&mut self) {
        if let Ok(raw) = self.raw.get_mut()
            && let Some((event, context)) = raw.take()
        {
            destroy(event, &context);
        }
    }
}
