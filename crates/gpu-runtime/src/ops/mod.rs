//! Safe device operations on buffers: each checks its buffers' lengths, then launches the right kernels.
//!
//! This is the only safe way to run the kernel library: every function here
//! knows its kernels' parameters and checks that the buffers it passes hold
//! what the kernels will read and write. Booleans are bitmaps (`u32` words,
//! bit i of word i / 32) with optional validity bitmaps of the same layout.
//!
//! One module per kernel family, named as its source in `kernels/cuda/` and
//! its tests in `tests/it/kernels/`: `asof`, `bitmap`, `elementwise`, `expr`,
//! `gather`, `groupby`, `hash`, `lists`, `matches`, `partition`, `predicate`, `reduce`,
//! `rolling`, `scan`, `sort`, `strings`, `zones`; and `faults`, a kernel that faults on purpose, tested in a
//! process of its own (`tests/sticky.rs`). This module holds what they share: [`Ops`], its launch and
//! allocation helpers, and the argument checks.

use std::sync::Arc;

use kernels::{Kernel, ids};

use crate::error::RuntimeError;
use crate::expr::{ExprBinary, ExprProgram, ValueType, slot_of_int};
use crate::launch::{KernelArgs, KernelRef, LaunchConfig};
use crate::memory::{DeviceBuffer, DeviceCopy, DevicePtr, MemoryResource, Values};
use crate::stream::Stream;

impl From<Kernel> for KernelRef {
    fn from(kernel: Kernel) -> Self {
        KernelRef {
            name: kernel.name,
            ptx: kernel.module.ptx,
            cubins: kernel.module.cubins,
            host: kernel.host_entry(),
        }
    }
}

const BLOCK: u32 = 256;
const MAX_BLOCKS: u32 = 4096;

macro_rules! kernel_for {
    ($trait:ident: $($t:ty => $kernel:ident),*) => {
        $(impl $trait for $t { const KERNEL: Kernel = ids::$kernel; })*
    };
}

mod asof;
mod bitmap;
mod elementwise;
mod expr;
pub(crate) mod faults;
mod gather;
mod groupby;
mod hash;
mod lists;
mod matches;
mod partition;
mod predicate;
mod reduce;
mod rolling;
mod scan;
mod sort;
mod strings;
mod zones;

pub use asof::*;
pub use expr::*;
pub use gather::*;
pub use groupby::*;
pub use hash::*;
pub use lists::*;
pub use matches::*;
pub use predicate::*;
pub use reduce::*;
pub use rolling::*;
pub use scan::*;
pub use sort::*;
pub use strings::*;
pub use zones::*;

fn words(bits: usize) -> usize {
    bits.div_ceil(32)
}

fn check(condition: bool, what: impl FnOnce() -> String) -> Result<(), RuntimeError> {
    if condition {
        Ok(())
    } else {
        Err(RuntimeError::InvalidArgument(what()))
    }
}

fn check_bitmap(
    bitmap: Option<&DeviceBuffer<u32>>,
    bits: usize,
    name: &str,
) -> Result<(), RuntimeError> {
    check(bitmap.is_none_or(|b| b.len() >= words(bits)), || {
        format!("the {name} bitmap is shorter than {bits} bits")
    })
}

/// The device address of an optional buffer (a bitmap, mostly), or null.
fn ptr<T: DeviceCopy>(buffer: Option<&DeviceBuffer<T>>) -> DevicePtr {
    buffer.map_or(DevicePtr::NULL, DeviceBuffer::device_ptr)
}

/// Device operations on one stream, allocating from one memory resource.
#[derive(Debug, Clone, Copy)]
pub struct Ops<'a> {
    pub memory: &'a Arc<dyn MemoryResource>,
    pub stream: &'a Stream,
}

impl Ops<'_> {
    fn zeroed<T: DeviceCopy>(&self, len: usize) -> Result<DeviceBuffer<T>, RuntimeError> {
        DeviceBuffer::zeroed(len, self.memory.clone(), self.stream)
    }

    /// A buffer the next launch writes whole ([`DeviceBuffer::for_overwrite`]:
    /// no fill on a GPU, poison on the emulated device, where the tests
    /// catch a value left unwritten).
    fn output<T: DeviceCopy>(&self, len: usize) -> Result<DeviceBuffer<T>, RuntimeError> {
        DeviceBuffer::for_overwrite(len, self.memory.clone(), self.stream)
    }

    fn launch(
        &self,
        kernel: Kernel,
        config: LaunchConfig,
        args: KernelArgs,
    ) -> Result<(), RuntimeError> {
        // SAFETY: every caller (in this module and its family modules)
        // passes the parameters `kernel` declares (see kernels/cuda), with
        // buffers whose lengths it checked, owned by the caller or returned
        // to it, so they outlive the launch (freed in stream order after it).
        unsafe { self.stream.launch(&kernel.into(), config, args) }
    }

    fn linear(n: usize) -> LaunchConfig {
        LaunchConfig::linear(n as u64, BLOCK, MAX_BLOCKS)
    }

    /// One block per tile, `tiles` of them (`what`: the work, for the error
    /// where there are more than a grid holds).
    fn per_tile(tiles: u64, what: &str) -> Result<LaunchConfig, RuntimeError> {
        let blocks = u32::try_from(tiles)
            .map_err(|_| RuntimeError::InvalidArgument(format!("{what} too large")))?;
        Ok(LaunchConfig {
            grid: (blocks, 1, 1),
            block: (BLOCK, 1, 1),
            shared_bytes: 0,
        })
    }
}
