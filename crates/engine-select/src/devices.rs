//! The devices the GPU engine runs on, started on first use, once per process.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::{Arc, Mutex, OnceLock};

use gpu_exec::ExecContext;
use gpu_runtime::memory::{MemoryResource as DeviceMemory, PoolOptions, PoolResource};
use gpu_runtime::{EmulatedDevice, RuntimeError, Unavailable};

use crate::engine::MemoryResource;

/// How many emulated devices there are (ordinals 0 to 7).
pub(crate) const EMULATED_DEVICES: usize = 8;
/// Device memory of each emulated device (host memory, taken as used).
const EMULATED_CAPACITY: u64 = 16 << 30;

struct Started {
    device: Arc<EmulatedDevice>,
    memory: Arc<dyn DeviceMemory>,
}

/// An execution context (two new streams, the device's memory resource) on
/// emulated device `ordinal`. The device and its memory resource start on
/// first use, with that first request's `memory_resource`.
pub(crate) fn emulated_context(
    ordinal: usize,
    memory_resource: MemoryResource,
) -> Result<ExecContext, RuntimeError> {
    static DEVICES: OnceLock<Mutex<HashMap<usize, Started>>> = OnceLock::new();
    if ordinal >= EMULATED_DEVICES {
        return Err(Unavailable::OrdinalOutOfRange {
            ordinal,
            count: EMULATED_DEVICES,
            cuda_visible_devices: None,
        }
        .into());
    }
    let mut devices = DEVICES
        .get_or_init(Default::default)
        .lock()
        .map_err(|_| RuntimeError::Internal("the device table is poisoned".into()))?;
    let started = match devices.entry(ordinal) {
        Entry::Occupied(started) => started.into_mut(),
        Entry::Vacant(slot) => {
            let device = Arc::new(EmulatedDevice::new(ordinal, EMULATED_CAPACITY));
            // The emulated device has no driver pool: both choices get our pool.
            let options = match memory_resource {
                MemoryResource::DriverPool { .. } => PoolOptions::default(),
                MemoryResource::Pool {
                    initial_bytes,
                    maximum_bytes,
                } => PoolOptions {
                    initial_bytes,
                    maximum_bytes,
                },
            };
            let memory: Arc<dyn DeviceMemory> =
                Arc::new(PoolResource::new(device.clone(), options)?);
            slot.insert(Started { device, memory })
        }
    };
    Ok(ExecContext {
        memory: started.memory.clone(),
        stream: started.device.create_stream()?,
        side_stream: Some(started.device.create_stream()?),
    })
}
