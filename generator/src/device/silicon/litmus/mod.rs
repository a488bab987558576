//! `ptxvec silicon-litmus`: runs litmus tests on the GPU and records each test's
//! histogram of outcomes as evidence (`litmus.json`, [`evidence`]) that a machine
//! without a GPU replays against the memory model's oracle
//! (`ptxvec_oracle::model`). Issue 42, item 4.
//!
//! The method is the literature's (Alglave et al., ASPLOS 2015; Levine et al.,
//! GPUHarbor and MC-Mutants): each launch runs tens of thousands of instances of
//! one test at once ("parallel testing"), each on locations of its own, a 128-byte
//! line apart; which warp, lane and CTA runs which thread of which instance is
//! drawn afresh for every launch from a seeded ChaCha generator ("thread
//! randomization", [`plan`]), within the test's placement (one warp, one CTA, CTAs
//! of one cluster, clusters); the warps no test thread takes store and load on a small
//! scratch region meanwhile ("memory stress"); and an instance's threads wait for
//! each other (boundedly) before they run, so that they race.
//!
//! - [`case`]: a test as run: id, oracle test, opcodes.
//! - [`emit`]: the PTX module of one test.
//! - [`plan`]: the role table of one launch.
//! - [`evidence`]: the file, and its replay.
//!
//! Each batch of tests runs in a child process ([`super::child`]): a kernel that
//! faults leaves the CUDA context unusable. A batch that fails is run again one
//! test a child, so that one bad test costs only its own row.

pub mod case;
pub mod emit;
pub mod evidence;
pub mod plan;
pub mod raw;

use std::collections::{BTreeMap, HashMap};
use std::ffi::OsString;
use std::io::Write;
use std::time::{Duration, Instant};

use rand::{RngCore, SeedableRng};
use serde::{Deserialize, Serialize};

use super::args::RunnerArgs;
use super::device::{Device, LitmusShape};
use super::header::Header;
use crate::error::{Error, Outcome, Result};
use crate::io::output::note;
use case::Case;
use evidence::{Judged, RunParams};

/// The default seed (`--seed`).
pub const DEFAULT_SEED: u64 = 42;
/// Threads per CTA.
pub const BLOCK: u32 = 256;
/// 128-byte lines of the stress region.
pub const STRESS_LINES: u32 = 128;

/// Arguments of `ptxvec silicon-litmus`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Where `litmus.json` goes, or where the modules go with --emit-ptx.
    #[command(flatten)]
    pub runner: RunnerArgs,
    /// Instances of each test to run, at least (whole launches are run).
    #[arg(long, default_value_t = 1_000_000)]
    pub instances: u64,
    /// The seed of every launch's thread placement and stress pattern.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// Only these tests (by id; every test by default).
    #[arg(long = "test")]
    pub tests: Vec<String>,
    /// CTAs of 256 threads launched per multiprocessor.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=8))]
    pub ctas_per_sm: u32,
    /// Warps of each CTA (of 8) that stress memory rather than run tests.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(0..=6))]
    pub stress_warps: u32,
    /// Stores and loads each stress thread makes.
    #[arg(long, default_value_t = 64)]
    pub stress_iters: u32,
    /// Words between two instances' copies of a location (32: a 128-byte line each).
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub stride: u32,
    /// Tests a child process runs.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u64).range(1..))]
    pub batch: u64,
    /// Seconds a child process may take per test of its batch before it is killed
    /// (its tests are then run again one a child, and a test that times out alone
    /// is recorded as failed).
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout_per_test: u64,
    /// List the tests' ids and exit.
    #[arg(long)]
    pub list: bool,
}

impl Args {
    fn params(&self) -> RunParams {
        RunParams {
            block: BLOCK,
            ctas_per_sm: self.ctas_per_sm,
            instances: self.instances,
            seed: self.seed,
            spin_limit: emit::SPIN_LIMIT,
            stress_iters: self.stress_iters,
            stress_lines: STRESS_LINES,
            stress_warps: self.stress_warps,
            stride: self.stride,
        }
    }

    /// The arguments that start the child of `batch`: every knob, each test of
    /// the batch by id.
    fn child_argv(&self, batch: &[&Case]) -> Vec<OsString> {
        let mut argv = self.runner.child_argv("silicon-litmus", "batch");
        for (flag, v) in [
            ("--instances", self.instances.to_string()),
            ("--seed", self.seed.to_string()),
            ("--ctas-per-sm", self.ctas_per_sm.to_string()),
            ("--stress-warps", self.stress_warps.to_string()),
            ("--stress-iters", self.stress_iters.to_string()),
            ("--stride", self.stride.to_string()),
        ] {
            argv.extend([flag.into(), v.into()]);
        }
        for c in batch {
            argv.extend(["--test".into(), c.id.clone().into()]);
        }
        argv
    }
}

/// What a child hands back for one test: the histogram of raw output rows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestRun {
    /// The test's id.
    pub id: String,
    /// Launches run.
    pub launches: u64,
    /// Each distinct output row (registers, then locations) with its count, rows
    /// in order.
    pub histogram: Vec<(Vec<u32>, u64)>,
}

/// The tests `args` selects from `cases`, in list order; an error naming an id
/// the list lacks.
fn select<'a>(args: &Args, cases: &'a [Case]) -> Result<Vec<&'a Case>> {
    if let Some(id) = args.tests.iter().find(|id| !cases.iter().any(|c| &c.id == *id)) {
        return Err(Error::Usage(format!("--test {id}: no such test (`ptxvec silicon-litmus --out . --list` lists them)")));
    }
    Ok(cases.iter().filter(|c| args.tests.is_empty() || args.tests.contains(&c.id)).collect())
}

/// A file name for a test's module: its id with every character but letters,
/// digits, `.`, `+` and `-` made `_`.
pub fn module_file(id: &str) -> String {
    let safe: String = id.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '+' | '-') { c } else { '_' }).collect();
    format!("{safe}.ptx")
}

/// Runs the subcommand on `cases` (the test list): with `--list`, their ids; with
/// `--emit-ptx`, their modules; else each on the GPU, writing `litmus.json`.
/// Findings where silicon showed a forbidden outcome the errata ledger does not
/// explain.
pub fn run(args: &Args, spec: &ptxvec_spec::Spec, cases: &[Case], out: &mut dyn Write) -> Result<Outcome> {
    let chosen = select(args, cases)?;
    if args.runner.child.is_some() {
        let answer = child(args, &chosen);
        return super::child::answer(answer, out);
    }
    if args.list {
        for c in &chosen {
            writeln!(out, "{}", c.id).map_err(Error::Stdout)?;
        }
        return Ok(Outcome::Pass);
    }
    if let Some(dir) = &args.runner.emit_ptx {
        for c in &chosen {
            let path = dir.join(module_file(&c.id));
            let text = emit::module(&c.test, &c.opcodes).map_err(|e| context(c, e))?;
            crate::io::files::write_atomic(&path, text.as_bytes()).map_err(|e| Error::io(&path, e))?;
        }
        return Ok(Outcome::Pass);
    }
    // Judge first: a test the oracle cannot judge is refused before the GPU runs.
    let judged: Vec<Judged> = chosen
        .iter()
        .map(|c| Judged::of(&c.test).map_err(|e| Error::Input(format!("{}: {e}", c.id))))
        .collect::<Result<_>>()?;
    let dev = Device::open()?;
    let info = dev.info()?;
    drop(dev);
    note(format_args!("silicon-litmus: {info}; {} tests, {} instances each", chosen.len(), args.instances));
    let started = Instant::now();
    let runs = run_batches(args, &chosen);
    let seconds = started.elapsed().as_secs_f64();
    let ledger = evidence::ledgered(spec);
    let mut rows = Vec::new();
    let mut findings = false;
    for ((c, j), r) in chosen.iter().zip(&judged).zip(runs) {
        let row = match r.and_then(|t| histogram(c, &t).map(|h| (h, t.launches))) {
            Ok((h, launches)) => evidence::row(c, j, &h, launches),
            Err(why) => evidence::failed_row(c, j, why),
        };
        let flag = if row.failed.is_some() {
            "FAILED".to_owned()
        } else if row.forbidden_observed > 0 {
            format!("FORBIDDEN {}", row.forbidden_observed)
        } else if row.weak_observed > 0 {
            format!("weak {}", row.weak_observed)
        } else if row.weak_allowed {
            "weak allowed, not seen".to_owned()
        } else {
            "no weak outcome allowed".to_owned()
        };
        writeln!(out, "{:<40} {:>10} instances {:>3} outcomes  {flag}", c.id, row.instances, row.outcomes.len()).map_err(Error::Stdout)?;
        for o in row.outcomes.iter().filter(|o| !o.allowed) {
            findings |= evidence::outcome_from(o).is_none_or(|outcome| !ledger.contains(&evidence::ledger_key(&c.id, &outcome)));
        }
        rows.push(row);
    }
    let text = evidence::render(&Header::of(&info, evidence::FORMAT), &args.params(), &rows);
    let path = args.runner.out.join(evidence::FILE);
    crate::io::files::write_atomic(&path, text.as_bytes()).map_err(|e| Error::io(&path, e))?;
    let total: u64 = rows.iter().map(|r| r.instances).sum();
    note(format_args!(
        "silicon-litmus: {} tests, {total} instances in {seconds:.1} s ({:.0} instances/s) -> {}",
        rows.len(),
        total as f64 / seconds.max(1e-9),
        path.display()
    ));
    Ok(Outcome::findings_if(findings))
}

fn context(c: &Case, e: Error) -> Error {
    Error::Context { context: c.id.clone(), source: Box::new(e) }
}

/// A child's raw histogram as outcomes.
fn histogram(c: &Case, t: &TestRun) -> std::result::Result<BTreeMap<ptxvec_oracle::model::Outcome, u64>, String> {
    let lay = emit::Layout::of(&c.test);
    let mut h = BTreeMap::new();
    for (row, n) in &t.histogram {
        let o = evidence::outcome_of(&lay, row).ok_or_else(|| format!("an output row of {} words, expected {}", row.len(), lay.width()))?;
        *h.entry(o).or_insert(0) += n;
    }
    Ok(h)
}

/// Every chosen test's run, in order: batches of `--batch` tests, each in a child;
/// a batch that fails, one test a child.
fn run_batches(args: &Args, chosen: &[&Case]) -> Vec<std::result::Result<TestRun, String>> {
    let mut out = Vec::new();
    for batch in chosen.chunks(args.batch as usize) {
        let started = Instant::now();
        match run_child(args, batch) {
            Ok(runs) => out.extend(runs.into_iter().map(Ok)),
            Err(why) if batch.len() > 1 => {
                note(format_args!("silicon-litmus: a batch failed ({why}); running its tests one a child"));
                for c in batch {
                    out.push(run_child(args, std::slice::from_ref(c)).and_then(|mut r| r.pop().ok_or_else(|| "no answer".to_owned())));
                }
            }
            Err(why) => out.push(Err(why)),
        }
        note(format_args!("silicon-litmus: {} of {} tests ({:.1} s this batch)", out.len(), chosen.len(), started.elapsed().as_secs_f64()));
    }
    out
}

fn run_child(args: &Args, batch: &[&Case]) -> std::result::Result<Vec<TestRun>, String> {
    let timeout = Duration::from_secs(args.timeout_per_test.saturating_mul(batch.len() as u64));
    let runs: Vec<TestRun> = super::child::run(&args.child_argv(batch), timeout).map_err(|e| e.to_string())?;
    let ids_match = runs.len() == batch.len() && runs.iter().zip(batch).all(|(r, c)| r.id == c.id);
    if ids_match {
        Ok(runs)
    } else {
        Err("the child answered for other tests".into())
    }
}

/// The child's side: every chosen test on the GPU, one after another.
fn child(args: &Args, chosen: &[&Case]) -> Result<Vec<TestRun>> {
    let dev = Device::open()?;
    let sms = dev.multiprocessors()?;
    chosen.iter().map(|c| run_test(args, &dev, sms, c).map_err(|e| context(c, e))).collect()
}

/// A stable 64-bit hash of a test's id (FNV-1a), so that its launches' seeds do not
/// depend on where it stands in the list.
fn id_hash(id: &str) -> u64 {
    id.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

/// One test: launches until `--instances` instances have run.
fn run_test(args: &Args, dev: &Device, sms: u32, c: &Case) -> Result<TestRun> {
    let started = Instant::now();
    let lay = emit::Layout::of(&c.test);
    let placement = c.placement().map_err(Error::Input)?;
    let k = placement.cluster_size();
    let grid = plan::Grid { ctas: (sms * args.ctas_per_sm / k).max(1) * k, warps: BLOCK / 32, test_warps: BLOCK / 32 - args.stress_warps };
    let instances = grid.instances(&placement);
    if instances == 0 {
        return Err(Error::Usage(format!("a launch of {} CTAs of {} test warps fits no instance", grid.ctas, grid.test_warps)));
    }
    let text = emit::module(&c.test, &c.opcodes)?;
    let shape = LitmusShape {
        ctas: grid.ctas,
        block: BLOCK,
        cluster: k,
        instances,
        threads: lay.threads as u32,
        locs: lay.locs.len() as u32,
        width: lay.width() as u32,
        stride: args.stride,
        scratch_lines: STRESS_LINES,
    };
    let mut m = dev.litmus_module(&text, shape)?;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(args.seed ^ id_hash(&c.id));
    let mut counts: HashMap<Vec<u32>, u64> = HashMap::new();
    let (mut done, mut launches) = (0u64, 0u64);
    while done < args.instances {
        let roles = plan::roles(&placement, &grid, &mut rng);
        let out = m.run(&roles, args.stress_iters, rng.next_u32())?;
        for row in out.chunks_exact(lay.width()) {
            // Most rows repeat an outcome already counted: look up without allocating.
            match counts.get_mut(row) {
                Some(n) => *n += 1,
                None => {
                    counts.insert(row.to_vec(), 1);
                }
            }
        }
        done += u64::from(instances);
        launches += 1;
    }
    let mut histogram: Vec<(Vec<u32>, u64)> = counts.into_iter().collect();
    histogram.sort();
    note(format_args!(
        "silicon-litmus: {}: {done} instances in {launches} launches of {instances}, {:.2} s",
        c.id,
        started.elapsed().as_secs_f64()
    ));
    Ok(TestRun { id: c.id.clone(), launches, histogram })
}

/// The module of every test of `cases`, for `--emit-ptx` and the ptxas test.
pub fn modules(cases: &[Case]) -> Result<Vec<(String, String)>> {
    cases.iter().map(|c| Ok((c.id.clone(), emit::module(&c.test, &c.opcodes).map_err(|e| context(c, e))?))).collect()
}

/// The test list `silicon-litmus` runs: the litmus vectors' generated tests, each
/// with the spellings its record holds ([`crate::litmus::generated`]).
pub fn cases() -> Result<Vec<Case>> {
    Ok(crate::litmus::generated()
        .into_iter()
        .map(|g| Case { same_warp: g.placement == crate::litmus::Placement::SameWarp, id: g.id, test: g.litmus, opcodes: g.opcodes })
        .collect())
}


#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    use crate::cmd::cli::{Cli, Command};

    fn parse(argv: &[OsString]) -> Args {
        let mut full: Vec<OsString> = vec!["ptxvec".into()];
        full.extend_from_slice(argv);
        match Cli::try_parse_from(full).unwrap().command {
            Command::SiliconLitmus(a) => a,
            other => panic!("parsed as {other:?}"),
        }
    }

    /// A child is started with every knob of its parent and its batch's tests by
    /// id, and parses back to them: what it runs is what the parent asked for.
    #[test]
    fn a_child_parses_back_to_its_parents_knobs_and_its_batch() {
        let words = "silicon-litmus --out o --instances 5000 --seed 9 --ctas-per-sm 2 --stress-warps 3 --stress-iters 7 --stride 64 --batch 2";
        let argv: Vec<OsString> = words.split(' ').map(OsString::from).collect();
        let parent = parse(&argv);
        let cases = cases().unwrap();
        let batch: Vec<&Case> = cases.iter().skip(3).take(2).collect();
        let child = parse(&parent.child_argv(&batch));
        assert_eq!(child.runner.child.as_deref(), Some("batch"));
        assert_eq!(child.tests, vec![cases[3].id.clone(), cases[4].id.clone()]);
        assert_eq!(child.params(), parent.params());
        assert_eq!(child.runner.out, parent.runner.out);
        let chosen = select(&child, &cases).unwrap();
        assert_eq!(chosen, batch);
    }

    /// A batch's answer crosses the pipe as the parent reads it, and its rows
    /// become the test's outcomes by the layout (registers, then locations).
    #[test]
    fn a_childs_answer_reads_back_as_outcomes() {
        let cases = cases().unwrap();
        let c = cases.iter().find(|c| c.id == "SB/relaxed/gpu/other_clusters").unwrap();
        let run = TestRun { id: c.id.clone(), launches: 2, histogram: vec![(vec![0, 0, 1, 1], 3), (vec![1, 0, 1, 1], 5)] };
        let mut wire = Vec::new();
        crate::device::silicon::child::answer(Ok(vec![run.clone()]), &mut wire).unwrap();
        let back: std::result::Result<Vec<TestRun>, String> = serde_json::from_slice(&wire).unwrap();
        assert_eq!(back, Ok(vec![run.clone()]));
        let h = histogram(c, &run).unwrap();
        let both_zero = h.iter().find(|(o, _)| o.reg(0, ptxvec_oracle::model::Reg(0)) == Some(0)).unwrap();
        assert_eq!((both_zero.0.reg(1, ptxvec_oracle::model::Reg(0)), *both_zero.1), (Some(0), 3));
        let bad = TestRun { histogram: vec![(vec![0, 0, 1], 1)], ..run };
        assert!(histogram(c, &bad).unwrap_err().contains("3 words, expected 4"));
    }

    #[test]
    fn module_files_keep_ids_apart() {
        assert_eq!(module_file("2+2W/relaxed/gpu/same_cta"), "2+2W_relaxed_gpu_same_cta.ptx");
        let cases = cases().unwrap();
        let mut names: Vec<String> = cases.iter().map(|c| module_file(&c.id)).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), cases.len());
    }
}
