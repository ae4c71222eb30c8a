//! Side-by-side benchmark tables (PDS-H queries, operators): criterion's medians per case and engine, as text, CSV and JSON.

use std::fmt::Write as _;
use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::Criterion;
use engine_select::{DeviceKind, Engine, Executor, GpuEngine, LazyFrameExt, parse_byte_size};
use polars::prelude::LazyFrame;

/// The engines the benchmarks run, by the names the CLI uses.
pub const ENGINES: &[&str] = &["cpu", "gpu", "emulated"];

/// The criterion id of `case` on `engine`: `q01_cpu`, `filter_gpu`,
/// `q01_gpu@1of4` (a `/` would make a folder of criterion's files).
pub fn bench_id(case: &str, engine: &str) -> String {
    format!("{case}_{}", engine.replace('/', "of"))
}

/// An engine a benchmark names: one of [`ENGINES`], and for the GPU
/// engines a device memory limit after `@`: a size (`gpu@512MiB`) or a
/// share of the bytes of the data the suite reads (`gpu@1/4`), so that
/// one run sets limited engines beside the unlimited one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EngineSpec<'a> {
    pub base: &'a str,
    pub limit: Option<Limit>,
}

/// A device memory limit of an [`EngineSpec`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    Bytes(u64),
    /// One `n`th of the bytes of the data the suite reads.
    ShareOfData(u64),
}

/// `name` as an [`EngineSpec`], or what is wrong with it.
pub fn parse_engine(name: &str) -> Result<EngineSpec<'_>, String> {
    let (base, limit) = match name.split_once('@') {
        Some((base, limit)) => (base, Some(limit)),
        None => (name, None),
    };
    if !ENGINES.contains(&base) {
        return Err(format!("{base:?} is not one of {}", ENGINES.join(", ")));
    }
    let limit = match limit {
        None => None,
        Some(_) if base == "cpu" => {
            return Err(format!(
                "{name:?}: only the GPU engines take a memory limit"
            ));
        }
        Some(limit) => Some(match limit.strip_prefix("1/") {
            Some(n) => Limit::ShareOfData(
                n.parse()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| format!("{name:?}: {n:?} is not a positive whole number"))?,
            ),
            None => Limit::Bytes(parse_byte_size(limit).map_err(|e| format!("{name:?}: {e}"))?),
        }),
    };
    Ok(EngineSpec { base, limit })
}

/// One case (a query, an operator) on one engine: what ran it and
/// criterion's median.
#[derive(Debug, Clone, PartialEq)]
pub struct Measurement {
    /// The case's name in the table (`q1`, `filter`).
    pub case: String,
    /// The engine asked for (`cpu`, `gpu`, `emulated`).
    pub engine: String,
    /// The engine that actually ran it (engine-select's report).
    pub executed_by: String,
    /// The first fallback reason, if it fell back.
    pub fallback: Option<String>,
    /// Criterion's median time in nanoseconds; `None` when not measured
    /// (filtered out, or criterion left no estimate).
    pub median_ns: Option<f64>,
}

/// Criterion's median estimate (nanoseconds) of benchmark `id` in `group`,
/// from `<criterion_dir>/<group>/<id>/new/estimates.json`.
pub fn read_median_ns(criterion_dir: &Path, group: &str, id: &str) -> Option<f64> {
    let path = criterion_dir
        .join(group)
        .join(id)
        .join("new")
        .join("estimates.json");
    let text = std::fs::read_to_string(path).ok()?;
    let estimates: serde_json::Value = serde_json::from_str(&text).ok()?;
    estimates["median"]["point_estimate"].as_f64()
}

/// One line of the table: a case on an engine beside the CPU.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub case: String,
    pub engine: String,
    pub cpu_ms: Option<f64>,
    pub engine_ms: Option<f64>,
    /// CPU time over the engine's time.
    pub speedup: Option<f64>,
    pub executed_by: String,
    pub fallback: Option<String>,
}

/// The table's lines: each case on each engine other than `cpu`, beside
/// the case's CPU time (only the CPU lines when no other engine ran).
pub fn rows(measurements: &[Measurement]) -> Vec<Row> {
    let cpu = |case: &str| {
        measurements
            .iter()
            .find(|m| m.case == case && m.engine == "cpu")
    };
    let others: Vec<&Measurement> = measurements.iter().filter(|m| m.engine != "cpu").collect();
    let shown: Vec<&Measurement> = if others.is_empty() {
        measurements.iter().collect()
    } else {
        others
    };
    shown
        .into_iter()
        .map(|m| {
            let cpu_ms = cpu(&m.case).and_then(|c| c.median_ns).map(|ns| ns / 1e6);
            let engine_ms = m.median_ns.map(|ns| ns / 1e6);
            let speedup = match (cpu_ms, engine_ms) {
                (Some(c), Some(e)) if e > 0.0 && m.engine != "cpu" => Some(c / e),
                _ => None,
            };
            Row {
                case: m.case.clone(),
                engine: m.engine.clone(),
                cpu_ms,
                engine_ms,
                speedup,
                executed_by: m.executed_by.clone(),
                fallback: m.fallback.clone(),
            }
        })
        .collect()
}

/// The engines of `rows`, each once, in order of appearance.
fn engines_of(rows: &[Row]) -> Vec<&str> {
    let mut engines: Vec<&str> = Vec::new();
    for row in rows {
        if !engines.contains(&row.engine.as_str()) {
            engines.push(&row.engine);
        }
    }
    engines
}

/// The geometric mean of the speedups of `engine`'s lines (those measured).
pub fn geometric_mean_speedup(rows: &[Row], engine: &str) -> Option<f64> {
    let speedups: Vec<f64> = rows
        .iter()
        .filter(|r| r.engine == engine)
        .filter_map(|r| r.speedup)
        .collect();
    if speedups.is_empty() {
        return None;
    }
    let log_sum: f64 = speedups.iter().map(|s| s.ln()).sum();
    Some((log_sum / speedups.len() as f64).exp())
}

fn significant(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let decimals = (2 - v.abs().log10().floor() as i32).clamp(0, 12) as usize;
    format!("{v:.decimals$}")
}

fn ms(value: Option<f64>) -> String {
    value.map_or_else(|| "-".into(), |v| format!("{v:.2}"))
}

fn ratio(value: Option<f64>) -> String {
    // Three significant digits: an emulated device's ratios are tiny.
    value.map_or_else(|| "-".into(), |v| format!("{}x", significant(v)))
}

/// The table as aligned text (`what`: the first column's title, e.g.
/// "query"), with a geometric mean per engine.
pub fn render(rows: &[Row], what: &str) -> String {
    let header = [what, "engine", "CPU ms", "engine ms", "speedup", "ran on"];
    let lines: Vec<[String; 6]> = rows
        .iter()
        .map(|r| {
            [
                r.case.clone(),
                r.engine.clone(),
                ms(r.cpu_ms),
                ms(r.engine_ms),
                ratio(r.speedup),
                match &r.fallback {
                    Some(reason) => format!("{} (fell back: {reason})", r.executed_by),
                    None => r.executed_by.clone(),
                },
            ]
        })
        .collect();
    let mut widths = header.map(str::len);
    for line in &lines {
        for (width, cell) in widths.iter_mut().zip(line) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let mut push = |cells: &[String]| {
        let padded: Vec<String> = cells
            .iter()
            .zip(widths)
            .map(|(cell, width)| format!("{cell:<width$}"))
            .collect();
        let _ = writeln!(out, "{}", padded.join("  ").trim_end());
    };
    push(&header.map(String::from));
    for line in &lines {
        push(line);
    }
    let engines = engines_of(rows);
    for engine in engines {
        if let Some(mean) = geometric_mean_speedup(rows, engine) {
            let _ = writeln!(
                out,
                "geometric mean speedup of {engine}: {}x",
                significant(mean)
            );
        }
    }
    out
}

fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// The table as CSV (times in milliseconds; empty where not measured);
/// `what` titles the first column.
pub fn to_csv(rows: &[Row], what: &str) -> String {
    let number = |v: Option<f64>| v.map_or_else(String::new, |v| format!("{v:.4}"));
    let mut out = format!("{what},engine,cpu_ms,engine_ms,speedup,executed_by,fallback\n");
    for r in rows {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{}",
            csv_field(&r.case),
            csv_field(&r.engine),
            number(r.cpu_ms),
            number(r.engine_ms),
            number(r.speedup),
            csv_field(&r.executed_by),
            csv_field(r.fallback.as_deref().unwrap_or(""))
        );
    }
    out
}

/// The table as JSON: the settings it was measured with (`settings`, an
/// object), and the lines.
pub fn to_json(rows: &[Row], settings: serde_json::Value) -> serde_json::Value {
    let lines: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| {
            serde_json::json!({
                "case": r.case,
                "engine": r.engine,
                "cpu_ms": r.cpu_ms,
                "engine_ms": r.engine_ms,
                "speedup": r.speedup,
                "executed_by": r.executed_by,
                "fallback": r.fallback,
            })
        })
        .collect();
    let engines = engines_of(rows);
    let means: serde_json::Map<String, serde_json::Value> = engines
        .into_iter()
        .map(|e| (e.to_string(), geometric_mean_speedup(rows, e).into()))
        .collect();
    serde_json::json!({
        "settings": settings,
        "rows": lines,
        "geometric_mean_speedup": means,
    })
}

/// The settings every side-by-side benchmark takes from the environment,
/// so that a copied bench binary runs without cargo: `BENCH_ENGINES` (of
/// `cpu,gpu,emulated`; default `cpu,gpu`), `BENCH_DEVICE` (the GPU's
/// ordinal, default 0), `BENCH_OUT` (the folder for criterion's files and
/// the tables; default `target/bench`), and `BENCH_RUNS`: when set, each
/// case is timed that many times by a plain clock instead of criterion's
/// at least eleven runs, for a GPU lease too short for criterion at large
/// scale factors (the table says which); and for the GPU engines
/// `BENCH_EXECUTOR` (in-memory, partitioned or auto) and
/// `BENCH_DEVICE_MEMORY_LIMIT` (a size: `512MiB`, `8GiB`), which an
/// engine's own limit (`gpu@1/4`: [`parse_engine`]) replaces.
#[derive(Debug, Clone)]
pub struct Common {
    pub engines: Vec<String>,
    pub device: usize,
    pub out: PathBuf,
    pub runs: Option<usize>,
    pub executor: Option<Executor>,
    pub device_memory_limit: Option<u64>,
    /// Bytes of the data the suite reads, for limits that are shares of
    /// it (the suite sets it).
    pub data_bytes: Option<u64>,
}

/// A setting from the environment; unset or blank is `None`.
pub fn setting(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

impl Common {
    pub fn from_env() -> Result<Common, String> {
        let engines: Vec<String> = setting("BENCH_ENGINES")
            .unwrap_or_else(|| "cpu,gpu".into())
            .split(',')
            .map(|e| e.trim().to_string())
            .collect();
        for name in &engines {
            parse_engine(name).map_err(|e| format!("BENCH_ENGINES: {e}"))?;
        }
        let device = match setting("BENCH_DEVICE") {
            Some(text) => text
                .parse()
                .map_err(|_| format!("BENCH_DEVICE={text:?} is not a device ordinal"))?,
            None => 0,
        };
        let out = setting("BENCH_OUT")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/bench"));
        let runs = match setting("BENCH_RUNS") {
            Some(text) => Some(
                text.parse()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| format!("BENCH_RUNS={text:?} is not a positive count"))?,
            ),
            None => None,
        };
        let executor = match setting("BENCH_EXECUTOR") {
            Some(text) => Some(
                text.trim()
                    .parse()
                    .map_err(|e| format!("BENCH_EXECUTOR: {e}"))?,
            ),
            None => None,
        };
        let device_memory_limit = match setting("BENCH_DEVICE_MEMORY_LIMIT") {
            Some(text) => Some(
                parse_byte_size(&text).map_err(|e| format!("BENCH_DEVICE_MEMORY_LIMIT: {e}"))?,
            ),
            None => None,
        };
        Ok(Common {
            engines,
            device,
            out,
            runs,
            executor,
            device_memory_limit,
            data_bytes: None,
        })
    }
}

/// The engine a benchmark names: `cpu` is Polars' in-memory engine, `gpu`
/// the GPU engine on device `device` (falling back where it must),
/// `emulated` the GPU engine on the emulated device; either with a memory
/// limit after `@` ([`parse_engine`]).
pub fn engine(name: &str, common: &Common) -> Result<Engine, String> {
    let spec = parse_engine(name)?;
    let gpu = match spec.base {
        "cpu" => return Ok(Engine::InMemory),
        "emulated" => GpuEngine::new().with_device_kind(DeviceKind::Emulated),
        _ => GpuEngine::new().with_device(common.device),
    };
    let gpu = match common.executor {
        Some(executor) => gpu.with_executor(executor),
        None => gpu,
    };
    let limit = match spec.limit {
        None => common.device_memory_limit,
        Some(Limit::Bytes(bytes)) => Some(bytes),
        Some(Limit::ShareOfData(n)) => Some(
            common
                .data_bytes
                .ok_or_else(|| format!("{name:?}: this suite does not say its data's bytes"))?
                / n,
        ),
    };
    Ok(Engine::Gpu(match limit {
        Some(limit) => gpu.with_device_memory_limit(limit),
        None => gpu,
    }))
}

/// What ran a case, as the table shows it: the engine, and the device
/// runs of a partitioned run (and its partitions read from files).
fn ran_on(report: &engine_select::CollectReport) -> String {
    match &report.partitioned {
        Some(run) if run.file_partitions > 0 => format!(
            "{} (partitioned: {} device runs, {} partitions read from files)",
            report.executed_by, run.device_runs, run.file_partitions
        ),
        Some(run) => format!(
            "{} (partitioned: {} device runs)",
            report.executed_by, run.device_runs
        ),
        None => report.executed_by.to_string(),
    }
}

/// A side-by-side benchmark: its criterion group (also the stem of the
/// table's files), the first column's title, a line above the table, and
/// the settings recorded in the JSON.
#[derive(Debug)]
pub struct Suite<'a> {
    pub group: &'a str,
    pub what: &'a str,
    pub title: String,
    pub settings: serde_json::Value,
    /// Cases timed and shown without a speedup, so outside the geometric
    /// mean: those where the CPU has no work to compare (a round trip of
    /// the columns, which it holds already).
    pub without_speedup: &'a [&'a str],
}

/// Times every case on every engine under criterion (each run once first,
/// untimed, to record the engine that ran it and the first fallback
/// reason), then prints the table and writes `<group>.csv` and
/// `<group>.json` into `common.out`.
pub fn run_suite(
    suite: &Suite<'_>,
    cases: &[(String, LazyFrame)],
    common: &Common,
) -> Result<(), String> {
    std::fs::create_dir_all(&common.out)
        .map_err(|e| format!("cannot create {}: {e}", common.out.display()))?;
    let out = common
        .out
        .canonicalize()
        .unwrap_or_else(|_| common.out.clone());
    let criterion_dir = out.join("criterion");
    let mut criterion = Criterion::default()
        .output_directory(&criterion_dir)
        .configure_from_args();
    let mut measurements = Vec::new();
    let mut group = criterion.benchmark_group(suite.group);
    for (case, lf) in cases {
        for name in &common.engines {
            let engine = engine(name, common)?;
            let (_, report) = lf
                .clone()
                .collect_with_report(&engine)
                .map_err(|e| format!("{case} on {name}: {e}"))?;
            let median_ns = match common.runs {
                Some(runs) => {
                    let median = median_of_runs(runs, || {
                        lf.clone()
                            .collect_with(&engine)
                            .map_err(|e| format!("{case} on {name}: {e}"))
                    })?;
                    // Line by line, so that a run cut short still tells.
                    eprintln!(
                        "{case} on {name}: {:.2} ms, ran on {}",
                        median / 1e6,
                        report.executed_by
                    );
                    Some(median)
                }
                None => {
                    group.bench_function(bench_id(case, name), |b| {
                        b.iter(|| black_box(lf.clone().collect_with(&engine).unwrap()))
                    });
                    None
                }
            };
            measurements.push(Measurement {
                case: case.clone(),
                engine: name.clone(),
                executed_by: ran_on(&report),
                fallback: report.fallback_reasons.first().map(|r| r.message.clone()),
                median_ns,
            });
        }
    }
    group.finish();
    criterion.final_summary();
    for m in &mut measurements {
        if common.runs.is_none() {
            m.median_ns =
                read_median_ns(&criterion_dir, suite.group, &bench_id(&m.case, &m.engine));
        }
    }
    let mut rows = rows(&measurements);
    for row in &mut rows {
        if suite.without_speedup.contains(&row.case.as_str()) {
            row.speedup = None;
        }
    }
    let csv = out.join(format!("{}.csv", suite.group));
    let json = out.join(format!("{}.json", suite.group));
    let write = |path: &PathBuf, text: String| {
        std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
    };
    write(&csv, to_csv(&rows, suite.what))?;
    let json_text = serde_json::to_string_pretty(&to_json(&rows, suite.settings.clone()))
        .map_err(|e| e.to_string())?;
    write(&json, json_text)?;
    let how = match common.runs {
        Some(runs) => format!("median of {runs} runs by a plain clock, without criterion"),
        None => "median of criterion's samples".into(),
    };
    println!("\n{} ({how})\n{}", suite.title, render(&rows, suite.what));
    println!("written: {} and {}", csv.display(), json.display());
    Ok(())
}

/// The median wall time in nanoseconds of `runs` calls of `run` (after
/// the caller's untimed first run), for `BENCH_RUNS`.
fn median_of_runs<T>(
    runs: usize,
    mut run: impl FnMut() -> Result<T, String>,
) -> Result<f64, String> {
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = std::time::Instant::now();
        black_box(run()?);
        times.push(start.elapsed().as_nanos() as f64);
    }
    times.sort_by(f64::total_cmp);
    let middle = times.len() / 2;
    Ok(if times.len() % 2 == 1 {
        times[middle]
    } else {
        (times[middle - 1] + times[middle]) / 2.0
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measured(query: usize, engine: &str, ms: Option<f64>, ran: &str) -> Measurement {
        Measurement {
            case: format!("q{query}"),
            engine: engine.into(),
            executed_by: ran.into(),
            fallback: (ran == "cpu (in-memory)" && engine != "cpu")
                .then(|| "no CUDA driver, with \"quotes\", and commas".into()),
            median_ns: ms.map(|ms| ms * 1e6),
        }
    }

    #[test]
    fn rows_put_each_engine_beside_the_cpu_and_average_geometrically() {
        let measurements = [
            measured(1, "cpu", Some(40.0), "cpu (in-memory)"),
            measured(1, "gpu", Some(10.0), "gpu (device 0)"),
            measured(2, "cpu", Some(9.0), "cpu (in-memory)"),
            measured(2, "gpu", Some(1.0), "gpu (device 0)"),
            measured(3, "cpu", None, "cpu (in-memory)"),
            measured(3, "gpu", Some(5.0), "cpu (in-memory)"),
        ];
        let rows = rows(&measurements);
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0].speedup, Some(4.0));
        assert_eq!(rows[1].speedup, Some(9.0));
        assert_eq!(rows[2].speedup, None);
        // sqrt(4 * 9) = 6: the unmeasured line does not count.
        let mean = geometric_mean_speedup(&rows, "gpu").unwrap();
        assert!((mean - 6.0).abs() < 1e-12, "{mean}");
        let text = render(&rows, "query");
        assert!(
            text.starts_with("query  engine  CPU ms  engine ms  speedup"),
            "{text}"
        );
        assert!(
            text.contains("q2     gpu     9.00    1.00       9.00x"),
            "{text}"
        );
        assert!(
            text.contains("geometric mean speedup of gpu: 6.00x"),
            "{text}"
        );
        assert!(
            text.contains("cpu (in-memory) (fell back: no CUDA driver"),
            "{text}"
        );
        let csv = to_csv(&rows, "query");
        assert_eq!(csv.lines().count(), 4, "{csv}");
        assert!(
            csv.contains(
                "3,gpu,,5.0000,,cpu (in-memory),\"no CUDA driver, with \"\"quotes\"\", and commas\""
            ),
            "{csv}"
        );
        let json = to_json(&rows, serde_json::json!({ "scale_factor": 10.0 }));
        assert_eq!(json["settings"]["scale_factor"], 10.0);
        assert_eq!(json["rows"][1]["case"], "q2");
        assert_eq!(json["rows"][1]["speedup"], 9.0);
        assert_eq!(json["geometric_mean_speedup"]["gpu"], mean);
    }

    #[test]
    fn engines_take_limits_as_sizes_or_shares_of_the_data() {
        let spec = |base, limit| Ok(EngineSpec { base, limit });
        assert_eq!(parse_engine("gpu"), spec("gpu", None));
        assert_eq!(
            parse_engine("emulated@1/16"),
            spec("emulated", Some(Limit::ShareOfData(16)))
        );
        assert_eq!(
            parse_engine("gpu@512MiB"),
            spec("gpu", Some(Limit::Bytes(512 << 20)))
        );
        for wrong in ["tpu", "cpu@1/4", "gpu@1/0", "gpu@1/x", "gpu@lots"] {
            assert!(parse_engine(wrong).is_err(), "{wrong}");
        }
        let mut common = Common {
            engines: vec![],
            device: 0,
            out: PathBuf::new(),
            runs: None,
            executor: None,
            device_memory_limit: Some(1 << 30),
            data_bytes: None,
        };
        assert!(engine("emulated@1/4", &common).is_err());
        common.data_bytes = Some(4 << 20);
        assert!(engine("emulated@1/4", &common).is_ok());
        assert_eq!(bench_id("q1", "emulated@1/4"), "q1_emulated@1of4");
    }

    #[test]
    fn ratios_keep_three_significant_digits() {
        assert_eq!(ratio(Some(0.002712)), "0.00271x");
        assert_eq!(ratio(Some(12.345)), "12.3x");
        assert_eq!(ratio(Some(1.0)), "1.00x");
        assert_eq!(ratio(None), "-");
    }

    #[test]
    fn only_cpu_lines_when_no_other_engine_ran() {
        let rows = rows(&[measured(1, "cpu", Some(2.0), "cpu (in-memory)")]);
        assert_eq!(rows.len(), 1);
        assert_eq!((rows[0].cpu_ms, rows[0].engine_ms), (Some(2.0), Some(2.0)));
        assert_eq!(rows[0].speedup, None);
    }

    #[test]
    fn medians_come_from_criterion_estimates_files() {
        let dir = std::env::temp_dir().join(format!("pdsh-table-{}", std::process::id()));
        let new = dir.join("pdsh").join("q01_gpu").join("new");
        std::fs::create_dir_all(&new).unwrap();
        std::fs::write(
            new.join("estimates.json"),
            r#"{"mean":{"point_estimate":2.0},"median":{"point_estimate":1500000.0}}"#,
        )
        .unwrap();
        assert_eq!(read_median_ns(&dir, "pdsh", "q01_gpu"), Some(1.5e6));
        assert_eq!(read_median_ns(&dir, "pdsh", "q02_gpu"), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
