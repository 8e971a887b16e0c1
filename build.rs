//! Build facts the run header reports: perftest's git commit, and the shader compiler's versions.

use std::process::Command;

fn main() {
    let commit = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=PERFTEST_GIT_COMMIT={commit}");
    println!("cargo:rerun-if-changed=.git/HEAD");
    println!("cargo:rerun-if-changed=.git/refs/heads");
    // The shaderc crates' versions, from Cargo.lock (shaderc-sys vendors glslang and SPIRV-Tools).
    let lock = std::fs::read_to_string("Cargo.lock").unwrap_or_default();
    let version = |name: &str| {
        let entry = format!("name = \"{name}\"\nversion = \"");
        lock.split(&entry).nth(1).and_then(|rest| rest.split('"').next()).unwrap_or("unknown").to_owned()
    };
    println!("cargo:rustc-env=PERFTEST_SHADERC_VERSION={}", version("shaderc"));
    println!("cargo:rustc-env=PERFTEST_SHADERC_SYS_VERSION={}", version("shaderc-sys"));
    println!("cargo:rerun-if-changed=Cargo.lock");
}
