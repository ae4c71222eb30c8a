//! `cargo xtask`: the project's tasks, as subcommands of one small binary.

mod artifacts;
mod bench;
mod device_check;
mod faults;
mod fuzz;
mod invariants;
mod kernels;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "cargo xtask",
    about = "Tasks of the polars GPU engine workspace"
)]
struct Cli {
    #[command(subcommand)]
    task: Task,
}

#[derive(Debug, Subcommand)]
enum Task {
    /// Checks the architecture invariants of ARCHITECTURE.md: which crate may
    /// depend on which, where `unsafe` may live, and that every Rust file
    /// opens with a `//!` line.
    Invariants,
    /// Compiles kernels/cuda/*.cu to PTX with a pinned CUDA compiler
    /// (installed from PyPI on first use), assembles it for sm_80 and sm_90,
    /// prints registers, shared memory and spills per kernel, and writes
    /// kernels/ptx and kernels/cubin. Fails on any error or spill.
    Kernels {
        /// Only check that the committed PTX is what the sources give.
        #[arg(long)]
        check: bool,
    },
    /// Runs the PDS-H queries (or single operators) under criterion on each
    /// engine side by side (same generated data; uploads and downloads
    /// counted), then prints the table (query, CPU ms, engine ms, speedup,
    /// the engine that actually ran) and writes it as CSV and JSON.
    Bench(bench::BenchArgs),
    /// Builds the GPU test suites and benchmarks in release, packs them
    /// (stripped, xz-compressed, at most 64 MiB) with a runner script into a
    /// folder that travels to a GPU machine without a Rust toolchain, and
    /// prints the one command to run there.
    DeviceCheck(device_check::DeviceCheckArgs),
    /// Runs the differential fuzzer (random tables and lazy queries, on the
    /// CPU and on the GPU engine on the emulated device, compared exactly)
    /// for `--seeds` seeds of `--cases` queries each, in release, and prints
    /// each seed's summary and their total; failures are printed shrunk, as
    /// tests to keep.
    Fuzz(fuzz::FuzzArgs),
    /// Runs the fault suite (`engine-select/tests/faults.rs`, built in
    /// release with the `faults` feature): PDS-H and a join, on several
    /// threads of one device, every seam of gpu-runtime failing at random;
    /// prints queries, faults injected, answers equal to the CPU's, bytes
    /// held after and hangs, in one line (also in target/fault-suite.txt).
    Faults(faults::FaultArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let root = project_root();
    let result = match cli.task {
        Task::Invariants => invariants::check(&root),
        Task::Kernels { check } => kernels::run(&root, check),
        Task::Bench(args) => bench::run(&root, &args),
        Task::DeviceCheck(args) => device_check::run(&root, &args),
        Task::Fuzz(args) => fuzz::run(&root, &args),
        Task::Faults(args) => faults::run(&root, &args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// A `cargo` command run in `root`, without the variables `cargo run` set
/// for this binary: a build script (ring's) tracks `CARGO_MANIFEST_DIR`, so
/// passing them on would rebuild everything that depends on it, and again
/// at the next plain `cargo` command.
fn cargo(root: &std::path::Path) -> std::process::Command {
    let mut command =
        std::process::Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    command.current_dir(root);
    for (name, _) in std::env::vars_os() {
        let Some(name) = name.to_str() else { continue };
        if name.starts_with("CARGO_PKG_")
            || matches!(
                name,
                "CARGO_MANIFEST_DIR"
                    | "CARGO_MANIFEST_PATH"
                    | "CARGO_CRATE_NAME"
                    | "CARGO_BIN_NAME"
                    | "CARGO_PRIMARY_PACKAGE"
            )
        {
            command.env_remove(name);
        }
    }
    command
}

/// The workspace root: the folder above this crate's manifest, as `cargo
/// run` says it when it runs this binary (a binary built in another
/// checkout sharing the target folder would otherwise work on that one).
fn project_root() -> PathBuf {
    let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR")
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from);
    manifest_dir
        .parent()
        .map(PathBuf::from)
        .unwrap_or(manifest_dir)
}
