//! `cargo xtask bench`: the PDS-H queries or single operators under criterion on each engine side by side, and the table as text, CSV and JSON.

use std::path::Path;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Suite {
    Pdsh,
    Operators,
}

/// What to run; each field becomes a setting of the `pdsh` bench binary
/// (see `benches/benches/pdsh.rs`) or an option of criterion.
#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    /// What to time: the PDS-H queries, or single operators (transfer,
    /// filter, regex, project, group_by, aggregate, join, sort) over generated columns.
    #[arg(long, value_enum, default_value_t = Suite::Pdsh)]
    suite: Suite,
    /// PDS-H: scale factor of the generated tables.
    #[arg(long, default_value_t = 0.01)]
    scale: f64,
    /// PDS-H: queries to run, e.g. `1,3,18` (default: all 22).
    #[arg(long)]
    queries: Option<String>,
    /// Operators: rows of the generated columns.
    #[arg(long, default_value_t = 1_000_000)]
    rows: usize,
    /// Engines to run side by side, of cpu, gpu and emulated. `gpu` falls
    /// back to the CPU where no GPU is present, and the table says so; the
    /// emulated device is a correctness target, not a performance signal.
    /// A GPU engine takes a device memory limit after `@`, a size or a
    /// share of the tables' bytes: `cpu,gpu,gpu@1/4,gpu@1/16` sets the
    /// partitioned runs beside the unlimited one.
    #[arg(long, default_value = "cpu,gpu")]
    engines: String,
    /// The GPU's ordinal.
    #[arg(long, default_value_t = 0)]
    device: usize,
    /// The GPU engines' executor: in-memory, partitioned or auto (the
    /// engine's default).
    #[arg(long)]
    executor: Option<String>,
    /// Device memory one query may use on the GPU engines, e.g. 512MiB,
    /// 8GiB (partitioned runs size their partitions by it).
    #[arg(long)]
    device_memory_limit: Option<String>,
    /// Folder for criterion's files and the table (default: target/bench).
    #[arg(long)]
    out: Option<std::path::PathBuf>,
    /// Criterion's warm-up time per benchmark, in seconds.
    #[arg(long, default_value_t = 1.0)]
    warm_up_time: f64,
    /// Criterion's measurement time per benchmark, in seconds.
    #[arg(long, default_value_t = 3.0)]
    measurement_time: f64,
    /// Criterion's samples per benchmark (at least 10).
    #[arg(long, default_value_t = 10)]
    sample_size: usize,
    /// Time each case this many times by a plain clock instead of criterion
    /// (after one untimed run): for large scale factors, where criterion's
    /// eleven runs or more of every query take too long.
    #[arg(long)]
    runs: Option<usize>,
}

pub fn run(root: &Path, args: &BenchArgs) -> Result<(), String> {
    if !(args.scale.is_finite() && args.scale > 0.0) {
        return Err(format!(
            "--scale {} is not a positive scale factor",
            args.scale
        ));
    }
    if args.sample_size < 10 {
        return Err("--sample-size must be at least 10 (criterion's minimum)".into());
    }
    if args.runs == Some(0) {
        return Err("--runs must be at least 1".into());
    }
    // The bench runs in its package's folder: a relative --out means the
    // caller's folder.
    let out = match &args.out {
        Some(out) if out.is_relative() => std::env::current_dir()
            .map_err(|e| format!("no current folder: {e}"))?
            .join(out),
        Some(out) => out.clone(),
        None => root.join("target/bench"),
    };
    let bench = match args.suite {
        Suite::Pdsh => "pdsh",
        Suite::Operators => "operators",
    };
    let mut command = crate::cargo(root);
    command
        .args(["bench", "-p", "benches", "--bench", bench, "--"])
        .args(["--warm-up-time", &args.warm_up_time.to_string()])
        .args(["--measurement-time", &args.measurement_time.to_string()])
        .args(["--sample-size", &args.sample_size.to_string()])
        .env("PDSH_SCALE", args.scale.to_string())
        .env("OPS_ROWS", args.rows.to_string())
        .env("BENCH_ENGINES", &args.engines)
        .env("BENCH_DEVICE", args.device.to_string())
        .env("BENCH_OUT", &out);
    if let Some(queries) = &args.queries {
        command.env("PDSH_QUERIES", queries);
    }
    if let Some(runs) = args.runs {
        command.env("BENCH_RUNS", runs.to_string());
    }
    if let Some(executor) = &args.executor {
        command.env("BENCH_EXECUTOR", executor);
    }
    if let Some(limit) = &args.device_memory_limit {
        command.env("BENCH_DEVICE_MEMORY_LIMIT", limit);
    }
    let status = command
        .status()
        .map_err(|e| format!("cannot run cargo bench: {e}"))?;
    if !status.success() {
        return Err(format!("the {bench} benchmark failed ({status})"));
    }
    Ok(())
}
