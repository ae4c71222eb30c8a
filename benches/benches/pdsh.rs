//! PDS-H on each engine side by side: criterion times every query per engine on the same generated tables, then prints and writes the table.
//!
//! Settings come from the environment, so that `cargo xtask bench` and the
//! device check (which runs this binary without cargo) set them alike:
//! `PDSH_SCALE` (scale factor, default 0.01), `PDSH_QUERIES` (e.g. `1,3,18`;
//! default all), `PDSH_DECIMALS` (set: money as `Decimal(15, 2)`, TPC-H's
//! types, instead of f64), `PDSH_PARQUET` (a folder: the tables written
//! there as Parquet files, and each query over scans of them, read in
//! ranges of rows by the partitioned executor where large), and the
//! engines, device and output folder of
//! `benches::side_by_side::Common`. Criterion's own options
//! (`--measurement-time`, `--sample-size`, a filter) follow `--`. Each query
//! is timed from the tables in host memory (or their files) to the result
//! in host memory: uploads and downloads (and reads) count.

use benches::side_by_side::{Common, Suite, run_suite, setting};
use pdsh::{QUERY_COUNT, Tables, query, query_parquet};

fn main() {
    if let Err(message) = run() {
        eprintln!("error: {message}");
        std::process::exit(2);
    }
}

fn run() -> Result<(), String> {
    let mut common = Common::from_env()?;
    let scale = match setting("PDSH_SCALE") {
        Some(text) => text
            .parse::<f64>()
            .ok()
            .filter(|s| s.is_finite() && *s > 0.0)
            .ok_or_else(|| format!("PDSH_SCALE={text:?} is not a positive scale factor"))?,
        None => 0.01,
    };
    let queries: Vec<usize> = match setting("PDSH_QUERIES") {
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
    let decimals = setting("PDSH_DECIMALS").is_some_and(|text| !text.is_empty() && text != "0");
    eprintln!("generating PDS-H tables at scale factor {scale}");
    let mut tables = Tables::generate(scale, true).map_err(|e| e.to_string())?;
    if decimals {
        tables = tables.with_decimals().map_err(|e| e.to_string())?;
    }
    // Limits that are shares of the data (`gpu@1/4`) are of the tables' bytes.
    common.data_bytes = Some(
        tables
            .named()
            .iter()
            .map(|(_, df)| df.estimated_size() as u64)
            .sum(),
    );
    let parquet = setting("PDSH_PARQUET").map(std::path::PathBuf::from);
    if let Some(dir) = &parquet {
        tables
            .write_parquet(dir)
            .map_err(|e| format!("writing the tables to {}: {e}", dir.display()))?;
    }
    let cases = queries
        .iter()
        .map(|&n| {
            let lf = match &parquet {
                Some(dir) => query_parquet(n, dir),
                None => query(n, &tables),
            };
            Ok((format!("q{n}"), lf.map_err(|e| format!("q{n}: {e}"))?))
        })
        .collect::<Result<Vec<_>, String>>()?;
    let suite = Suite {
        group: "pdsh",
        what: "query",
        title: format!(
            "PDS-H at scale factor {scale}{}{}",
            if decimals { ", money as decimals" } else { "" },
            if parquet.is_some() {
                ", scanned from Parquet files"
            } else {
                ""
            }
        ),
        settings: serde_json::json!({
            "scale_factor": scale,
            "decimals": decimals,
            "parquet": parquet.is_some(),
            "engines": common.engines,
            "executor": common.executor.map(|e| e.to_string()),
            "device_memory_limit": common.device_memory_limit,
            "data_bytes": common.data_bytes,
        }),
        without_speedup: &[],
    };
    run_suite(&suite, &cases, &common)
}
