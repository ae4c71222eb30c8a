//! The differential fuzzer: random tables and random lazy queries, on Polars' CPU engine and on the GPU engine, compared exactly.
//!
//! A case is three random tables (`table`) and a chain of lazy operations
//! over them drawn from a grammar (`grammar`, `queries`): expressions by
//! the class of value they give, operations by the schema they meet. Each
//! case runs on `collect()` and on the GPU engine on the device under test,
//! fallback allowed (`oracle`): the GPU engine must give the same frame, or
//! raise where Polars raises; an internal error that fell back counts as a
//! failure too. A failing case is shrunk (`shrink`) and printed as a
//! self-contained Rust test, for `regressions.rs`.
//!
//! `cargo test -p engine-select --test it fuzz` runs a few hundred cases of
//! one seed; `cargo xtask fuzz --cases N --seed S` runs more, in release.
//! Settings: `FUZZ_CASES` (300), `FUZZ_SEED` (1), `FUZZ_CASE` (one case of
//! the seed), `FUZZ_THREADS` (1), `FUZZ_SHRINK` (runs spent shrinking a
//! failure, 300; 0 prints it unshrunk), `FUZZ_SHOW=1` (print every case),
//! `FUZZ_SUMMARY` (a file to append the summary line to), `FUZZ_REASONS=1`
//! (print every fallback reason of the cases that answered, with its
//! subject, to read the reasons users meet, and why each skipped case was).

pub mod code;
mod decimals;
mod expr;
mod grammar;
mod integer_powers;
mod list_functions;
pub(crate) mod oracle;
mod ordered;
mod plan;
mod queries;
mod regressions;
mod shrink;
mod table;
mod temporal;
mod ty;

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use polars::prelude::{
    CsvWriter, DataFrame, DataType, IntoLazy, LazyCsvReader, LazyFileListReader, LazyFrame,
    ParquetWriter, SerWriter,
};
use rand::SeedableRng;

pub use oracle::{Compare, Failure, Ran, Verdict};
use plan::Case;

/// The fuzzer's random number generator: portable, so a seed means the same case everywhere.
pub type Rng = rand_pcg::Pcg64;

/// Asserts that the GPU engine (fallback allowed) gives Polars' answer for
/// `lf`, or raises where Polars raises, without an internal error: what every
/// fuzz case checks, for the regression tests it prints.
pub fn assert_same_as_cpu(lf: LazyFrame, how: Compare) {
    oracle::quiet_panics();
    match oracle::judge(&lf, how) {
        Verdict::Same(_) | Verdict::Skipped(_) => {}
        Verdict::Failed(failure) => panic!("{}: {}", failure.kind(), failure.detail()),
    }
}

/// Where a case's tables are read from: memory, or files of them that
/// the partitioned executor reads in partitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Files {
    Memory,
    /// A Parquet file each ([`parquet`]).
    Parquet,
    /// Three Parquet files each ([`parquet_files`]).
    SeveralParquet,
    /// A CSV file each, where its types can be written so ([`csv`]).
    Csv,
}

impl Files {
    /// `df` as this reads it.
    pub fn scan(self, df: &DataFrame) -> LazyFrame {
        match self {
            Files::Memory => df.clone().lazy(),
            Files::Parquet => parquet(df),
            Files::SeveralParquet => parquet_files(df),
            Files::Csv if csv_writes(df) => csv(df),
            Files::Csv => parquet(df),
        }
    }

    /// The code of [`Files::scan`] of the table `name`, in a printed test.
    pub fn code(self, name: &str) -> String {
        match self {
            Files::Memory => format!("{name}.clone().lazy()"),
            Files::Parquet => format!("crate::fuzz::parquet(&{name})"),
            Files::SeveralParquet => format!("crate::fuzz::parquet_files(&{name})"),
            Files::Csv => format!("crate::fuzz::Files::Csv.scan(&{name})"),
        }
    }
}

/// A folder named by the schema and the values of `df`, in the temporary
/// folder, and whether it is written already.
fn content_folder(df: &DataFrame, kind: &str) -> (std::path::PathBuf, bool) {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    format!("{:?}", df.schema()).hash(&mut hasher);
    for column in df.columns() {
        format!(
            "{:?}",
            column.as_materialized_series().iter().collect::<Vec<_>>()
        )
        .hash(&mut hasher);
    }
    let parent = std::env::temp_dir().join(format!("gpu-fuzz-{}", std::process::id()));
    let folder = parent.join(format!("{kind}-{:016x}", hasher.finish()));
    let written = folder.exists();
    (folder, written)
}

/// Writes the files of a content folder (`write` into a folder of this
/// thread's, moved into place when whole).
fn write_folder(folder: &std::path::Path, write: impl FnOnce(&std::path::Path)) {
    let parent = folder.parent().unwrap();
    let part = parent.join(format!("{:?}.part", std::thread::current().id()));
    let _ = std::fs::remove_dir_all(&part);
    std::fs::create_dir_all(&part).unwrap();
    write(&part);
    if std::fs::rename(&part, folder).is_err() {
        // (Another thread wrote the same content first.)
        let _ = std::fs::remove_dir_all(&part);
    }
}

fn write_parquet(path: &std::path::Path, df: &DataFrame) {
    ParquetWriter::new(std::fs::File::create(path).unwrap())
        .with_row_group_size(Some(4))
        .finish(&mut df.clone())
        .unwrap();
}

/// `df` as a scan of a Parquet file of it (in row groups of 4 rows, so
/// that partitions start and end inside them), written once per process
/// and content into the temporary folder.
pub fn parquet(df: &DataFrame) -> LazyFrame {
    let (folder, written) = content_folder(df, "parquet");
    if !written {
        write_folder(&folder, |to| write_parquet(&to.join("0.parquet"), df));
    }
    let path = folder.join("0.parquet");
    LazyFrame::scan_parquet(path.to_str().unwrap().into(), Default::default()).unwrap()
}

/// `df` as a scan of three Parquet files of its rows in turn (as
/// [`parquet`] writes each), by a glob.
pub fn parquet_files(df: &DataFrame) -> LazyFrame {
    let (folder, written) = content_folder(df, "parquet-files");
    if !written {
        write_folder(&folder, |to| {
            let rows = df.height().div_ceil(3);
            for file in 0..3 {
                let part = df.slice((file * rows) as i64, rows);
                write_parquet(&to.join(format!("{file}.parquet")), &part);
            }
        });
    }
    let glob = folder.join("*.parquet");
    LazyFrame::scan_parquet(glob.to_str().unwrap().into(), Default::default()).unwrap()
}

/// Whether every column of `df` is of a type a CSV file holds and Polars
/// reads back by its schema (numbers, booleans, texts, dates).
pub fn csv_writes(df: &DataFrame) -> bool {
    df.width() > 0
        && df.dtypes().iter().all(|dtype| {
            dtype.is_primitive_numeric()
                || matches!(dtype, DataType::Boolean | DataType::String | DataType::Date)
        })
}

/// `df` as a scan of a CSV file of it, read by its schema.
pub fn csv(df: &DataFrame) -> LazyFrame {
    let (folder, written) = content_folder(df, "csv");
    if !written {
        write_folder(&folder, |to| {
            CsvWriter::new(std::fs::File::create(to.join("0.csv")).unwrap())
                .finish(&mut df.clone())
                .unwrap();
        });
    }
    let path = folder.join("0.csv");
    LazyCsvReader::new(path.to_str().unwrap().into())
        .with_schema(Some(df.schema().clone()))
        .finish()
        .unwrap()
}

fn setting(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .map(|v| {
            v.parse()
                .unwrap_or_else(|_| panic!("{name} must be a number, not {v:?}"))
        })
        .unwrap_or(default)
}

/// The case `index` of `seed`.
fn case(seed: u64, index: u64) -> Case {
    let mut rng = Rng::seed_from_u64(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ index);
    queries::random_case(&mut rng)
}

/// Counts of a run.
#[derive(Debug, Default)]
struct Summary {
    gpu: usize,
    mixed: usize,
    fallback: usize,
    both_raised: usize,
    skipped: usize,
    failed: usize,
}

impl Summary {
    fn add(&mut self, verdict: &Verdict) {
        match verdict {
            Verdict::Same(Ran::Gpu) => self.gpu += 1,
            Verdict::Same(Ran::Mixed) => self.mixed += 1,
            Verdict::Same(Ran::Fallback) => self.fallback += 1,
            Verdict::Same(Ran::BothRaised) => self.both_raised += 1,
            Verdict::Skipped(_) => self.skipped += 1,
            Verdict::Failed(_) => self.failed += 1,
        }
    }

    fn line(&self, seed: u64, cases: usize) -> String {
        let answered = (self.gpu + self.mixed + self.fallback).max(1) as f64;
        format!(
            "fuzz seed={seed} queries={cases}: equal={} (wholly on the device {}, {:.1} % of \
             answers; mixed {}; fell back {}), both raised={}, skipped={}, failed={}",
            self.gpu + self.mixed + self.fallback + self.both_raised,
            self.gpu,
            100.0 * self.gpu as f64 / answered,
            self.mixed,
            self.fallback,
            self.both_raised,
            self.skipped,
            self.failed
        )
    }
}

/// A failure, shrunk, as a test to paste into `regressions.rs`.
fn report(seed: u64, index: u64, case: Case, failure: &Failure) -> String {
    let budget = setting("FUZZ_SHRINK", 300) as usize;
    let kind = failure.kind();
    let shrunk = shrink::shrink(
        case,
        |c| matches!(oracle::judge(&c.lazy(), c.compare()), Verdict::Failed(f) if f.kind() == kind),
        budget,
    );
    let detail = match oracle::judge(&shrunk.lazy(), shrunk.compare()) {
        Verdict::Failed(f) => f.detail().to_string(),
        _ => failure.detail().to_string(),
    };
    format!(
        "--- seed {seed} case {index}: {kind}\n{detail}\n\n{}",
        shrunk.test_code(
            &format!("fuzz_seed_{seed}_case_{index}"),
            &format!("Found by the fuzzer (seed {seed}, case {index}): {kind}."),
        )
    )
}

#[test]
fn random_queries_match_the_cpu() {
    oracle::quiet_panics();
    let seed = setting("FUZZ_SEED", 1);
    let (indices, show): (Vec<u64>, bool) = match std::env::var("FUZZ_CASE") {
        Ok(one) => (vec![one.parse().expect("FUZZ_CASE is a number")], true),
        Err(_) => (
            (0..setting("FUZZ_CASES", 300)).collect(),
            setting("FUZZ_SHOW", 0) == 1,
        ),
    };
    let threads = setting("FUZZ_THREADS", 1).max(1) as usize;
    let next = AtomicUsize::new(0);
    let summary = Mutex::new(Summary::default());
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            // Cases are built and rendered recursively, deeper than a
            // debug build's 2 MiB default stack holds for the largest.
            std::thread::Builder::new()
                .stack_size(64 << 20)
                .spawn_scoped(scope, || {
                    loop {
                        let at = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&index) = indices.get(at) else {
                            break;
                        };
                        let case = case(seed, index);
                        if show {
                            println!("case {index}:\n{}", case.test_code("case", "shown"));
                        }
                        let verdict = oracle::judge(&case.lazy(), case.compare());
                        if let Verdict::Skipped(why) = &verdict
                            && std::env::var("FUZZ_REASONS").is_ok()
                        {
                            eprintln!("SKIPPED case {index}: {why}");
                        }
                        summary.lock().unwrap().add(&verdict);
                        if let Verdict::Failed(failure) = verdict {
                            let text = report(seed, index, case, &failure);
                            println!("{text}");
                            failures.lock().unwrap().push(text);
                        }
                    }
                })
                .expect("a fuzz worker thread");
        }
    });
    let line = summary.lock().unwrap().line(seed, indices.len());
    println!("{line}");
    if let Ok(path) = std::env::var("FUZZ_SUMMARY") {
        use std::io::Write;
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .unwrap_or_else(|e| panic!("{path}: {e}"));
        writeln!(file, "{line}").unwrap();
    }
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "{} of {} fuzz cases failed (seed {seed}):\n\n{}",
        failures.len(),
        indices.len(),
        failures.join("\n\n")
    );
}
