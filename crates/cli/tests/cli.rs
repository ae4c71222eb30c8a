//! End-to-end tests of the `polars-gpu` main job: engines, environment variables, exit codes.

use std::process::{Command, Output};

use gpu_runtime::{RuntimeError, driver};

fn run(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_polars-gpu"));
    command
        .args(["--scale", "0.002"])
        .args(args)
        .env_remove("POLARS_GPU_DEVICE")
        .env_remove("POLARS_GPU_DISABLE_FALLBACK")
        .env_remove("POLARS_VERBOSE");
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().expect("the polars-gpu binary runs")
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn query_headers(text: &str) -> usize {
    text.lines().filter(|l| l.starts_with("== q")).count()
}

fn no_driver() -> bool {
    let missing = matches!(driver(), Err(RuntimeError::Unavailable(_)));
    if !missing {
        println!("skipped: the no-driver expectations (a CUDA driver is present)");
    }
    missing
}

#[test]
fn every_cpu_engine_runs_every_pdsh_query() {
    for engine in ["auto", "cpu", "in-memory", "streaming"] {
        let output = run(&["--engine", engine], &[]);
        let text = text(&output);
        assert!(output.status.success(), "{engine}: {text}");
        assert_eq!(query_headers(&text), 22, "{engine}: {text}");
        assert_eq!(
            text.matches("executed by: cpu").count(),
            22,
            "{engine}: {text}"
        );
        assert!(!text.contains("fallback"), "{engine}: {text}");
    }
}

#[test]
fn gpu_engine_falls_back_without_a_gpu_and_says_why() {
    let output = run(&[], &[]);
    let text = text(&output);
    assert!(output.status.success(), "{text}");
    if no_driver() {
        assert_eq!(
            text.matches("executed by: cpu (in-memory)").count(),
            22,
            "{text}"
        );
        assert_eq!(text.matches("GPU fallback reasons:").count(), 22, "{text}");
        assert_eq!(
            text.matches("no CUDA driver library found").count(),
            22,
            "{text}"
        );
    } else {
        assert_eq!(text.matches("executed by: gpu").count(), 22, "{text}");
    }
}

#[test]
fn disable_fallback_variable_turns_fallback_into_an_error() {
    let output = run(&["--query", "6"], &[("POLARS_GPU_DISABLE_FALLBACK", "1")]);
    let text = text(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(text.contains("CPU fallback is disabled"), "{text}");
    if no_driver() {
        assert!(text.contains("no CUDA driver library found"), "{text}");
    }
    let flag = run(&["--query", "6", "--raise-on-fail"], &[]);
    assert_eq!(flag.status.code(), Some(1), "{}", self::text(&flag));
}

#[test]
fn verbose_logs_the_fallback_as_a_warning() {
    let output = run(&["--query", "1"], &[("POLARS_VERBOSE", "1")]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("WARN"), "{stderr}");
    assert!(
        stderr.contains("GPU engine fell back to the CPU"),
        "{stderr}"
    );
    let quiet = run(&["--query", "1"], &[]);
    assert!(!String::from_utf8_lossy(&quiet.stderr).contains("fell back"));
}

#[test]
fn bad_input_gets_a_clear_error() {
    let output = run(&["--engine", "cuda"], &[]);
    let text = text(&output);
    assert_eq!(output.status.code(), Some(2), "{text}");
    assert!(
        text.contains("valid engines are: auto, cpu, in-memory, streaming, gpu (or emulated)"),
        "{text}"
    );
    let output = run(&["--query", "6"], &[("POLARS_GPU_DEVICE", "first")]);
    let text = self::text(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(
        text.contains("POLARS_GPU_DEVICE=\"first\" is not a device ordinal"),
        "{text}"
    );
    for args in [
        &["--engine", "cpu", "--device", "1"][..],
        &["--engine", "cpu", "--executor", "partitioned"],
        &["--executor", "streaming"],
        &["--device-memory-limit", "lots"],
        &["--query", "23"],
        &["--query", "0"],
        &["--scale", "-1"],
        &["--scale", "nan"],
    ] {
        let output = run(args, &[]);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            self::text(&output)
        );
    }
}

#[test]
fn the_emulated_engine_runs_every_query_on_the_device() {
    let output = run(&["--engine", "emulated"], &[]);
    let text = text(&output);
    assert!(output.status.success(), "{text}");
    assert_eq!(query_headers(&text), 22, "{text}");
    // Every PDS-H query runs entirely on the emulated device (the parity
    // test in engine-select compares the results with the CPU's).
    let on_device = text.matches("executed by: gpu (emulated device 0)").count();
    assert_eq!(on_device, 22, "{text}");
    assert!(
        !text.contains("is not executed on the device yet"),
        "{text}"
    );
    assert!(text.contains("PDS-H at scale factor 0.002"), "{text}");
    assert!(text.contains("engine emulated"), "{text}");
}

#[test]
fn explain_prints_each_gpu_plan() {
    let output = run(&["--explain"], &[]);
    let text = text(&output);
    assert!(output.status.success(), "{text}");
    assert_eq!(query_headers(&text), 22, "{text}");
    assert!(!text.contains("cannot run on the GPU"), "{text}");
    assert!(text.contains("GroupBy keys=[col(\""), "{text}");
    assert!(!text.contains("executed by"), "{text}");
}

#[test]
fn parquet_writes_every_table() {
    let dir = std::env::temp_dir().join(format!("polars-gpu-cli-parquet-{}", std::process::id()));
    let dir_arg = dir.to_string_lossy().into_owned();
    let output = run(
        &["--engine", "cpu", "--query", "6", "--parquet", &dir_arg],
        &[],
    );
    let text = text(&output);
    assert!(output.status.success(), "{text}");
    assert!(text.contains("wrote 8 tables to"), "{text}");
    for table in [
        "customer", "lineitem", "nation", "orders", "part", "partsupp", "region", "supplier",
    ] {
        assert!(dir.join(format!("{table}.parquet")).is_file(), "{table}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn csv_files_are_written_and_scanned_in_partitions() {
    let dir = std::env::temp_dir().join(format!("polars-gpu-cli-csv-{}", std::process::id()));
    let dir_arg = dir.to_string_lossy().into_owned();
    let args = [
        "--engine",
        "emulated",
        "--query",
        "1",
        "--csv",
        &dir_arg,
        "--scan",
        "--executor",
        "partitioned",
        "--device-memory-limit",
        "1MiB",
        "--raise-on-fail",
    ];
    let output = run(&args, &[]);
    let text = text(&output);
    assert!(output.status.success(), "{text}");
    assert!(text.contains("wrote 8 tables to"), "{text}");
    assert!(text.contains("scanned from CSV files"), "{text}");
    assert!(text.contains("read from files"), "{text}");
    assert!(dir.join("lineitem.csv").is_file());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_partitioned_executor_runs_under_a_memory_limit() {
    let args = [
        "--engine",
        "emulated",
        "--query",
        "6",
        "--executor",
        "partitioned",
        "--device-memory-limit",
        "1MiB",
    ];
    let output = run(&args, &[]);
    let text = text(&output);
    assert!(output.status.success(), "{text}");
    assert!(
        text.contains("executed by: gpu (emulated device 0)"),
        "{text}"
    );
    assert!(text.contains("partitioned: "), "{text}");
}
