//! The engine options every job of `polars-gpu` shares: which engine, which device, whether to fall back.

use engine_select::{DeviceKind, Engine, Executor, GpuEngine};

/// Which engine runs the queries, as the command line chose it.
#[derive(Debug, Clone, clap::Args)]
pub struct EngineOptions {
    /// Engine: auto, cpu, in-memory, streaming, gpu, or emulated (the GPU
    /// engine on the emulated device, for machines without a GPU).
    #[arg(long, default_value = "gpu", value_parser = parse_engine)]
    pub engine: Engine,
    /// GPU device ordinal (default: POLARS_GPU_DEVICE, else 0).
    #[arg(long)]
    pub device: Option<usize>,
    /// Fail instead of falling back to the CPU when the GPU cannot run a query.
    #[arg(long)]
    pub raise_on_fail: bool,
    /// The GPU engine's executor: in-memory, partitioned (large inputs in
    /// partitions that fit the memory limit), or auto (in memory where the
    /// inputs fit, else partitioned; the default).
    #[arg(long, value_parser = parse_executor)]
    pub executor: Option<Executor>,
    /// Device memory one query may use, e.g. 512MiB, 8GiB: an allocation
    /// past it fails as out of memory (partitioned: smaller partitions);
    /// it also sizes the partitions.
    #[arg(long, value_parser = parse_size)]
    pub device_memory_limit: Option<u64>,
}

impl EngineOptions {
    /// The engine with the device and fallback options applied; an error
    /// for those options with a CPU engine.
    pub fn resolved(&self) -> Result<Engine, String> {
        match self.engine.clone() {
            Engine::Gpu(mut gpu) => {
                if let Some(device) = self.device {
                    gpu = gpu.with_device(device);
                }
                if let Some(executor) = self.executor {
                    gpu = gpu.with_executor(executor);
                }
                if let Some(limit) = self.device_memory_limit {
                    gpu = gpu.with_device_memory_limit(limit);
                }
                Ok(Engine::Gpu(gpu.with_raise_on_fail(self.raise_on_fail)))
            }
            _ if self.device.is_some()
                || self.raise_on_fail
                || self.executor.is_some()
                || self.device_memory_limit.is_some() =>
            {
                Err(
                    "--device, --raise-on-fail, --executor and --device-memory-limit apply to \
                     --engine gpu (or emulated) only"
                        .into(),
                )
            }
            other => Ok(other),
        }
    }

    /// The engine's name as the command line spells it.
    pub fn name(&self) -> String {
        match &self.engine {
            Engine::Gpu(gpu) if gpu.device_kind() == DeviceKind::Emulated => "emulated".into(),
            other => other.to_string(),
        }
    }
}

fn parse_engine(name: &str) -> Result<Engine, String> {
    if name == "emulated" {
        return Ok(Engine::Gpu(
            GpuEngine::new().with_device_kind(DeviceKind::Emulated),
        ));
    }
    name.parse()
        .map_err(|e: engine_select::EngineError| format!("{e} (or emulated)"))
}

fn parse_executor(name: &str) -> Result<Executor, String> {
    name.parse()
        .map_err(|e: engine_select::EngineError| e.to_string())
}

fn parse_size(text: &str) -> Result<u64, String> {
    engine_select::parse_byte_size(text).map_err(|e| e.to_string())
}
