//! The architecture invariants, checked: crate dependencies, `unsafe` placement, file headers and sizes.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// Dependencies each workspace crate must not have (direct, not counting dev-dependencies).
const FORBIDDEN_DEPENDENCIES: &[(&str, &[&str])] = &[
    // Lowering knows nothing of CUDA or of execution.
    (
        "ir-lower",
        &[
            "cudarc",
            "gpu-runtime",
            "gpu-exec",
            "kernels",
            "engine-select",
        ],
    ),
    // The runtime knows nothing of Polars or of plans (it launches the kernel library).
    (
        "gpu-runtime",
        &[
            "polars",
            "polars-core",
            "polars-plan",
            "ir-lower",
            "gpu-exec",
            "engine-select",
        ],
    ),
    // Execution reaches the driver only through gpu-runtime.
    ("gpu-exec", &["cudarc", "engine-select"]),
    // The façade never touches the driver directly.
    ("engine-select", &["cudarc", "kernels"]),
    // The kernel library has no run-time dependencies on the rest.
    (
        "kernels",
        &[
            "polars",
            "cudarc",
            "gpu-runtime",
            "gpu-exec",
            "ir-lower",
            "engine-select",
        ],
    ),
];

/// No crate of the workspace may depend on these.
const BANNED_EVERYWHERE: &[(&str, &str)] = &[
    (
        "cust",
        "it links the CUDA driver at load time; see ARCHITECTURE.md",
    ),
    (
        "cust_raw",
        "it links the CUDA driver at load time; see ARCHITECTURE.md",
    ),
];

/// The most lines a hand-written source file (Rust, CUDA) may have: past
/// it, a file holds more than one concept and is split.
const MAX_LINES: usize = 1200;

/// The only folders whose Rust code may contain `unsafe`.
const UNSAFE_ALLOWED: &[&str] = &["crates/gpu-runtime", "kernels"];

pub fn check(root: &Path) -> Result<(), String> {
    let mut problems = Vec::new();
    check_dependencies(root, &mut problems)?;
    for file in rust_files(root) {
        let relative = file.strip_prefix(root).unwrap_or(&file).to_path_buf();
        let text = fs::read_to_string(&file)
            .map_err(|e| format!("cannot read {}: {e}", relative.display()))?;
        check_file(&relative, &text, &mut problems);
    }
    for file in source_files(&root.join("kernels/cuda"), &[".cu", ".cuh"]) {
        let relative = file.strip_prefix(root).unwrap_or(&file).to_path_buf();
        let text = fs::read_to_string(&file)
            .map_err(|e| format!("cannot read {}: {e}", relative.display()))?;
        check_size(&relative, &text, &mut problems);
    }
    if problems.is_empty() {
        println!("invariants hold");
        Ok(())
    } else {
        Err(format!(
            "{} invariant(s) broken:\n  {}",
            problems.len(),
            problems.join("\n  ")
        ))
    }
}

fn check_dependencies(root: &Path, problems: &mut Vec<String>) -> Result<(), String> {
    let output = crate::cargo(root)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .output()
        .map_err(|e| format!("cannot run cargo metadata: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let metadata: Value = serde_json::from_slice(&output.stdout)
        .map_err(|e| format!("cargo metadata printed invalid JSON: {e}"))?;
    let packages = metadata["packages"].as_array().cloned().unwrap_or_default();
    for package in &packages {
        let name = package["name"].as_str().unwrap_or_default();
        // Normal and build dependencies: what a user of the crate gets. Tests
        // may use more (the kernels' tests run on gpu-runtime's emulated device).
        let dependencies: Vec<&str> = package["dependencies"]
            .as_array()
            .map(|deps| {
                deps.iter()
                    .filter(|d| d["kind"] != "dev")
                    .filter_map(|d| d["name"].as_str())
                    .collect()
            })
            .unwrap_or_default();
        for (crate_name, forbidden) in FORBIDDEN_DEPENDENCIES {
            if name == *crate_name {
                for dependency in dependencies.iter().filter(|d| forbidden.contains(d)) {
                    problems.push(format!("{name} must not depend on {dependency}"));
                }
            }
        }
        for (banned, why) in BANNED_EVERYWHERE {
            if dependencies.contains(banned) {
                problems.push(format!(
                    "{name} depends on {banned}, which is banned: {why}"
                ));
            }
        }
    }
    // ir-lower matches Polars' enums exhaustively; their variants depend on
    // Polars' features, so every crate must ask for the same polars.
    let mut polars_specs: Vec<(String, String)> = Vec::new();
    for package in &packages {
        let name = package["name"].as_str().unwrap_or_default();
        for dependency in package["dependencies"].as_array().into_iter().flatten() {
            if dependency["name"] == "polars" && dependency["kind"].is_null() {
                let spec = format!("{} {}", dependency["req"], dependency["features"]);
                polars_specs.push((name.to_owned(), spec));
            }
        }
    }
    if let Some((first_crate, first_spec)) = polars_specs.first() {
        for (crate_name, spec) in &polars_specs[1..] {
            if spec != first_spec {
                problems.push(format!(
                    "{crate_name} asks for polars {spec}, {first_crate} for {first_spec}: use \
                     `polars.workspace = true` everywhere"
                ));
            }
        }
    }
    for (crate_name, _) in FORBIDDEN_DEPENDENCIES {
        if !packages.iter().any(|p| p["name"] == *crate_name) {
            problems.push(format!("the workspace has no crate {crate_name}"));
        }
    }
    Ok(())
}

fn check_file(relative: &Path, text: &str, problems: &mut Vec<String>) {
    let shown = relative.display();
    check_size(relative, text, problems);
    if !text.trim_start().starts_with("//!") {
        problems.push(format!(
            "{shown}: does not open with a `//!` line saying what it is for"
        ));
    }
    let unsafe_allowed = UNSAFE_ALLOWED.iter().any(|dir| relative.starts_with(dir));
    if !unsafe_allowed {
        for (number, line) in text.lines().enumerate() {
            if has_unsafe_keyword(line) {
                problems.push(format!(
                    "{shown}:{}: `unsafe` outside gpu-runtime and kernels",
                    number + 1
                ));
            }
        }
    }
}

fn check_size(relative: &Path, text: &str, problems: &mut Vec<String>) {
    let lines = text.lines().count();
    if lines > MAX_LINES {
        problems.push(format!(
            "{}: {lines} lines, over {MAX_LINES}: split it, one concept a file",
            relative.display()
        ));
    }
}

/// Whether the code part of a line (before any `//`, outside string
/// literals) uses the `unsafe` keyword.
fn has_unsafe_keyword(line: &str) -> bool {
    let mut code = String::new();
    let mut in_string = false;
    let mut previous = ' ';
    for ch in line.chars() {
        if !in_string && ch == '/' && previous == '/' {
            code.pop();
            break;
        }
        if ch == '"' && previous != '\\' {
            in_string = !in_string;
        } else if !in_string {
            code.push(ch);
        }
        previous = ch;
    }
    code.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|word| word == "unsafe")
}

fn rust_files(root: &Path) -> Vec<PathBuf> {
    source_files(root, &[".rs"])
}

/// The files under `root` (hidden folders and `target` aside) whose names
/// end with one of `endings`, sorted.
fn source_files(root: &Path, endings: &[&str]) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if path.is_dir() {
                if !name.starts_with('.') && name != "target" {
                    pending.push(path);
                }
            } else if endings.iter().any(|ending| name.ends_with(ending)) {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsafe_keyword_is_found_in_code_only() {
        assert!(has_unsafe_keyword("    unsafe { f() }"));
        assert!(has_unsafe_keyword("pub unsafe fn f() {}"));
        assert!(!has_unsafe_keyword("// unsafe here is a comment"));
        assert!(!has_unsafe_keyword("let s = \"unsafe\";"));
        assert!(!has_unsafe_keyword("#![forbid(unsafe_code)]"));
        assert!(!has_unsafe_keyword("let not_unsafe = 1;"));
    }

    #[test]
    fn files_outside_the_allowed_crates_may_not_use_unsafe() {
        let mut problems = Vec::new();
        let code = "//! A file.\nfn f() { unsafe { g() } }\n";
        check_file(
            Path::new("crates/engine-select/src/x.rs"),
            code,
            &mut problems,
        );
        assert_eq!(problems.len(), 1, "{problems:?}");
        problems.clear();
        check_file(
            Path::new("crates/gpu-runtime/src/x.rs"),
            code,
            &mut problems,
        );
        assert!(problems.is_empty(), "{problems:?}");
    }

    #[test]
    fn files_past_the_size_limit_are_reported() {
        let mut problems = Vec::new();
        let long = format!("//! A file.\n{}", "fn f() {}\n".repeat(MAX_LINES));
        check_file(Path::new("xtask/src/x.rs"), &long, &mut problems);
        assert_eq!(problems.len(), 1, "{problems:?}");
        problems.clear();
        let short = format!("//! A file.\n{}", "fn f() {}\n".repeat(MAX_LINES - 1));
        check_file(Path::new("xtask/src/x.rs"), &short, &mut problems);
        assert!(problems.is_empty(), "{problems:?}");
    }

    #[test]
    fn files_must_open_with_a_module_doc_line() {
        let mut problems = Vec::new();
        check_file(Path::new("xtask/src/x.rs"), "fn main() {}\n", &mut problems);
        assert_eq!(problems.len(), 1, "{problems:?}");
    }
}
