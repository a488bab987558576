//! What the fuzz targets share: the repository's spec and vectors, loaded once, and
//! a clock on each unit.
//!
//! The targets run on machines where the repository sits elsewhere than where they
//! were built: `PTXVEC_FUZZ_ROOT` names a folder holding `spec/` and `vectors/`
//! (`run-long.sh` sets it), and the default is the repository this crate is in.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::Instant;

use ptxvec_spec::Spec;

/// The folder holding `spec/` and `vectors/`.
pub fn root() -> PathBuf {
    std::env::var_os("PTXVEC_FUZZ_ROOT")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".."))
}

/// The repository's spec, loaded once. A spec that does not load is no finding of
/// the fuzzer: the target stops at once, saying why.
pub fn spec() -> &'static Spec {
    static SPEC: OnceLock<Spec> = OnceLock::new();
    SPEC.get_or_init(|| {
        let dir = root().join("spec");
        Spec::load(&dir).unwrap_or_else(|e| {
            eprintln!("ptxvec-fuzz: {} does not load:\n{e}", dir.display());
            std::process::exit(3)
        })
    })
}

/// The slowest unit so far, in microseconds.
static SLOWEST_US: AtomicU64 = AtomicU64::new(0);

/// Runs `f` on one unit and keeps the slowest time: each new slowest unit is
/// printed as `ptxvec-fuzz: slowest unit: N us (B bytes)`, finer than libFuzzer's
/// `-report_slow_units`, which counts whole seconds. A unit of 100 ms or more is
/// also written to `$PTXVEC_FUZZ_SLOW_DIR` when that is set, as `slow-<ms>ms-<n>`.
pub fn timed(data: &[u8], f: impl FnOnce()) {
    let t = Instant::now();
    f();
    let us = u64::try_from(t.elapsed().as_micros()).unwrap_or(u64::MAX);
    if us > SLOWEST_US.fetch_max(us, Ordering::Relaxed) {
        eprintln!("ptxvec-fuzz: slowest unit: {us} us ({} bytes)", data.len());
        if us >= 100_000 {
            if let Some(dir) = std::env::var_os("PTXVEC_FUZZ_SLOW_DIR") {
                let path = PathBuf::from(dir).join(format!(
                    "slow-{}ms-{}-{}",
                    us / 1000,
                    std::process::id(),
                    data.len()
                ));
                let _ = std::fs::write(path, data);
            }
        }
    }
}
