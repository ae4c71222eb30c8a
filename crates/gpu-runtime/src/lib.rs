//! The GPU runtime: the CUDA driver, loaded at run time, and the devices it sees.
//!
//! Nothing here touches the driver until it is asked to: linking this crate
//! costs nothing, and a machine without the NVIDIA driver gets a typed
//! [`RuntimeError::Unavailable`] instead of a panic or a failed start.
//!
//! The crate keeps cudarc's split: `cudarc::driver::sys` (raw FFI) and
//! `cudarc::driver::result` (thin `Result` wrappers) are used only in
//! `driver/cuda.rs`; everything else sees safe types.

mod driver;
mod error;

pub use driver::{
    DeviceSummary, DriverInfo, DriverVersion, MIN_DRIVER_VERSION, driver, probe_driver,
};
pub use error::{RuntimeError, Unavailable};
