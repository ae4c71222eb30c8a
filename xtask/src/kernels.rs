//! `cargo xtask kernels`: compiles the CUDA sources to PTX and cubins with a pinned nvcc from PyPI, and checks them.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The CUDA compiler version, pinned: its PTX ISA (9.0 for CUDA 13.0) sets
/// the oldest driver that loads our kernels (R580).
const CUDA_VERSION: &str = "13.0.88";
const WHEELS: [&str; 3] = ["nvidia-cuda-nvcc", "nvidia-nvvm", "nvidia-cuda-crt"];
/// PTX is emitted for this virtual architecture; drivers JIT it for newer GPUs.
const PTX_ARCH: &str = "compute_80";
/// Architectures the PTX is assembled for, to report registers and spills.
const SASS_ARCHS: [&str; 2] = ["sm_80", "sm_90"];

pub fn run(root: &Path, check: bool) -> Result<(), String> {
    let cuda = install_nvcc()?;
    let sources = kernel_sources(&root.join("kernels/cuda"))?;
    let out_dir = root.join("target/xtask-kernels");
    fs::create_dir_all(&out_dir)
        .map_err(|e| format!("cannot create {}: {e}", out_dir.display()))?;
    let mut stale = Vec::new();
    let mut table = Vec::new();
    for source in &sources {
        let stem = source
            .file_stem()
            .and_then(|s| s.to_str())
            .ok_or_else(|| format!("odd source name {}", source.display()))?;
        let ptx = out_dir.join(format!("{stem}.ptx"));
        let include = root.join("kernels/cuda/include");
        tool(
            &cuda,
            "nvcc",
            &[
                "-ptx".as_ref(),
                format!("-arch={PTX_ARCH}").as_ref(),
                // No contraction of a * b + c into one fused rounding: the
                // CPU engine rounds twice, and results must equal it bit for
                // bit (an H200 run differed in the last place without this).
                "-fmad=false".as_ref(),
                "-I".as_ref(),
                include.as_os_str(),
                source.as_os_str(),
                "-o".as_ref(),
                ptx.as_os_str(),
            ],
        )?;
        for arch in SASS_ARCHS {
            let cubin = out_dir.join(format!("{stem}.{arch}.cubin"));
            let report = tool(
                &cuda,
                "ptxas",
                &[
                    format!("-arch={arch}").as_ref(),
                    "-v".as_ref(),
                    ptx.as_os_str(),
                    "-o".as_ref(),
                    cubin.as_os_str(),
                ],
            )?;
            for (kernel, usage) in parse_ptxas(&report) {
                table.push((stem.to_owned(), kernel, arch, usage));
            }
            let committed = root.join(format!("kernels/cubin/{stem}.{arch}.cubin"));
            commit_or_check(&cubin, &committed, check, &mut stale)?;
        }
        let committed = root.join(format!("kernels/ptx/{stem}.ptx"));
        commit_or_check(&ptx, &committed, check, &mut stale)?;
    }
    if check {
        for (folder, extension) in [("ptx", "ptx"), ("cubin", "cubin")] {
            let committed: Vec<PathBuf> = fs::read_dir(root.join("kernels").join(folder))
                .map_err(|e| format!("cannot list kernels/{folder}: {e}"))?
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == extension))
                .collect();
            for path in committed {
                // `reduce.sm_90.cubin` comes from `reduce.cu`.
                let stem = path
                    .file_name()
                    .and_then(|n| n.to_str())
                    .and_then(|n| n.split('.').next())
                    .unwrap_or_default();
                let has_source = sources
                    .iter()
                    .any(|s| s.file_stem().and_then(|s| s.to_str()) == Some(stem));
                if !has_source {
                    stale.push(format!("{} (no source)", path.display()));
                }
            }
        }
    }
    print_table(&table);
    let spills: Vec<String> = table
        .iter()
        .filter(|(_, _, _, usage)| usage.spill_stores + usage.spill_loads > 0)
        .map(|(module, kernel, arch, _)| format!("{module}/{kernel} on {arch}"))
        .collect();
    if !spills.is_empty() {
        return Err(format!("kernels spill registers: {}", spills.join(", ")));
    }
    if !stale.is_empty() {
        return Err(format!(
            "the committed PTX or cubins are not what the sources give; run `cargo xtask \
             kernels` and commit: {}",
            stale.join(", ")
        ));
    }
    println!(
        "{} {} modules, {} kernels",
        if check { "checked" } else { "wrote" },
        sources.len(),
        table.len() / SASS_ARCHS.len()
    );
    Ok(())
}

/// Writes the `fresh` build output to its `committed` place, or (checking)
/// notes it in `stale` when the committed file differs.
fn commit_or_check(
    fresh: &Path,
    committed: &Path,
    check: bool,
    stale: &mut Vec<String>,
) -> Result<(), String> {
    let bytes = fs::read(fresh).map_err(|e| format!("cannot read {}: {e}", fresh.display()))?;
    if check {
        if fs::read(committed).ok().as_deref() != Some(bytes.as_slice()) {
            stale.push(committed.display().to_string());
        }
        return Ok(());
    }
    if let Some(parent) = committed.parent() {
        fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    }
    fs::write(committed, &bytes).map_err(|e| format!("cannot write {}: {e}", committed.display()))
}

/// The pinned CUDA compiler, installed from PyPI into a cache folder on first use.
fn install_nvcc() -> Result<PathBuf, String> {
    let cache = std::env::var_os("POLARS_GPU_CACHE")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache/polars-gpu"))
        })
        .ok_or("set HOME or POLARS_GPU_CACHE: the CUDA compiler is cached there")?;
    let venv = cache.join(format!("nvcc-{CUDA_VERSION}"));
    let cuda = venv.join("lib/python3.11/site-packages/nvidia/cu13");
    let found = |venv: &Path| -> Option<PathBuf> {
        let lib = fs::read_dir(venv.join("lib")).ok()?;
        lib.filter_map(Result::ok)
            .map(|python| python.path().join("site-packages/nvidia/cu13"))
            .find(|cuda| cuda.join("bin/nvcc").is_file() && cuda.join("bin/ptxas").is_file())
    };
    if let Some(cuda) = found(&venv) {
        return Ok(cuda);
    }
    println!(
        "installing CUDA {CUDA_VERSION} compiler wheels into {}",
        venv.display()
    );
    let status = Command::new("python3")
        .args(["-m", "venv"])
        .arg(&venv)
        .status()
        .map_err(|e| format!("cannot run python3 -m venv: {e}"))?;
    if !status.success() {
        return Err("python3 -m venv failed".into());
    }
    let pip = venv.join("bin/pip");
    let wheels: Vec<String> = WHEELS
        .iter()
        .map(|w| format!("{w}=={CUDA_VERSION}"))
        .collect();
    let status = Command::new(&pip)
        .args(["install", "--quiet", "--disable-pip-version-check"])
        .args(&wheels)
        .status()
        .map_err(|e| format!("cannot run {}: {e}", pip.display()))?;
    if !status.success() {
        return Err(format!("pip install {} failed", wheels.join(" ")));
    }
    found(&venv).ok_or_else(|| format!("nvcc is not in {} after installing", cuda.display()))
}

fn kernel_sources(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut sources: Vec<PathBuf> = fs::read_dir(dir)
        .map_err(|e| format!("cannot list {}: {e}", dir.display()))?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "cu"))
        .collect();
    sources.sort();
    Ok(sources)
}

/// Runs a CUDA tool; its stdout and stderr together, or an error with both.
fn tool(cuda: &Path, name: &str, args: &[&std::ffi::OsStr]) -> Result<String, String> {
    let path = std::env::var("PATH").unwrap_or_default();
    let output = Command::new(cuda.join("bin").join(name))
        .args(args)
        .env("PATH", format!("{}:{path}", cuda.join("bin").display()))
        .output()
        .map_err(|e| format!("cannot run {name}: {e}"))?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    if output.status.success() {
        Ok(text)
    } else {
        Err(format!("{name} failed:\n{text}"))
    }
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Usage {
    registers: u32,
    shared_bytes: u32,
    /// Local memory per thread: arrays indexed where the compiler cannot
    /// keep them in registers, and spills.
    stack_bytes: u32,
    spill_stores: u32,
    spill_loads: u32,
}

/// Per kernel, what `ptxas -v` reports.
fn parse_ptxas(report: &str) -> BTreeMap<String, Usage> {
    let mut kernels = BTreeMap::new();
    let mut current: Option<String> = None;
    let number_before = |line: &str, word: &str| -> u32 {
        line.split(',')
            .find(|part| part.contains(word))
            .and_then(|part| part.split_whitespace().find_map(|w| w.parse().ok()))
            .unwrap_or(0)
    };
    for line in report.lines() {
        if let Some(rest) = line.split("Compiling entry function '").nth(1) {
            let name = rest.split('\'').next().unwrap_or_default().to_owned();
            kernels.insert(name.clone(), Usage::default());
            current = Some(name);
        } else if let Some(name) = &current {
            let usage = kernels.entry(name.clone()).or_default();
            if line.contains("spill stores") {
                usage.stack_bytes = number_before(line, "stack frame");
                usage.spill_stores = number_before(line, "spill stores");
                usage.spill_loads = number_before(line, "spill loads");
            }
            if line.contains("Used") && line.contains("registers") {
                usage.registers = number_before(line, "registers");
                usage.shared_bytes = number_before(line, "smem");
            }
        }
    }
    kernels
}

fn print_table(rows: &[(String, String, &str, Usage)]) {
    println!(
        "{:<14} {:<22} {:<6} {:>9} {:>11} {:>10} {:>11}",
        "module", "kernel", "arch", "registers", "shared (B)", "stack (B)", "spills (B)"
    );
    for (module, kernel, arch, usage) in rows {
        println!(
            "{:<14} {:<22} {:<6} {:>9} {:>11} {:>10} {:>11}",
            module,
            kernel,
            arch,
            usage.registers,
            usage.shared_bytes,
            usage.stack_bytes,
            usage.spill_stores + usage.spill_loads
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ptxas_reports_are_parsed() {
        let report = "ptxas info    : 0 bytes gmem\n\
            ptxas info    : Compiling entry function 'reduce_sum_i64' for 'sm_90'\n\
            ptxas info    : Function properties for reduce_sum_i64\n\
            \x20   8 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads\n\
            ptxas info    : Used 18 registers, used 1 barriers, 256 bytes smem, 368 bytes cmem[0]\n";
        let kernels = parse_ptxas(report);
        assert_eq!(
            kernels["reduce_sum_i64"],
            Usage {
                registers: 18,
                shared_bytes: 256,
                stack_bytes: 8,
                spill_stores: 4,
                spill_loads: 12
            }
        );
    }
}
