//! Engine choice: the CPU engines Polars has, and the GPU engine with its configuration.

use std::fmt;
use std::str::FromStr;

use crate::error::EngineError;

/// Where a query runs. Mirrors the `engine=` argument of Polars' `collect`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Engine {
    /// Let Polars choose its CPU engine, exactly as `LazyFrame::collect` does.
    #[default]
    Auto,
    /// Polars' in-memory CPU engine (also named "cpu").
    InMemory,
    /// Polars' streaming CPU engine.
    Streaming,
    /// The GPU engine, falling back to Polars' in-memory engine unless told otherwise.
    Gpu(GpuEngine),
}

impl Engine {
    /// The names [`Engine::from_str`] accepts.
    pub const NAMES: [&'static str; 5] = ["auto", "cpu", "in-memory", "streaming", "gpu"];

    /// The GPU engine with its default configuration.
    pub fn gpu() -> Self {
        Engine::Gpu(GpuEngine::default())
    }
}

impl From<GpuEngine> for Engine {
    fn from(gpu: GpuEngine) -> Self {
        Engine::Gpu(gpu)
    }
}

impl FromStr for Engine {
    type Err = EngineError;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        match name {
            "auto" => Ok(Engine::Auto),
            "cpu" | "in-memory" => Ok(Engine::InMemory),
            "streaming" => Ok(Engine::Streaming),
            "gpu" => Ok(Engine::gpu()),
            _ => Err(EngineError::UnknownEngine {
                given: name.to_owned(),
            }),
        }
    }
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Engine::Auto => "auto",
            Engine::InMemory => "in-memory",
            Engine::Streaming => "streaming",
            Engine::Gpu(_) => "gpu",
        })
    }
}

/// How the GPU engine allocates device memory.
///
/// Both choices are stream-ordered, so memory freed by one operator is reused
/// by the next without a device synchronisation. The first query on a
/// device fixes its resource for the process; the emulated device has no
/// driver pool and takes our pool either way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryResource {
    /// The CUDA driver's stream-ordered pool (`cuMemAllocAsync`).
    DriverPool {
        /// Bytes the pool keeps reserved when memory is freed; `None` keeps
        /// everything (as RMM does), `Some(0)` returns all to the driver at
        /// every synchronisation.
        release_threshold_bytes: Option<u64>,
    },
    /// The engine's own pool, sub-allocating large chunks obtained from the driver.
    Pool {
        /// Bytes reserved when the device starts.
        initial_bytes: u64,
        /// The most the pool may grow to; `None` is bounded by the device alone.
        maximum_bytes: Option<u64>,
    },
}

impl Default for MemoryResource {
    fn default() -> Self {
        MemoryResource::DriverPool {
            release_threshold_bytes: None,
        }
    }
}

impl MemoryResource {
    fn validate(&self) -> Result<(), EngineError> {
        match *self {
            MemoryResource::DriverPool { .. } => Ok(()),
            MemoryResource::Pool {
                initial_bytes,
                maximum_bytes: Some(maximum_bytes),
            } if initial_bytes > maximum_bytes => Err(EngineError::InvalidConfig(format!(
                "memory pool initial size {initial_bytes} bytes exceeds its maximum size \
                 {maximum_bytes} bytes"
            ))),
            MemoryResource::Pool { .. } => Ok(()),
        }
    }
}

/// Which executor the GPU engine runs a plan with (see docs/partitioned.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Executor {
    /// The whole plan at once, in device memory: a query that does not fit
    /// falls back to the CPU (out of memory).
    InMemory,
    /// Large in-memory inputs in partitions that fit the memory budget:
    /// row-wise chains per partition, group-bys and distincts by buckets of
    /// a hash of their keys, joins of each left partition with the whole
    /// right input, top-k per partition; a node that needs its whole input
    /// gets it on the host. Out of memory: smaller partitions.
    Partitioned,
    /// In memory where the plan's inputs take at most half the memory
    /// budget, else partitioned; partitioned, without going to the CPU,
    /// after running out of memory in memory.
    #[default]
    Auto,
}

impl Executor {
    /// The names [`Executor::from_str`] accepts.
    pub const NAMES: [&'static str; 3] = ["in-memory", "partitioned", "auto"];
}

impl FromStr for Executor {
    type Err = EngineError;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        match name {
            "in-memory" => Ok(Executor::InMemory),
            "partitioned" => Ok(Executor::Partitioned),
            "auto" => Ok(Executor::Auto),
            _ => Err(EngineError::InvalidConfig(format!(
                "unknown executor {name:?}; valid executors are: {}",
                Executor::NAMES.join(", ")
            ))),
        }
    }
}

impl fmt::Display for Executor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Executor::InMemory => "in-memory",
            Executor::Partitioned => "partitioned",
            Executor::Auto => "auto",
        })
    }
}

/// A size in bytes as people write it: a whole number of bytes, or a
/// number (fractions allowed) with a unit: `B`, decimal `kB`, `MB`, `GB`,
/// `TB` (powers of 1000) or binary `KiB`, `MiB`, `GiB`, `TiB` (powers of
/// 1024), case aside; `512MiB`, `8 GiB`, `1.5GB`.
pub fn parse_byte_size(text: &str) -> Result<u64, EngineError> {
    let invalid = || {
        EngineError::InvalidConfig(format!(
            "{text:?} is not a size in bytes (e.g. 1000000, 512MiB, 8GiB, 1.5GB)"
        ))
    };
    let trimmed = text.trim();
    let split = trimmed
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(split);
    let factor: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        "tb" => 1_000_000_000_000,
        "kib" => 1 << 10,
        "mib" => 1 << 20,
        "gib" => 1 << 30,
        "tib" => 1 << 40,
        _ => return Err(invalid()),
    };
    if let Ok(whole) = number.parse::<u64>() {
        return whole.checked_mul(factor).ok_or_else(invalid);
    }
    let value: f64 = number.parse().map_err(|_| invalid())?;
    let bytes = (value * factor as f64).round();
    if !bytes.is_finite() || bytes < 0.0 || bytes >= u64::MAX as f64 {
        return Err(invalid());
    }
    Ok(bytes as u64)
}

/// Which kind of device the GPU engine runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DeviceKind {
    /// NVIDIA GPUs through the CUDA driver.
    #[default]
    Cuda,
    /// The emulated device: the same engine over host memory and host
    /// threads, for tests and development. Only ever used when asked for.
    Emulated,
}

/// Configuration of the GPU engine. Builder style:
/// `GpuEngine::new().with_device(1).with_raise_on_fail(true)`.
///
/// Environment variables are read when a query is collected, not when the
/// configuration is built:
/// - `POLARS_GPU_DEVICE`: the device ordinal when none is set here (default 0).
/// - `POLARS_GPU_DISABLE_FALLBACK=1`: forces `raise_on_fail` on.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GpuEngine {
    device: Option<usize>,
    device_kind: DeviceKind,
    raise_on_fail: bool,
    memory_resource: MemoryResource,
    executor: Executor,
    device_memory_limit: Option<u64>,
    partition_rows: Option<usize>,
    spill_kept_results: bool,
}

/// A [`GpuEngine`] with its environment applied and validated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ResolvedGpu {
    pub device: usize,
    pub device_kind: DeviceKind,
    pub raise_on_fail: bool,
    pub memory_resource: MemoryResource,
    pub executor: Executor,
    pub device_memory_limit: Option<u64>,
    pub partition_rows: Option<usize>,
    pub spill_kept_results: bool,
    /// Whether a plan whose common subexpressions the device cannot run is
    /// tried again without them (see `collect_gpu`).
    pub retry_without_cse: bool,
}

impl GpuEngine {
    /// The default configuration: device from `POLARS_GPU_DEVICE` or 0, fallback allowed.
    pub fn new() -> Self {
        Self::default()
    }

    /// Runs on the device with this ordinal (as numbered after `CUDA_VISIBLE_DEVICES`).
    pub fn with_device(mut self, ordinal: usize) -> Self {
        self.device = Some(ordinal);
        self
    }

    /// Runs on this kind of device (default: CUDA).
    pub fn with_device_kind(mut self, kind: DeviceKind) -> Self {
        self.device_kind = kind;
        self
    }

    /// The kind of device the engine runs on.
    pub fn device_kind(&self) -> DeviceKind {
        self.device_kind
    }

    /// When set, a query the GPU cannot run is an error instead of a CPU fallback.
    pub fn with_raise_on_fail(mut self, raise_on_fail: bool) -> Self {
        self.raise_on_fail = raise_on_fail;
        self
    }

    /// Chooses how device memory is allocated.
    pub fn with_memory_resource(mut self, memory_resource: MemoryResource) -> Self {
        self.memory_resource = memory_resource;
        self
    }

    /// Chooses the executor (default: [`Executor::Auto`]).
    pub fn with_executor(mut self, executor: Executor) -> Self {
        self.executor = executor;
        self
    }

    /// The executor plans run with.
    pub fn executor(&self) -> Executor {
        self.executor
    }

    /// Limits the device memory one query may use to `bytes` (enforced:
    /// past it an allocation fails as out of memory), which also sizes the
    /// partitioned executor's partitions. Default: no limit of the
    /// engine's own, and partitions sized for 80 % of the memory the device
    /// had free when the engine started on it.
    pub fn with_device_memory_limit(mut self, bytes: u64) -> Self {
        self.device_memory_limit = Some(bytes);
        self
    }

    /// The limit set with [`GpuEngine::with_device_memory_limit`], if any.
    pub fn device_memory_limit(&self) -> Option<u64> {
        self.device_memory_limit
    }

    /// Cuts large inputs into partitions of `rows` rows for the
    /// partitioned executor, instead of a size from the memory budget (for
    /// tests and tuning).
    pub fn with_partition_rows(mut self, rows: usize) -> Self {
        self.partition_rows = Some(rows);
        self
    }

    /// Moves every result the executor keeps for later (a join's left side
    /// while its right side runs, a shared subplan's between its uses) to
    /// host memory at once and back when used, not only when device memory
    /// runs short: slower, for tests (the fuzzer runs some cases so).
    pub fn with_spill_kept_results(mut self, spill: bool) -> Self {
        self.spill_kept_results = spill;
        self
    }

    /// The device ordinal set with [`GpuEngine::with_device`], if any.
    pub fn device(&self) -> Option<usize> {
        self.device
    }

    /// Whether [`GpuEngine::with_raise_on_fail`] was set (the environment may still force it).
    pub fn raise_on_fail(&self) -> bool {
        self.raise_on_fail
    }

    /// The memory resource the engine allocates from.
    pub fn memory_resource(&self) -> MemoryResource {
        self.memory_resource
    }

    /// Bytes of device memory the GPU engine's buffers hold now on this
    /// engine's device: 0 between queries, whatever they met (a device
    /// fault included). `None` before the device's first collect, or where
    /// the configuration is invalid.
    pub fn memory_in_use(&self) -> Option<u64> {
        let resolved = self.resolve().ok()?;
        crate::devices::memory_in_use(resolved.device_kind, resolved.device)
    }

    /// The error that left this engine's device unusable (a kernel that
    /// faulted, an uncorrectable memory error: CUDA's sticky errors), if
    /// one did: queries on the device fall back at once, with it as their
    /// reason, until [`GpuEngine::reset_device`].
    pub fn device_fault(&self) -> Option<String> {
        let resolved = self.resolve().ok()?;
        crate::devices::fault(resolved.device_kind, resolved.device).map(|e| e.to_string())
    }

    /// Rebuilds this engine's device after a sticky error, so that queries
    /// run on it again: `Ok(true)` where it was unusable and now works,
    /// `Ok(false)` where it was not unusable (nothing is done). An error,
    /// the device staying unusable, while queries that were running when
    /// the fault came still hold memory on it (reset when they end), or
    /// where the driver cannot rebuild it. On a GPU this resets the
    /// device's primary context, which the CUDA runtime shares in the
    /// process (PyTorch, CuPy): their memory on the device goes too, as the
    /// fault left it unusable to them as well.
    pub fn reset_device(&self) -> Result<bool, EngineError> {
        let resolved = self.resolve()?;
        crate::devices::reset(resolved.device_kind, resolved.device)
            .map_err(|e| EngineError::DeviceReset(e.to_string()))
    }

    /// Applies the environment and checks the configuration.
    pub(crate) fn resolve(&self) -> Result<ResolvedGpu, EngineError> {
        self.resolve_with(|name| std::env::var(name).ok())
    }

    fn resolve_with(
        &self,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<ResolvedGpu, EngineError> {
        self.memory_resource.validate()?;
        if self.device_memory_limit == Some(0) {
            return Err(EngineError::InvalidConfig(
                "a device memory limit of 0 bytes leaves no memory to run in".into(),
            ));
        }
        if self.partition_rows == Some(0) {
            return Err(EngineError::InvalidConfig(
                "partitions of 0 rows hold nothing".into(),
            ));
        }
        let device = match (self.device, env("POLARS_GPU_DEVICE")) {
            (Some(device), _) => device,
            (None, None) => 0,
            (None, Some(value)) => value.trim().parse().map_err(|_| {
                EngineError::InvalidConfig(format!(
                    "POLARS_GPU_DEVICE={value:?} is not a device ordinal (expected 0, 1, ...)"
                ))
            })?,
        };
        let forced = match env("POLARS_GPU_DISABLE_FALLBACK").as_deref().map(str::trim) {
            None | Some("" | "0" | "false") => false,
            Some("1" | "true") => true,
            Some(other) => {
                return Err(EngineError::InvalidConfig(format!(
                    "POLARS_GPU_DISABLE_FALLBACK={other:?} is not a switch (expected 1 or 0)"
                )));
            }
        };
        Ok(ResolvedGpu {
            device,
            device_kind: self.device_kind,
            raise_on_fail: self.raise_on_fail || forced,
            memory_resource: self.memory_resource,
            executor: self.executor,
            device_memory_limit: self.device_memory_limit,
            partition_rows: self.partition_rows,
            spill_kept_results: self.spill_kept_results,
            retry_without_cse: true,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| value.to_string())
        }
    }

    #[test]
    fn names_parse_as_polars_spells_them() {
        assert_eq!("auto".parse::<Engine>().unwrap(), Engine::Auto);
        assert_eq!("cpu".parse::<Engine>().unwrap(), Engine::InMemory);
        assert_eq!("in-memory".parse::<Engine>().unwrap(), Engine::InMemory);
        assert_eq!("streaming".parse::<Engine>().unwrap(), Engine::Streaming);
        assert_eq!("gpu".parse::<Engine>().unwrap(), Engine::gpu());
        for name in Engine::NAMES {
            let engine: Engine = name.parse().unwrap();
            assert_eq!(engine.to_string().parse::<Engine>().unwrap(), engine);
        }
    }

    #[test]
    fn unknown_names_list_the_valid_ones() {
        let err = "GPU".parse::<Engine>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown engine \"GPU\"; valid engines are: auto, cpu, in-memory, streaming, gpu"
        );
        assert!("".parse::<Engine>().is_err());
        assert!("cuda".parse::<Engine>().is_err());
    }

    #[test]
    fn device_comes_from_builder_then_environment_then_zero() {
        let none = env(&[]);
        let var = env(&[("POLARS_GPU_DEVICE", "3")]);
        assert_eq!(GpuEngine::new().resolve_with(&none).unwrap().device, 0);
        assert_eq!(GpuEngine::new().resolve_with(&var).unwrap().device, 3);
        let explicit = GpuEngine::new().with_device(1);
        assert_eq!(explicit.resolve_with(&var).unwrap().device, 1);
    }

    #[test]
    fn invalid_device_variable_is_named() {
        for bad in ["-1", "gpu0", "1.5"] {
            let pairs = [("POLARS_GPU_DEVICE", bad)];
            let err = GpuEngine::new().resolve_with(env(&pairs)).unwrap_err();
            assert!(
                matches!(&err, EngineError::InvalidConfig(m) if m.contains("POLARS_GPU_DEVICE")),
                "{err}"
            );
        }
    }

    #[test]
    fn disable_fallback_variable_forces_raise_on_fail() {
        let on = env(&[("POLARS_GPU_DISABLE_FALLBACK", "1")]);
        let off = env(&[("POLARS_GPU_DISABLE_FALLBACK", "0")]);
        assert!(GpuEngine::new().resolve_with(&on).unwrap().raise_on_fail);
        assert!(!GpuEngine::new().resolve_with(&off).unwrap().raise_on_fail);
        assert!(
            !GpuEngine::new()
                .resolve_with(env(&[]))
                .unwrap()
                .raise_on_fail
        );
        let explicit = GpuEngine::new().with_raise_on_fail(true);
        assert!(explicit.resolve_with(&off).unwrap().raise_on_fail);
        let bad = [("POLARS_GPU_DISABLE_FALLBACK", "yes")];
        assert!(GpuEngine::new().resolve_with(env(&bad)).is_err());
    }

    #[test]
    fn pool_larger_at_start_than_at_most_is_refused() {
        let pool = MemoryResource::Pool {
            initial_bytes: 2 << 30,
            maximum_bytes: Some(1 << 30),
        };
        let err = GpuEngine::new()
            .with_memory_resource(pool)
            .resolve_with(env(&[]))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid GPU engine configuration: memory pool initial size 2147483648 bytes exceeds \
             its maximum size 1073741824 bytes"
        );
    }

    #[test]
    fn sizes_parse_as_people_write_them() {
        for (text, bytes) in [
            ("1000000", 1_000_000),
            ("512MiB", 512 << 20),
            ("8 GiB", 8 << 30),
            ("1.5GB", 1_500_000_000),
            ("2kb", 2000),
            ("64B", 64),
            (" 3TiB ", 3 << 40),
        ] {
            assert_eq!(parse_byte_size(text).unwrap(), bytes, "{text}");
        }
        for bad in [
            "",
            "MiB",
            "-1GiB",
            "1.2.3MB",
            "12 parsecs",
            "99999999999999999999GiB",
        ] {
            let err = parse_byte_size(bad).unwrap_err();
            assert!(
                err.to_string().contains("is not a size in bytes"),
                "{bad}: {err}"
            );
        }
    }

    #[test]
    fn executors_parse_and_limits_of_nothing_are_refused() {
        for name in Executor::NAMES {
            let executor: Executor = name.parse().unwrap();
            assert_eq!(executor.to_string(), name);
        }
        let err = "streaming".parse::<Executor>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid GPU engine configuration: unknown executor \"streaming\"; valid executors \
             are: in-memory, partitioned, auto"
        );
        assert_eq!(GpuEngine::new().executor(), Executor::Auto);
        let zero = GpuEngine::new().with_device_memory_limit(0);
        assert!(zero.resolve_with(env(&[])).is_err());
        let empty = GpuEngine::new().with_partition_rows(0);
        assert!(empty.resolve_with(env(&[])).is_err());
        let set = GpuEngine::new()
            .with_executor(Executor::Partitioned)
            .with_device_memory_limit(1 << 20)
            .with_partition_rows(3)
            .resolve_with(env(&[]))
            .unwrap();
        assert_eq!(
            (set.executor, set.device_memory_limit, set.partition_rows),
            (Executor::Partitioned, Some(1 << 20), Some(3))
        );
    }

    #[test]
    fn config_is_send_sync_clone() {
        fn assert_traits<T: Send + Sync + Clone + Default>() {}
        assert_traits::<GpuEngine>();
        assert_traits::<Engine>();
    }
}
