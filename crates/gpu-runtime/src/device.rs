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

    /// The sticky error that left the device's context unusable (every
    /// later call on it fails so) until [`Device::reset`], if any.
    pub fn fault(&self) -> Option<RuntimeError> {
        match self {
            Device::Cuda(device) => device.health().fault(),
            Device::Emulated(device) => device.health().fault(),
        }
    }

    /// Rebuilds the device's context after a sticky error: everything made
    /// on it is gone, and calls on it work again. Fails, changing nothing,
    /// while anything made on the device lives (a stream, a buffer, a memory
    /// resource: any handle to the device but this one and, for a CUDA
    /// device, the process's table of them). A CUDA device's primary
    /// context is shared with the CUDA runtime in the process (PyTorch,
    /// CuPy), whose memory in it goes too: after a sticky error it is
    /// unusable to them as well.
    pub fn reset(&self) -> Result<(), RuntimeError> {
        match self {
            Device::Cuda(device) => device.reset(2),
            Device::Emulated(device) => device.reset(1),
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

#[cfg(test)]
mod sticky_tests {
    use super::*;
    use crate::memory::{DeviceBuffer, MemoryResource, PoolOptions, PoolResource};

    fn illegal_address() -> RuntimeError {
        RuntimeError::Driver {
            call: "cuStreamSynchronize",
            name: "CUDA_ERROR_ILLEGAL_ADDRESS".into(),
            code: 700,
        }
    }

    #[test]
    fn a_sticky_error_fails_every_later_call_until_a_reset_nothing_outlives() {
        let emulated = Arc::new(EmulatedDevice::new(0, 512 << 20));
        let device = Device::Emulated(emulated.clone());
        let memory: Arc<dyn MemoryResource> =
            Arc::new(PoolResource::new(Arc::new(device.clone()), PoolOptions::default()).unwrap());
        let stream = device.create_stream().unwrap();
        let before = DeviceBuffer::from_host(&[1i64, 2, 3], memory.clone(), &stream).unwrap();
        assert_eq!(device.fault(), None);
        // A transient error is not kept; a sticky one is.
        emulated
            .health()
            .observe(RuntimeError::Internal("transient".into()));
        assert_eq!(device.fault(), None);
        emulated.health().observe(illegal_address());
        assert_eq!(device.fault(), Some(illegal_address()));
        assert_eq!(stream.synchronize(), Err(illegal_address()));
        assert_eq!(before.to_host(), Err(illegal_address()));
        assert_eq!(
            DeviceBuffer::from_host(&[4i64], memory.clone(), &stream).err(),
            Some(illegal_address())
        );
        assert_eq!(device.create_stream().err(), Some(illegal_address()));
        // Nothing made on the device may outlive its context.
        let refused = device.reset().unwrap_err();
        assert!(refused.to_string().contains("cannot be reset"), "{refused}");
        assert_eq!(device.fault(), Some(illegal_address()));
        drop((before, stream, memory, emulated));
        device.reset().unwrap();
        assert_eq!(device.fault(), None);
        let stream = device.create_stream().unwrap();
        let memory: Arc<dyn MemoryResource> =
            Arc::new(PoolResource::new(Arc::new(device.clone()), PoolOptions::default()).unwrap());
        let after = DeviceBuffer::from_host(&[5i64, 6], memory, &stream).unwrap();
        assert_eq!(after.to_host().unwrap(), vec![5, 6]);
    }
}
