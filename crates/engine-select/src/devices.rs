//! The devices the GPU engine runs on, started on first use, once per process and device.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::{Arc, Mutex, OnceLock};

use gpu_exec::ExecContext;
use gpu_runtime::memory::{
    MemoryResource as DeviceMemory, PoolOptions, PoolResource, StatisticsResource,
};
use gpu_runtime::{
    CudaDevice, Device, DriverPoolResource, EmulatedDevice, RuntimeError, Unavailable,
};

use crate::engine::{DeviceKind, MemoryResource};

/// How many emulated devices there are (ordinals 0 to 7).
pub(crate) const EMULATED_DEVICES: usize = 8;
/// Device memory of each emulated device (host memory, taken as used).
const EMULATED_CAPACITY: u64 = 16 << 30;

struct Started {
    device: Device,
    /// The device's memory resource, counted.
    memory: Arc<StatisticsResource>,
}

/// The started devices, by (CUDA or emulated, ordinal).
static DEVICES: OnceLock<Mutex<HashMap<(bool, usize), Started>>> = OnceLock::new();

/// The options of our own pool for a configured resource.
fn pool_options(memory_resource: MemoryResource) -> PoolOptions {
    match memory_resource {
        MemoryResource::DriverPool { .. } => PoolOptions::default(),
        MemoryResource::Pool {
            initial_bytes,
            maximum_bytes,
        } => PoolOptions {
            initial_bytes,
            maximum_bytes,
        },
    }
}

/// Opens device `ordinal` of `kind` with its memory resource.
fn start(
    kind: DeviceKind,
    ordinal: usize,
    memory_resource: MemoryResource,
) -> Result<Started, RuntimeError> {
    let device = match kind {
        DeviceKind::Cuda => Device::Cuda(CudaDevice::open(ordinal)?),
        DeviceKind::Emulated if ordinal >= EMULATED_DEVICES => {
            return Err(Unavailable::OrdinalOutOfRange {
                ordinal,
                count: EMULATED_DEVICES,
                cuda_visible_devices: None,
            }
            .into());
        }
        DeviceKind::Emulated => {
            Device::Emulated(Arc::new(EmulatedDevice::new(ordinal, EMULATED_CAPACITY)))
        }
    };
    let memory: Arc<dyn DeviceMemory> = match (&device, memory_resource) {
        (
            Device::Cuda(gpu),
            MemoryResource::DriverPool {
                release_threshold_bytes,
            },
        ) => Arc::new(DriverPoolResource::new(
            gpu.clone(),
            release_threshold_bytes,
        )?),
        // The emulated device has no driver pool: both choices get our pool.
        _ => Arc::new(PoolResource::new(
            Arc::new(device.clone()),
            pool_options(memory_resource),
        )?),
    };
    tracing::debug!(device = %device.describe(), ?memory_resource, "started a device");
    let memory = Arc::new(StatisticsResource::new(memory));
    Ok(Started { device, memory })
}

/// An execution context (two new streams, the device's memory resource) on
/// device `ordinal` of `kind`. The device and its memory resource start on
/// first use, with that first request's `memory_resource`.
pub(crate) fn context(
    kind: DeviceKind,
    ordinal: usize,
    memory_resource: MemoryResource,
) -> Result<ExecContext, RuntimeError> {
    let mut devices = DEVICES
        .get_or_init(Default::default)
        .lock()
        .map_err(|_| RuntimeError::Internal("the device table is poisoned".into()))?;
    let started = match devices.entry((kind == DeviceKind::Cuda, ordinal)) {
        Entry::Occupied(started) => started.into_mut(),
        Entry::Vacant(slot) => slot.insert(start(kind, ordinal, memory_resource)?),
    };
    Ok(ExecContext {
        memory: started.memory.clone() as Arc<dyn DeviceMemory>,
        stream: started.device.create_stream()?,
        side_stream: Some(started.device.create_stream()?),
        copy_stream: Some(started.device.create_stream()?),
    })
}

/// Bytes of device memory the engine's buffers hold now on device
/// `ordinal` of `kind` (`None`: it has not started).
pub(crate) fn memory_in_use(kind: DeviceKind, ordinal: usize) -> Option<u64> {
    let devices = DEVICES.get()?.lock().ok()?;
    let started = devices.get(&(kind == DeviceKind::Cuda, ordinal))?;
    Some(started.memory.statistics().current_bytes)
}
