//! Decides whether the tests that need an outside tool are compiled to run.
//!
//! `cfg(ptxas)` is set when `PTXVEC_PTXAS` or `PTXVEC_PTXAS_CU12` is set, or when
//! `CI` is (there a missing assembler fails the test rather than skipping it;
//! `.ci/run` installs both). `cfg(chromium)` is set when `PTXVEC_CHROMIUM` names a
//! browser or `chromium` is on `PATH` (the HTML report's test opens the page in it).
//! Without them those tests carry `#[ignore]` with the reason, so that `cargo test`
//! lists them as ignored instead of passing them without running the tool.

use std::path::Path;

/// The variables whose presence runs the ptxas tests.
const VARS: [&str; 3] = ["PTXVEC_PTXAS", "PTXVEC_PTXAS_CU12", "CI"];

fn main() {
    println!("cargo::rustc-check-cfg=cfg(ptxas)");
    println!("cargo::rustc-check-cfg=cfg(chromium)");
    println!("cargo::rerun-if-changed=build.rs");
    for var in VARS {
        println!("cargo::rerun-if-env-changed={var}");
    }
    if VARS.iter().any(|v| std::env::var_os(v).is_some()) {
        println!("cargo::rustc-cfg=ptxas");
    }
    println!("cargo::rerun-if-env-changed=PTXVEC_CHROMIUM");
    println!("cargo::rerun-if-env-changed=PATH");
    let on_path = std::env::var_os("PATH").is_some_and(|p| {
        std::env::split_paths(&p).any(|d| Path::new(&d).join("chromium").is_file())
    });
    if std::env::var_os("PTXVEC_CHROMIUM").is_some() || on_path {
        println!("cargo::rustc-cfg=chromium");
    }
}
