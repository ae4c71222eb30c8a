//! `polars-gpu`: runs the PDS-H queries on the chosen engine and says which engine ran each.

use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use engine_select::{DeviceKind, Engine, GpuEngine, LazyFrameExt};
use pdsh::{QUERY_COUNT, Tables};

/// Runs the PDS-H queries (TPC-H derived) on the engine of your choice and
/// reports, for each, the engine that produced the result, why the GPU did
/// not (if it did not), the rows and the time.
#[derive(Debug, Parser)]
#[command(name = "polars-gpu", version)]
struct Args {
    /// Engine: auto, cpu, in-memory, streaming, gpu, or emulated (the GPU
    /// engine on the emulated device, for machines without a GPU).
    #[arg(long, default_value = "gpu", value_parser = parse_engine)]
    engine: Engine,
    /// GPU device ordinal (default: POLARS_GPU_DEVICE, else 0).
    #[arg(long)]
    device: Option<usize>,
    /// Fail instead of falling back to the CPU when the GPU cannot run a query.
    #[arg(long)]
    raise_on_fail: bool,
    /// Run only this query (1 to 22).
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=QUERY_COUNT as i64))]
    query: Option<u8>,
    /// PDS-H scale factor of the generated data (1.0 is about 1 GB).
    #[arg(long, default_value_t = 0.01, value_parser = parse_scale)]
    scale: f64,
    /// Print each query's GPU plan (or why it has none) instead of running it.
    #[arg(long)]
    explain: bool,
    /// Also write the generated tables to DIR/<table>.parquet.
    #[arg(long, value_name = "DIR")]
    parquet: Option<std::path::PathBuf>,
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

fn parse_scale(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(scale) if scale.is_finite() && scale > 0.0 => Ok(scale),
        _ => Err(format!("{text:?} is not a positive scale factor")),
    }
}

fn engine_name(engine: &Engine) -> String {
    match engine {
        Engine::Gpu(gpu) if gpu.device_kind() == DeviceKind::Emulated => "emulated".into(),
        other => other.to_string(),
    }
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    let args = Args::parse();
    let engine = match args.engine.clone() {
        Engine::Gpu(gpu) => {
            let gpu = match args.device {
                Some(device) => gpu.with_device(device),
                None => gpu,
            };
            Engine::Gpu(gpu.with_raise_on_fail(args.raise_on_fail))
        }
        _ if args.device.is_some() || args.raise_on_fail => {
            eprintln!("error: --device and --raise-on-fail apply to --engine gpu only");
            return ExitCode::from(2);
        }
        other => other,
    };
    let started = Instant::now();
    let tables = match Tables::generate(args.scale, true) {
        Ok(tables) => tables,
        Err(e) => {
            eprintln!("error: could not generate the PDS-H tables: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(dir) = &args.parquet {
        match tables.write_parquet(dir) {
            Ok(paths) => println!("wrote {} tables to {}", paths.len(), dir.display()),
            Err(e) => {
                eprintln!(
                    "error: could not write the tables to {}: {e}",
                    dir.display()
                );
                return ExitCode::FAILURE;
            }
        }
    }
    println!(
        "PDS-H at scale factor {} ({} lineitem rows, generated in {:.1?}), engine {}\n",
        args.scale,
        tables.lineitem.height(),
        started.elapsed(),
        engine_name(&args.engine)
    );
    let numbers: Vec<usize> = match args.query {
        Some(number) => vec![usize::from(number)],
        None => (1..=QUERY_COUNT).collect(),
    };
    let mut failed = 0;
    for number in numbers {
        println!("== q{number}");
        let query = match pdsh::query(number, &tables) {
            Ok(query) => query,
            Err(e) => {
                failed += 1;
                println!("error: {e}\n");
                continue;
            }
        };
        if args.explain {
            match engine_select::explain_gpu(query) {
                Ok(text) => println!("{text}"),
                Err(e) => {
                    failed += 1;
                    println!("error: {e}\n");
                }
            }
            continue;
        }
        let started = Instant::now();
        match query.collect_with_report(&engine) {
            Ok((df, report)) => {
                println!("{report}");
                println!("rows: {}, time: {:.1?}", df.height(), started.elapsed());
                println!("{df}\n");
            }
            Err(e) => {
                failed += 1;
                println!("error: {e}\n");
            }
        }
    }
    if failed > 0 {
        eprintln!("{failed} query(ies) failed");
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
