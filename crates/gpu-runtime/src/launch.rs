//! Kernel launches: grid and block sizes, argument packing as `cuLaunchKernel` wants it, on CUDA or on the emulated device.

use std::ffi::{c_char, c_void};

use crate::error::RuntimeError;
use crate::memory::{DeviceBuffer, DeviceCopy, DevicePtr};
use crate::stream::Stream;

pub use kernels::{Cubin, HostEntry};

/// A kernel to launch: its name, its module's PTX and cubins (a CUDA device
/// loads the cubin of its architecture when there is one, else the PTX), and
/// its host build's entry point (required on the emulated device).
#[derive(Debug, Clone, Copy)]
pub struct KernelRef {
    pub name: &'static str,
    pub ptx: &'static str,
    pub cubins: &'static [Cubin],
    pub host: Option<HostEntry>,
}

/// Grid and block sizes of a launch, and its dynamic shared memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchConfig {
    pub grid: (u32, u32, u32),
    pub block: (u32, u32, u32),
    pub shared_bytes: u32,
}

impl LaunchConfig {
    /// A one-dimensional launch of `block` threads per block covering `n`
    /// items, with at most `max_blocks` blocks (kernels loop over the rest
    /// with a grid stride), and at least one block.
    pub fn linear(n: u64, block: u32, max_blocks: u32) -> Self {
        let blocks = n
            .div_ceil(u64::from(block.max(1)))
            .clamp(1, u64::from(max_blocks.max(1)));
        LaunchConfig {
            grid: (blocks as u32, 1, 1),
            block: (block, 1, 1),
            shared_bytes: 0,
        }
    }
}

/// The layout of the emulator's launch configuration (`emu::LaunchConfig`).
#[repr(C)]
struct HostLaunchConfig {
    grid: [u32; 3],
    block: [u32; 3],
    shared_bytes: u32,
    host_threads: u32,
}

/// A value that can be a kernel parameter.
pub trait KernelArg: Copy + Send + 'static {
    /// The parameter's bytes, at the start of an 8-byte slot.
    fn slot(self) -> [u8; 8];
}

impl<T: DeviceCopy> KernelArg for T {
    fn slot(self) -> [u8; 8] {
        let mut slot = [0u8; 8];
        let size = size_of::<T>().min(8);
        // SAFETY: `T` is a plain number of at most 8 bytes (DeviceCopy), read
        // as bytes from a live local into a live local.
        unsafe {
            std::ptr::copy_nonoverlapping((&self as *const T).cast::<u8>(), slot.as_mut_ptr(), size)
        };
        slot
    }
}

impl KernelArg for DevicePtr {
    fn slot(self) -> [u8; 8] {
        self.0.to_ne_bytes()
    }
}

/// The parameters of a launch, copied when the launch is enqueued (as
/// `cuLaunchKernel` copies them), each in an 8-byte slot.
#[derive(Debug, Default, Clone)]
pub struct KernelArgs {
    slots: Vec<[u8; 8]>,
}

impl KernelArgs {
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a parameter.
    pub fn arg(mut self, value: impl KernelArg) -> Self {
        self.slots.push(value.slot());
        self
    }

    /// Appends a device buffer's address.
    pub fn buffer<T: DeviceCopy>(self, buffer: &DeviceBuffer<T>) -> Self {
        self.arg(buffer.device_ptr())
    }
}

impl Stream {
    /// Launches `kernel` on this stream.
    ///
    /// # Safety
    /// `args` must match the kernel's parameters in number and types, and
    /// every address in them must be device memory that stays allocated, and
    /// is not used by other streams, until the launch completes.
    pub unsafe fn launch(
        &self,
        kernel: &KernelRef,
        config: LaunchConfig,
        args: KernelArgs,
    ) -> Result<(), RuntimeError> {
        self.seam(crate::faults::Seam::Launch, 0)?;
        self.sticky_seam()?;
        // SAFETY: forwarded from the caller.
        unsafe { self.launch_unseamed(kernel, config, args) }
    }

    /// The sticky fault's seam, before a launch: where its fail point
    /// fires, a kernel faults for real on a GPU (the driver fails a later
    /// wait of the stream and keeps the error); on the emulated device the
    /// context keeps the injected error, and the launch fails with it.
    fn sticky_seam(&self) -> Result<(), RuntimeError> {
        let Err(injected) = crate::faults::at(crate::faults::Seam::Sticky, 0) else {
            return Ok(());
        };
        if self.is_emulated() {
            return self.watch(Err(injected));
        }
        crate::ops::faults::fault_on_purpose(self)
    }

    /// [`Stream::launch`] without the fault seams (the faulting kernel's),
    /// nor the check of the context's health that the seams make.
    ///
    /// # Safety
    /// As for [`Stream::launch`].
    pub(crate) unsafe fn launch_unseamed(
        &self,
        kernel: &KernelRef,
        config: LaunchConfig,
        args: KernelArgs,
    ) -> Result<(), RuntimeError> {
        let mut slots = args.slots;
        crate::counts::launched();
        if let Some(cuda) = self.cuda() {
            // SAFETY: forwarded from the caller.
            return self.watch(unsafe { cuda.launch(kernel, config, &mut slots) });
        }
        // The emulated device's module load: a stream's first launch of
        // the module's kernels.
        let stream = self.emulated_stream()?;
        if cfg!(feature = "faults") && stream.loads(kernel.ptx.as_ptr() as usize) {
            crate::faults::at(crate::faults::Seam::ModuleLoad, 0)?;
        }
        let entry = kernel.host.ok_or_else(|| {
            RuntimeError::InvalidArgument(format!(
                "kernel {} has no host build for the emulated device (enable the kernels \
                 crate's `host` feature)",
                kernel.name
            ))
        })?;
        let host_config = HostLaunchConfig {
            grid: [config.grid.0, config.grid.1, config.grid.2],
            block: [config.block.0, config.block.1, config.block.2],
            shared_bytes: config.shared_bytes,
            host_threads: self.host_threads(),
        };
        let name = kernel.name;
        self.enqueue(move || {
            let mut params: Vec<*mut c_void> = slots
                .iter_mut()
                .map(|slot| slot.as_mut_ptr().cast::<c_void>())
                .collect();
            let mut error = [0 as c_char; 512];
            // SAFETY: the config has the emulator's layout, `params` points to
            // one live slot per parameter (the caller guarantees they match the
            // kernel), and `error` is a live buffer of the given length.
            let status = unsafe {
                entry(
                    (&host_config as *const HostLaunchConfig).cast::<c_void>(),
                    params.as_mut_ptr(),
                    error.as_mut_ptr(),
                    error.len(),
                )
            };
            if status != 0 {
                // SAFETY: the entry point writes a NUL-terminated message
                // within the buffer (snprintf), and the buffer starts zeroed.
                let message = unsafe { std::ffi::CStr::from_ptr(error.as_ptr()) };
                // The stream's worker turns this into the stream's error.
                panic!("kernel {name} failed: {}", message.to_string_lossy());
            }
        })
    }
}
