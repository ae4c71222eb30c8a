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
//! (print every fallback reason of the cases that answered, to read the
//! reasons users meet).

pub mod code;
mod decimals;
mod expr;
mod grammar;
mod oracle;
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

use polars::prelude::{DataFrame, LazyFrame, ParquetWriter};
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

/// `df` as a scan of a Parquet file of it (in row groups of 4 rows, so
/// that ranges of rows start and end inside them), written once per
/// process and content into the temporary folder.
pub fn parquet(df: &DataFrame) -> LazyFrame {
    use std::hash::{Hash, Hasher};
    let mut df = df.clone();
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    format!("{:?}", df.schema()).hash(&mut hasher);
    for column in df.columns() {
        format!(
            "{:?}",
            column.as_materialized_series().iter().collect::<Vec<_>>()
        )
        .hash(&mut hasher);
    }
    let folder = std::env::temp_dir().join(format!("gpu-fuzz-{}", std::process::id()));
    let path = folder.join(format!("{:016x}.parquet", hasher.finish()));
    if !path.exists() {
        std::fs::create_dir_all(&folder).unwrap();
        let written = folder.join(format!("{:?}.part", std::thread::current().id()));
        ParquetWriter::new(std::fs::File::create(&written).unwrap())
            .with_row_group_size(Some(4))
            .finish(&mut df)
            .unwrap();
        std::fs::rename(&written, &path).unwrap();
    }
    LazyFrame::scan_parquet(path.to_str().unwrap().into(), Default::default()).unwrap()
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
