//! The PDS-H benchmark table: criterion's medians per query and engine, side by side, as text, CSV and JSON.

use std::fmt::Write as _;
use std::path::Path;

/// The criterion group the PDS-H benchmark writes its estimates under.
pub const GROUP: &str = "pdsh";

/// The engines the PDS-H benchmark runs, by the names the CLI uses.
pub const ENGINES: &[&str] = &["cpu", "gpu", "emulated"];

/// The criterion id of `query` on `engine`: `q01_cpu`.
pub fn bench_id(query: usize, engine: &str) -> String {
    format!("q{query:02}_{engine}")
}

/// One query on one engine: what ran it and criterion's median.
#[derive(Debug, Clone, PartialEq)]
pub struct Measurement {
    pub query: usize,
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

/// One line of the table: a query on an engine beside the CPU.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub query: usize,
    pub engine: String,
    pub cpu_ms: Option<f64>,
    pub engine_ms: Option<f64>,
    /// CPU time over the engine's time.
    pub speedup: Option<f64>,
    pub executed_by: String,
    pub fallback: Option<String>,
}

/// The table's lines: each query on each engine other than `cpu`, beside
/// the query's CPU time (only the CPU lines when no other engine ran).
pub fn rows(measurements: &[Measurement]) -> Vec<Row> {
    let cpu = |query: usize| {
        measurements
            .iter()
            .find(|m| m.query == query && m.engine == "cpu")
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
            let cpu_ms = cpu(m.query).and_then(|c| c.median_ns).map(|ns| ns / 1e6);
            let engine_ms = m.median_ns.map(|ns| ns / 1e6);
            let speedup = match (cpu_ms, engine_ms) {
                (Some(c), Some(e)) if e > 0.0 && m.engine != "cpu" => Some(c / e),
                _ => None,
            };
            Row {
                query: m.query,
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

/// The table as aligned text, with a geometric mean per engine.
pub fn render(rows: &[Row]) -> String {
    let header = [
        "query",
        "engine",
        "CPU ms",
        "engine ms",
        "speedup",
        "ran on",
    ];
    let lines: Vec<[String; 6]> = rows
        .iter()
        .map(|r| {
            [
                format!("q{}", r.query),
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

/// The table as CSV (times in milliseconds; empty where not measured).
pub fn to_csv(rows: &[Row]) -> String {
    let number = |v: Option<f64>| v.map_or_else(String::new, |v| format!("{v:.4}"));
    let mut out = String::from("query,engine,cpu_ms,engine_ms,speedup,executed_by,fallback\n");
    for r in rows {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{}",
            r.query,
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

/// The table as JSON: the settings it was measured with, and the lines.
pub fn to_json(rows: &[Row], scale: f64) -> serde_json::Value {
    let lines: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| {
            serde_json::json!({
                "query": r.query,
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
        "scale_factor": scale,
        "rows": lines,
        "geometric_mean_speedup": means,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measured(query: usize, engine: &str, ms: Option<f64>, ran: &str) -> Measurement {
        Measurement {
            query,
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
        let text = render(&rows);
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
        let csv = to_csv(&rows);
        assert_eq!(csv.lines().count(), 4, "{csv}");
        assert!(
            csv.contains(
                "3,gpu,,5.0000,,cpu (in-memory),\"no CUDA driver, with \"\"quotes\"\", and commas\""
            ),
            "{csv}"
        );
        let json = to_json(&rows, 10.0);
        assert_eq!(json["scale_factor"], 10.0);
        assert_eq!(json["rows"][1]["speedup"], 9.0);
        assert_eq!(json["geometric_mean_speedup"]["gpu"], mean);
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
        let new = dir.join(GROUP).join("q01_gpu").join("new");
        std::fs::create_dir_all(&new).unwrap();
        std::fs::write(
            new.join("estimates.json"),
            r#"{"mean":{"point_estimate":2.0},"median":{"point_estimate":1500000.0}}"#,
        )
        .unwrap();
        assert_eq!(read_median_ns(&dir, GROUP, "q01_gpu"), Some(1.5e6));
        assert_eq!(read_median_ns(&dir, GROUP, "q02_gpu"), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
