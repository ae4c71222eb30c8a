//! The engine options every job of `polars-gpu` shares: which engine, which device, whether to fall back.

use engine_select::{DeviceKind, Engine, GpuEngine};

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
}

impl EngineOptions {
    /// The engine with the device and fallback options applied; an error
    /// for those options with a CPU engine.
    pub fn resolved(&self) -> Result<Engine, String> {
        match self.engine.clone() {
            Engine::Gpu(gpu) => {
                let gpu = match self.device {
                    Some(device) => gpu.with_device(device),
                    None => gpu,
                };
                Ok(Engine::Gpu(gpu.with_raise_on_fail(self.raise_on_fail)))
            }
            _ if self.device.is_some() || self.raise_on_fail => {
                Err("--device and --raise-on-fail apply to --engine gpu only".into())
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
