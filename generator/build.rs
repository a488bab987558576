//! Decides whether the tests that run ptxas are compiled to run: `cfg(ptxas)` is set
//! when `PTXVEC_PTXAS` or `PTXVEC_PTXAS_CU12` is set, or when `CI` is (there a
//! missing assembler fails the test rather than skipping it; `.ci/run` installs both).
//! Without it those tests carry `#[ignore]` with the reason, so that `cargo test`
//! lists them as ignored instead of passing them without running ptxas.

/// The variables whose presence runs the ptxas tests.
const VARS: [&str; 3] = ["PTXVEC_PTXAS", "PTXVEC_PTXAS_CU12", "CI"];

fn main() {
    println!("cargo::rustc-check-cfg=cfg(ptxas)");
    println!("cargo::rerun-if-changed=build.rs");
    for var in VARS {
        println!("cargo::rerun-if-env-changed={var}");
    }
    if VARS.iter().any(|v| std::env::var_os(v).is_some()) {
        println!("cargo::rustc-cfg=ptxas");
    }
}
