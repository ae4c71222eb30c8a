//! `polars-gpu`: the PDS-H job (the default) and SQL over your own files, on the engine of your choice.

/// `println!` for the jobs' output: a reader that stops reading (`| head`)
/// ends the program quietly, where `println!` would panic.
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::print_line(format_args!($($arg)*))
    };
}

mod options;
mod pdsh_job;
#[cfg(feature = "sql")]
mod progress;
#[cfg(feature = "sql")]
mod sql;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Polars on the GPU from the command line: the PDS-H queries (the default
/// job: plain `polars-gpu` runs them), or SQL over Parquet, CSV and Arrow
/// IPC files. Each says which engine ran it and, where the GPU did not, why.
#[derive(Debug, Parser)]
#[command(
    name = "polars-gpu",
    version,
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
struct Cli {
    #[command(subcommand)]
    job: Option<Job>,
    /// The PDS-H job's options, for plain `polars-gpu`.
    #[command(flatten)]
    pdsh: pdsh_job::PdshArgs,
}

#[derive(Debug, Subcommand)]
enum Job {
    /// Runs the PDS-H queries (TPC-H derived) on generated data: the default job.
    Pdsh(pdsh_job::PdshArgs),
    /// Runs a SQL query over Parquet, CSV and Arrow IPC files.
    #[cfg(feature = "sql")]
    Sql(sql::SqlArgs),
    /// Runs a SQL query over Parquet, CSV and Arrow IPC files (this build
    /// has no SQL: build with `--features sql`).
    #[cfg(not(feature = "sql"))]
    Sql {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
        args: Vec<String>,
    },
}

fn print_line(line: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = writeln!(out, "{line}") {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error: cannot write the output: {e}");
        std::process::exit(1);
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
    let cli = Cli::parse();
    match &cli.job {
        None => pdsh_job::run(&cli.pdsh),
        Some(Job::Pdsh(args)) => pdsh_job::run(args),
        #[cfg(feature = "sql")]
        Some(Job::Sql(args)) => sql::run(args),
        #[cfg(not(feature = "sql"))]
        Some(Job::Sql { .. }) => {
            eprintln!(
                "error: this polars-gpu was built without the SQL job: build it with \
                 `cargo build -p polars-gpu-cli --features sql`"
            );
            ExitCode::from(2)
        }
    }
}
