//! `cargo xtask faults`: the fault suite at a size of your choosing — PDS-H and more on several threads, with every seam of gpu-runtime failing at random, sticky faults and resets among them — and its one line.

use std::path::Path;

/// How many queries, on how many threads, how often each seam fails.
#[derive(Debug, clap::Args)]
pub struct FaultArgs {
    /// Queries to run in all.
    #[arg(long, default_value_t = 10_000)]
    queries: u64,
    /// Threads running them, on one device.
    #[arg(long, default_value_t = 4)]
    threads: u64,
    /// Percent of the calls at each seam that fail.
    #[arg(long, default_value_t = 2)]
    percent: u64,
    /// Per mille of kernel launches that fault stickily (the device is
    /// unusable until a worker resets it).
    #[arg(long, default_value_t = 1)]
    sticky_per_mille: u64,
    /// Seconds after which a query still running counts as a hang.
    #[arg(long, default_value_t = 3_600)]
    seconds: u64,
}

pub fn run(root: &Path, args: &FaultArgs) -> Result<(), String> {
    let binaries = crate::artifacts::build(
        true,
        root,
        &["--test", "faults", "--features", "engine-select/faults"],
        &["engine-select"],
        |package, target, _| {
            (package == "engine-select" && target == "faults").then(|| target.into())
        },
    )?;
    let [suite] = binaries.as_slice() else {
        return Err("cargo built no engine-select test binary `faults`".into());
    };
    let summary = root.join("target/fault-suite.txt");
    std::fs::create_dir_all(root.join("target")).map_err(|e| format!("target: {e}"))?;
    let status = std::process::Command::new(&suite.path)
        .current_dir(root.join("crates/engine-select"))
        .args(["--exact", "fault_suite", "--nocapture"])
        .env("FAULT_SUITE_QUERIES", args.queries.to_string())
        .env("FAULT_SUITE_THREADS", args.threads.to_string())
        .env("FAULT_SUITE_PERCENT", args.percent.to_string())
        .env(
            "FAULT_SUITE_STICKY_PER_MILLE",
            args.sticky_per_mille.to_string(),
        )
        .env("FAULT_SUITE_SECONDS", args.seconds.to_string())
        .env("FAULT_SUITE_SUMMARY", &summary)
        .status()
        .map_err(|e| format!("cannot run {}: {e}", suite.path.display()))?;
    if status.success() {
        Ok(())
    } else {
        Err("the fault suite failed (its line and failures are above)".into())
    }
}
