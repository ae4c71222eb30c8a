//! `polars-gpu pdsh` (and plain `polars-gpu`): runs the PDS-H queries on the chosen engine and says which engine ran each.

use std::process::ExitCode;
use std::time::Instant;

use engine_select::LazyFrameExt;
use pdsh::{QUERY_COUNT, Tables};

use crate::options::EngineOptions;

/// Runs the PDS-H queries (TPC-H derived) on the engine of your choice and
/// reports, for each, the engine that produced the result, why the GPU did
/// not (if it did not), the rows and the time.
#[derive(Debug, Clone, clap::Args)]
#[command(group(clap::ArgGroup::new("files").args(["parquet", "csv"])))]
pub struct PdshArgs {
    #[command(flatten)]
    pub engine: EngineOptions,
    /// Run only this query (1 to 22).
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=QUERY_COUNT as i64))]
    pub query: Option<u8>,
    /// PDS-H scale factor of the generated data (1.0 is about 1 GB).
    #[arg(long, default_value_t = 0.01, value_parser = parse_scale)]
    pub scale: f64,
    /// Print each query's GPU plan (or why it has none) instead of running it.
    #[arg(long)]
    pub explain: bool,
    /// Also write the generated tables to DIR/<table>.parquet.
    #[arg(long, value_name = "DIR")]
    pub parquet: Option<std::path::PathBuf>,
    /// Also write the generated tables to DIR/<table>.csv (money as f64).
    #[arg(long, value_name = "DIR", conflicts_with = "decimals")]
    pub csv: Option<std::path::PathBuf>,
    /// Run the queries over scans of the files written to `--parquet`'s
    /// or `--csv`'s DIR, not over the tables in memory (the partitioned
    /// executor reads a large scan a partition at a time).
    #[arg(long, requires = "files")]
    pub scan: bool,
    /// Hold money, discounts and taxes as TPC-H's Decimal(15, 2) instead
    /// of f64.
    #[arg(long)]
    pub decimals: bool,
}

fn parse_scale(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(scale) if scale.is_finite() && scale > 0.0 => Ok(scale),
        _ => Err(format!("{text:?} is not a positive scale factor")),
    }
}

pub fn run(args: &PdshArgs) -> ExitCode {
    let engine = match args.engine.resolved() {
        Ok(engine) => engine,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let started = Instant::now();
    let generated = Tables::generate(args.scale, true);
    let tables = match generated.and_then(|t| {
        if args.decimals {
            t.with_decimals()
        } else {
            Ok(t)
        }
    }) {
        Ok(tables) => tables,
        Err(e) => {
            eprintln!("error: could not generate the PDS-H tables: {e}");
            return ExitCode::FAILURE;
        }
    };
    let files = match (&args.parquet, &args.csv) {
        (Some(dir), _) => Some((dir, "Parquet", tables.write_parquet(dir))),
        (_, Some(dir)) => Some((dir, "CSV", tables.write_csv(dir))),
        _ => None,
    };
    if let Some((dir, _, written)) = &files {
        match written {
            Ok(paths) => say!("wrote {} tables to {}", paths.len(), dir.display()),
            Err(e) => {
                eprintln!(
                    "error: could not write the tables to {}: {e}",
                    dir.display()
                );
                return ExitCode::FAILURE;
            }
        }
    }
    say!(
        "PDS-H at scale factor {}{}{} ({} lineitem rows, generated in {:.1?}), engine {}\n",
        args.scale,
        if args.decimals {
            ", money as decimals"
        } else {
            ""
        },
        match files {
            Some((_, format, _)) if args.scan => format!(", scanned from {format} files"),
            _ => String::new(),
        },
        tables.lineitem.height(),
        started.elapsed(),
        args.engine.name()
    );
    let numbers: Vec<usize> = match args.query {
        Some(number) => vec![usize::from(number)],
        None => (1..=QUERY_COUNT).collect(),
    };
    let mut failed = 0;
    for number in numbers {
        say!("== q{number}");
        let query = match (&args.parquet, &args.csv) {
            (Some(dir), _) if args.scan => pdsh::query_parquet(number, dir),
            (_, Some(dir)) if args.scan => pdsh::query_csv(number, dir),
            _ => pdsh::query(number, &tables),
        };
        let query = match query {
            Ok(query) => query,
            Err(e) => {
                failed += 1;
                say!("error: {e}\n");
                continue;
            }
        };
        if args.explain {
            match engine_select::explain_gpu(query) {
                Ok(text) => say!("{text}"),
                Err(e) => {
                    failed += 1;
                    say!("error: {e}\n");
                }
            }
            continue;
        }
        let started = Instant::now();
        match query.collect_with_report(&engine) {
            Ok((df, report)) => {
                say!("{report}");
                say!("rows: {}, time: {:.1?}", df.height(), started.elapsed());
                say!("{df}\n");
            }
            Err(e) => {
                failed += 1;
                say!("error: {e}\n");
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
