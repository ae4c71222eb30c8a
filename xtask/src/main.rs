//! `cargo xtask`: the project's tasks, as subcommands of one small binary.

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
    /// kernels/ptx. Fails on any error or spill.
    Kernels {
        /// Only check that the committed PTX is what the sources give.
        #[arg(long)]
        check: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let root = project_root();
    let result = match cli.task {
        Task::Invariants => invariants::check(&root),
        Task::Kernels { check } => kernels::run(&root, check),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The workspace root: the folder above this crate's manifest.
fn project_root() -> PathBuf {
    let manifest_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest_dir
        .parent()
        .map(PathBuf::from)
        .unwrap_or(manifest_dir)
}
