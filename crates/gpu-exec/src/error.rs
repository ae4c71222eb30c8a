//! Errors of execution: the device's (out of memory included), Polars', rejected data, or a bug.

use gpu_runtime::RuntimeError;
use polars::prelude::PolarsError;

/// An error while executing on a device.
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    /// The device failed or ran out of memory (see [`RuntimeError`]).
    #[error(transparent)]
    Runtime(#[from] RuntimeError),
    /// Polars failed building or converting a frame.
    #[error(transparent)]
    Polars(#[from] PolarsError),
    /// The data holds values the query rejects, such as a value that a
    /// strict cast cannot convert; Polars' engine raises the error itself.
    #[error("{0}")]
    InvalidData(String),
    /// For this data the answer depends on what only Polars' engine knows
    /// (whether it knows the values sorted) or computes (a float parsed with
    /// exact big-number arithmetic): the CPU engine answers.
    #[error("{0}")]
    DependsOnPolars(String),
    /// Data of a type or shape the executor cannot hold (lowering should have refused it).
    #[error("unsupported on the device: {0}")]
    Unsupported(String),
}
