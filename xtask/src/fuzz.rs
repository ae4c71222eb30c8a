//! `cargo xtask fuzz`: the differential fuzzer of the façade's test suite at a size of your choosing, seed after seed, with a total.

use std::path::Path;

/// How many random queries, from which seeds.
#[derive(Debug, clap::Args)]
pub struct FuzzArgs {
    /// Random queries per seed.
    #[arg(long, default_value_t = 1_000)]
    cases: u64,
    /// The first seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// How many seeds, from `--seed` on.
    #[arg(long, default_value_t = 1)]
    seeds: u64,
    /// Threads running cases (default: the machine's cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Runs spent shrinking each failure (0 prints it unshrunk).
    #[arg(long, default_value_t = 300)]
    shrink: u64,
    /// Builds in the dev profile instead of release (quicker to build,
    /// slower to run).
    #[arg(long)]
    debug: bool,
}

pub fn run(root: &Path, args: &FuzzArgs) -> Result<(), String> {
    if args.cases == 0 || args.seeds == 0 {
        return Err("--cases and --seeds must be at least 1".into());
    }
    let threads = args.threads.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let summary = root.join("target/fuzz-summary.txt");
    std::fs::create_dir_all(root.join("target")).map_err(|e| format!("target: {e}"))?;
    // A fresh summary for this run.
    std::fs::write(&summary, "").map_err(|e| format!("{}: {e}", summary.display()))?;
    // Built once: edits made while the seeds run do not rebuild it.
    let binaries = crate::artifacts::build(
        !args.debug,
        root,
        &["--tests"],
        &["engine-select"],
        |package, target, _| (package == "engine-select" && target == "it").then(|| target.into()),
    )?;
    let [it] = binaries.as_slice() else {
        return Err("cargo built no engine-select test binary `it`".into());
    };
    let mut failed_seeds = Vec::new();
    for seed in args.seed..args.seed + args.seeds {
        let status = std::process::Command::new(&it.path)
            .current_dir(root.join("crates/engine-select"))
            .args([
                "--exact",
                "fuzz::random_queries_match_the_cpu",
                "--nocapture",
            ])
            .env("FUZZ_SEED", seed.to_string())
            .env("FUZZ_CASES", args.cases.to_string())
            .env("FUZZ_THREADS", threads.to_string())
            .env("FUZZ_SHRINK", args.shrink.to_string())
            .env("FUZZ_SUMMARY", &summary)
            .status()
            .map_err(|e| format!("cannot run {}: {e}", it.path.display()))?;
        if !status.success() {
            failed_seeds.push(seed);
        }
    }
    let lines = std::fs::read_to_string(&summary).map_err(|e| format!("{e}"))?;
    println!("\n{lines}");
    println!("{}", total(&lines));
    if failed_seeds.is_empty() {
        Ok(())
    } else {
        Err(format!("the fuzzer failed for seeds {failed_seeds:?}"))
    }
}

/// The sum of the summary lines' counts, as one line.
fn total(lines: &str) -> String {
    let fields = [
        "queries=",
        "equal=",
        "wholly on the device ",
        "mixed ",
        "fell back ",
        "both raised=",
        "skipped=",
        "failed=",
    ];
    let mut sums = [0u64; 8];
    for line in lines.lines() {
        for (sum, field) in sums.iter_mut().zip(fields) {
            if let Some(rest) = line.split(field).nth(1) {
                let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
                *sum += digits.parse::<u64>().unwrap_or(0);
            }
        }
    }
    let answered = (sums[2] + sums[3] + sums[4]).max(1);
    format!(
        "total over {} seed(s): {} queries, {} equal (wholly on the device {}, {:.1} % of \
         answers; mixed {}; fell back {}), both raised {}, skipped {}, failed {}",
        lines.lines().count(),
        sums[0],
        sums[1],
        sums[2],
        100.0 * sums[2] as f64 / answered as f64,
        sums[3],
        sums[4],
        sums[5],
        sums[6],
        sums[7]
    )
}
