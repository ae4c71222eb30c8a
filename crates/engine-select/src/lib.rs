//! Run a Polars lazy query on the engine of your choice: Polars' CPU engines or the GPU.
//!
//! This is the façade of the workspace, the Rust take on Polars'
//! `collect(engine=...)`. A GPU collect that cannot run on the GPU (no
//! driver, no device, an unsupported construct, device out of memory) gives
//! the CPU engine's answer instead, and the [`CollectReport`] says why; with
//! [`GpuEngine::with_raise_on_fail`] it gives an [`EngineError`] carrying the
//! same reasons. Nothing touches the CUDA driver before the first GPU collect.
//!
//! ```no_run
//! use engine_select::{Engine, GpuEngine, LazyFrameExt};
//! use polars::prelude::*;
//!
//! # fn main() -> Result<(), engine_select::EngineError> {
//! let lf = df!("a" => [1, 2, 3])?.lazy().filter(col("a").gt(lit(1)));
//! let (df, report) = lf.collect_with_report(&Engine::Gpu(GpuEngine::new().with_device(0)))?;
//! println!("{df}\n{report}");
//! # Ok(())
//! # }
//! ```
#![forbid(unsafe_code)]

mod collect;
mod devices;
mod engine;
mod error;
mod gpu;
mod report;
mod scans;

pub use collect::{LazyFrameExt, collect_all_with, collect_all_with_report};
pub use engine::{DeviceKind, Engine, Executor, GpuEngine, MemoryResource, parse_byte_size};
pub use error::EngineError;
pub use gpu::explain_gpu;
pub use gpu_exec::{PartitionedRun, Spilled};
pub use report::{CollectReport, CpuEngine, ExecutedBy, FallbackKind, FallbackReason};
