//! The devices the GPU engine runs on, started on first use, once per process and device, and marked failed after a sticky fault until reset.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, Weak};

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
    /// Bytes of device memory a query may use unless told otherwise: 80 %
    /// of what the device had free when the engine started on it.
    budget: u64,
}

/// A device's state.
enum Slot {
    Started(Started),
    /// A sticky error left the device's context unusable: queries on it fall
    /// back at once until [`reset`].
    Faulted {
        device: Device,
        error: RuntimeError,
        /// The memory resource, alive while queries that ran when the fault
        /// came still hold its buffers.
        memory: Weak<StatisticsResource>,
    },
}

/// The devices, by (CUDA or emulated, ordinal).
type Table = HashMap<(bool, usize), Slot>;

static DEVICES: OnceLock<Mutex<Table>> = OnceLock::new();

fn devices() -> Result<MutexGuard<'static, Table>, RuntimeError> {
    DEVICES
        .get_or_init(Default::default)
        .lock()
        .map_err(|_| RuntimeError::Internal("the device table is poisoned".into()))
}

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
    let free = device
        .free_memory()
        .unwrap_or_else(|_| device.total_memory());
    Ok(Started {
        device,
        memory,
        budget: free / 5 * 4,
    })
}

/// `f` of device `ordinal` of `kind`, started on first use with that first
/// request's `memory_resource` (a device a sticky error left unusable: its error).
fn with_started<T>(
    kind: DeviceKind,
    ordinal: usize,
    memory_resource: MemoryResource,
    f: impl FnOnce(&Started) -> Result<T, RuntimeError>,
) -> Result<T, RuntimeError> {
    let mut devices = devices()?;
    let slot = match devices.entry((kind == DeviceKind::Cuda, ordinal)) {
        Entry::Occupied(slot) => slot.into_mut(),
        Entry::Vacant(slot) => slot.insert(Slot::Started(start(kind, ordinal, memory_resource)?)),
    };
    match slot {
        Slot::Started(started) => f(started),
        Slot::Faulted { error, .. } => Err(error.clone()),
    }
}

/// An execution context (three new streams, the device's memory resource)
/// on device `ordinal` of `kind`, and the bytes of device memory a query
/// may use there unless told otherwise. The device and its memory resource
/// start on first use, with that first request's `memory_resource`.
pub(crate) fn context(
    kind: DeviceKind,
    ordinal: usize,
    memory_resource: MemoryResource,
) -> Result<(ExecContext, u64), RuntimeError> {
    with_started(kind, ordinal, memory_resource, |started| {
        let context = ExecContext {
            memory: started.memory.clone() as Arc<dyn DeviceMemory>,
            stream: started.device.create_stream()?,
            side_stream: Some(started.device.create_stream()?),
            copy_stream: Some(started.device.create_stream()?),
            spill_kept: false,
        };
        Ok((context, started.budget))
    })
}

/// The bytes of device memory a query may use on device `ordinal` of
/// `kind` unless told otherwise (as [`context`] gives, without streams).
pub(crate) fn budget(
    kind: DeviceKind,
    ordinal: usize,
    memory_resource: MemoryResource,
) -> Result<u64, RuntimeError> {
    with_started(kind, ordinal, memory_resource, |started| Ok(started.budget))
}

/// The sticky error that left device `ordinal` of `kind` unusable, if any.
pub(crate) fn fault(kind: DeviceKind, ordinal: usize) -> Option<RuntimeError> {
    match devices().ok()?.get(&(kind == DeviceKind::Cuda, ordinal))? {
        Slot::Faulted { error, .. } => Some(error.clone()),
        Slot::Started(_) => None,
    }
}

/// Marks device `ordinal` of `kind` failed by the sticky `error`: its memory
/// resource goes once the queries holding it end, and queries fall back at
/// once until [`reset`].
pub(crate) fn mark_faulted(kind: DeviceKind, ordinal: usize, error: &RuntimeError) {
    let Ok(mut devices) = devices() else {
        return;
    };
    let key = (kind == DeviceKind::Cuda, ordinal);
    if let Some(Slot::Started(started)) = devices.remove(&key) {
        tracing::error!(
            device = %started.device.describe(),
            "queries on the device fall back until it is reset: {error}"
        );
        devices.insert(
            key,
            Slot::Faulted {
                device: started.device,
                error: error.clone(),
                memory: Arc::downgrade(&started.memory),
            },
        );
    }
}

/// Rebuilds device `ordinal` of `kind` after a sticky error: `Ok(true)`
/// where it was marked failed and now works again (the next query starts
/// it afresh), `Ok(false)` where it was not marked, an error (the mark
/// kept) while queries that ran when the fault came still hold memory or
/// streams on it, or where the driver cannot rebuild it.
pub(crate) fn reset(kind: DeviceKind, ordinal: usize) -> Result<bool, RuntimeError> {
    let mut devices = devices()?;
    let key = (kind == DeviceKind::Cuda, ordinal);
    let Some(Slot::Faulted { device, .. }) = devices.get(&key) else {
        return Ok(false);
    };
    device.reset()?;
    tracing::info!(device = %device.describe(), "reset after a sticky error");
    devices.remove(&key);
    Ok(true)
}

/// Bytes of device memory the engine's buffers hold now on device
/// `ordinal` of `kind` (`None`: it has not started).
pub(crate) fn memory_in_use(kind: DeviceKind, ordinal: usize) -> Option<u64> {
    let devices = devices().ok()?;
    match devices.get(&(kind == DeviceKind::Cuda, ordinal))? {
        Slot::Started(started) => Some(started.memory.statistics().current_bytes),
        Slot::Faulted { memory, .. } => {
            Some(memory.upgrade().map_or(0, |m| m.statistics().current_bytes))
        }
    }
}
