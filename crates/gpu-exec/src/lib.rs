//! Execution of GPU plans on a device: columns in device memory and the operators that run plans.
//!
//! A [`DeviceColumn`] holds a column in device memory with Arrow semantics:
//! values plus an optional validity bitmap (bit i of 32-bit word i / 32,
//! least significant first; no bitmap means no null). Booleans are packed
//! bits; dates, datetimes and durations are their 32- or 64-bit integers;
//! strings are 64-bit offsets plus UTF-8 bytes (see ARCHITECTURE.md).
//! [`DeviceFrame`] converts whole DataFrames both ways. This crate has no
//! `unsafe`: device memory and launches go through `gpu-runtime`.
#![forbid(unsafe_code)]

mod column;
mod compile;
mod error;
mod execute;
mod partitioned;
mod prefetch;

pub use column::{DeviceColumn, DeviceFrame, ExecContext, Values};
pub use error::ExecError;
pub use execute::{PREFETCH_VAR, PROFILE_VAR, Spilled, execute, one_value_columns, unsupported};
pub use partitioned::{
    ExecOptions, ExecRun, ExecutorChoice, PartitionedRun, ScanReader, ScanStream, execute_with,
};
