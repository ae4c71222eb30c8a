//! gpu-exec on the device under test (emulated unless `GPU_TEST_DEVICE` names a GPU): Polars columns to the device and back, exactly.

mod columns;
mod unary_functions;

use std::sync::Arc;

use gpu_exec::ExecContext;
use gpu_runtime::Device;
use gpu_runtime::memory::{PoolOptions, PoolResource};

/// A context on the device under test (`GPU_TEST_DEVICE`: emulated unless it
/// names a GPU).
pub fn context() -> ExecContext {
    let device = Arc::new(Device::under_test(4 << 30).expect("the device under test"));
    let stream = device.create_stream().unwrap();
    let options = PoolOptions {
        initial_bytes: 16 << 20,
        maximum_bytes: None,
    };
    ExecContext {
        memory: Arc::new(PoolResource::new(device, options).unwrap()),
        stream,
        side_stream: None,
        copy_stream: None,
        spill_kept: false,
    }
}
