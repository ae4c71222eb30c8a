//! Device frames moved to host memory and back, exactly as they were: what the spill manager (`execute/spill.rs`) holds of a frame it spilled.

use gpu_runtime::RuntimeError;
use gpu_runtime::memory::{ChildIn, OnHost, ToDevice, ToHost};
use ir_lower::GpuDtype;
use polars::prelude::PlSmallStr;

use super::{DeviceColumn, DeviceFrame, ExecContext};

/// A device frame's buffers, copied to host memory as they are (each
/// column's name, type, and values with their nested children).
#[derive(Debug)]
pub(crate) struct HostFrame {
    columns: Vec<(PlSmallStr, GpuDtype, ChildIn<OnHost>)>,
    height: usize,
}

impl DeviceFrame {
    /// The frame moved to host memory, after the work enqueued on its
    /// columns' streams so far (this waits for it); its device memory goes
    /// back to its resource. Also the bytes moved.
    pub(crate) fn into_host(self) -> Result<(HostFrame, u64), RuntimeError> {
        let mut to_host = ToHost::default();
        let columns = self
            .columns
            .into_iter()
            .map(|column| {
                let (name, dtype) = (column.name.clone(), column.dtype);
                Ok((name, dtype, column.into_child().moved(&mut to_host)?))
            })
            .collect::<Result<_, RuntimeError>>()?;
        let frame = HostFrame {
            columns,
            height: self.height,
        };
        Ok((frame, to_host.bytes))
    }
}

impl HostFrame {
    /// The frame back on the device, allocated from `ctx`'s memory and
    /// uploaded on its stream; also the bytes moved.
    pub(crate) fn into_device(self, ctx: &ExecContext) -> Result<(DeviceFrame, u64), RuntimeError> {
        let mut to_device = ToDevice {
            resource: &ctx.memory,
            stream: &ctx.stream,
            bytes: 0,
        };
        let columns = self
            .columns
            .into_iter()
            .map(|(name, dtype, child)| {
                let child = child.moved(&mut to_device)?;
                Ok(DeviceColumn::from_child(name, dtype, child))
            })
            .collect::<Result<_, RuntimeError>>()?;
        let frame = DeviceFrame {
            columns,
            height: self.height,
        };
        Ok((frame, to_device.bytes))
    }
}
