//! Grading semantic results against vectors/semantic under one profile: the JSON
//! results (`{"id", "outputs"}` or `{"id", "skipped"}` per record) and the raw buffers of the self-checking
//! modules' `ptxvec_raw` entry. Both judge every slot with [`super::accept`].

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use ptxvec_oracle::profile::Profile;
use ptxvec_spec::Spec;

use crate::record::accept::{self, accepts, accepts_threads};
use super::failure::{Failure, Slot};
use super::report::{CaseInputs, Section, Status, TestCase, Unnamed};
use super::results::{BadLine, ById, Computed, Line, SemanticResult, ThreadValues};
use super::syntax::unknown;
use crate::io::progress::Progress;
use crate::error::{Error, Result};
use crate::record::{Bits, Expectation, Out, OutShape, Outputs, Record};
use crate::device::selfcheck::{self, raw, Suite, Window};

/// One variant of vectors/semantic, loaded.
#[derive(Debug, Clone)]
pub struct Variant {
    /// Its instruction (`red`, `shfl.sync`).
    pub instruction: String,
    /// Its file's stem (`red.add.f32`, `cp.reduce...shared__cluster...`).
    pub stem: String,
    /// Its records, read against the spec.
    pub suite: Suite,
}

/// Every variant `index.json` lists, in its order (each file's SHA-256 checked).
pub fn load(spec: &Spec, vectors: &Path) -> Result<Vec<Variant>> {
    let mut out = Vec::new();
    for entry in selfcheck::index(vectors)? {
        let suite = selfcheck::load(spec, &entry, vectors)?;
        let first = suite
            .records
            .first()
            .map(|r| r.text.as_str())
            .unwrap_or_default();
        let instruction = crate::family::read(spec, first)?
            .spelling
            .instruction
            .instruction
            .clone();
        let stem = crate::record::index::stem(&entry.variant);
        out.push(Variant {
            instruction,
            stem,
            suite,
        });
    }
    Ok(out)
}

/// How semantic results are graded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mode {
    /// The profile whose expectations are kept.
    pub profile: Profile,
    /// Every variant is required, not only those the results name.
    pub all: bool,
}

impl Mode {
    fn describe(self) -> String {
        format!(
            "profile {}{}",
            self.profile.name(),
            if self.all { ", every variant" } else { "" }
        )
    }
}

/// A test case for record `r` of `v`, not yet graded.
fn case_of(v: &Variant, r: &Record, window: Option<Window>) -> TestCase {
    let mut groups = BTreeMap::new();
    groups.insert(
        "variant",
        match window {
            Some(w) => format!("{} [window {}]", v.suite.id, w.name()),
            None => v.suite.id.clone(),
        },
    );
    TestCase {
        instruction: v.instruction.clone(),
        id: r.id.clone(),
        window: window.map(|w| w.name().to_owned()),
        groups,
        status: Status::Passed,
        not_graded: None,
        failures: Vec::new(),
        text: r.text.clone(),
        inputs: CaseInputs::Record(r.inputs.clone()),
        source: format!("spec/instructions: {}", r.spec),
        // The record alone: the variant's whole module is one record of hundreds.
        reproduce: format!(
            "ptxvec emit-ptx --variant {}{}{}",
            v.suite.id,
            record_number(&r.id)
                .map(|n| format!(" --records {n}"))
                .unwrap_or_default(),
            window
                .map(|w| format!(" --window {}", w.name()))
                .unwrap_or_default()
        ),
    }
}

/// The number `n` of a record id `<variant>#<n>`, as `emit-ptx --records` takes it.
fn record_number(id: &str) -> Option<&str> {
    id.rsplit_once('#')
        .map(|(_, n)| n)
        .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// An expectation as the files write it, exact bits without their quotes.
pub fn expectation_text(e: &Expectation) -> String {
    match e {
        Expectation::Exact(b) => b.to_string(),
        // A class serializes to null or a small map.
        e => serde_json::to_string(e).unwrap_or_default(),
    }
}

fn got_text(g: Option<Bits>) -> String {
    g.map_or_else(|| "null".to_owned(), |b| b.to_string())
}

/// The failures of one output of a result against its expectations.
fn grade_output(
    shape: &OutShape,
    expected: &[Expectation],
    got: Option<&[Option<Bits>]>,
    failures: &mut Vec<Failure>,
) {
    let key = shape.out.name();
    let Some(got) = got else {
        failures.push(Failure {
            what: format!("{key}: missing output"),
            expected: format!("{} slots", expected.len()),
            got: "no such key".to_owned(),
            slot: None,
        });
        return;
    };
    if got.len() != expected.len() {
        failures.push(Failure {
            what: format!("{key}: wrong element count"),
            expected: format!("{} slots", expected.len()),
            got: format!("{} slots", got.len()),
            slot: None,
        });
        return;
    }
    for (k, (e, g)) in expected.iter().zip(got).enumerate() {
        let fits = g.map(|b| shape.field.fit(b));
        let what = match (e, g, fits) {
            (_, _, Some(Err(err))) => Some(err.to_string()),
            (_, _, Some(Ok(b))) if !accepts(e, Some(b.value), shape.float) => Some(match e {
                Expectation::NotExecuted => "a value in a lane that does not execute".to_owned(),
                _ => "value not accepted".to_owned(),
            }),
            (e, None, _) if !accepts(e, None, shape.float) => {
                Some("no value (null) where the lane executes".to_owned())
            }
            _ => None,
        };
        if let Some(what) = what {
            failures.push(Failure {
                what: format!("{key}[{k}]: {what}"),
                expected: expectation_text(e),
                got: got_text(*g),
                slot: Some(Slot {
                    output: shape.out,
                    index: k,
                }),
            });
        }
    }
}

/// Grades JSON results (`results`, and `bad`, the lines of the same file that could
/// not be read): every record of every variant the results name (all of them under
/// `--all`), then every unknown id.
pub fn grade(
    variants: &[Variant],
    results: &[Line<SemanticResult>],
    bad: &[BadLine],
    mode: Mode,
) -> Section {
    let by_id = ById::new(results, bad);
    let mut known = BTreeSet::new();
    let mut cases = Vec::new();
    let mut not_graded = Vec::new();
    let progress = Progress::new(variants.len() as u64, "variants");
    for v in variants {
        progress.inc(1);
        v.suite.records.iter().for_each(|r| {
            known.insert(r.id.as_str());
        });
        let named = v.suite.records.iter().any(|r| by_id.names(&r.id));
        if !named && !mode.all {
            not_graded.push(Unnamed {
                instruction: v.instruction.clone(),
                name: v.suite.id.clone(),
                cases: v.suite.records.len(),
                not_run: None,
            });
            continue;
        }
        for r in &v.suite.records {
            let mut t = case_of(v, r, None);
            if !by_id.names(&r.id) {
                t.failures.push(Failure {
                    what: "no result (a record of the vectors the results leave out)".to_owned(),
                    expected: "a result".to_owned(),
                    got: "nothing".to_owned(),
                    slot: None,
                });
            }
            match by_id
                .answer(&r.id, &mut t.failures)
                .map(|l| &l.value.answer)
            {
                Some(Computed::Outputs(o, threads)) => {
                    grade_outputs(v, r, o, threads, mode.profile, &mut t.failures)
                }
                Some(Computed::Skipped(why)) => {
                    t.not_graded = Some(format!("skipped by the consumer: {why}"))
                }
                None => {}
            }
            if !t.failures.is_empty() {
                t.status = Status::Failed;
            } else if t.not_graded.is_some() {
                t.status = Status::NotGraded;
            }
            cases.push(t);
        }
    }
    for (id, at) in by_id.unknown(&known) {
        cases.push(unknown(id, &at));
    }
    Section {
        name: "semantic",
        mode: mode.describe(),
        cases,
        not_graded,
        explained: BTreeMap::new(),
    }
}

fn grade_outputs(
    v: &Variant,
    r: &Record,
    got: &Outputs<Option<Bits>>,
    threads: &[ThreadValues],
    p: Profile,
    failures: &mut Vec<Failure>,
) {
    let shapes = v.suite.shape.outputs();
    for o in [Out::D, Out::Mem, Out::P] {
        if got.get(o).is_some() && !shapes.iter().any(|s| s.out == o) {
            failures.push(Failure {
                what: format!("{}: an output this instruction does not have", o.name()),
                expected: "no such key".to_owned(),
                got: "present".to_owned(),
                slot: None,
            });
        }
    }
    for s in &shapes {
        let expected = v.suite.slots(r, p, s.out);
        grade_output(s, expected, got.get(s.out), failures);
        for t in threads.iter().filter(|t| t.out == s.out) {
            grade_threads(s, expected.get(t.slot), t, failures);
        }
    }
    // The classes that bind slots together (an election), once every slot is read.
    if !shapes.iter().any(|s| v.suite.slots(r, p, s.out).iter().any(accept::binds)) {
        return;
    }
    let mut expected_all: Outputs<Expectation> = Outputs { d: None, mem: None, p: None };
    let mut got_all: Outputs<Option<u64>> = Outputs { d: None, mem: None, p: None };
    for s in &shapes {
        expected_all.set(s.out, v.suite.slots(r, p, s.out).to_vec());
        let fitted = got.get(s.out).unwrap_or_default().iter().map(|g| g.and_then(|b| s.field.fit(b).ok()).map(|b| b.value));
        got_all.set(s.out, fitted.collect());
    }
    if let Some(what) = accept::joint(&expected_all, &got_all) {
        failures.push(Failure {
            what: format!("the lanes together: {what}"),
            expected: "one leader: its lane id in every d, its flag in its own p alone".to_owned(),
            got: {
                let hot = got_all.p.iter().flatten().enumerate().filter(|(_, g)| **g == Some(1));
                format!("p true in lanes {:?}", hot.map(|(k, _)| k).collect::<Vec<_>>())
            },
            slot: None,
        });
    }
}

/// The failure of a slot given as every contending thread's value: each must fit
/// the slot, and together they must keep its expectation (a `permutation`: the
/// listed values, each as many times as listed).
fn grade_threads(shape: &OutShape, expected: Option<&Expectation>, t: &ThreadValues, failures: &mut Vec<Failure>) {
    let key = format!("{}[{}]", shape.out.name(), t.slot);
    let fail = |what: String, expected: String| Failure {
        what: format!("{key}: {what}"),
        expected,
        got: format!("[{}]", t.values.iter().map(Bits::to_string).collect::<Vec<_>>().join(", ")),
        slot: Some(Slot {
            output: shape.out,
            index: t.slot,
        }),
    };
    let Some(e) = expected else {
        // The slot count is wrong: `grade_output` says so.
        return;
    };
    let fitted: std::result::Result<Vec<u64>, _> = t
        .values
        .iter()
        .map(|b| shape.field.fit(*b).map(|b| b.value))
        .collect();
    let what = match fitted {
        Err(err) => Some(err.to_string()),
        Ok(values) if !accepts_threads(e, &values, shape.float) => Some(match e {
            Expectation::Permutation(_) => "the threads' values are not the listed ones, each as many times as listed".to_owned(),
            _ => "a thread's value not accepted".to_owned(),
        }),
        Ok(_) => None,
    };
    if let Some(what) = what {
        failures.push(fail(what, expectation_text(e)));
    }
}

/// Grades the raw buffers in `dir`: `<stem>.bin` (the module `emit-ptx --variant`
/// writes by default) and, for a variant stated with generic addressing,
/// `<stem>.<window>.bin`. A file that names no variant (or a window the variant does
/// not have) is an input error: the grade would silently miss it.
pub fn grade_raw(variants: &[Variant], dir: &Path, mode: Mode) -> Result<Section> {
    // `<name>.bin`, or `<name>.bin.gz` (how recorded engines are kept), by `<name>.bin`.
    let mut present = BTreeSet::new();
    let mut gzipped = BTreeSet::new();
    for e in std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
        let e = e.map_err(|e| Error::io(dir, e))?;
        let name = e.file_name().to_string_lossy().into_owned();
        if let Some(plain) = name.strip_suffix(".gz").filter(|p| p.ends_with(".bin")) {
            if !present.insert(plain.to_owned()) {
                return Err(Error::Input(format!("{}: both {plain} and {name}", dir.display())));
            }
            gzipped.insert(plain.to_owned());
        } else if name.ends_with(".bin") && !present.insert(name.clone()) {
            return Err(Error::Input(format!("{}: both {name} and {name}.gz", dir.display())));
        }
    }
    // How an engine's runs went (`ptxvec run-engine`): records that crashed it,
    // variants it could not run.
    let engine_runs = crate::device::engine::RunsFile::read(dir)?;
    let run_of = |name: &str| engine_runs.as_ref().and_then(|f| f.runs.iter().find(|r| r.run == name));
    let mut claimed = BTreeSet::new();
    let mut cases = Vec::new();
    let mut not_graded = Vec::new();
    for v in variants {
        let runs: Vec<Option<Window>> = std::iter::once(None)
            .chain(v.suite.windows().into_iter().map(Some))
            .filter(|w| present.contains(&selfcheck::raw_name(&v.stem, *w)))
            .collect();
        if runs.is_empty() {
            if mode.all {
                for r in &v.suite.records {
                    let mut t = case_of(v, r, None);
                    t.status = Status::Failed;
                    t.failures.push(Failure {
                        what: "no result (no raw buffer)".to_owned(),
                        expected: selfcheck::raw_name(&v.stem, None),
                        got: "nothing".to_owned(),
                        slot: None,
                    });
                    cases.push(t);
                }
            } else {
                let why = std::iter::once(None)
                    .chain(v.suite.windows().into_iter().map(Some))
                    .find_map(|w| Some(run_of(&selfcheck::raw_name(&v.stem, w))?.not_run.as_ref()?.to_string()));
                not_graded.push(Unnamed {
                    instruction: v.instruction.clone(),
                    name: v.suite.id.clone(),
                    cases: v.suite.records.len(),
                    not_run: why,
                });
            }
            continue;
        }
        for w in runs {
            let name = selfcheck::raw_name(&v.stem, w);
            let suite_bytes = v.suite.launch().out_bytes;
            let bytes = read_raw(dir, &name, gzipped.contains(&name), suite_bytes)?;
            claimed.insert(name.clone());
            let suite = v.suite.in_window(w.unwrap_or(Window::Global))?;
            let mut graded = grade_buffer(v, &suite, w, &bytes, mode.profile);
            for c in run_of(&name).map_or(&[][..], |r| &r.crashed[..]) {
                if let Some(t) = graded.get_mut(c.record) {
                    t.status = Status::Failed;
                    t.failures = vec![Failure {
                        what: "the record crashed the engine (alone in its module)".to_owned(),
                        expected: "a result".to_owned(),
                        got: c.reason.clone(),
                        slot: None,
                    }];
                }
            }
            cases.extend(graded);
        }
    }
    let strays: Vec<&String> = present.difference(&claimed).collect();
    if !strays.is_empty() {
        return Err(Error::Input(format!(
            "{}: raw buffers that name no variant of the vectors (`<stem>.bin`, or `<stem>.<window>.bin` for a generic `red`): {}",
            dir.display(),
            strays.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
        )));
    }
    Ok(Section {
        name: "raw",
        mode: mode.describe(),
        cases,
        not_graded,
        explained: BTreeMap::new(),
    })
}

/// The bytes of raw buffer `name` in `dir`, from `name.gz` when `gzipped`. A
/// gzipped buffer is read to at most one byte past the size the launch writes
/// (`want`), so that a wrong size shows as such and a bomb costs nothing.
fn read_raw(dir: &Path, name: &str, gzipped: bool, want: usize) -> Result<Vec<u8>> {
    use std::io::Read;
    if !gzipped {
        let path = dir.join(name);
        return std::fs::read(&path).map_err(|e| Error::io(&path, e));
    }
    let path = dir.join(format!("{name}.gz"));
    let file = std::fs::File::open(&path).map_err(|e| Error::io(&path, e))?;
    let mut bytes = Vec::new();
    flate2::read::GzDecoder::new(file)
        .take(want as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::Input(format!("{}: not a gzip stream: {e}", path.display())))?;
    Ok(bytes)
}

/// The test cases of one raw buffer of `v` run as `suite` (in `window`).
fn grade_buffer(
    v: &Variant,
    suite: &Suite,
    window: Option<Window>,
    bytes: &[u8],
    p: Profile,
) -> Vec<TestCase> {
    let want = suite.launch().out_bytes;
    let mut cases: Vec<TestCase> = suite
        .records
        .iter()
        .map(|r| case_of(v, r, window))
        .collect();
    if bytes.len() != want {
        for t in &mut cases {
            t.status = Status::Failed;
            t.failures.push(Failure {
                what: "buffer of the wrong size (vectors/silicon/README.md gives the layout)"
                    .to_owned(),
                expected: format!("{want} bytes"),
                got: format!("{} bytes", bytes.len()),
                slot: None,
            });
        }
        return cases;
    }
    let vals = raw::decode(suite, bytes);
    let tally = raw::judge(suite, &vals, p);
    let poisoned = raw::left(suite, &vals, p);
    let widths: BTreeMap<Out, u32> = suite.outputs().into_iter().collect();
    for (r, t) in cases.iter_mut().enumerate() {
        if vals.get(r).is_some_and(Option::is_none) {
            t.status = Status::NotGraded;
            t.not_graded =
                Some("a lane outside the membermask executes: silicon does not run it".to_owned());
            continue;
        }
        // Against the poison the runner filled the buffer with: a slot never
        // written is reported as such, never as the poison's value.
        let left: Vec<_> = poisoned.iter().filter(|(s, _)| s.record == r).collect();
        for (s, how) in &left {
            let e = &suite.slots(&suite.records[r], p, s.out)[s.slot];
            t.failures.push(Failure {
                what: match how {
                    raw::Left::NotWritten => format!(
                        "{}[{}]: not written (the slot still holds the poison byte {:#04x})",
                        s.out.name(),
                        s.slot,
                        raw::POISON
                    ),
                    raw::Left::Stray => format!(
                        "{}[{}]: written by a lane that does not execute",
                        s.out.name(),
                        s.slot
                    ),
                },
                expected: expectation_text(e),
                got: format!("{:#x}", s.got),
                slot: Some(Slot {
                    output: s.out,
                    index: s.slot,
                }),
            });
        }
        let reported = |s: &raw::SlotBits| left.iter().any(|(l, _)| (l.out, l.slot) == (s.out, s.slot));
        for s in tally.slots.iter().filter(|s| s.record == r && !reported(s)) {
            let e = &suite.slots(&suite.records[r], p, s.out)[s.slot];
            t.failures.push(Failure {
                what: format!("{}[{}]: value not accepted", s.out.name(), s.slot),
                expected: expectation_text(e),
                // The buffer holds a predicate as a 32-bit word: shown as it is.
                got: match widths.get(&s.out) {
                    Some(&w) if w >= 8 && (w == 64 || s.got >> w == 0) => {
                        Bits::new(s.got, w).to_string()
                    }
                    _ => format!("{:#x}", s.got),
                },
                slot: Some(Slot {
                    output: s.out,
                    index: s.slot,
                }),
            });
        }
        if !t.failures.is_empty() {
            t.status = Status::Failed;
        }
    }
    cases
}

#[cfg(test)]
mod tests {
    use super::record_number;

    #[test]
    fn a_record_number_is_what_follows_the_last_hash() {
        for (id, want) in [
            ("red.add.f32#0", Some("0")),
            ("shfl.sync.idx.b32#117", Some("117")),
            ("a#b#12", Some("12")),
            ("red.add.f32", None),
            ("red.add.f32#", None),
            ("red.add.f32#x1", None),
        ] {
            assert_eq!(record_number(id), want, "case: {id}");
        }
    }
}
