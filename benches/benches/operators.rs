//! Single operators on each engine side by side: a round trip of every column, a filter, a regular expression filter, a projection of one fused expression, a group-by, whole-column aggregations, a join and a sort over the same generated columns.
//!
//! `OPS_ROWS` sets the rows (default 1,000,000; a GPU wants tens of millions
//! to fill it), and the engines, device and output folder come from
//! `benches::side_by_side::Common`. Each case is timed from the frame in
//! host memory to the result in host memory: uploads and downloads count.

use benches::side_by_side::{Common, Suite, run_suite, setting};
use polars::prelude::*;

fn main() {
    if let Err(message) = run() {
        eprintln!("error: {message}");
        std::process::exit(2);
    }
}

/// `rows` rows: a key with 1,000 values, two float measures, a label of 100
/// texts, every tenth measure null.
fn facts(rows: usize) -> PolarsResult<DataFrame> {
    let mix = |i: usize| (i.wrapping_mul(2_654_435_761) % 1_000_003) as f64 / 1_000_003.0;
    df!(
        "key" => (0..rows).map(|i| (i.wrapping_mul(7919) % 1000) as i64).collect::<Vec<_>>(),
        "a" => (0..rows).map(|i| (i % 10 != 0).then(|| mix(i))).collect::<Vec<_>>(),
        "b" => (0..rows).map(|i| mix(i + 17) * 100.0).collect::<Vec<_>>(),
        "label" => (0..rows).map(|i| format!("label {}", i % 100)).collect::<Vec<_>>(),
    )
}

/// The 1,000 keys with a name and a weight.
fn dimension() -> PolarsResult<DataFrame> {
    df!(
        "key" => (0..1000i64).collect::<Vec<_>>(),
        "weight" => (0..1000).map(|i| f64::from(i) / 10.0).collect::<Vec<_>>(),
    )
}

fn run() -> Result<(), String> {
    let common = Common::from_env()?;
    let rows = match setting("OPS_ROWS") {
        Some(text) => text
            .replace('_', "")
            .parse::<usize>()
            .map_err(|_| format!("OPS_ROWS={text:?} is not a row count"))?,
        None => 1_000_000,
    };
    let facts = facts(rows).map_err(|e| e.to_string())?.lazy();
    let dimension = dimension().map_err(|e| e.to_string())?.lazy();
    let cases = vec![
        (
            // Every column to the device and back: what transfers cost.
            "transfer".to_string(),
            facts
                .clone()
                .select([col("key"), col("a"), col("b"), col("label")]),
        ),
        (
            "filter".to_string(),
            facts
                .clone()
                .filter(col("a").gt(lit(0.5)).and(col("key").lt(lit(500i64)))),
        ),
        (
            // A regular expression: a DFA walk per text on the device.
            "regex".to_string(),
            facts
                .clone()
                .filter(col("label").str().contains(lit(r"^label [1-3]\d?$"), true)),
        ),
        (
            "project".to_string(),
            facts.clone().select([((col("a") * lit(2.0) + col("b"))
                / ((col("a") - col("b")).abs() + lit(1.0)))
            .alias("fused")]),
        ),
        (
            "group_by".to_string(),
            facts.clone().group_by([col("key")]).agg([
                col("a").sum().alias("sum"),
                col("b").mean().alias("mean"),
                len(),
            ]),
        ),
        (
            // Whole-column aggregations: one device-wide reduction each.
            "aggregate".to_string(),
            facts.clone().select([
                col("key").sum().alias("sum"),
                col("key").min().alias("min"),
                col("key").max().alias("max"),
                col("a").max().alias("a max"),
            ]),
        ),
        (
            "join".to_string(),
            facts.clone().join(
                dimension,
                [col("key")],
                [col("key")],
                JoinArgs::new(JoinType::Inner),
            ),
        ),
        (
            "sort".to_string(),
            facts.sort(["b"], SortMultipleOptions::default()),
        ),
    ];
    let suite = Suite {
        group: "operators",
        what: "operator",
        title: format!("Operators over {rows} rows"),
        settings: serde_json::json!({
            "rows": rows,
            "engines": common.engines,
            "executor": common.executor.map(|e| e.to_string()),
            "device_memory_limit": common.device_memory_limit,
        }),
        without_speedup: &["transfer"],
    };
    run_suite(&suite, &cases, &common)
}
