//! The real CUDA driver behind [`DriverApi`], through cudarc with the library loaded at run time.

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys;

use super::{CallError, DeviceSummary, DriverApi};

/// Every driver function the runtime calls (the probe and the CUDA backend).
/// cudarc panics on a missing symbol, so [`CudaDriver::load`] checks them all
/// before the first call.
const SYMBOLS: [&str; 41] = [
    "cuDriverGetVersion",
    "cuInit",
    "cuGetErrorName",
    "cuDeviceGetCount",
    "cuDeviceGet",
    "cuDeviceGetName",
    "cuDeviceGetAttribute",
    "cuDeviceTotalMem_v2",
    "cuDevicePrimaryCtxRetain",
    "cuDevicePrimaryCtxRelease_v2",
    "cuDevicePrimaryCtxReset_v2",
    "cuCtxGetCurrent",
    "cuCtxSetCurrent",
    "cuMemGetInfo_v2",
    "cuModuleLoadData",
    "cuModuleGetFunction",
    "cuFuncSetAttribute",
    "cuLaunchKernel",
    "cuStreamCreate",
    "cuStreamDestroy_v2",
    "cuStreamSynchronize",
    "cuStreamQuery",
    "cuStreamWaitEvent",
    "cuEventCreate",
    "cuEventRecord",
    "cuEventSynchronize",
    "cuEventQuery",
    "cuEventDestroy_v2",
    "cuMemAlloc_v2",
    "cuMemFree_v2",
    "cuMemAllocAsync",
    "cuMemFreeAsync",
    "cuDeviceGetDefaultMemPool",
    "cuMemPoolSetAttribute",
    "cuMemPoolTrimTo",
    "cuMemsetD8Async",
    "cuMemcpyHtoDAsync_v2",
    "cuMemcpyDtoHAsync_v2",
    "cuMemcpyDtoDAsync_v2",
    "cuMemHostAlloc",
    "cuMemFreeHost",
];

/// The process's CUDA driver (`libcuda`).
pub(super) struct CudaDriver;

fn call_error(e: DriverError) -> CallError {
    CallError {
        code: e.0 as u32,
        name: error_name(e.0),
    }
}

/// The name of a `CUresult`, e.g. `CUDA_ERROR_OUT_OF_MEMORY`.
pub(crate) fn error_name(result: sys::CUresult) -> String {
    DriverError(result)
        .error_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_else(|_| format!("{result:?}"))
}

impl DriverApi for CudaDriver {
    fn load(&self) -> Result<(), Option<&'static str>> {
        // SAFETY: `is_culib_present` only attempts to open the driver library
        // under its usual names and closes it again; it calls no driver function.
        if !unsafe { sys::is_culib_present() } {
            return Err(None);
        }
        // SAFETY: `culib` panics only when no library can be opened, and we
        // just opened one under the same candidate names.
        let lib = unsafe { sys::culib() };
        for symbol in SYMBOLS {
            // SAFETY: looking a symbol up does not call it; the pointer type is
            // never used.
            let found = unsafe { lib.get::<unsafe extern "C" fn()>(symbol.as_bytes()) };
            if found.is_err() {
                return Err(Some(symbol));
            }
        }
        Ok(())
    }

    fn driver_version(&self) -> Result<u32, CallError> {
        let mut version: std::ffi::c_int = 0;
        // SAFETY: the symbol was checked in `load`; the pointer is to a live local.
        unsafe { sys::cuDriverGetVersion(&mut version) }
            .result()
            .map_err(call_error)?;
        Ok(u32::try_from(version).unwrap_or(0))
    }

    fn init(&self) -> Result<(), CallError> {
        result::init().map_err(call_error)
    }

    fn device_count(&self) -> Result<usize, CallError> {
        let count = result::device::get_count().map_err(call_error)?;
        Ok(usize::try_from(count).unwrap_or(0))
    }

    fn device_summary(&self, ordinal: usize) -> Result<DeviceSummary, (&'static str, CallError)> {
        use sys::CUdevice_attribute::*;
        let with = |call: &'static str| move |e: DriverError| (call, call_error(e));
        let index = std::ffi::c_int::try_from(ordinal).map_err(|_| {
            (
                "cuDeviceGet",
                CallError {
                    code: 101,
                    name: "CUDA_ERROR_INVALID_DEVICE".into(),
                },
            )
        })?;
        let device = result::device::get(index).map_err(with("cuDeviceGet"))?;
        let name = result::device::get_name(device).map_err(with("cuDeviceGetName"))?;
        let attribute = |attribute| {
            // SAFETY: `device` was returned by `cuDeviceGet` above.
            unsafe { result::device::get_attribute(device, attribute) }
                .map(|value| u32::try_from(value).unwrap_or(0))
                .map_err(with("cuDeviceGetAttribute"))
        };
        let major = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?;
        let minor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?;
        let sm_count = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?;
        // SAFETY: `device` was returned by `cuDeviceGet` above.
        let total_memory =
            unsafe { result::device::total_mem(device) }.map_err(with("cuDeviceTotalMem_v2"))?;
        Ok(DeviceSummary {
            ordinal,
            name,
            compute_capability: (major, minor),
            sm_count,
            total_memory: total_memory as u64,
        })
    }
}
