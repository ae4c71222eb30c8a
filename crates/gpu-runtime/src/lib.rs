//! The GPU runtime: devices, streams, events, memory and kernel launches, on CUDA (driver loaded at run time) or on the emulated device.
//!
//! Nothing here touches the driver until it is asked to: linking this crate
//! costs nothing, and a machine without the NVIDIA driver gets a typed
//! [`RuntimeError::Unavailable`] instead of a panic or a failed start.
//!
//! The emulated device ([`EmulatedDevice`]) offers the same streams, events
//! and memory resources over host memory, so everything above the driver is
//! tested without a GPU; it is used only when asked for.
//!
//! [`CudaDevice`] runs the same API on a GPU: one primary context per
//! device, opened once; non-blocking streams; events; plain and
//! stream-ordered driver allocations ([`DriverPoolResource`]); PTX modules
//! loaded lazily per context; launches through `cuLaunchKernel`. [`Device`]
//! names either kind.
//!
//! cudarc's raw layers (`cudarc::driver::sys`, `cudarc::driver::result`) are
//! used only in `driver/cuda.rs` (the probe) and `cuda/` (the backend);
//! everything else sees safe types.

mod counts;
mod cuda;
mod device;
mod driver;
mod emulated;
mod error;
pub mod expr;
pub mod faults;
mod health;
mod launch;
pub mod memory;
pub mod ops;
mod staging;
mod stream;

pub use counts::WorkCounts;
pub use cuda::{CudaDevice, DriverPoolResource};
pub use device::{Device, TEST_DEVICE_VAR, TestDevice};
pub use driver::{
    DeviceSummary, DriverInfo, DriverVersion, MIN_DRIVER_VERSION, driver, probe_driver,
};
pub use emulated::{DEVICE_ALIGNMENT, EmulatedDevice};
pub use error::{RuntimeError, Unavailable};
pub use launch::{Cubin, HostEntry, KernelArg, KernelArgs, KernelRef, LaunchConfig};
pub use stream::{Event, Stream};
