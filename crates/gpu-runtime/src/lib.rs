//! The GPU runtime: the CUDA driver, loaded at run time, and the devices it sees.
//!
//! Nothing here touches the driver until it is asked to: linking this crate
//! costs nothing, and a machine without the NVIDIA driver gets a typed
//! [`RuntimeError::Unavailable`] instead of a panic or a failed start.
//!
//! The emulated device ([`EmulatedDevice`]) offers the same streams, events
//! and memory resources over host memory, so everything above the driver is
//! tested without a GPU; it is used only when asked for.
//!
//! The crate keeps cudarc's split: `cudarc::driver::sys` (raw FFI) and
//! `cudarc::driver::result` (thin `Result` wrappers) are used only in
//! `driver/cuda.rs`; everything else sees safe types.

mod driver;
mod emulated;
mod error;
pub mod expr;
mod launch;
pub mod memory;
pub mod ops;
mod stream;

pub use driver::{
    DeviceSummary, DriverInfo, DriverVersion, MIN_DRIVER_VERSION, driver, probe_driver,
};
pub use emulated::{DEVICE_ALIGNMENT, EmulatedDevice};
pub use error::{RuntimeError, Unavailable};
pub use launch::{HostEntry, KernelArg, KernelArgs, KernelRef, LaunchConfig};
pub use stream::{Event, Stream};
