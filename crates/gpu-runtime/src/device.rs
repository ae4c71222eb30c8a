//! One handle for either kind of device: a CUDA GPU or the emulated device.

use std::sync::Arc;

use crate::cuda::CudaDevice;
use crate::emulated::EmulatedDevice;
use crate::error::RuntimeError;
use crate::memory::{DevicePtr, Upstream};
use crate::stream::Stream;

/// The environment variable that points the test suites at a device:
/// `emulated` (the default) or `cuda` (device 0) or `cuda:N`.
pub const TEST_DEVICE_VAR: &str = "GPU_TEST_DEVICE";

/// A device of either kind. Cloning gives another handle to the same device.
#[derive(Debug, Clone)]
pub enum Device {
    /// An NVIDIA GPU through the CUDA driver.
    Cuda(Arc<CudaDevice>),
    /// The emulated device (host memory and threads).
    Emulated(Arc<EmulatedDevice>),
}

impl Device {
    /// The device's ordinal.
    pub fn ordinal(&self) -> usize {
        match self {
            Device::Cuda(device) => device.ordinal(),
            Device::Emulated(device) => device.ordinal(),
        }
    }

    /// Whether this is the emulated device.
    pub fn is_emulated(&self) -> bool {
        matches!(self, Device::Emulated(_))
    }

    /// A new stream on the device.
    pub fn create_stream(&self) -> Result<Stream, RuntimeError> {
        match self {
            Device::Cuda(device) => device.create_stream(),
            Device::Emulated(device) => device.create_stream(),
        }
    }

    /// Total device memory in bytes.
    pub fn total_memory(&self) -> u64 {
        match self {
            Device::Cuda(device) => device.total_memory(),
            Device::Emulated(device) => device.total_memory(),
        }
    }

    /// Device memory that can still be allocated, in bytes.
    pub fn free_memory(&self) -> Result<u64, RuntimeError> {
        match self {
            Device::Cuda(device) => device.free_memory(),
            Device::Emulated(device) => Ok(device.free_memory()),
        }
    }

    /// A short description, e.g. "CUDA device 0 (NVIDIA H200, compute
    /// capability 9.0)" or "emulated device 0".
    pub fn describe(&self) -> String {
        match self {
            Device::Cuda(device) => {
                let summary = device.summary();
                format!(
                    "CUDA device {} ({}, compute capability {}.{})",
                    summary.ordinal,
                    summary.name,
                    summary.compute_capability.0,
                    summary.compute_capability.1
                )
            }
            Device::Emulated(device) => format!("emulated device {}", device.ordinal()),
        }
    }

    /// The device the test suites run on, from [`TEST_DEVICE_VAR`]: a fresh
    /// emulated device with `emulated_capacity` bytes (the default), or a
    /// CUDA device. The same tests thus run on the emulated device in CI and
    /// on a real GPU in the device check.
    pub fn under_test(emulated_capacity: u64) -> Result<Device, RuntimeError> {
        Ok(match TestDevice::from_env()? {
            TestDevice::Emulated => {
                Device::Emulated(Arc::new(EmulatedDevice::new(0, emulated_capacity)))
            }
            TestDevice::Cuda(ordinal) => Device::Cuda(CudaDevice::open(ordinal)?),
        })
    }
}

/// Which device the test suites run on, as [`TEST_DEVICE_VAR`] says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TestDevice {
    /// The emulated device (the default).
    Emulated,
    /// The CUDA device with this ordinal.
    Cuda(usize),
}

impl TestDevice {
    /// The device [`TEST_DEVICE_VAR`] names, or why its value is not one.
    pub fn from_env() -> Result<TestDevice, RuntimeError> {
        Self::parse(&std::env::var(TEST_DEVICE_VAR).unwrap_or_default())
    }

    fn parse(value: &str) -> Result<TestDevice, RuntimeError> {
        let invalid = || {
            RuntimeError::InvalidArgument(format!(
                "{TEST_DEVICE_VAR}={value:?}: expected `emulated`, `cuda` or `cuda:N`"
            ))
        };
        match value.trim() {
            "" | "emulated" => Ok(TestDevice::Emulated),
            "cuda" => Ok(TestDevice::Cuda(0)),
            other => other
                .strip_prefix("cuda:")
                .and_then(|n| n.parse().ok())
                .map(TestDevice::Cuda)
                .ok_or_else(invalid),
        }
    }
}

impl Upstream for Device {
    fn allocate_raw(&self, bytes: u64) -> Result<DevicePtr, RuntimeError> {
        match self {
            Device::Cuda(device) => device.allocate_raw(bytes),
            Device::Emulated(device) => Upstream::allocate_raw(device.as_ref(), bytes),
        }
    }

    unsafe fn free_raw(&self, ptr: DevicePtr, bytes: u64) {
        match self {
            // SAFETY: forwarded from the caller's guarantee.
            Device::Cuda(device) => unsafe { device.free_raw(ptr, bytes) },
            // SAFETY: forwarded from the caller's guarantee.
            Device::Emulated(device) => unsafe { Upstream::free_raw(device.as_ref(), ptr, bytes) },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_test_device_defaults_to_emulated_and_rejects_nonsense() {
        assert_eq!(TestDevice::parse(""), Ok(TestDevice::Emulated));
        assert_eq!(TestDevice::parse("emulated"), Ok(TestDevice::Emulated));
        assert_eq!(TestDevice::parse("cuda"), Ok(TestDevice::Cuda(0)));
        assert_eq!(TestDevice::parse("cuda:3"), Ok(TestDevice::Cuda(3)));
        let err = TestDevice::parse("gpu").unwrap_err();
        assert!(
            err.to_string()
                .contains("expected `emulated`, `cuda` or `cuda:N`"),
            "{err}"
        );
        let err = TestDevice::parse("cuda:x").unwrap_err();
        assert!(err.to_string().contains("cuda:x"), "{err}");
        let device = Device::Emulated(Arc::new(EmulatedDevice::new(0, 1 << 20)));
        assert!(device.is_emulated());
        assert_eq!(device.describe(), "emulated device 0");
        assert_eq!(device.total_memory(), 1 << 20);
    }
}
