//! PDS-H on each engine side by side: criterion times every query per engine on the same generated tables, then prints and writes the table.
//!
//! Settings come from the environment, so that `cargo xtask bench` and the
//! device check (which runs this binary without cargo) set them alike:
//! `PDSH_SCALE` (scale factor, default 0.01), `PDSH_QUERIES` (e.g. `1,3,18`;
//! default all), `PDSH_ENGINES` (of `cpu,gpu,emulated`; default `cpu,gpu`),
//! `PDSH_DEVICE` (the GPU ordinal, default 0), `PDSH_OUT` (the folder for
//! criterion's files and the table; default `target/pdsh-bench`). Criterion's
//! own options (`--measurement-time`, `--sample-size`, a filter) follow `--`.
//! Each query is timed from the tables in host memory to the result in host
//! memory: uploads and downloads count.

use std::hint::black_box;
use std::path::PathBuf;

use benches::pdsh_table::{self, ENGINES, GROUP, Measurement, bench_id};
use criterion::Criterion;
use engine_select::{DeviceKind, Engine, GpuEngine, LazyFrameExt};
use pdsh::{QUERY_COUNT, Tables, query};

struct Settings {
    scale: f64,
    queries: Vec<usize>,
    engines: Vec<String>,
    device: usize,
    out: PathBuf,
}

fn setting(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

fn settings() -> Result<Settings, String> {
    let scale = match setting("PDSH_SCALE") {
        Some(text) => text
            .parse::<f64>()
            .ok()
            .filter(|s| s.is_finite() && *s > 0.0)
            .ok_or_else(|| format!("PDSH_SCALE={text:?} is not a positive scale factor"))?,
        None => 0.01,
    };
    let queries = match setting("PDSH_QUERIES") {
        Some(text) if text != "all" => text
            .split(',')
            .map(|q| {
                q.trim()
                    .trim_start_matches('q')
                    .parse::<usize>()
                    .ok()
                    .filter(|n| (1..=QUERY_COUNT).contains(n))
                    .ok_or_else(|| format!("PDSH_QUERIES: {q:?} is not a query from 1 to 22"))
            })
            .collect::<Result<_, _>>()?,
        _ => (1..=QUERY_COUNT).collect(),
    };
    let engines: Vec<String> = setting("PDSH_ENGINES")
        .unwrap_or_else(|| "cpu,gpu".into())
        .split(',')
        .map(|e| e.trim().to_string())
        .collect();
    if let Some(unknown) = engines.iter().find(|e| !ENGINES.contains(&e.as_str())) {
        return Err(format!(
            "PDSH_ENGINES: {unknown:?} is not one of {}",
            ENGINES.join(", ")
        ));
    }
    let device = match setting("PDSH_DEVICE") {
        Some(text) => text
            .parse()
            .map_err(|_| format!("PDSH_DEVICE={text:?} is not a device ordinal"))?,
        None => 0,
    };
    let out = setting("PDSH_OUT")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/pdsh-bench"));
    Ok(Settings {
        scale,
        queries,
        engines,
        device,
        out,
    })
}

fn engine(name: &str, device: usize) -> Engine {
    match name {
        "cpu" => Engine::InMemory,
        "emulated" => Engine::Gpu(GpuEngine::new().with_device_kind(DeviceKind::Emulated)),
        _ => Engine::Gpu(GpuEngine::new().with_device(device)),
    }
}

fn run(settings: &Settings) -> Result<(), String> {
    std::fs::create_dir_all(&settings.out)
        .map_err(|e| format!("cannot create {}: {e}", settings.out.display()))?;
    let out = settings
        .out
        .canonicalize()
        .unwrap_or_else(|_| settings.out.clone());
    let criterion_dir = out.join("criterion");
    let mut criterion = Criterion::default()
        .output_directory(&criterion_dir)
        .configure_from_args();
    eprintln!("generating PDS-H tables at scale factor {}", settings.scale);
    let tables = Tables::generate(settings.scale, true).map_err(|e| e.to_string())?;
    let mut measurements = Vec::new();
    let mut group = criterion.benchmark_group(GROUP);
    for &number in &settings.queries {
        for name in &settings.engines {
            let engine = engine(name, settings.device);
            let lf = query(number, &tables).map_err(|e| format!("q{number}: {e}"))?;
            // One run outside the timing says which engine ran it and why.
            let (_, report) = lf
                .clone()
                .collect_with_report(&engine)
                .map_err(|e| format!("q{number} on {name}: {e}"))?;
            let id = bench_id(number, name);
            group.bench_function(&id, |b| {
                b.iter(|| black_box(lf.clone().collect_with(&engine).unwrap()))
            });
            measurements.push(Measurement {
                query: number,
                engine: name.clone(),
                executed_by: report.executed_by.to_string(),
                fallback: report.fallback_reasons.first().map(|r| r.message.clone()),
                median_ns: None,
            });
        }
    }
    group.finish();
    criterion.final_summary();
    for m in &mut measurements {
        m.median_ns =
            pdsh_table::read_median_ns(&criterion_dir, GROUP, &bench_id(m.query, &m.engine));
    }
    let rows = pdsh_table::rows(&measurements);
    let table = pdsh_table::render(&rows);
    let csv = out.join("pdsh.csv");
    let json = out.join("pdsh.json");
    let write = |path: &PathBuf, text: String| {
        std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
    };
    write(&csv, pdsh_table::to_csv(&rows))?;
    let json_text = serde_json::to_string_pretty(&pdsh_table::to_json(&rows, settings.scale))
        .map_err(|e| e.to_string())?;
    write(&json, json_text)?;
    println!(
        "\nPDS-H at scale factor {} (median of criterion's samples)\n{table}",
        settings.scale
    );
    println!("written: {} and {}", csv.display(), json.display());
    Ok(())
}

fn main() {
    if let Err(message) = settings().and_then(|s| run(&s)) {
        eprintln!("error: {message}");
        std::process::exit(2);
    }
}
