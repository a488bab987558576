//! `litmus.json`: what `ptxvec silicon-litmus` saw, typed, and its replay against
//! the oracle without a GPU.
//!
//! The file is the device header's keys, `run` (how the tests were run), and
//! `tests`, one line per test: its program, how many instances ran, and the
//! histogram of outcomes, each with its count, whether the oracle allows it
//! (`allowed`) and whether it is weak (`weak`: allowed, yet no sequentially
//! consistent interleaving gives it); per test, how many instances showed a
//! forbidden outcome and a weak one, and whether the oracle allows any weak outcome
//! at all (`weak_allowed`), so that a test whose weak outcome never showed says so.

use std::collections::{BTreeMap, BTreeSet};

use ptxvec_oracle::model::{judge, Litmus, Loc, Op, Outcome, Reg, Rmw, Val, Verdict};
use serde::{Deserialize, Serialize};

use super::case::Case;
use super::emit::Layout;
use crate::device::silicon::header::{Evidence, Header};
use crate::litmus;

/// The evidence file's name.
pub const FILE: &str = "litmus.json";
/// Its `format`.
pub const FORMAT: &str = "ptxvec-silicon-litmus/1";
/// The prefix of the errata ledger's `disagreements` entry that explains a
/// forbidden outcome silicon showed: `silicon:sm_90:litmus:<test id>:<outcome>`
/// ([`outcome_text`]).
pub const LEDGER_PREFIX: &str = "silicon:sm_90:litmus:";

/// How the tests were run: every knob of the runner, so that a run can be repeated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunParams {
    /// Threads per CTA.
    pub block: u32,
    /// CTAs launched per multiprocessor (the grid is this times the device's
    /// multiprocessors, rounded down to a multiple of the test's cluster size).
    pub ctas_per_sm: u32,
    /// Instances asked for per test: each ran at least this many.
    pub instances: u64,
    /// The seed every launch's role table and stress pattern derive from.
    pub seed: u64,
    /// How many times a test thread polls its instance's arrival count at most.
    pub spin_limit: u32,
    /// Stores and loads each stress thread makes.
    pub stress_iters: u32,
    /// 128-byte lines of the stress region.
    pub stress_lines: u32,
    /// Warps of each CTA kept for stress.
    pub stress_warps: u32,
    /// Words between two instances' copies of a location.
    pub stride: u32,
}

/// One outcome silicon showed, with how often.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Observed {
    /// Whether the oracle allows it.
    pub allowed: bool,
    /// Instances that ended with it.
    pub count: u64,
    /// Each accessed location's final value, by name (`m0`).
    pub mem: BTreeMap<String, u32>,
    /// Each set register's final value, by thread and name (`t1.r0`).
    pub regs: BTreeMap<String, u32>,
    /// Allowed, and given by no sequentially consistent interleaving.
    pub weak: bool,
}

/// One test: how it ran and what it showed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Row {
    /// Why the test has no histogram (its module did not load, its run faulted or
    /// timed out); `null` when it ran.
    pub failed: Option<String>,
    /// Instances that showed a forbidden outcome.
    pub forbidden_observed: u64,
    /// The test's id.
    pub id: String,
    /// Instances run.
    pub instances: u64,
    /// Launches they took.
    pub launches: u64,
    /// The histogram, outcomes in the oracle's order.
    pub outcomes: Vec<Observed>,
    /// Each thread: where it ran and its instructions.
    pub program: Vec<String>,
    /// Whether the oracle allows some weak outcome.
    pub weak_allowed: bool,
    /// Instances that showed a weak outcome.
    pub weak_observed: u64,
}

/// The file's body.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Body {
    /// How the tests were run.
    pub run: RunParams,
    /// One row per test, in the order of the test list.
    pub tests: Vec<Row>,
}

/// The whole file.
pub type LitmusFile = Evidence<Body>;

/// Reads the file.
pub fn parse(text: &str) -> Result<LitmusFile, serde_json::Error> {
    serde_json::from_str(text)
}

/// The file's bytes: the header's keys, `run`, then `tests`, one row per line.
pub fn render(header: &Header, run: &RunParams, rows: &[Row]) -> String {
    // Headers and rows hold strings, numbers, lists and maps with string keys
    // only: serde_json cannot fail on them.
    let head = serde_json::to_string(header).unwrap_or_default();
    let run = serde_json::to_string(run).unwrap_or_default();
    let mut s = format!("{},\n\"run\": {run},\n\"tests\": [\n", head.trim_end_matches('}'));
    for (i, r) in rows.iter().enumerate() {
        s += &serde_json::to_string(r).unwrap_or_default();
        s += if i + 1 < rows.len() { ",\n" } else { "\n" };
    }
    s += "]}\n";
    s
}

/// A register's name in the file: the litmus records' key, `1:r0` (thread 1's
/// `%r0`), so that an outcome reads the same in the vectors, a results file and here.
pub fn reg_name(thread: usize, r: Reg) -> String {
    litmus::reg_key(thread, r)
}

/// A location's name in the file: the litmus records' key (`x`, `y`, `z`, `w`, `m4`...).
pub fn loc_name(l: Loc) -> String {
    litmus::mem_key(l)
}

/// An outcome in one line, as the ledger names it: `1:r0=1 1:r1=0 x=1 y=1`.
pub fn outcome_text(o: &Outcome) -> String {
    let regs = o.regs.iter().map(|(&(t, r), v)| format!("{}={v}", reg_name(t, r)));
    let mem = o.mem.iter().map(|(&l, v)| format!("{}={v}", loc_name(l)));
    regs.chain(mem).collect::<Vec<_>>().join(" ")
}

/// The outcome an instance's output row stands for (registers in the layout's
/// order, then locations); `None` for a row of another width.
pub fn outcome_of(lay: &Layout, row: &[u32]) -> Option<Outcome> {
    if row.len() != lay.width() {
        return None;
    }
    let (regs, mem) = row.split_at(lay.regs.len());
    Some(Outcome {
        regs: lay.regs.iter().copied().zip(regs.iter().copied()).collect(),
        mem: lay.locs.iter().copied().zip(mem.iter().copied()).collect(),
    })
}

/// An outcome as the file writes it, back in the oracle's form; `None` for a name
/// that is not a litmus key ([`litmus::reg_of_key`], [`litmus::loc_of_key`]).
pub fn outcome_from(o: &Observed) -> Option<Outcome> {
    let mut out = Outcome::default();
    for (name, &v) in &o.regs {
        out.regs.insert(litmus::reg_of_key(name)?, v);
    }
    for (name, &v) in &o.mem {
        out.mem.insert(litmus::loc_of_key(name)?, v);
    }
    Some(out)
}

/// Each thread of `case` in one line: where it runs, then its instructions with
/// their operands (`t1 @ gpu 0 cluster 0 cta 1: ld.acquire.gpu.global.u32 r0, [m3];
/// ...`; `cta 0 warp 0` where the threads share a warp).
pub fn program(case: &Case) -> Vec<String> {
    let operand = |rmw: Rmw| match rmw {
        Rmw::Add(k) | Rmw::Exch(k) => k,
    };
    case.test
        .threads
        .iter()
        .zip(&case.opcodes)
        .enumerate()
        .map(|(t, (th, ops))| {
            let body: Vec<String> = th
                .events
                .iter()
                .zip(ops)
                .map(|(e, op)| {
                    let args = match e.op {
                        Op::Ld { loc, reg } => format!(" r{}, [{}]", reg.0, loc_name(loc)),
                        Op::St { loc, val: Val::Const(c) } => format!(" [{}], {c}", loc_name(loc)),
                        Op::St { loc, val: Val::Reg(r) } => format!(" [{}], r{}", loc_name(loc), r.0),
                        Op::Atom { loc, reg, rmw } => format!(" r{}, [{}], {}", reg.0, loc_name(loc), operand(rmw)),
                        Op::Red { loc, rmw } => format!(" [{}], {}", loc_name(loc), operand(rmw)),
                        Op::Fence | Op::AliasFence => String::new(),
                    };
                    format!("{op}{args}")
                })
                .collect();
            let p = th.place;
            // The model's place has no warp; a test in one warp says so.
            let warp = if case.same_warp { " warp 0" } else { "" };
            format!("t{t} @ gpu {} cluster {} cta {}{warp}: {}", p.gpu, p.cluster, p.cta, body.join("; "))
        })
        .collect()
}

/// What the oracle says of a test: its verdict and its sequentially consistent
/// outcomes.
pub struct Judged {
    /// The verdict.
    pub verdict: Verdict,
    /// The outcomes of the interleavings.
    pub sc: BTreeSet<Outcome>,
}

impl Judged {
    /// The oracle on `test`.
    pub fn of(test: &Litmus) -> Result<Judged, String> {
        let verdict = judge(test).map_err(|e| e.to_string())?;
        Ok(Judged { verdict, sc: ptxvec_oracle::model::sc::outcomes(test) })
    }

    /// Whether some allowed outcome is weak.
    pub fn weak_allowed(&self) -> bool {
        self.verdict.allowed.iter().any(|o| !self.sc.contains(o))
    }

    fn observed(&self, o: &Outcome, count: u64) -> Observed {
        let allowed = self.verdict.allowed.contains(o);
        Observed {
            allowed,
            count,
            mem: o.mem.iter().map(|(&l, &v)| (loc_name(l), v)).collect(),
            regs: o.regs.iter().map(|(&(t, r), &v)| (reg_name(t, r), v)).collect(),
            weak: allowed && !self.sc.contains(o),
        }
    }
}

/// The row of `case`, from its histogram of outcomes.
pub fn row(case: &Case, judged: &Judged, histogram: &BTreeMap<Outcome, u64>, launches: u64) -> Row {
    let outcomes: Vec<Observed> = histogram.iter().map(|(o, &n)| judged.observed(o, n)).collect();
    Row {
        failed: None,
        forbidden_observed: outcomes.iter().filter(|o| !o.allowed).map(|o| o.count).sum(),
        id: case.id.clone(),
        instances: histogram.values().sum(),
        launches,
        program: program(case),
        weak_allowed: judged.weak_allowed(),
        weak_observed: outcomes.iter().filter(|o| o.weak).map(|o| o.count).sum(),
        outcomes,
    }
}

/// The row of a test that did not run.
pub fn failed_row(case: &Case, judged: &Judged, why: String) -> Row {
    Row {
        failed: Some(why),
        forbidden_observed: 0,
        id: case.id.clone(),
        instances: 0,
        launches: 0,
        outcomes: Vec::new(),
        program: program(case),
        weak_allowed: judged.weak_allowed(),
        weak_observed: 0,
    }
}

/// The ledger's key for a forbidden `outcome` of test `id`.
pub fn ledger_key(id: &str, outcome: &Outcome) -> String {
    format!("{LEDGER_PREFIX}{id}:{}", outcome_text(outcome))
}

/// Every forbidden outcome the errata ledger explains ([`LEDGER_PREFIX`] entries).
pub fn ledgered(spec: &ptxvec_spec::Spec) -> BTreeSet<String> {
    spec.errata
        .errata
        .iter()
        .flat_map(|e| &e.disagreements)
        .filter(|d| d.starts_with(LEDGER_PREFIX))
        .cloned()
        .collect()
}

/// The file against today's oracle and test list: every problem, one line each. A
/// row of a test the list lacks, a test with no row or no histogram, an outcome
/// whose `allowed` or `weak` the oracle now judges otherwise, totals that do not add
/// up, and above all a forbidden outcome that the ledger does not explain.
pub fn replay(file: &LitmusFile, cases: &[Case], ledger: &BTreeSet<String>) -> Vec<String> {
    let mut problems = Vec::new();
    let rows: BTreeMap<&str, &Row> = file.tests.iter().map(|r| (r.id.as_str(), r)).collect();
    if rows.len() != file.tests.len() {
        problems.push("a test has two rows".to_owned());
    }
    for c in cases.iter().filter(|c| !rows.contains_key(c.id.as_str())) {
        problems.push(format!("{}: no row (run `ptxvec silicon-litmus` on the GPU)", c.id));
    }
    for r in &file.tests {
        let Some(case) = cases.iter().find(|c| c.id == r.id) else {
            problems.push(format!("{}: not a test of the list", r.id));
            continue;
        };
        if let Some(why) = &r.failed {
            problems.push(format!("{}: did not run: {why}", r.id));
            continue;
        }
        let judged = match Judged::of(&case.test) {
            Ok(j) => j,
            Err(e) => {
                problems.push(format!("{}: the oracle cannot judge it: {e}", r.id));
                continue;
            }
        };
        if r.program != program(case) {
            problems.push(format!("{}: the recorded program is not the test's today", r.id));
        }
        let mut total = 0;
        for o in &r.outcomes {
            total += o.count;
            let Some(outcome) = outcome_from(o) else {
                problems.push(format!("{}: an outcome names no register or location: {o:?}", r.id));
                continue;
            };
            let want = judged.observed(&outcome, o.count);
            if *o != want {
                problems.push(format!(
                    "{}: {}: recorded allowed {} weak {}, the oracle says allowed {} weak {}",
                    r.id,
                    outcome_text(&outcome),
                    o.allowed,
                    o.weak,
                    want.allowed,
                    want.weak
                ));
            }
            if !want.allowed && !ledger.contains(&ledger_key(&r.id, &outcome)) {
                problems.push(format!(
                    "{}: forbidden outcome {} observed {} times, not in the errata ledger (add `{}` to an entry's disagreements)",
                    r.id,
                    outcome_text(&outcome),
                    o.count,
                    ledger_key(&r.id, &outcome)
                ));
            }
        }
        let forbidden: u64 = r.outcomes.iter().filter(|o| !o.allowed).map(|o| o.count).sum();
        let weak: u64 = r.outcomes.iter().filter(|o| o.weak).map(|o| o.count).sum();
        if (total, forbidden, weak, r.weak_allowed) != (r.instances, r.forbidden_observed, r.weak_observed, judged.weak_allowed()) {
            problems.push(format!("{}: the totals (instances, forbidden_observed, weak_observed, weak_allowed) do not add up", r.id));
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::silicon::header::h100;

    /// A file of one test, `MP/rel_acq/gpu/other_clusters`, whose histogram is `outcomes`
    /// (flag, data) with counts, made as the runner makes it.
    fn file_with(outcomes: &[((u32, u32), u64)]) -> (LitmusFile, Vec<Case>) {
        let cases: Vec<Case> = super::super::cases().unwrap().into_iter().filter(|c| c.id == "MP/rel_acq/gpu/other_clusters").collect();
        let case = &cases[0];
        let lay = Layout::of(&case.test);
        let mut h = BTreeMap::new();
        for &((flag, data), n) in outcomes {
            // Registers 1:r0 (flag), 1:r1 (data); memory x (data) = 1, y (flag) = 1.
            h.insert(outcome_of(&lay, &[flag, data, 1, 1]).unwrap(), n);
        }
        let judged = Judged::of(&case.test).unwrap();
        let rows = vec![row(case, &judged, &h, 1)];
        let run = RunParams {
            block: 256,
            ctas_per_sm: 4,
            instances: 10,
            seed: 1,
            spin_limit: 4096,
            stress_iters: 64,
            stress_lines: 128,
            stress_warps: 2,
            stride: 32,
        };
        let text = render(&h100(FORMAT), &run, &rows);
        (parse(&text).unwrap(), cases)
    }

    /// A test in one warp says so in its program (the oracle's places cannot);
    /// its same-CTA twin's program reads as the recorded runs wrote it.
    #[test]
    fn a_same_warp_program_names_the_warp() {
        let cases = super::super::cases().unwrap();
        let program_of = |id: &str| program(cases.iter().find(|c| c.id == id).unwrap());
        assert_eq!(
            program_of("MP/weak/same_warp"),
            [
                "t0 @ gpu 0 cluster 0 cta 0 warp 0: st.global.u32 [x], 1; st.global.u32 [y], 1",
                "t1 @ gpu 0 cluster 0 cta 0 warp 0: ld.global.u32 r0, [y]; ld.global.u32 r1, [x]",
            ]
        );
        assert_eq!(
            program_of("MP/weak/same_cta"),
            [
                "t0 @ gpu 0 cluster 0 cta 0: st.global.u32 [x], 1; st.global.u32 [y], 1",
                "t1 @ gpu 0 cluster 0 cta 0: ld.global.u32 r0, [y]; ld.global.u32 r1, [x]",
            ]
        );
    }

    #[test]
    fn allowed_outcomes_replay_clean_and_render_back_byte_for_byte() {
        let (f, cases) = file_with(&[((0, 0), 5), ((1, 1), 4), ((0, 1), 1)]);
        assert_eq!(replay(&f, &cases, &BTreeSet::new()), Vec::<String>::new());
        assert_eq!(render(&f.header, &f.run, &f.tests), render(&f.header, &f.run, &f.tests));
        let row = &f.tests[0];
        assert_eq!((row.instances, row.forbidden_observed, row.weak_observed), (10, 0, 0));
        // MP at .gpu with release/acquire: no weak outcome is allowed (the stale
        // read is forbidden, oracle/src/model/tests.rs), so none can be seen.
        assert!(!row.weak_allowed);
    }

    /// The stale read of MP with release/acquire at `.gpu` is forbidden (PTX ISA
    /// 8.10.6, the chapter's MP): recorded, it fails the replay unless the ledger
    /// names it.
    #[test]
    fn a_forbidden_outcome_fails_the_replay_unless_ledgered() {
        let (f, cases) = file_with(&[((1, 0), 3), ((1, 1), 7)]);
        assert_eq!(f.tests[0].forbidden_observed, 3);
        let problems = replay(&f, &cases, &BTreeSet::new());
        assert_eq!(problems.len(), 1, "{problems:?}");
        let key = "silicon:sm_90:litmus:MP/rel_acq/gpu/other_clusters:1:r0=1 1:r1=0 x=1 y=1";
        assert!(problems[0].contains("forbidden outcome") && problems[0].contains(key), "{problems:?}");
        let ledger: BTreeSet<String> = [key.to_owned()].into_iter().collect();
        assert!(replay(&f, &cases, &ledger).is_empty());
    }

    #[test]
    fn a_flag_the_oracle_contradicts_and_a_missing_test_are_problems() {
        let (mut f, mut cases) = file_with(&[((1, 1), 2)]);
        f.tests[0].outcomes[0].allowed = false;
        f.tests[0].forbidden_observed = 2;
        let problems = replay(&f, &cases, &BTreeSet::new());
        assert!(problems.iter().any(|p| p.contains("recorded allowed false")), "{problems:?}");
        cases.extend(super::super::cases().unwrap().into_iter().filter(|c| c.id == "SB/relaxed/gpu/same_cta"));
        let problems = replay(&f, &cases, &BTreeSet::new());
        assert!(problems.iter().any(|p| p.starts_with("SB/relaxed/gpu/same_cta: no row")), "{problems:?}");
    }
}
