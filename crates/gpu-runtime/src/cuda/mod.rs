//! The CUDA backend: one primary context per device, and its kernels, loaded lazily from our PTX.
//!
//! Every function here binds the device's context to the calling thread
//! before it calls the driver (the driver API is thread-safe; the current
//! context is per thread). Raw driver handles never leave this module and
//! its children: above them, streams, events and buffers look the same on a
//! GPU and on the emulated device.

pub(crate) mod memory;
pub(crate) mod stream;

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::ffi::{CString, c_int};
use std::fmt;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::sys;

use crate::driver::{DeviceSummary, error_name};
use crate::error::RuntimeError;
use crate::health::Health;
use crate::launch::KernelRef;
use crate::staging::StagingPool;
use crate::stream::Stream;

pub use memory::DriverPoolResource;

/// `CUDA_ERROR_OUT_OF_MEMORY`.
pub(crate) const ERROR_OUT_OF_MEMORY: u32 = 2;
/// `CUDA_ERROR_NOT_FOUND`: what `cuModuleGetFunction` returns for an unknown name.
const ERROR_NOT_FOUND: u32 = 500;

/// `Ok` for `CUDA_SUCCESS`, else the failed call as a [`RuntimeError::Driver`].
pub(crate) fn check(call: &'static str, result: sys::CUresult) -> Result<(), RuntimeError> {
    if result == sys::CUresult::CUDA_SUCCESS {
        return Ok(());
    }
    Err(RuntimeError::Driver {
        call,
        name: error_name(result),
        code: result as u32,
    })
}

/// As [`check`], for a call made on behalf of a kernel.
fn check_kernel(
    kernel: &'static str,
    call: &'static str,
    result: sys::CUresult,
) -> Result<(), RuntimeError> {
    check(call, result).map_err(|e| match e {
        RuntimeError::Driver { call, name, code } => RuntimeError::Kernel {
            kernel,
            call,
            name,
            code,
        },
        other => other,
    })
}

/// A device's primary context and the modules loaded into it.
pub(crate) struct Context {
    ordinal: usize,
    /// The device's compute capability: which of a module's cubins it runs.
    compute_capability: (u32, u32),
    device: sys::CUdevice,
    /// The context's handle (the driver's may change when it is rebuilt).
    raw: AtomicPtr<sys::CUctx_st>,
    kernels: Mutex<Kernels>,
}

/// Modules by the address of their PTX; kernels by that address and name.
#[derive(Default)]
struct Kernels {
    modules: HashMap<usize, sys::CUmodule>,
    functions: HashMap<(usize, &'static str), sys::CUfunction>,
}

// SAFETY: the context, module and function handles are opaque driver handles
// that the driver lets any thread use (its API is thread-safe); they are
// never dereferenced here, and the maps holding them are behind a mutex.
unsafe impl Send for Context {}
// SAFETY: as for `Send`: shared use only passes the handles to the driver.
unsafe impl Sync for Context {}

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context")
            .field("ordinal", &self.ordinal)
            .finish_non_exhaustive()
    }
}

impl Context {
    /// Retains device `ordinal`'s primary context (the one the CUDA runtime,
    /// and so PyTorch or CuPy in the same process, also uses). It is never
    /// released: it lives as long as the process.
    fn retain(ordinal: usize, compute_capability: (u32, u32)) -> Result<Self, RuntimeError> {
        let index = c_int::try_from(ordinal)
            .map_err(|_| RuntimeError::InvalidArgument(format!("device ordinal {ordinal}")))?;
        let mut device: sys::CUdevice = 0;
        // SAFETY: the driver was probed and initialised (see `CudaDevice::open`);
        // the pointer is to a live local.
        check("cuDeviceGet", unsafe {
            sys::cuDeviceGet(&mut device, index)
        })?;
        let mut raw: sys::CUcontext = std::ptr::null_mut();
        // SAFETY: `device` came from `cuDeviceGet`; the pointer is to a live local.
        check("cuDevicePrimaryCtxRetain", unsafe {
            sys::cuDevicePrimaryCtxRetain(&mut raw, device)
        })?;
        Ok(Context {
            ordinal,
            compute_capability,
            device,
            raw: AtomicPtr::new(raw),
            kernels: Mutex::new(Kernels::default()),
        })
    }

    /// Rebuilds the context after a sticky error: destroys everything made
    /// in it (memory, pinned memory, streams, events, modules) and
    /// initialises it again, under the same retain.
    ///
    /// # Safety
    /// Nothing made in the context may be used again: no stream, event,
    /// buffer, pinned block or module handle of it lives, in this crate or
    /// elsewhere in the process (the CUDA runtime shares the primary
    /// context).
    unsafe fn reset(&self) -> Result<(), RuntimeError> {
        let mut kernels = self
            .kernels
            .lock()
            .map_err(|_| RuntimeError::Internal("a context's module table is poisoned".into()))?;
        // SAFETY: the caller guarantees nothing of the context lives; the
        // device handle came from `cuDeviceGet`. Our retain stays counted.
        check("cuDevicePrimaryCtxReset_v2", unsafe {
            sys::cuDevicePrimaryCtxReset_v2(self.device)
        })?;
        *kernels = Kernels::default();
        let mut raw: sys::CUcontext = std::ptr::null_mut();
        // SAFETY: initialises the primary context again; the pointer is to a
        // live local.
        check("cuDevicePrimaryCtxRetain", unsafe {
            sys::cuDevicePrimaryCtxRetain(&mut raw, self.device)
        })?;
        // SAFETY: gives back the retain just taken: the first one stays.
        check("cuDevicePrimaryCtxRelease_v2", unsafe {
            sys::cuDevicePrimaryCtxRelease_v2(self.device)
        })?;
        self.raw.store(raw, Ordering::Release);
        // SAFETY: `raw` is the primary context just retained (the first
        // retain keeps it alive).
        check("cuCtxSetCurrent", unsafe { sys::cuCtxSetCurrent(raw) })
    }

    /// Makes this context the calling thread's current one.
    pub(crate) fn bind(&self) -> Result<(), RuntimeError> {
        let mut current: sys::CUcontext = std::ptr::null_mut();
        // SAFETY: writes the calling thread's current context into a live local.
        check("cuCtxGetCurrent", unsafe {
            sys::cuCtxGetCurrent(&mut current)
        })?;
        let raw = self.raw.load(Ordering::Acquire);
        if current != raw {
            // SAFETY: `raw` is a retained primary context, never released.
            check("cuCtxSetCurrent", unsafe { sys::cuCtxSetCurrent(raw) })?;
        }
        Ok(())
    }

    /// Whether two handles name the same context.
    pub(crate) fn same(&self, other: &Context) -> bool {
        self.raw.load(Ordering::Acquire) == other.raw.load(Ordering::Acquire)
    }

    /// The device's ordinal.
    pub(crate) fn ordinal(&self) -> usize {
        self.ordinal
    }

    /// The driver's handle of the device.
    pub(crate) fn device(&self) -> sys::CUdevice {
        self.device
    }

    /// `kernel`'s function handle, loading its module into this context on
    /// first use (once per module and context) and caching both.
    pub(crate) fn function(&self, kernel: &KernelRef) -> Result<sys::CUfunction, RuntimeError> {
        let module_key = kernel.ptx.as_ptr() as usize;
        let mut kernels = self
            .kernels
            .lock()
            .map_err(|_| RuntimeError::Internal("a context's module table is poisoned".into()))?;
        if let Some(function) = kernels.functions.get(&(module_key, kernel.name)) {
            return Ok(*function);
        }
        self.bind()?;
        let module = match kernels.modules.entry(module_key) {
            Entry::Occupied(module) => *module.get(),
            Entry::Vacant(slot) => {
                crate::faults::at(crate::faults::Seam::ModuleLoad, 0)?;
                *slot.insert(self.load_module(kernel)?)
            }
        };
        let name = CString::new(kernel.name).map_err(|_| {
            RuntimeError::InvalidArgument(format!("kernel name {:?} holds a NUL byte", kernel.name))
        })?;
        let mut function: sys::CUfunction = std::ptr::null_mut();
        // SAFETY: `module` is loaded in this (bound) context; `name` is a
        // NUL-terminated string that outlives the call.
        let result = unsafe { sys::cuModuleGetFunction(&mut function, module, name.as_ptr()) };
        if result as u32 == ERROR_NOT_FOUND {
            return Err(RuntimeError::InvalidArgument(format!(
                "no kernel named {} in its module",
                kernel.name
            )));
        }
        check_kernel(kernel.name, "cuModuleGetFunction", result)?;
        kernels
            .functions
            .insert((module_key, kernel.name), function);
        Ok(function)
    }

    /// Loads `kernel`'s module into this (bound) context: the cubin for the
    /// device's architecture when there is one and the driver takes it, else
    /// the PTX, which the driver compiles (and caches on disk).
    fn load_module(&self, kernel: &KernelRef) -> Result<sys::CUmodule, RuntimeError> {
        let started = std::time::Instant::now();
        let mut module: sys::CUmodule = std::ptr::null_mut();
        if let Some(cubin) = kernels::cubin_for(kernel.cubins, self.compute_capability) {
            // The embedded bytes are only byte-aligned: hand the driver an
            // 8-byte aligned copy of the ELF image.
            let mut aligned = vec![0u64; cubin.image.len().div_ceil(8)];
            for (word, bytes) in aligned.iter_mut().zip(cubin.image.chunks(8)) {
                let mut le = [0u8; 8];
                le[..bytes.len()].copy_from_slice(bytes);
                *word = u64::from_le_bytes(le);
            }
            // SAFETY: `aligned` holds the whole ELF image (little-endian words
            // give back its bytes in order on the x86-64 and Arm hosts CUDA
            // runs on) and outlives the call; the driver copies it. The
            // context is bound.
            let result = unsafe { sys::cuModuleLoadData(&mut module, aligned.as_ptr().cast()) };
            if result == sys::CUresult::CUDA_SUCCESS {
                tracing::debug!(device = self.ordinal, kernel = kernel.name, elapsed = ?started.elapsed(), "loaded a cubin");
                return Ok(module);
            }
            tracing::warn!(
                device = self.ordinal,
                "the sm_{}{} cubin of kernel {}'s module did not load ({}); compiling its PTX",
                cubin.arch.0,
                cubin.arch.1,
                kernel.name,
                error_name(result)
            );
        }
        let image = CString::new(kernel.ptx).map_err(|_| {
            RuntimeError::InvalidArgument(format!(
                "the PTX of kernel {} holds a NUL byte",
                kernel.name
            ))
        })?;
        // SAFETY: `image` is a NUL-terminated PTX text that outlives the call;
        // the driver copies (JIT-compiles) it. The context is bound.
        check_kernel(kernel.name, "cuModuleLoadData", unsafe {
            sys::cuModuleLoadData(&mut module, image.as_ptr().cast())
        })?;
        tracing::debug!(device = self.ordinal, kernel = kernel.name, elapsed = ?started.elapsed(), "compiled a module's PTX");
        Ok(module)
    }

    /// Free and total device memory, in bytes.
    fn memory_info(&self) -> Result<(u64, u64), RuntimeError> {
        self.bind()?;
        let (mut free, mut total) = (0usize, 0usize);
        // SAFETY: the context is bound; the pointers are to live locals.
        check("cuMemGetInfo_v2", unsafe {
            sys::cuMemGetInfo_v2(&mut free, &mut total)
        })?;
        Ok((free as u64, total as u64))
    }
}

/// A CUDA device: its primary context, opened once per process and ordinal,
/// and its page-locked staging blocks for copies.
#[derive(Debug)]
pub struct CudaDevice {
    context: Arc<Context>,
    summary: DeviceSummary,
    staging: Arc<StagingPool>,
    /// The context's sticky error, shared with its streams.
    health: Arc<Health>,
}

impl CudaDevice {
    /// Device `ordinal` (as numbered after `CUDA_VISIBLE_DEVICES`). The first
    /// call probes the driver (see [`crate::driver`]); the first call per
    /// ordinal retains its context. Later calls return the same device.
    /// Thread-safe: concurrent first callers get one context.
    pub fn open(ordinal: usize) -> Result<Arc<CudaDevice>, RuntimeError> {
        static DEVICES: OnceLock<Mutex<HashMap<usize, Arc<CudaDevice>>>> = OnceLock::new();
        let driver = crate::driver::driver()?;
        let summary = driver.device(ordinal)?.clone();
        let mut devices = DEVICES
            .get_or_init(Default::default)
            .lock()
            .map_err(|_| RuntimeError::Internal("the CUDA device table is poisoned".into()))?;
        match devices.entry(ordinal) {
            Entry::Occupied(device) => Ok(device.get().clone()),
            Entry::Vacant(slot) => {
                let started = std::time::Instant::now();
                let context = Arc::new(Context::retain(ordinal, summary.compute_capability)?);
                tracing::debug!(ordinal, elapsed = ?started.elapsed(), "retained a CUDA context");
                let staging = Arc::new(StagingPool::new(Box::new(memory::PinnedHost {
                    context: context.clone(),
                })));
                Ok(slot
                    .insert(Arc::new(CudaDevice {
                        context,
                        summary,
                        staging,
                        health: Arc::default(),
                    }))
                    .clone())
            }
        }
    }

    /// The device's ordinal.
    pub fn ordinal(&self) -> usize {
        self.context.ordinal
    }

    /// What the driver tells about the device.
    pub fn summary(&self) -> &DeviceSummary {
        &self.summary
    }

    /// Total device memory in bytes.
    pub fn total_memory(&self) -> u64 {
        self.summary.total_memory
    }

    /// Device memory the driver can still hand out, in bytes.
    pub fn free_memory(&self) -> Result<u64, RuntimeError> {
        self.context.memory_info().map(|(free, _)| free)
    }

    /// A new stream on this device (it does not synchronise with the
    /// legacy default stream).
    pub fn create_stream(&self) -> Result<Stream, RuntimeError> {
        Stream::new_cuda(
            self.context.clone(),
            self.staging.clone(),
            self.health.clone(),
        )
    }

    /// The sticky error that left the context unusable, if any.
    pub(crate) fn health(&self) -> &Health {
        &self.health
    }

    /// Rebuilds the context after a sticky error (see
    /// [`crate::Device::reset`]); `handles`: the handles to this device the
    /// caller knows of (the process's table's and its own).
    pub(crate) fn reset(self: &Arc<Self>, handles: usize) -> Result<(), RuntimeError> {
        let in_use = || {
            RuntimeError::InvalidArgument(format!(
                "CUDA device {} cannot be reset while streams, buffers or memory resources made \
                 on it live",
                self.ordinal()
            ))
        };
        // Every stream holds the health (and every buffer a stream), every
        // memory resource the device: anything more than this device's and
        // the caller's handles is alive.
        if Arc::strong_count(self) > handles || Arc::strong_count(&self.health) > 1 {
            return Err(in_use());
        }
        // No copy runs, so every pinned block is idle; they die with the
        // context: forget them unfreed (and the events they hold).
        self.staging.forget();
        // The context is held by this device and its staging pool; anything
        // more is an event still alive.
        if Arc::strong_count(&self.context) > 2 {
            return Err(in_use());
        }
        // SAFETY: nothing made in the context lives (checked above: every
        // stream, event and buffer holds the context, every memory resource
        // the device); modules are forgotten by `reset`.
        unsafe { self.context.reset() }?;
        self.health.clear();
        Ok(())
    }

    pub(crate) fn context(&self) -> &Arc<Context> {
        &self.context
    }
}
