//! One batch line of `ptxvec check-syntax -` (byte 0 picks `--strict` and the
//! defaults), answered by the definition and by the batch's fast path, which must
//! agree: the body is `ptxvec_generator::cmd::fuzz::check_syntax_line`, which the tests
//! also replay over the corpus (`tests/fuzz_corpora.rs`). No panic, and each unit
//! well under a second.
#![no_main]

use libfuzzer_sys::fuzz_target;

// Loaded before the first unit, outside libFuzzer's clock (`-timeout`).
fuzz_target!(
    init: {
        ptxvec_fuzz::spec();
    },
    |data: &[u8]| {
        let spec = ptxvec_fuzz::spec();
        ptxvec_fuzz::timed(data, || ptxvec_generator::cmd::fuzz::check_syntax_line(spec, data));
    }
);
