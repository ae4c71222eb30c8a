//! Building workspace executables with cargo and finding them in its output.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// One binary to ship: where cargo built it and the name it travels under.
pub struct Binary {
    pub name: String,
    pub path: PathBuf,
}

/// Builds `packages` (in release, or the dev profile) with `what` (`--tests`,
/// `--benches`) and returns the executables that `name` gives a name to.
pub fn build(
    release: bool,
    root: &Path,
    what: &[&str],
    packages: &[&str],
    name: impl Fn(&str, &str, &str) -> Option<String>,
) -> Result<Vec<Binary>, String> {
    let mut command = crate::cargo(root);
    command
        .args(["build", "--message-format=json-render-diagnostics"])
        .args(what);
    if release {
        command.arg("--release");
    }
    for package in packages {
        command.args(["-p", package]);
    }
    println!("building: {command:?}");
    let mut child = command
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    let stdout = child.stdout.take().ok_or("cargo has no output")?;
    let mut binaries = Vec::new();
    for line in std::io::BufReader::new(stdout).lines() {
        let line = line.map_err(|e| format!("reading cargo's output: {e}"))?;
        let Ok(message) = serde_json::from_str::<serde_json::Value>(&line) else {
            continue;
        };
        if message["reason"] != "compiler-artifact" {
            continue;
        }
        let (Some(executable), Some(package), Some(target)) = (
            message["executable"].as_str(),
            message["package_id"].as_str().and_then(package_name),
            message["target"]["name"].as_str(),
        ) else {
            continue;
        };
        let kind = message["target"]["kind"][0].as_str().unwrap_or_default();
        if let Some(name) = name(package, target, kind) {
            binaries.push(Binary {
                name,
                path: PathBuf::from(executable),
            });
        }
    }
    let status = child.wait().map_err(|e| format!("cargo: {e}"))?;
    if !status.success() {
        return Err(format!("cargo build {} failed", what.join(" ")));
    }
    Ok(binaries)
}

/// The package's name from a cargo package id (`path+file:///…/gpu-runtime#0.1.0`
/// or `registry+…#name@version`).
pub fn package_name(id: &str) -> Option<&str> {
    let tail = id.rsplit('#').next()?;
    let name = match tail.split_once('@') {
        Some((name, _)) => name,
        None => id.rsplit('#').nth(1)?.rsplit('/').next()?,
    };
    Some(name)
}

#[cfg(test)]
mod tests {
    use super::package_name;

    #[test]
    fn package_names_come_from_both_id_forms() {
        assert_eq!(
            package_name("path+file:///work/main/crates/gpu-runtime#0.1.0"),
            Some("gpu-runtime")
        );
        assert_eq!(
            package_name("path+file:///work/main/crates/engine-select#engine-select@0.1.0"),
            Some("engine-select")
        );
    }
}
