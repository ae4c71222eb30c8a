//! `polars-gpu sql`: a SQL query over Parquet, CSV and Arrow IPC files, on the engine of your choice, its result printed or written whole.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use engine_select::{CollectReport, EngineError, LazyFrameExt};
use polars::prelude::*;
use polars::sql::SQLContext;

use crate::options::EngineOptions;
use crate::progress::Progress;

/// Runs a SQL query over your files: each `--table` is scanned lazily
/// (so filters and column choices reach the reader), the query runs on the
/// chosen engine, and the result is printed (or written with `--output`)
/// with the engine that ran it and every reason the GPU did not.
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = EXIT_CODES)]
pub struct SqlArgs {
    /// The SQL query (or `--file`).
    #[arg(required_unless_present = "file", conflicts_with = "file")]
    query: Option<String>,
    /// Read the SQL query from this file.
    #[arg(long, value_name = "F")]
    file: Option<PathBuf>,
    /// A table: NAME=PATH, or a bare PATH (the table named after the file's
    /// stem). Parquet (.parquet, .pq), CSV (.csv) or Arrow IPC (.arrow,
    /// .ipc, .feather) by extension; globs allowed (`data/*.parquet`).
    /// Repeatable.
    #[arg(long = "table", value_name = "NAME=PATH", value_parser = parse_table)]
    tables: Vec<TableSpec>,
    #[command(flatten)]
    engine: EngineOptions,
    /// Print the GPU plan (or every reason it has none, and the subplans a
    /// mixed plan would run on the device) instead of running the query.
    #[arg(long)]
    explain: bool,
    /// Write the result to PATH (Parquet, CSV or Arrow IPC by extension)
    /// instead of printing it: whole, or not at all.
    #[arg(long, value_name = "PATH")]
    output: Option<PathBuf>,
    /// How to print the report: text (the result, the engine, the reasons,
    /// the time) or json (the report alone, one object, for scripts).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

const EXIT_CODES: &str = "Exit codes: 0 the query ran; 1 the engine failed \
(--raise-on-fail without a GPU, an internal error); 2 the command line is wrong; \
3 a file is missing, unreadable or not of its extension's format; 4 the SQL does \
not parse, names an unknown table or column, or Polars cannot run it; 5 the result \
could not be written.";

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    Text,
    Json,
}

/// The file formats a table or an output may have, by extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FileFormat {
    Parquet,
    Csv,
    Ipc,
}

impl FileFormat {
    fn of(path: &str) -> Result<FileFormat, String> {
        let extension = Path::new(path)
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match extension.as_deref() {
            Some("parquet" | "pq") => Ok(FileFormat::Parquet),
            Some("csv") => Ok(FileFormat::Csv),
            Some("arrow" | "ipc" | "feather") => Ok(FileFormat::Ipc),
            _ => Err(format!(
                "{path}: not a Parquet (.parquet, .pq), CSV (.csv) or Arrow IPC (.arrow, \
                 .ipc, .feather) file by its extension"
            )),
        }
    }

    fn name(self) -> &'static str {
        match self {
            FileFormat::Parquet => "Parquet",
            FileFormat::Csv => "CSV",
            FileFormat::Ipc => "Arrow IPC",
        }
    }
}

/// One `--table`: the name SQL knows it by, its path (a glob, maybe), its format.
#[derive(Debug, Clone)]
struct TableSpec {
    name: String,
    path: String,
    format: FileFormat,
}

fn parse_table(text: &str) -> Result<TableSpec, String> {
    let identifier = |name: &str| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    let (name, path) = match text.split_once('=') {
        Some((name, path)) if identifier(name) => (name.to_owned(), path.to_owned()),
        _ => {
            let stem = Path::new(text)
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default();
            if !identifier(stem) {
                return Err(format!(
                    "{text}: the file's stem {stem:?} is no table name; name it: NAME=PATH"
                ));
            }
            (stem.to_owned(), text.to_owned())
        }
    };
    if path.is_empty() {
        return Err(format!("{text}: no path after the table's name"));
    }
    let format = FileFormat::of(&path)?;
    Ok(TableSpec { name, path, format })
}

/// Why a SQL job failed, and its exit code.
enum Failure {
    Engine(String),
    Usage(String),
    Input(String),
    Query(String),
    Output(String),
}

impl Failure {
    fn report(self) -> ExitCode {
        let (code, message) = match self {
            Failure::Engine(m) => (1, m),
            Failure::Usage(m) => (2, m),
            Failure::Input(m) => (3, m),
            Failure::Query(m) => (4, m),
            Failure::Output(m) => (5, m),
        };
        eprintln!("error: {message}");
        ExitCode::from(code)
    }
}

pub fn run(args: &SqlArgs) -> ExitCode {
    match run_sql(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => failure.report(),
    }
}

fn run_sql(args: &SqlArgs) -> Result<(), Failure> {
    let engine = args.engine.resolved().map_err(Failure::Usage)?;
    let output_format = match &args.output {
        Some(path) => Some(FileFormat::of(&path.to_string_lossy()).map_err(Failure::Usage)?),
        None => None,
    };
    let query = match (&args.query, &args.file) {
        (Some(query), _) => query.clone(),
        (None, Some(file)) => std::fs::read_to_string(file)
            .map_err(|e| Failure::Input(format!("{}: {e}", file.display())))?,
        (None, None) => return Err(Failure::Usage("no query: give one, or --file".into())),
    };
    let quiet = args.format == Format::Json;
    let progress = Progress::start("scanning", quiet);
    let mut context = SQLContext::new();
    for table in &args.tables {
        context.register(&table.name, scan(table)?);
    }
    let lf = context
        .execute(&query)
        .map_err(|e| Failure::Query(with_position(e.to_string(), &query)))?;
    if args.explain {
        drop(progress);
        let text = engine_select::explain_gpu(lf).map_err(query_failure)?;
        say!("{text}");
        return Ok(());
    }
    progress.stage("running");
    let started = Instant::now();
    let (mut df, report) = lf.collect_with_report(&engine).map_err(query_failure)?;
    let elapsed = started.elapsed();
    if let (Some(path), Some(format)) = (&args.output, output_format) {
        progress.stage("writing");
        write_whole(&mut df, path, format)?;
    }
    drop(progress);
    match args.format {
        Format::Text => {
            if args.output.is_none() {
                say!("{df}");
            }
            say!("{report}");
            let written = match &args.output {
                Some(path) => format!(", written to {}", path.display()),
                None => String::new(),
            };
            say!(
                "rows: {}, time: {elapsed:.1?}, engine {}{written}",
                df.height(),
                args.engine.name()
            );
        }
        Format::Json => say!("{}", json_report(args, &df, &report, elapsed)),
    }
    Ok(())
}

/// A SQL error, with the place it names: the parser says where, but for
/// a query that ends too soon, whose end it names as `EOF` alone.
fn with_position(message: String, query: &str) -> String {
    if !message.contains("found: EOF") || message.contains("Line:") {
        return message;
    }
    let trimmed = query.trim_end();
    let line = trimmed.lines().count().max(1);
    let column = trimmed.lines().last().map_or(0, |l| l.chars().count()) + 1;
    format!("{message} (the end of the query, at Line: {line}, Column: {column})")
}

/// The table scanned lazily, its schema read (so that a missing file or
/// one not of its format is said now, naming the file).
fn scan(table: &TableSpec) -> Result<LazyFrame, Failure> {
    let path = &table.path;
    let glob = path.contains(['*', '?', '[']);
    if !glob && !Path::new(path).is_file() {
        return Err(Failure::Input(format!(
            "{path}: no such file (table {})",
            table.name
        )));
    }
    let source = PlRefPath::new(path.as_str());
    let scanned = match table.format {
        FileFormat::Parquet => LazyFrame::scan_parquet(source, Default::default()),
        FileFormat::Csv => LazyCsvReader::new(source).finish(),
        FileFormat::Ipc => LazyFrame::scan_ipc(source, Default::default(), Default::default()),
    };
    let unreadable = |e: PolarsError| {
        Failure::Input(format!(
            "{path}: cannot be read as {} (table {}): {e}",
            table.format.name(),
            table.name
        ))
    };
    let mut lf = scanned.map_err(unreadable)?;
    lf.collect_schema().map_err(unreadable)?;
    Ok(lf)
}

fn query_failure(error: EngineError) -> Failure {
    match error {
        EngineError::Polars(PolarsError::IO { error, msg }) => {
            let context = msg.map(|m| format!(" ({m})")).unwrap_or_default();
            Failure::Input(format!("{error}{context}"))
        }
        EngineError::Polars(e) => Failure::Query(e.to_string()),
        other => Failure::Engine(other.to_string()),
    }
}

/// Writes `df` to `path` whole or not at all: into a file beside it, then
/// renamed over it (removed on any failure).
fn write_whole(df: &mut DataFrame, path: &Path, format: FileFormat) -> Result<(), Failure> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let partial = path.with_file_name(format!(".{name}.partial-{}", std::process::id()));
    let written = (|| -> Result<(), String> {
        let file = std::fs::File::create(&partial).map_err(|e| e.to_string())?;
        let done = match format {
            FileFormat::Parquet => ParquetWriter::new(file).finish(df).map(|_| ()),
            FileFormat::Csv => CsvWriter::new(file).finish(df),
            FileFormat::Ipc => IpcWriter::new(file).finish(df),
        };
        done.map_err(|e| e.to_string())?;
        std::fs::rename(&partial, path).map_err(|e| e.to_string())
    })();
    written.map_err(|e| {
        let _ = std::fs::remove_file(&partial);
        Failure::Output(format!("{}: {e}", path.display()))
    })
}

fn json_report(
    args: &SqlArgs,
    df: &DataFrame,
    report: &CollectReport,
    elapsed: std::time::Duration,
) -> serde_json::Value {
    let reasons: Vec<serde_json::Value> = report
        .fallback_reasons
        .iter()
        .map(|reason| {
            serde_json::json!({
                "kind": reason.kind.to_string(),
                "subject": reason.subject,
                "message": reason.message,
            })
        })
        .collect();
    let columns: Vec<serde_json::Value> = df
        .schema()
        .iter()
        .map(|(name, dtype)| serde_json::json!({"name": name.as_str(), "dtype": dtype.to_string()}))
        .collect();
    serde_json::json!({
        "engine": args.engine.name(),
        "executed_by": report.executed_by.to_string(),
        "fallback_reasons": reasons,
        "rows": df.height(),
        "columns": columns,
        "time_s": elapsed.as_secs_f64(),
        "output": args.output.as_ref().map(|p| p.display().to_string()),
    })
}
