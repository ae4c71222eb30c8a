//! What a collect reports: the engine that produced the result, and every reason the GPU did not.

use std::fmt;

/// A CPU engine of Polars.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CpuEngine {
    /// Polars' own choice (`LazyFrame::collect`).
    Auto,
    /// The in-memory engine.
    InMemory,
    /// The streaming engine.
    Streaming,
}

/// The engine that produced a result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExecutedBy {
    /// A CPU engine of Polars.
    Cpu(CpuEngine),
    /// The GPU engine, on the device with this ordinal.
    Gpu {
        /// The device ordinal.
        device: usize,
        /// Whether the device was the emulated one.
        emulated: bool,
    },
    /// A mixed plan: the GPU engine ran the parts of the plan it can
    /// (`subplans` of them, on this device), Polars' in-memory engine the
    /// rest, for the reasons the report lists.
    Mixed {
        /// The device ordinal.
        device: usize,
        /// Whether the device was the emulated one.
        emulated: bool,
        /// How many subplans ran on the device.
        subplans: usize,
    },
}

impl fmt::Display for ExecutedBy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExecutedBy::Cpu(CpuEngine::Auto) => f.write_str("cpu (auto)"),
            ExecutedBy::Cpu(CpuEngine::InMemory) => f.write_str("cpu (in-memory)"),
            ExecutedBy::Cpu(CpuEngine::Streaming) => f.write_str("cpu (streaming)"),
            ExecutedBy::Gpu {
                device,
                emulated: false,
            } => write!(f, "gpu (device {device})"),
            ExecutedBy::Gpu {
                device,
                emulated: true,
            } => write!(f, "gpu (emulated device {device})"),
            ExecutedBy::Mixed {
                device,
                emulated,
                subplans,
            } => write!(
                f,
                "gpu ({}device {device}: {subplans} subplan(s)) and cpu (in-memory: the rest)",
                if *emulated { "emulated " } else { "" }
            ),
        }
    }
}

/// The kind of a fallback reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FallbackKind {
    /// No usable GPU: no driver, a driver too old, no device, a bad ordinal.
    Unavailable,
    /// A part of the query the GPU engine cannot run.
    Unsupported,
    /// The device ran out of memory.
    OutOfMemory,
    /// The device failed in a way that leaves it unusable (a kernel that
    /// faulted, an uncorrectable memory error): the query that met it, and
    /// every later one on that device until [`crate::GpuEngine::reset_device`],
    /// fall back.
    DeviceFault,
    /// The data holds values the query rejects (a strict cast of a value
    /// that does not fit): the CPU engine runs the query to raise Polars'
    /// own error.
    InvalidData,
    /// A bug in the GPU engine (a plan the executor refused after lowering
    /// accepted it, a panic): the CPU engine answers, and the reason is
    /// logged at warn level. With `raise_on_fail` it is an error instead.
    Internal,
}

impl fmt::Display for FallbackKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FallbackKind::Unavailable => "gpu unavailable",
            FallbackKind::Unsupported => "unsupported",
            FallbackKind::OutOfMemory => "device out of memory",
            FallbackKind::DeviceFault => "device fault",
            FallbackKind::InvalidData => "invalid data",
            FallbackKind::Internal => "internal error (a bug in the GPU engine)",
        })
    }
}

/// One reason the GPU engine did not produce a result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FallbackReason {
    /// What kind of reason this is.
    pub kind: FallbackKind,
    /// The plan node or expression concerned, in Polars' notation (as in
    /// `LazyFrame::explain`); `None` when the reason concerns the device.
    pub subject: Option<String>,
    /// What is wrong, in words.
    pub message: String,
}

impl FallbackReason {
    /// Formats reasons as an indented list, one per line, each on a new line.
    pub(crate) fn list(reasons: &[FallbackReason]) -> String {
        reasons.iter().map(|r| format!("\n  - {r}")).collect()
    }
}

impl fmt::Display for FallbackReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.subject {
            Some(subject) => write!(f, "{}: {} (at `{subject}`)", self.kind, self.message),
            None => write!(f, "{}: {}", self.kind, self.message),
        }
    }
}

/// What happened in a collect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CollectReport {
    /// The engine whose result was returned.
    pub executed_by: ExecutedBy,
    /// Every reason the GPU engine did not run the query; empty unless a GPU
    /// collect fell back.
    pub fallback_reasons: Vec<FallbackReason>,
    /// What the partitioned executor did, where it ran the query (or the
    /// device's part of a mixed plan); `None` where the in-memory executor
    /// did.
    pub partitioned: Option<gpu_exec::PartitionedRun>,
    /// What the spill manager moved to host memory (results kept for
    /// later: shared subplans' between their uses, a join's left side while
    /// its right side ran) when device memory ran short, or all of them
    /// with `GpuEngine::with_spill_kept_results`; zero where it moved
    /// nothing.
    pub spilled: gpu_exec::Spilled,
}

impl CollectReport {
    pub(crate) fn cpu(engine: CpuEngine) -> Self {
        CollectReport {
            executed_by: ExecutedBy::Cpu(engine),
            fallback_reasons: Vec::new(),
            partitioned: None,
            spilled: Default::default(),
        }
    }

    /// Whether a GPU collect fell back to the CPU.
    pub fn fell_back(&self) -> bool {
        !self.fallback_reasons.is_empty()
    }
}

impl fmt::Display for CollectReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "executed by: {}", self.executed_by)?;
        if let Some(run) = &self.partitioned {
            write!(
                f,
                "\npartitioned: {} device runs, partitions of up to {} rows",
                run.device_runs, run.rows_per_partition
            )?;
            if run.file_partitions > 0 {
                write!(f, ", {} of them read from files", run.file_partitions)?;
            }
            if run.uploaded_ahead > 0 {
                write!(f, ", {} uploaded ahead of their run", run.uploaded_ahead)?;
            }
            if run.smaller_after_out_of_memory > 0 {
                write!(
                    f,
                    " ({} times smaller after running out of device memory)",
                    run.smaller_after_out_of_memory
                )?;
            }
        }
        if self.spilled.frames > 0 {
            write!(
                f,
                "\nspilled: {} results ({} bytes) to host memory",
                self.spilled.frames, self.spilled.bytes
            )?;
        }
        if self.fell_back() {
            write!(
                f,
                "\nGPU fallback reasons:{}",
                FallbackReason::list(&self.fallback_reasons)
            )?;
        }
        Ok(())
    }
}
