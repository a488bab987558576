//! One line of `ptxvec eval --profile all`: the input's first line (as
//! `BufRead::lines` cuts it) evaluated by `semvec::eval::eval_record` under both
//! profiles, and the answer written back as a record line. No panic, and each unit
//! well under a second.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ptxvec_generator::semvec::eval::eval_record;
use ptxvec_oracle::profile::Profile;

// Loaded before the first unit, outside libFuzzer's clock (`-timeout`).
fuzz_target!(
    init: {
        ptxvec_fuzz::spec();
    },
    |data: &[u8]| {
        // `eval` reads its input as UTF-8 lines; anything else is an I/O error there.
        let Ok(text) = std::str::from_utf8(data) else {
            return;
        };
        let line = text.split('\n').next().unwrap_or_default();
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            return;
        }
        let spec = ptxvec_fuzz::spec();
        ptxvec_fuzz::timed(data, || {
            if let Ok(rec) = eval_record(spec, line, Profile::ALL, false) {
                let _ = rec.to_line();
            }
        });
    }
);
