//! `cargo xtask device-check`: builds the GPU tests and benchmarks in release, packs them with a runner script for a GPU machine without a Rust toolchain.

use std::fs;

use crate::artifacts::{self, Binary};
use std::path::{Path, PathBuf};

/// What travels may be at most this big (the device machine's limit).
const TRAVEL_LIMIT: u64 = 64 << 20;

/// The test binaries that run against the GPU (`GPU_TEST_DEVICE=cuda`), by
/// package: every test target of these.
const TEST_PACKAGES: &[&str] = &["gpu-runtime", "gpu-exec", "engine-select"];
/// The bench binaries that run there: (package, bench target).
const BENCHES: &[(&str, &str)] = &[
    ("benches", "pdsh"),
    ("benches", "operators"),
    ("gpu-runtime", "memory"),
    ("gpu-runtime", "primitives"),
];

#[derive(Debug, clap::Args)]
pub struct DeviceCheckArgs {
    /// The folder to pack into, inside the repository so that it can travel
    /// (it is ignored by git; name it in the device tool's `carry`).
    #[arg(long, default_value = "device-check")]
    out: PathBuf,
}

pub fn run(root: &Path, args: &DeviceCheckArgs) -> Result<(), String> {
    let out = if args.out.is_relative() {
        root.join(&args.out)
    } else {
        args.out.clone()
    };
    if !out.starts_with(root) {
        return Err(format!(
            "{} is outside the repository: only the repository travels to the device",
            out.display()
        ));
    }
    let mut binaries = artifacts::build(
        true,
        root,
        &["--tests"],
        TEST_PACKAGES,
        |package, target, kind| {
            (kind == "lib" || kind == "test").then(|| format!("{package}.{target}"))
        },
    )?;
    binaries.extend(artifacts::build(
        true,
        root,
        &["--benches"],
        &["benches", "gpu-runtime"],
        |package, target, kind| {
            (kind == "bench" && BENCHES.contains(&(package, target)))
                .then(|| format!("bench.{target}"))
        },
    )?);
    let bin = out.join("bin");
    if out.exists() {
        fs::remove_dir_all(&out).map_err(|e| format!("clearing {}: {e}", out.display()))?;
    }
    fs::create_dir_all(&bin).map_err(|e| format!("creating {}: {e}", bin.display()))?;
    let mut total = 0;
    for binary in &binaries {
        total += pack(binary, &bin)?;
    }
    let script = out.join("run.sh");
    fs::write(&script, RUN_SCRIPT).map_err(|e| format!("writing {}: {e}", script.display()))?;
    total += RUN_SCRIPT.len() as u64;
    let relative = out.strip_prefix(root).unwrap_or(&out).display().to_string();
    println!(
        "packed {} binaries and run.sh into {relative}: {:.1} MiB",
        binaries.len(),
        total as f64 / f64::from(1 << 20)
    );
    // The call carries the pack with the working tree's files.
    let tree = tracked_bytes(root)?;
    println!(
        "with the working tree's {:.1} MiB: {:.1} MiB of the {} MiB a call carries",
        tree as f64 / f64::from(1 << 20),
        (total + tree) as f64 / f64::from(1 << 20),
        TRAVEL_LIMIT >> 20
    );
    if total + tree > TRAVEL_LIMIT {
        return Err(format!(
            "the pack ({total} bytes) and the working tree ({tree} bytes) are over the \
             {TRAVEL_LIMIT} bytes that may travel"
        ));
    }
    println!("\nOn the GPU machine, from the repository root (carry `{relative}`):\n");
    println!("    bash {relative}/run.sh \"$OUT\" [PDS-H scale factor, default 1]\n");
    println!(
        "It runs every GPU test suite with GPU_TEST_DEVICE=cuda, then the kernel primitives \
         against the copy bandwidth, the allocator benchmark, the operator and PDS-H benchmarks \
         (cpu and gpu side by side; PDSH_RUNS=3 times PDS-H by a plain clock, for scale factor \
         10; PDSH_NO_PREFETCH=1 adds a GPU run without uploads ahead, PDSH_LIMITS=1 one with \
         the device's memory at a quarter and a sixteenth of the tables, PDSH_SCANS=1 the same \
         over scans of the tables' Parquet files), a profiled run of \
         PROFILE_QUERIES and, where Nsight Compute is installed, the primitives' kernels under \
         ncu (NCU_KERNELS, NCU_LAUNCHES), within DEVICE_CHECK_SECONDS (default 470), \
         prints a summary table last, and writes the results into the folder given after every \
         step."
    );
    Ok(())
}

/// The bytes of the files git tracks (what travels besides the pack).
fn tracked_bytes(root: &Path) -> Result<u64, String> {
    let listed = std::process::Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(root)
        .output()
        .map_err(|e| format!("cannot run git ls-files: {e}"))?;
    if !listed.status.success() {
        return Err("git ls-files failed".into());
    }
    Ok(listed
        .stdout
        .split(|&b| b == 0)
        .filter(|path| !path.is_empty())
        .filter_map(|path| fs::metadata(root.join(String::from_utf8_lossy(path).as_ref())).ok())
        .map(|meta| meta.len())
        .sum())
}

/// Strips `binary`'s symbols and compresses it into `bin/<name>.xz`;
/// returns the packed size.
fn pack(binary: &Binary, bin: &Path) -> Result<u64, String> {
    let staged = bin.join(&binary.name);
    fs::copy(&binary.path, &staged)
        .map_err(|e| format!("copying {}: {e}", binary.path.display()))?;
    // Symbols are most of a release binary; a missing `strip` only costs size.
    let _ = std::process::Command::new("strip").arg(&staged).status();
    // The x86 branch filter before LZMA2's largest preset: 6 % smaller
    // than plain `-6` on these binaries, which must fit one call.
    let status = std::process::Command::new("xz")
        .args(["-T0", "--x86", "--lzma2=preset=9", "-f"])
        .arg(&staged)
        .status()
        .map_err(|e| format!("cannot run xz (needed to pack): {e}"))?;
    if !status.success() {
        return Err(format!("xz failed on {}", staged.display()));
    }
    let packed = staged.with_file_name(format!("{}.xz", binary.name));
    let size = fs::metadata(&packed)
        .map_err(|e| format!("{}: {e}", packed.display()))?
        .len();
    println!(
        "  {:<28} {:>6.1} MiB",
        binary.name,
        size as f64 / f64::from(1 << 20)
    );
    Ok(size)
}

/// The runner: plain bash and coreutils, xz and timeout, nothing else.
const RUN_SCRIPT: &str = r#"#!/usr/bin/env bash
# The device check, made by `cargo xtask device-check`: the GPU test suites
# and benchmarks of the polars GPU engine, on a machine with an NVIDIA GPU.
# Usage: bash run.sh RESULTS_DIR [PDS_H_SCALE]   (at most 8 minutes)
set -u
here=$(cd "$(dirname "$0")" && pwd)
results=${1:?usage: run.sh RESULTS_DIR [PDS_H_SCALE]}
scale=${2:-1}
budget=${DEVICE_CHECK_SECONDS:-470}
mkdir -p "$results"
results=$(cd "$results" && pwd)
work=$(mktemp -d)
logs="$work/logs"
mkdir -p "$logs" "$work/bin"
for packed in "$here"/bin/*.xz; do
    name=$(basename "$packed" .xz)
    xz -dc "$packed" > "$work/bin/$name" && chmod +x "$work/bin/$name"
done
if command -v nvidia-smi > /dev/null; then
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv \
        > "$logs/gpu.txt" 2>&1
else
    echo "no nvidia-smi on this machine" > "$logs/gpu.txt"
fi
echo "PDS-H scale factor $scale; operators over ${OPS_ROWS:=10000000} rows" >> "$logs/gpu.txt"
export GPU_TEST_DEVICE=${GPU_TEST_DEVICE:-cuda} RUST_BACKTRACE=1 PROPTEST_CASES=${PROPTEST_CASES:-64}
rows=()
# step NAME CAP_SECONDS COMMAND...: runs within min(CAP, time left), logs to NAME.log
# DEVICE_CHECK_ONLY: a comma-separated list of steps (or prefixes, such as
# `bench.pdsh` or `gpu-runtime`) to run alone, each then allowed the whole
# budget: `DEVICE_CHECK_ONLY=bench.pdsh bash run.sh DIR 10` gives PDS-H at
# scale factor 10 the whole 8 minutes.
only=${DEVICE_CHECK_ONLY:-}
step() {
    local name=$1 cap=$2; shift 2
    if [ -n "$only" ]; then
        local wanted=no pattern
        for pattern in ${only//,/ }; do
            case "$name" in "$pattern"*) wanted=yes ;; esac
        done
        [ $wanted = no ] && return
        cap=$budget
    fi
    local left=$((budget - SECONDS - 10))
    local limit=$((cap < left ? cap : left))
    if [ "$limit" -le 5 ]; then
        rows+=("$(printf '%-28s %-9s %6s %6s %7s %7s' "$name" "no time" - - - 0)")
        return
    fi
    local start=$SECONDS
    timeout "$limit" "$@" > "$logs/$name.log" 2>&1
    local rc=$? took=$((SECONDS - start)) result=ok
    [ $rc -eq 124 ] && result="timed out"
    [ $rc -ne 0 ] && [ $rc -ne 124 ] && result="FAILED"
    local passed failed skipped
    passed=$(grep -ho '[0-9]* passed' "$logs/$name.log" | awk '{s+=$1} END {print s+0}')
    failed=$(grep -ho '[0-9]* failed' "$logs/$name.log" | awk '{s+=$1} END {print s+0}')
    skipped=$(grep -c '^skipped:' "$logs/$name.log")
    rows+=("$(printf '%-28s %-9s %6s %6s %7s %7s' "$name" "$result" "$passed" "$failed" "$skipped" "$took")")
    flush
}
# flush: the summary and the logs so far into the results folder, after every
# step, so that a run cut short still brings back what it measured.
flush() {
    for table in "$work"/bench-*/*.csv; do
        [ -e "$table" ] && cp "$table" "$results/"
    done
    {
        cat "$logs/gpu.txt"
        echo
        printf '%-28s %-9s %6s %6s %7s %7s\n' step result passed failed skipped seconds
        printf '%s\n' "${rows[@]}"
    } > "$results/summary.txt"
    tar -czf "$results/logs.tar.gz" -C "$work" logs $(cd "$work" && ls -d bench-* 2>/dev/null)
}
for test in "$work"/bin/*; do
    name=$(basename "$test")
    case "$name" in bench.*) continue ;; esac
    step "$name" 100 "$test" --nocapture --test-threads=8
done
export BENCH_ENGINES=cpu,gpu BENCH_DEVICE=0
# The short, certain benchmarks first; PDS-H takes what is left. PDSH_RUNS
# (say 3) times each query by a plain clock instead of criterion, which runs
# each at least eleven times: at scale factor 10 that fits a lease.
PRIMITIVES_ELEMENTS=${PRIMITIVES_ELEMENTS:-268435456} step bench.primitives 80 \
    "$work/bin/bench.primitives" --bench --warm-up-time 0.3 --measurement-time 1
step bench.memory 30 "$work/bin/bench.memory" --bench --warm-up-time 0.3 \
    --measurement-time 1 --sample-size 10
BENCH_OUT="$work/bench-operators" OPS_ROWS=$OPS_ROWS step bench.operators 60 \
    "$work/bin/bench.operators" --bench --warm-up-time 0.5 --measurement-time 1 --sample-size 10
BENCH_OUT="$work/bench-pdsh" PDSH_SCALE=$scale BENCH_RUNS=${PDSH_RUNS:-} step bench.pdsh 300 \
    "$work/bin/bench.pdsh" --bench --warm-up-time 0.5 --measurement-time 2 --sample-size 10
# PDSH_NO_PREFETCH=1: PDS-H again with each input uploaded when the executor
# reaches it (POLARS_GPU_PREFETCH=0), beside the run above (uploads ahead).
if [ -n "${PDSH_NO_PREFETCH:-}" ]; then
    BENCH_OUT="$work/no-prefetch" PDSH_SCALE=$scale BENCH_RUNS=${PDSH_RUNS:-} \
        BENCH_ENGINES=gpu POLARS_GPU_PREFETCH=0 step bench.pdsh.no-prefetch 300 \
        "$work/bin/bench.pdsh" --bench --warm-up-time 0.5 --measurement-time 2 --sample-size 10
fi
# PDSH_DECIMALS=1: PDS-H again with money as Decimal(15, 2) (TPC-H's types),
# the GPU beside the CPU.
if [ -n "${PDSH_DECIMALS:-}" ]; then
    BENCH_OUT="$work/decimals" PDSH_SCALE=$scale BENCH_RUNS=${PDSH_RUNS:-} \
        BENCH_ENGINES=cpu,gpu PDSH_DECIMALS=1 step bench.pdsh.decimals 300 \
        "$work/bin/bench.pdsh" --bench --warm-up-time 0.5 --measurement-time 2 --sample-size 10
fi
# PDSH_LIMITS=1: PDS-H again with the device's memory limited to a quarter
# and a sixteenth of the tables' bytes (the partitioned executor), beside the
# unlimited GPU, in one table (docs/partitioned.md).
if [ -n "${PDSH_LIMITS:-}" ]; then
    BENCH_OUT="$work/bench-limits" PDSH_SCALE=$scale BENCH_RUNS=${PDSH_RUNS:-} \
        BENCH_ENGINES=cpu,gpu,gpu@1/4,gpu@1/16 step bench.pdsh.limits 300 \
        "$work/bin/bench.pdsh" --bench --warm-up-time 0.5 --measurement-time 2 --sample-size 10
fi
# PDSH_SCANS=1: PDS-H over scans of the tables' Parquet files, limited as
# above: large scans read in partitions (docs/partitioned.md).
if [ -n "${PDSH_SCANS:-}" ]; then
    BENCH_OUT="$work/bench-scans" PDSH_SCALE=$scale BENCH_RUNS=${PDSH_RUNS:-} \
        PDSH_PARQUET="$work/pdsh-parquet" BENCH_ENGINES=cpu,gpu,gpu@1/4,gpu@1/16 \
        step bench.pdsh.scans 300 \
        "$work/bin/bench.pdsh" --bench --warm-up-time 0.5 --measurement-time 2 --sample-size 10
fi
# Where the GPU's time goes in some queries: each plan node's time
# (POLARS_GPU_PROFILE), one run of each on the GPU alone.
BENCH_OUT="$work/profile" PDSH_SCALE=$scale BENCH_RUNS=1 BENCH_ENGINES=gpu POLARS_GPU_PROFILE=1 \
    PDSH_QUERIES=${PROFILE_QUERIES:-1,2,5,10,19} step bench.profile 60 "$work/bin/bench.pdsh" --bench
# Inside the primitives' kernels, where the machine has Nsight Compute: the
# first NCU_LAUNCHES (12) launches of the kernels NCU_KERNELS matches, over
# NCU_ELEMENTS (2^26), each one's duration, memory throughput and occupancy,
# so that a kernel short of its target shows why in the same lease.
if command -v ncu > /dev/null; then
    PRIMITIVES_ELEMENTS=${NCU_ELEMENTS:-67108864} step ncu.primitives 60 \
        ncu --clock-control none \
        -k "regex:${NCU_KERNELS:-reduce_sum_u32|scan_i64|compact_|radix_digit_counts_u32|radix_onesweep_u32}" \
        -c "${NCU_LAUNCHES:-12}" --section SpeedOfLight --section Occupancy \
        "$work/bin/bench.primitives" --bench --warm-up-time 0.1 --measurement-time 0.2
fi
flush
for table in "$logs"/bench.pdsh.log "$logs"/bench.pdsh.no-prefetch.log "$logs"/bench.operators.log; do
    [ -e "$table" ] || continue
    awk '/ [(]median of / {on = 1} on {print} /geometric mean/ {on = 0}' "$table"
    # A PDS-H run cut short before its table: the lines timed so far.
    grep -q ' (median of ' "$table" || grep -E '^q[0-9]+ on ' "$table"
    echo
done
[ -e "$logs/bench.memory.log" ] && grep -A1 '^allocate_free_pair' "$logs/bench.memory.log"
echo
[ -e "$logs/bench.primitives.log" ] &&
    awk '/ [(]median of / {on = 1} on {print}' "$logs/bench.primitives.log"
echo
[ -e "$logs/ncu.primitives.log" ] && grep -E '^  [a-z_0-9]+ [(]|Duration|Memory Throughput|DRAM Throughput|Achieved Occupancy|Registers Per Thread' \
    "$logs/ncu.primitives.log"
echo
cat "$results/summary.txt"
rm -rf "$work"
"#;
