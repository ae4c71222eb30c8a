//! Probing the CUDA driver: is it there, is it new enough, which devices does it see.
//!
//! The probe runs at most once per process ([`driver`]); it is the first part
//! of the GPU engine's lazy start. The decisions live in [`probe_with`], over
//! the small [`DriverApi`] trait, so every outcome (no library, too old, no
//! device, ...) is tested here with a scripted driver.

mod cuda;

pub(crate) use cuda::error_name;

use std::fmt;
use std::sync::OnceLock;

use crate::error::{RuntimeError, Unavailable};

/// The oldest CUDA version the driver must support: our PTX is ISA 9.0, which
/// CUDA 13.0 (driver R580) introduced.
pub const MIN_DRIVER_VERSION: DriverVersion = DriverVersion(13_000);

/// A CUDA version as the driver reports it (`1000 * major + 10 * minor`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DriverVersion(pub u32);

impl DriverVersion {
    /// The major version, e.g. 13 for CUDA 13.0.
    pub fn major(self) -> u32 {
        self.0 / 1000
    }

    /// The minor version, e.g. 0 for CUDA 13.0.
    pub fn minor(self) -> u32 {
        (self.0 % 1000) / 10
    }
}

impl fmt::Display for DriverVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major(), self.minor())
    }
}

/// What the driver tells about one device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceSummary {
    /// The ordinal, as numbered after `CUDA_VISIBLE_DEVICES`.
    pub ordinal: usize,
    /// The marketing name, e.g. "NVIDIA H200".
    pub name: String,
    /// Compute capability (major, minor), e.g. (9, 0).
    pub compute_capability: (u32, u32),
    /// Number of streaming multiprocessors.
    pub sm_count: u32,
    /// Total device memory in bytes.
    pub total_memory: u64,
}

/// A usable driver and the devices it sees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriverInfo {
    /// The CUDA version the driver supports.
    pub version: DriverVersion,
    /// The devices, indexed by ordinal. Never empty.
    pub devices: Vec<DeviceSummary>,
    cuda_visible_devices: Option<String>,
}

impl DriverInfo {
    /// The device with this ordinal, or why it does not exist.
    pub fn device(&self, ordinal: usize) -> Result<&DeviceSummary, Unavailable> {
        self.devices
            .get(ordinal)
            .ok_or_else(|| Unavailable::OrdinalOutOfRange {
                ordinal,
                count: self.devices.len(),
                cuda_visible_devices: self.cuda_visible_devices.clone(),
            })
    }
}

/// A driver call that failed: its `CUresult` code and name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CallError {
    pub code: u32,
    pub name: String,
}

/// `CUDA_ERROR_NO_DEVICE`: what `cuInit` returns when the driver sees no GPU.
const CUDA_ERROR_NO_DEVICE: u32 = 100;

/// The driver calls the probe needs. Implemented by the real driver
/// (`cuda.rs`) and by scripted drivers in tests.
pub(crate) trait DriverApi {
    /// Loads the driver library; `Err(None)` when it is absent, `Err(Some)`
    /// with the name of a function it lacks.
    fn load(&self) -> Result<(), Option<&'static str>>;
    fn driver_version(&self) -> Result<u32, CallError>;
    fn init(&self) -> Result<(), CallError>;
    fn device_count(&self) -> Result<usize, CallError>;
    fn device_summary(&self, ordinal: usize) -> Result<DeviceSummary, (&'static str, CallError)>;
}

/// Probes the driver through `api` and reads every device it sees.
pub(crate) fn probe_with(
    api: &dyn DriverApi,
    cuda_visible_devices: Option<String>,
) -> Result<DriverInfo, RuntimeError> {
    match api.load() {
        Ok(()) => {}
        Err(None) => return Err(Unavailable::NoDriverLibrary.into()),
        Err(Some(symbol)) => return Err(Unavailable::MissingSymbol { symbol }.into()),
    }
    let version = DriverVersion(
        api.driver_version()
            .map_err(|e| driver_error("cuDriverGetVersion", e))?,
    );
    if version < MIN_DRIVER_VERSION {
        return Err(Unavailable::DriverTooOld {
            found: version,
            required: MIN_DRIVER_VERSION,
        }
        .into());
    }
    match api.init() {
        Ok(()) => {}
        Err(e) if e.code == CUDA_ERROR_NO_DEVICE => {
            return Err(Unavailable::NoDevices {
                cuda_visible_devices,
            }
            .into());
        }
        Err(CallError { code, name }) => return Err(Unavailable::InitFailed { name, code }.into()),
    }
    let count = api
        .device_count()
        .map_err(|e| driver_error("cuDeviceGetCount", e))?;
    if count == 0 {
        return Err(Unavailable::NoDevices {
            cuda_visible_devices,
        }
        .into());
    }
    let devices = (0..count)
        .map(|ordinal| {
            api.device_summary(ordinal)
                .map_err(|(call, e)| driver_error(call, e))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(DriverInfo {
        version,
        devices,
        cuda_visible_devices,
    })
}

fn driver_error(call: &'static str, e: CallError) -> RuntimeError {
    RuntimeError::Driver {
        call,
        name: e.name,
        code: e.code,
    }
}

fn cuda_visible_devices() -> Option<String> {
    std::env::var("CUDA_VISIBLE_DEVICES").ok()
}

/// Probes the real driver now, without caching: loads `libcuda`, checks its
/// version, initialises it and reads every device. Costs what the first GPU
/// query pays; [`driver`] is the cached form everyone else should use.
pub fn probe_driver() -> Result<DriverInfo, RuntimeError> {
    let started = std::time::Instant::now();
    // cudarc panics on driver trouble it does not expect; `load` rules out the
    // known cases, and this keeps any other from crossing our API.
    let result = std::panic::catch_unwind(|| probe_with(&cuda::CudaDriver, cuda_visible_devices()))
        .unwrap_or_else(|_| {
            Err(RuntimeError::Internal(
                "probing the CUDA driver panicked inside cudarc".into(),
            ))
        });
    tracing::debug!(elapsed = ?started.elapsed(), ok = result.is_ok(), "probed the CUDA driver");
    result
}

/// The driver and its devices, probed on first use and cached for the life of
/// the process. Thread-safe: concurrent first callers wait for one probe.
pub fn driver() -> Result<&'static DriverInfo, RuntimeError> {
    static DRIVER: OnceLock<Result<DriverInfo, RuntimeError>> = OnceLock::new();
    DRIVER
        .get_or_init(probe_driver)
        .as_ref()
        .map_err(Clone::clone)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A driver whose answers are scripted.
    struct Scripted {
        load: Result<(), Option<&'static str>>,
        version: u32,
        init: Result<(), CallError>,
        count: usize,
    }

    impl Default for Scripted {
        fn default() -> Self {
            Scripted {
                load: Ok(()),
                version: 13_000,
                init: Ok(()),
                count: 2,
            }
        }
    }

    impl DriverApi for Scripted {
        fn load(&self) -> Result<(), Option<&'static str>> {
            self.load
        }
        fn driver_version(&self) -> Result<u32, CallError> {
            Ok(self.version)
        }
        fn init(&self) -> Result<(), CallError> {
            self.init.clone()
        }
        fn device_count(&self) -> Result<usize, CallError> {
            Ok(self.count)
        }
        fn device_summary(
            &self,
            ordinal: usize,
        ) -> Result<DeviceSummary, (&'static str, CallError)> {
            Ok(DeviceSummary {
                ordinal,
                name: format!("Scripted GPU {ordinal}"),
                compute_capability: (9, 0),
                sm_count: 132,
                total_memory: 141 << 30,
            })
        }
    }

    fn unavailable(api: Scripted, visible: Option<&str>) -> Unavailable {
        match probe_with(&api, visible.map(str::to_owned)) {
            Err(RuntimeError::Unavailable(u)) => u,
            other => panic!("expected Unavailable, got {other:?}"),
        }
    }

    #[test]
    fn a_working_driver_lists_its_devices() {
        let info = probe_with(&Scripted::default(), None).unwrap();
        assert_eq!(info.version.to_string(), "13.0");
        assert_eq!(info.devices.len(), 2);
        assert_eq!(info.device(1).unwrap().name, "Scripted GPU 1");
    }

    #[test]
    fn missing_library_says_install_the_driver() {
        let u = unavailable(
            Scripted {
                load: Err(None),
                ..Scripted::default()
            },
            None,
        );
        assert_eq!(u, Unavailable::NoDriverLibrary);
        assert!(u.to_string().contains("libcuda.so"), "{u}");
        assert!(u.to_string().contains("install the NVIDIA driver"), "{u}");
    }

    #[test]
    fn missing_symbol_is_named() {
        let u = unavailable(
            Scripted {
                load: Err(Some("cuDeviceGetAttribute")),
                ..Scripted::default()
            },
            None,
        );
        assert!(u.to_string().contains("cuDeviceGetAttribute"), "{u}");
    }

    #[test]
    fn old_driver_names_both_versions() {
        let u = unavailable(
            Scripted {
                version: 12_040,
                ..Scripted::default()
            },
            None,
        );
        assert_eq!(
            u.to_string(),
            "the CUDA driver is too old: it supports CUDA 12.4, the GPU engine needs CUDA 13.0 \
             (driver R580 or newer)"
        );
    }

    #[test]
    fn init_failure_carries_the_cuda_error() {
        let u = unavailable(
            Scripted {
                init: Err(CallError {
                    code: 3,
                    name: "CUDA_ERROR_NOT_INITIALIZED".into(),
                }),
                ..Scripted::default()
            },
            None,
        );
        assert_eq!(
            u.to_string(),
            "the CUDA driver failed to initialise: cuInit returned CUDA_ERROR_NOT_INITIALIZED \
             (code 3)"
        );
    }

    #[test]
    fn no_device_from_init_or_from_count() {
        let from_init = unavailable(
            Scripted {
                init: Err(CallError {
                    code: CUDA_ERROR_NO_DEVICE,
                    name: "CUDA_ERROR_NO_DEVICE".into(),
                }),
                ..Scripted::default()
            },
            Some(""),
        );
        assert_eq!(
            from_init.to_string(),
            "the CUDA driver sees no GPU (CUDA_VISIBLE_DEVICES=\"\")"
        );
        let from_count = unavailable(
            Scripted {
                count: 0,
                ..Scripted::default()
            },
            None,
        );
        assert_eq!(from_count.to_string(), "the CUDA driver sees no GPU");
    }

    #[test]
    fn out_of_range_ordinal_counts_devices_and_names_visible_devices() {
        let info = probe_with(&Scripted::default(), Some("2,3".into())).unwrap();
        let u = info.device(5).unwrap_err();
        assert_eq!(
            u.to_string(),
            "GPU device 5 does not exist: the CUDA driver sees 2 device(s), numbered 0 to 1; \
             CUDA_VISIBLE_DEVICES renumbers the visible devices from 0 \
             (CUDA_VISIBLE_DEVICES=\"2,3\")"
        );
    }

    #[test]
    fn the_cached_probe_is_stable_and_never_panics() {
        // Whatever this machine has, the real probe answers and answers the same twice.
        let first = driver().map(|d| d.devices.len());
        let second = driver().map(|d| d.devices.len());
        assert_eq!(first, second);
    }
}
