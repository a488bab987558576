//! One batch line of `ptxvec check-syntax -`: the first byte's bit 0 is `--strict`,
//! bit 1 gives the defaults `--ptx 8.6 --target sm_90`; the rest is the line, as
//! `check_syntax::answer_line` answers it (the definition) and as the batch's fast
//! path answers it (`check_syntax::answer_lines`, a fresh chain index): the two
//! answers are equal. No panic, and each unit well under a second.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ptxvec_generator::batch::InputLine;
use ptxvec_generator::check_syntax::{answer_line, answer_lines, Args};
use ptxvec_generator::syntax::index::Index;
use ptxvec_generator::syntax::judge::Order;

// Loaded before the first unit, outside libFuzzer's clock (`-timeout`).
fuzz_target!(
    init: {
        ptxvec_fuzz::spec();
    },
    |data: &[u8]| {
        let Some((&select, line)) = data.split_first() else {
            return;
        };
        let defaults = select & 2 != 0;
        let args = Args {
            text: "-".to_owned(),
            ptx: defaults.then(|| "8.6".to_owned()),
            target: defaults.then(|| "sm_90".to_owned()),
            strict: select & 1 != 0,
        };
        let order = if args.strict {
            Order::Strict
        } else {
            Order::Lenient
        };
        let spec = ptxvec_fuzz::spec();
        ptxvec_fuzz::timed(data, || {
            let want = answer_line(spec, &args, order, 1, line);
            let got = answer_lines(&mut Index::new(spec), &args, order, &[InputLine { no: 1, bytes: line }]);
            assert_eq!(got, [want], "the fast path and the definition differ");
        });
    }
);
