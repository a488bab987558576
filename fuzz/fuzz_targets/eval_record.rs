//! One line of `ptxvec eval --profile all` (the input's first line), answered by the
//! definition and by the batch's fast path, which must agree: the body is
//! `ptxvec_generator::cmd::fuzz::eval_record`, which the tests also replay over the
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
        ptxvec_fuzz::timed(data, || ptxvec_generator::cmd::fuzz::eval_record(spec, data));
    }
);
