//! gpu-exec on the emulated device: Polars columns to the device and back, exactly.

mod columns;

use std::sync::Arc;

use gpu_exec::ExecContext;
use gpu_runtime::EmulatedDevice;
use gpu_runtime::memory::{PoolOptions, PoolResource};

pub fn context() -> ExecContext {
    let device = Arc::new(EmulatedDevice::new(0, 4 << 30));
    let stream = device.create_stream().unwrap();
    let options = PoolOptions {
        initial_bytes: 16 << 20,
        maximum_bytes: None,
    };
    ExecContext {
        memory: Arc::new(PoolResource::new(device, options).unwrap()),
        stream,
        side_stream: None,
    }
}
