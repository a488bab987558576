//! One line of `ptxvec eval --profile all`: the input's first line (as
//! `BufRead::lines` cuts it) answered by `semvec::eval::answer_line` under both
//! profiles (the definition: `eval_record`, the answer written back as a record
//! line) and by the batch's fast path (`semvec::eval::answer_lines`, nothing kept
//! yet): the two answers are equal. No panic, and each unit well under a second.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ptxvec_generator::batch::{rendered, Answers, InputLine};
use ptxvec_generator::semvec::eval::{answer_line, answer_lines, Texts};
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
            let want = answer_line(spec, "<in>", 1, line.as_bytes(), Profile::ALL, false);
            let input = [InputLine { no: 1, bytes: line.as_bytes() }];
            let mut got = Answers::default();
            answer_lines(&mut Texts::new(spec), "<in>", &input, Profile::ALL, false, &mut got);
            assert_eq!(got.lines(), [rendered(&want)], "the fast path and the definition differ");
        });
    }
);
