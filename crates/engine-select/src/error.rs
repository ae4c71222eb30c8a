//! The façade's error type: bad input, a GPU failure with fallback disabled, Polars' own errors.

use polars::prelude::PolarsError;

use crate::report::FallbackReason;

/// An error of a collect through the façade.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// An engine name that Polars does not know.
    #[error("unknown engine {given:?}; valid engines are: auto, cpu, in-memory, streaming, gpu")]
    UnknownEngine {
        /// The name given.
        given: String,
    },
    /// A GPU engine configuration that cannot be used, whatever the device.
    #[error("invalid GPU engine configuration: {0}")]
    InvalidConfig(String),
    /// The GPU could not run the query and fallback was disabled
    /// (`raise_on_fail` or `POLARS_GPU_DISABLE_FALLBACK=1`).
    #[error(
        "the GPU engine cannot run this query and CPU fallback is disabled:{}",
        FallbackReason::list(.reasons)
    )]
    GpuUnavailable {
        /// Every reason, in plan order.
        reasons: Vec<FallbackReason>,
    },
    /// A device left unusable by a fault could not be rebuilt
    /// ([`crate::GpuEngine::reset_device`]).
    #[error("the GPU device could not be reset: {0}")]
    DeviceReset(String),
    /// An error of Polars itself (a bad query, a missing column, ...), from whichever engine ran.
    #[error(transparent)]
    Polars(#[from] PolarsError),
    /// A bug in the GPU engine. Never turned into a fallback.
    #[error("internal error in the GPU engine: {0}")]
    Internal(String),
}
