//! The spec loader on one file's bytes (byte 0 picks the file): the body is
//! `ptxvec_generator::cmd::fuzz::spec_loader`, which the tests also replay over the
//! corpus (`tests/fuzz_corpora.rs`). No panic, and each unit well under a second.
#![no_main]

use libfuzzer_sys::fuzz_target;

// Loaded before the first unit, outside libFuzzer's clock (`-timeout`).
fuzz_target!(
    init: {
        ptxvec_fuzz::spec();
    },
    |data: &[u8]| {
        let spec = ptxvec_fuzz::spec();
        ptxvec_fuzz::timed(data, || ptxvec_generator::cmd::fuzz::spec_loader(spec, data));
    }
);
