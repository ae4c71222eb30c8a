//! Errors of the GPU runtime, by category: what falls back and what is a bug.

use crate::driver::DriverVersion;

/// An error of the GPU runtime.
///
/// The categories mean different things to the caller: [`Unavailable`]
/// means "no usable GPU here" (the façade may fall back to the CPU),
/// [`RuntimeError::OutOfMemory`] too (the query may fit the CPU),
/// [`RuntimeError::InvalidArgument`] is a caller's mistake, a
/// [`RuntimeError::Driver`] or [`RuntimeError::Kernel`] error is a failed
/// driver call, and
/// [`RuntimeError::Internal`] is a bug in this crate that must never be hidden
/// by a fallback.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuntimeError {
    /// No usable CUDA driver or device.
    #[error(transparent)]
    Unavailable(#[from] Unavailable),
    /// The device (or a memory resource's limit) cannot satisfy an allocation.
    #[error("out of device memory: {requested} bytes requested, {available} bytes available")]
    OutOfMemory {
        /// Bytes asked for.
        requested: u64,
        /// Bytes that could still be allocated when the request failed.
        available: u64,
    },
    /// An argument the runtime cannot use (an unknown device, a bad size).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// A driver call failed.
    #[error("CUDA driver call {call} failed: {name} (code {code})")]
    Driver {
        /// The driver function that failed, e.g. `cuDeviceGetName`.
        call: &'static str,
        /// The CUDA error name, e.g. `CUDA_ERROR_INVALID_DEVICE`.
        name: String,
        /// The numeric `CUresult`.
        code: u32,
    },
    /// A driver call made for a kernel (loading its module, looking it up,
    /// launching it) failed.
    #[error("CUDA driver call {call} for kernel {kernel} failed: {name} (code {code})")]
    Kernel {
        /// The kernel, e.g. `reduce_sum_i64`.
        kernel: &'static str,
        /// The driver function that failed, e.g. `cuLaunchKernel`.
        call: &'static str,
        /// The CUDA error name, e.g. `CUDA_ERROR_INVALID_VALUE`.
        name: String,
        /// The numeric `CUresult`.
        code: u32,
    },
    /// A bug in the runtime.
    #[error("internal error in gpu-runtime: {0}")]
    Internal(String),
}

/// The `CUresult` codes after which a context is unusable: every later call
/// in it fails the same way until it is rebuilt (CUDA's "sticky" errors: a
/// kernel that faulted, an uncorrectable ECC error, an assertion in a
/// kernel).
const STICKY_CODES: [u32; 9] = [
    214, // CUDA_ERROR_ECC_UNCORRECTABLE
    700, // CUDA_ERROR_ILLEGAL_ADDRESS
    710, // CUDA_ERROR_ASSERT
    714, // CUDA_ERROR_HARDWARE_STACK_ERROR
    715, // CUDA_ERROR_ILLEGAL_INSTRUCTION
    716, // CUDA_ERROR_MISALIGNED_ADDRESS
    717, // CUDA_ERROR_INVALID_ADDRESS_SPACE
    718, // CUDA_ERROR_INVALID_PC
    719, // CUDA_ERROR_LAUNCH_FAILED
];

impl RuntimeError {
    /// Whether the error leaves the device's context unusable (a sticky
    /// error): every later call on the device fails until the context is
    /// rebuilt ([`crate::Device::reset`]).
    pub fn is_sticky(&self) -> bool {
        match self {
            RuntimeError::Driver { code, .. } | RuntimeError::Kernel { code, .. } => {
                STICKY_CODES.contains(code)
            }
            _ => false,
        }
    }
}

/// Why no usable GPU is available. Each variant says what to do about it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unavailable {
    /// The CUDA driver library (`libcuda.so`) could not be loaded.
    #[error(
        "no CUDA driver library found (libcuda.so could not be loaded); install the NVIDIA \
         driver (R580 or newer) to run on a GPU"
    )]
    NoDriverLibrary,
    /// The driver library lacks a function the runtime needs.
    #[error(
        "the CUDA driver library has no {symbol}; it is too old or broken (driver R580 or newer \
         is needed)"
    )]
    MissingSymbol {
        /// The missing driver function.
        symbol: &'static str,
    },
    /// The driver is older than the CUDA version our PTX targets.
    #[error(
        "the CUDA driver is too old: it supports CUDA {found}, the GPU engine needs CUDA \
         {required} (driver R580 or newer)"
    )]
    DriverTooOld {
        /// The CUDA version the installed driver supports.
        found: DriverVersion,
        /// The CUDA version our kernels need.
        required: DriverVersion,
    },
    /// `cuInit` failed for a reason other than "no device".
    #[error("the CUDA driver failed to initialise: cuInit returned {name} (code {code})")]
    InitFailed {
        /// The CUDA error name.
        name: String,
        /// The numeric `CUresult`.
        code: u32,
    },
    /// The driver works but sees no device.
    #[error("the CUDA driver sees no GPU{}", visible_devices_note(.cuda_visible_devices))]
    NoDevices {
        /// The value of `CUDA_VISIBLE_DEVICES`, when set.
        cuda_visible_devices: Option<String>,
    },
    /// The requested device ordinal does not exist.
    #[error(
        "GPU device {ordinal} does not exist: the CUDA driver sees {count} device(s), numbered \
         0 to {last}; CUDA_VISIBLE_DEVICES renumbers the visible devices from 0{}",
        visible_devices_note(.cuda_visible_devices),
        last = .count.saturating_sub(1)
    )]
    OrdinalOutOfRange {
        /// The requested ordinal.
        ordinal: usize,
        /// How many devices the driver sees.
        count: usize,
        /// The value of `CUDA_VISIBLE_DEVICES`, when set.
        cuda_visible_devices: Option<String>,
    },
}

fn visible_devices_note(cuda_visible_devices: &Option<String>) -> String {
    match cuda_visible_devices {
        Some(value) => format!(" (CUDA_VISIBLE_DEVICES={value:?})"),
        None => String::new(),
    }
}
