//! `ptxvec litmus-engine`: runs the litmus tests on any engine through a runner
//! (runner/README.md), one raw module per test
//! ([`crate::device::silicon::litmus::raw`]), and writes what each instance saw
//! as the results file `ptxvec grade --litmus` reads, with an account of the
//! tests that did not run and why.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::json;

use super::runner::{Launch, Runner};
use super::Work;
use crate::device::silicon::litmus::raw::{self, RawModule, GROUP};
use crate::device::silicon::litmus::module_file;
use crate::error::{Error, Outcome, Result};
use crate::litmus::{generated, mem_key, reg_key, Generated};

/// The results file in `--out`.
pub const RESULTS: &str = "litmus-results.jsonl";
/// The account of the runs in `--out`.
pub const RUNS: &str = "litmus-runs.json";
/// The account's `format`.
pub const FORMAT: &str = "ptxvec-litmus-engine-runs/1";
/// The most instances a module may run (`--instances`): the role table and the
/// locations are module data, and the engines this is for simulate every thread.
pub const MAX_INSTANCES: u32 = 4096;
/// The poison the runner fills the buffer with: a row still holding a poison word
/// is an instance whose threads did not all report.
const POISON_WORD: u32 = u32::from_ne_bytes([crate::device::selfcheck::raw::POISON; 4]);

/// Arguments of `ptxvec litmus-engine`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The runner program (runner/README.md).
    #[arg(long)]
    pub runner: PathBuf,
    /// An argument for the runner, before the module's (repeat it).
    #[arg(long = "runner-arg", allow_hyphen_values = true)]
    pub runner_args: Vec<String>,
    /// What the engine is, for the account (`GPGPU-Sim 667834c functional`).
    #[arg(long)]
    pub engine: String,
    /// The folder litmus-results.jsonl and litmus-runs.json go to.
    #[arg(long)]
    pub out: PathBuf,
    /// Run only this test (repeat it); every test by default.
    #[arg(long = "test")]
    pub tests: Vec<String>,
    /// Instances per test, in one launch: a multiple of 32, at most 4096.
    #[arg(long, default_value_t = 128)]
    pub instances: u32,
    /// The seed of every module's role table (ChaCha8).
    #[arg(long, default_value_t = crate::device::silicon::litmus::DEFAULT_SEED)]
    pub seed: u64,
    /// Seconds one runner call may take.
    #[arg(long, default_value_t = 60)]
    pub timeout: u64,
}

/// How one test went: the outcomes seen (each row of registers then locations,
/// with its count) and the instances that reported nothing whole, or why it did
/// not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TestRun {
    /// It ran.
    Ran {
        /// Each row seen and how often.
        rows: BTreeMap<Vec<u32>, u64>,
        /// Instances whose row still held the poison.
        unreported: u64,
    },
    /// It did not run: the reason.
    NotRun(String),
}

/// Runs the subcommand: a line per test on `out`; findings where a test did not
/// run or an instance did not report.
pub fn run(args: &Args, out: &mut dyn std::io::Write) -> Result<Outcome> {
    let runner = Runner::checked(&args.runner, &args.runner_args, args.timeout)?;
    if args.instances == 0 || !args.instances.is_multiple_of(GROUP) || args.instances > MAX_INSTANCES {
        return Err(Error::Usage(format!(
            "--instances {}: expected a multiple of {GROUP} from {GROUP} to {MAX_INSTANCES}",
            args.instances
        )));
    }
    let all = generated();
    if let Some(id) = args.tests.iter().find(|id| !all.iter().any(|g| &g.id == *id)) {
        return Err(Error::Usage(format!("--test {id}: no such litmus test (`ptxvec silicon-litmus --out . --list` lists them)")));
    }
    let chosen: Vec<&Generated> = all.iter().filter(|g| args.tests.is_empty() || args.tests.contains(&g.id)).collect();
    std::fs::create_dir_all(&args.out).map_err(|e| Error::io(&args.out, e))?;
    let work = Work::new()?;
    let mut runs = Vec::new();
    for g in chosen {
        let r = run_test(&runner, &work.0, g, args.instances, args.seed)?;
        writeln!(out, "{}", line(&g.id, &r)).map_err(Error::Stdout)?;
        runs.push((g, r));
    }
    let results = results_text(&runs)?;
    let path = args.out.join(RESULTS);
    crate::io::files::write_atomic(&path, results.as_bytes()).map_err(|e| Error::io(&path, e))?;
    let path = args.out.join(RUNS);
    let account = account_text(&args.engine, args.instances, args.seed, &runs);
    crate::io::files::write_atomic(&path, account.as_bytes()).map_err(|e| Error::io(&path, e))?;
    let ran = runs.iter().filter(|(_, r)| matches!(r, TestRun::Ran { .. })).count();
    writeln!(out, "{ran} of {} tests ran; results: {}", runs.len(), args.out.join(RESULTS).display()).map_err(Error::Stdout)?;
    let findings = runs.iter().any(|(_, r)| !matches!(r, TestRun::Ran { unreported: 0, .. }));
    Ok(Outcome::findings_if(findings))
}

/// Emits, runs and decodes one test.
fn run_test(runner: &Runner, work: &Path, g: &Generated, instances: u32, seed: u64) -> Result<TestRun> {
    let one_warp = g.placement == crate::litmus::Placement::SameWarp;
    let m = match raw::module(&g.litmus, &g.opcodes, one_warp, instances, seed, &g.requires.ptx.to_string(), &g.requires.target()) {
        Ok(m) => m,
        Err(e) => return Ok(TestRun::NotRun(format!("cannot emit its module: {e}"))),
    };
    let name = module_file(&g.id);
    let path = work.join(&name);
    let buffer = work.join(format!("{name}.bin"));
    std::fs::write(&path, &m.ptx).map_err(|e| Error::io(&path, e))?;
    let launch = Launch { module: &path, grid: m.grid, block: m.block, out_bytes: m.out_bytes(), out: &buffer };
    let got = runner.run(&launch, &g.id);
    let _ = std::fs::remove_file(&path);
    let _ = std::fs::remove_file(&buffer);
    Ok(match got {
        Ok(bytes) => decode(&m, &bytes),
        // The scratch path differs from run to run: a reason names the module so
        // that equal reasons read equal.
        Err(f) => TestRun::NotRun(f.reason.replace(&*path.to_string_lossy(), "<module>")),
    })
}

/// The rows of a buffer of `m`'s launch, counted.
pub fn decode(m: &RawModule, bytes: &[u8]) -> TestRun {
    let words: Vec<u32> = bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    let mut rows = BTreeMap::new();
    let mut unreported = 0;
    for row in words.chunks_exact(m.layout.width().max(1)).take(m.instances as usize) {
        if row.contains(&POISON_WORD) {
            unreported += 1;
        } else {
            *rows.entry(row.to_vec()).or_insert(0) += 1;
        }
    }
    TestRun::Ran { rows, unreported }
}

/// The line `litmus-engine` prints for a test.
fn line(id: &str, r: &TestRun) -> String {
    match r {
        TestRun::Ran { rows, unreported: 0 } => format!("ran {id}: {} outcomes", rows.len()),
        TestRun::Ran { rows, unreported } => {
            format!("ran {id}: {} outcomes; {unreported} instances did not report", rows.len())
        }
        TestRun::NotRun(why) => format!("not run {id}: {why}"),
    }
}

/// The results file: one line per test that ran, its outcomes in row order.
pub fn results_text(runs: &[(&Generated, TestRun)]) -> Result<String> {
    let mut text = String::new();
    for (g, r) in runs {
        let TestRun::Ran { rows, .. } = r else { continue };
        if rows.is_empty() {
            continue;
        }
        let lay = crate::device::silicon::litmus::emit::Layout::of(&g.litmus);
        let outcomes: Vec<serde_json::Value> = rows
            .iter()
            .map(|(row, count)| {
                let regs: BTreeMap<String, u32> = lay.regs.iter().zip(row).map(|((t, reg), v)| (reg_key(*t, *reg), *v)).collect();
                let mem: BTreeMap<String, u32> =
                    lay.locs.iter().zip(&row[lay.regs.len()..]).map(|(l, v)| (mem_key(*l), *v)).collect();
                json!({"regs": regs, "mem": mem, "count": count})
            })
            .collect();
        let line = serde_json::to_string(&json!({"id": g.id, "outcomes": outcomes}))
            .map_err(|e| Error::Input(format!("results of {}: {e}", g.id)))?;
        text.push_str(&line);
        text.push('\n');
    }
    Ok(text)
}

/// The account: the engine and the knobs, the tests that ran (with instances that
/// did not report), and the tests not run grouped by reason, in first-seen order.
pub fn account_text(engine: &str, instances: u32, seed: u64, runs: &[(&Generated, TestRun)]) -> String {
    let mut ran = Vec::new();
    let mut not_run: Vec<(String, Vec<String>)> = Vec::new();
    for (g, r) in runs {
        match r {
            TestRun::Ran { unreported, .. } => ran.push(json!({"id": g.id, "unreported": unreported})),
            TestRun::NotRun(why) => match not_run.iter_mut().find(|(w, _)| w == why) {
                Some((_, ids)) => ids.push(g.id.clone()),
                None => not_run.push((why.clone(), vec![g.id.clone()])),
            },
        }
    }
    let not_run: Vec<serde_json::Value> = not_run.into_iter().map(|(reason, tests)| json!({"reason": reason, "tests": tests})).collect();
    let v = json!({"format": FORMAT, "engine": engine, "instances": instances, "seed": seed, "ran": ran, "not_run": not_run});
    let mut text = serde_json::to_string_pretty(&v).unwrap_or_default();
    text.push('\n');
    text
}
