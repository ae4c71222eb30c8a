//! End-to-end tests of `polars-gpu sql`: queries over Parquet, CSV and IPC files equal to the CPU engine's, and every bad input's message and exit code.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use polars::prelude::*;

/// A fresh folder of its own for one test, holding the tables `people`
/// (Parquet), `cities` (CSV) and `visits` (Arrow IPC).
fn tables(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("sql-{test}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut people = df!(
        "id" => [1i64, 2, 3, 4, 5, 6],
        "name" => ["ada", "alan", "grace", "edsger", "anita", "barbara"],
        "city" => [Some(10i64), Some(20), Some(10), None, Some(30), Some(20)],
        "age" => [Some(36i64), Some(41), None, Some(72), Some(29), Some(55)],
    )
    .unwrap();
    let mut cities = df!(
        "city" => [10i64, 20, 30],
        "town" => ["london", "paris", "oslo"],
    )
    .unwrap();
    let mut visits = df!(
        "id" => [1i64, 1, 2, 3, 5, 5, 5],
        "spent" => [1.5f64, 2.0, -0.5, 4.25, 3.0, 0.0, 8.0],
    )
    .unwrap();
    let create = |name: &str| std::fs::File::create(dir.join(name)).unwrap();
    ParquetWriter::new(create("people.parquet"))
        .finish(&mut people)
        .unwrap();
    CsvWriter::new(create("cities.csv"))
        .finish(&mut cities)
        .unwrap();
    IpcWriter::new(create("visits.arrow"))
        .finish(&mut visits)
        .unwrap();
    dir
}

fn sql(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_polars-gpu"))
        .arg("sql")
        .args([
            "--table",
            &format!("people={}", dir.join("people.parquet").display()),
            "--table",
            &dir.join("cities.csv").display().to_string(),
            "--table",
            &format!("visits={}", dir.join("visits.arrow").display()),
        ])
        .args(args)
        .env_remove("POLARS_GPU_DEVICE")
        .env_remove("POLARS_GPU_DISABLE_FALLBACK")
        .env_remove("POLARS_VERBOSE")
        .output()
        .expect("the polars-gpu binary runs")
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn read_parquet(path: &Path) -> DataFrame {
    ParquetReader::new(std::fs::File::open(path).unwrap())
        .finish()
        .unwrap()
}

/// Runs `query` on the emulated device and on the CPU engine, each writing
/// its result, and checks that both ran and gave the same frame.
fn same_on_both_engines(test: &str, query: &str) -> DataFrame {
    let dir = tables(test);
    let mut results = Vec::new();
    for engine in ["emulated", "cpu"] {
        let out = dir.join(format!("{engine}.parquet"));
        let output = sql(
            &dir,
            &[
                query,
                "--engine",
                engine,
                "--output",
                &out.display().to_string(),
            ],
        );
        let text = text(&output);
        assert!(output.status.success(), "{engine}: {text}");
        assert!(text.contains("executed by: "), "{engine}: {text}");
        results.push(read_parquet(&out));
    }
    assert!(
        results[0].equals_missing(&results[1]),
        "{query}\nemulated:\n{}\ncpu:\n{}",
        results[0],
        results[1]
    );
    results.remove(0)
}

#[test]
fn a_group_by_matches_the_cpu_engine() {
    let df = same_on_both_engines(
        "group-by",
        "SELECT city, COUNT(*) AS people, SUM(age) AS ages, MAX(age) AS oldest \
         FROM people GROUP BY city ORDER BY city",
    );
    assert_eq!(df.height(), 4);
}

#[test]
fn a_join_of_two_files_matches_the_cpu_engine() {
    let df = same_on_both_engines(
        "join",
        "SELECT p.name, c.town, v.spent FROM people p \
         JOIN cities c ON p.city = c.city JOIN visits v ON v.id = p.id \
         ORDER BY p.name, v.spent",
    );
    assert_eq!(df.height(), 7);
}

#[test]
fn a_filter_with_like_matches_the_cpu_engine() {
    let df = same_on_both_engines(
        "like",
        "SELECT id, name FROM people WHERE name LIKE 'a%a' ORDER BY id",
    );
    assert_eq!(df.height(), 2, "{df}");
}

#[test]
fn a_window_function_matches_the_cpu_engine() {
    let df = same_on_both_engines(
        "window",
        "SELECT id, spent, SUM(spent) OVER (PARTITION BY id) AS total FROM visits \
         ORDER BY id, spent",
    );
    assert_eq!(df.height(), 7);
}

#[test]
fn the_result_prints_with_its_engine_and_reasons() {
    let dir = tables("printed");
    let output = sql(
        &dir,
        &[
            "SELECT town FROM cities ORDER BY town",
            "--engine",
            "emulated",
        ],
    );
    let printed = text(&output);
    assert!(output.status.success(), "{printed}");
    for expected in ["london", "oslo", "paris", "executed by: ", "rows: 3"] {
        assert!(printed.contains(expected), "{expected}: {printed}");
    }
    let output = sql(
        &dir,
        &[
            "SELECT COUNT(*) AS n FROM visits",
            "--engine",
            "cpu",
            "--format",
            "json",
        ],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{}", text(&output));
    assert!(stdout.trim_start().starts_with('{'), "{stdout}");
    for expected in [
        r#""rows":1"#,
        r#""executed_by":"cpu"#,
        r#""fallback_reasons":[]"#,
    ] {
        assert!(stdout.contains(expected), "{expected}: {stdout}");
    }
}

#[test]
fn explain_shows_the_plan_without_running() {
    let dir = tables("explain");
    let output = sql(
        &dir,
        &[
            "SELECT city, SUM(age) AS ages FROM people GROUP BY city",
            "--explain",
        ],
    );
    let text = text(&output);
    assert!(output.status.success(), "{text}");
    assert!(text.contains("GroupBy"), "{text}");
    assert!(!text.contains("executed by"), "{text}");
}

/// Each bad input: its exit code and a message naming the problem.
#[test]
fn bad_inputs_say_what_is_wrong() {
    let dir = tables("bad");
    let check = |args: &[&str], code: i32, needles: &[&str]| {
        let output = sql(&dir, args);
        let text = text(&output);
        assert_eq!(output.status.code(), Some(code), "{args:?}: {text}");
        for needle in needles {
            assert!(text.contains(needle), "{args:?}: {needle:?} in {text}");
        }
        assert!(!text.contains("panicked"), "{args:?}: {text}");
    };
    check(&["SELEC * FROM people"], 4, &["error:", "SELEC"]);
    check(&["SELECT * FROM people WHERE"], 4, &["error:", "Column"]);
    check(&["SELECT * FROM nobody"], 4, &["error:", "nobody"]);
    check(&["SELECT nothing FROM people"], 4, &["error:", "nothing"]);
    let missing = dir.join("missing.parquet").display().to_string();
    check(
        &["SELECT 1", "--table", &format!("m={missing}")],
        3,
        &["no such file", "missing.parquet"],
    );
    let not_parquet = dir.join("not.parquet");
    std::fs::copy(dir.join("cities.csv"), &not_parquet).unwrap();
    let not_parquet = format!("n={}", not_parquet.display());
    check(
        &["SELECT * FROM n", "--table", &not_parquet],
        3,
        &["not.parquet", "Parquet"],
    );
    check(
        &["SELECT 1", "--table", "t=data.json"],
        2,
        &["data.json", "extension"],
    );
    check(
        &["SELECT 1", "--engine", "cpu", "--raise-on-fail"],
        2,
        &["--raise-on-fail"],
    );
}

/// A query that fails while running leaves no output file, not even a
/// partial one, and an existing file as it was.
#[test]
fn a_failed_query_leaves_no_partial_output() {
    let dir = tables("partial");
    let out = dir.join("result.csv");
    let output = sql(
        &dir,
        &[
            "SELECT CAST(name AS INTEGER) AS n FROM people",
            "--engine",
            "emulated",
            "--output",
            &out.display().to_string(),
        ],
    );
    assert!(!output.status.success(), "{}", text(&output));
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains("result"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    std::fs::write(&out, "kept\n").unwrap();
    let output = sql(
        &dir,
        &[
            "SELECT CAST(name AS INTEGER) AS n FROM people",
            "--output",
            &out.display().to_string(),
        ],
    );
    assert!(!output.status.success(), "{}", text(&output));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "kept\n");
}

#[test]
fn help_lists_both_jobs() {
    let output = Command::new(env!("CARGO_BIN_EXE_polars-gpu"))
        .arg("--help")
        .output()
        .unwrap();
    let text = text(&output);
    assert!(output.status.success(), "{text}");
    assert!(text.contains("pdsh") && text.contains("sql"), "{text}");
}
