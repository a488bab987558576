//! The fuzz targets' bodies, one unit of input each: what the cargo-fuzz targets
//! (`fuzz/fuzz_targets/<target>.rs`, thin wrappers) run under libFuzzer, and what
//! the integration tests replay over every committed corpus file
//! (`fuzz/corpus/<target>/`, `tests/fuzz_corpora.rs`) on stable Rust, so that CI
//! holds the corpora without a nightly toolchain. A body panics on a finding: a
//! panic of the code under test, or, in the two batch-line targets, a fast-path
//! answer that differs from the definition's.

use std::path::Path;

use ptxvec_oracle::profile::Profile;
use ptxvec_spec::{FileKind, Spec, SpecErrors};

use crate::io::batch::{rendered, Answers, InputLine};
use crate::cmd::check_syntax::{self, Args};
use crate::error::Result;
use crate::grade::results::{parse, Line, SemanticResult, SyntaxResult};
use crate::grade::{semantic, syntax};
use crate::vectors::semantic::eval::{self, Texts};
use crate::syntax::case::Case;
use crate::syntax::index::Index;
use crate::syntax::judge::Order;

/// The targets, by the names of their binaries and corpus folders.
pub const TARGETS: [&str; 4] = [
    "spec_loader",
    "check_syntax_line",
    "eval_record",
    "grade_results_line",
];

/// `spec_loader`: the spec loader on one file's bytes. Byte 0 says which file it is
/// (0 or 1 mod 4 `instructions/fuzz.yaml`, 2 `targets.yaml`, 3 `errata.yaml`), the
/// rest is its content, read and checked as `Spec::load` does against `spec` (its
/// seeds, errata ids, target model and instruction names), and the errors rendered
/// as the CLI prints them.
pub fn spec_loader(spec: &Spec, data: &[u8]) {
    let Some((&select, bytes)) = data.split_first() else {
        return;
    };
    let (kind, path) = match select % 4 {
        2 => (FileKind::Targets, "spec/targets.yaml"),
        3 => (FileKind::Errata, "spec/errata.yaml"),
        _ => (FileKind::Instruction, "spec/instructions/fuzz.yaml"),
    };
    let errors = spec.check_file(kind, Path::new(path), bytes.to_vec());
    let _ = SpecErrors(errors).to_string();
}

/// `check_syntax_line`: one batch line of `ptxvec check-syntax -`. Byte 0's bit 0 is
/// `--strict`, bit 1 gives the defaults `--ptx 8.6 --target sm_90`; the rest is the
/// line, answered by `check_syntax::answer_line` (the definition) and by the batch's
/// fast path (`check_syntax::answer_lines`, a fresh chain index), which must agree.
pub fn check_syntax_line(spec: &Spec, data: &[u8]) {
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
    let want = check_syntax::answer_line(spec, &args, order, 1, line);
    let input = [InputLine { no: 1, bytes: line }];
    let mut got = Answers::default();
    check_syntax::answer_lines(&mut Index::new(spec), &args, order, &input, &mut got);
    assert_eq!(got.lines(), [rendered(&want)], "the fast path and the definition differ");
}

/// `eval_record`: one line of `ptxvec eval --profile all`, the input's first line
/// (as `BufRead::lines` cuts it), answered by `vectors::semantic::eval::answer_line` under both
/// profiles (the definition: `eval_record`, the answer written back as a record
/// line) and by the batch's fast path (`vectors::semantic::eval::answer_lines`, nothing kept
/// yet), which must agree.
pub fn eval_record(spec: &Spec, data: &[u8]) {
    // `eval` reads its input as UTF-8 lines; anything else is an I/O error there.
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let line = text.split('\n').next().unwrap_or_default();
    let line = line.strip_suffix('\r').unwrap_or(line);
    if line.trim().is_empty() {
        return;
    }
    let want = eval::answer_line(spec, "<in>", 1, line.as_bytes(), Profile::ALL, false);
    let input = [InputLine {
        no: 1,
        bytes: line.as_bytes(),
    }];
    let mut got = Answers::default();
    eval::answer_lines(
        &mut Texts::new(spec),
        "<in>",
        &input,
        Profile::ALL,
        false,
        &mut got,
    );
    assert_eq!(
        got.lines(),
        [rendered(&want)],
        "the fast path and the definition differ"
    );
}

/// The sample of the vectors that `grade_results_line` grades against: every
/// [`GradeSample::SYNTAX_STRIDE`]th syntax case, the first
/// [`GradeSample::SEMANTIC_RECORDS`] records of each variant. Grading walks every
/// record of each variant a result names, and every case of its instruction; on the
/// sample a unit costs a line's work rather than a whole file's.
/// `fuzz/make_corpus.py` picks the corpus's ids among these.
pub struct GradeSample {
    syntax: Vec<(String, Vec<Case>)>,
    semantic: Vec<semantic::Variant>,
}

impl GradeSample {
    /// Every how-many-th case of `vectors/syntax` is graded.
    pub const SYNTAX_STRIDE: usize = 32;
    /// The records of each variant graded.
    pub const SEMANTIC_RECORDS: usize = 8;

    /// Reads the sample from the vectors folder `vectors`, read against `spec`.
    pub fn load(spec: &Spec, vectors: &Path) -> Result<Self> {
        let mut syntax = syntax::load(spec, vectors)?;
        for (_, cases) in &mut syntax {
            *cases = cases.iter().step_by(Self::SYNTAX_STRIDE).cloned().collect();
        }
        let mut semantic = semantic::load(spec, vectors)?;
        for variant in &mut semantic {
            variant.suite.records.truncate(Self::SEMANTIC_RECORDS);
        }
        Ok(GradeSample { syntax, semantic })
    }
}

/// `grade_results_line`: a `ptxvec grade` results file. Byte 0's bit 0 picks syntax
/// results (0) or semantic results (1), bit 1 also grades what was read against
/// `sample` (syntax: bit 2 is `--parser`; semantic: bit 2 is `--profile sm_90`); the
/// rest is the file's text, read by `grade::results::parse`.
pub fn grade_results_line(sample: &GradeSample, data: &[u8]) {
    let Some((&select, bytes)) = data.split_first() else {
        return;
    };
    let grade = select & 2 != 0;
    let flag = select & 4 != 0;
    let mut bad = Vec::new();
    if select & 1 == 0 {
        let results: Vec<Line<SyntaxResult>> = parse("r.jsonl", bytes, &mut bad);
        if grade {
            let mode = syntax::Mode {
                parser: flag,
                all: false,
            };
            let _ = syntax::grade(&sample.syntax, &results, &bad, mode);
        }
    } else {
        let results: Vec<Line<SemanticResult>> = parse("r.jsonl", bytes, &mut bad);
        if grade {
            let profile = if flag { Profile::Sm90 } else { Profile::PtxIsa };
            let mode = semantic::Mode {
                profile,
                all: false,
            };
            let _ = semantic::grade(&sample.semantic, &results, &bad, mode);
        }
    }
}
