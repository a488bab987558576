//! `ptxvec run-engine`: runs the semantic vectors on any CUDA engine through a
//! runner program (ours, `runner/ptxvec-runner.c`, or any program that keeps its
//! protocol, runner/README.md), and writes the raw buffers that `ptxvec grade
//! --raw` grades, with `runs.json`: how each run went.
//!
//! Simulators crash. One crash must not lose a whole variant, so a module that
//! fails is bisected: its records are run in halves, down to the single records
//! that fail, which are recorded as crashed with the reason while every other
//! record keeps its result. A module that fails whole and on its first, middle and
//! last records alone is taken as one the engine cannot load (the variant is not
//! run, with the reason), rather than bisected record by record.

pub mod litmus;
pub mod merge;
mod process;
pub mod runner;
mod runs;

use std::path::PathBuf;

use ptxvec_spec::Spec;

use crate::error::{Error, Outcome, Result};
use crate::device::selfcheck::emit::{module, Entries};
use crate::device::selfcheck::subset::records_list;
use crate::device::selfcheck::{self, raw, Suite};
use runner::{Failure, Launch, Runner};
pub use runs::{Crash, EngineRun, NotRun, RunsFile, FILE, FORMAT};

/// Arguments of `ptxvec run-engine`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The runner program (runner/README.md): `ptxvec-runner` built from
    /// runner/ptxvec-runner.c, or any program that keeps its protocol.
    #[arg(long)]
    pub runner: PathBuf,
    /// An argument for the runner, before the module's (repeat it:
    /// `--runner-arg=--api --runner-arg=runtime`).
    #[arg(long = "runner-arg", allow_hyphen_values = true)]
    pub runner_args: Vec<String>,
    /// What the engine is, for runs.json (`H100 driver 580`, `GPGPU-Sim 667834c
    /// functional`).
    #[arg(long)]
    pub engine: String,
    /// The folder the raw buffers and runs.json go to.
    #[arg(long)]
    pub out: PathBuf,
    /// The variants run.
    #[command(flatten)]
    pub select: selfcheck::Selection,
    /// The compute capability the engine runs as: variants that need more are not
    /// run (`9.0`).
    #[arg(long, default_value = "9.0")]
    pub cc: String,
    /// Seconds one runner call may take.
    #[arg(long, default_value_t = 60)]
    pub timeout: u64,
}

/// Runs the subcommand: a line per run on `out`, findings when a record crashed
/// or a run failed.
pub fn run(args: &Args, spec: &Spec, out: &mut dyn std::io::Write) -> Result<Outcome> {
    let cc = parse_cc(&args.cc)?;
    let runner = Runner::checked(&args.runner, &args.runner_args, args.timeout)?;
    let idx = args.select.entries()?;
    std::fs::create_dir_all(&args.out).map_err(|e| Error::io(&args.out, e))?;
    let work = Work::new()?;
    let mut file = RunsFile::new(&args.engine);
    let mut findings = false;
    for entry in &idx {
        let suite = selfcheck::load(spec, entry, &args.select.vectors()?)?;
        let stem = crate::record::index::stem(&entry.variant);
        for s in suite.runs() {
            let name = s.raw_file(&stem);
            let r = match s.module_for(cc) {
                None => EngineRun {
                    not_run: Some(NotRun::Needs(needs(&s))),
                    ..EngineRun::of(&s, &name)
                },
                Some((ptx, target)) => {
                    let (bytes, r) = run_suite(&runner, &work, &s, &name, &ptx, &target)?;
                    if let Some(bytes) = bytes {
                        crate::io::files::write_atomic(&args.out.join(&name), &bytes)
                            .map_err(|e| Error::io(&args.out.join(&name), e))?;
                    }
                    r
                }
            };
            findings |= !r.crashed.is_empty() || r.not_run.as_ref().is_some_and(NotRun::is_finding);
            file.runs.push(r);
        }
    }
    let evidence = args.select.vectors()?.join("silicon/sm_90").join(crate::device::silicon::evidence::FILE);
    if let Ok(text) = std::fs::read_to_string(&evidence) {
        let e = crate::device::silicon::evidence::parse(&text)
            .map_err(|e| Error::Input(format!("{}: {e}", evidence.display())))?;
        file.compare(&e.variants);
    }
    let path = args.out.join(FILE);
    crate::io::files::write_atomic(&path, file.render().as_bytes()).map_err(|e| Error::io(&path, e))?;
    for r in &file.runs {
        writeln!(out, "{}", r.line()).map_err(Error::Stdout)?;
    }
    writeln!(out, "{}", file.summary()).map_err(Error::Stdout)?;
    Ok(Outcome::findings_if(findings))
}

/// `8.6` → (8, 6).
fn parse_cc(text: &str) -> Result<(i32, i32)> {
    let bad = || Error::Usage(format!("--cc {text:?}: expected a compute capability such as 9.0"));
    let (a, b) = text.split_once('.').ok_or_else(bad)?;
    Ok((a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?))
}

/// What a suite needs that the engine does not have.
fn needs(s: &Suite) -> String {
    let need: Vec<String> = s.requires.iter().map(|(p, t)| format!("{t} (PTX {p})")).collect();
    need.join(" or ")
}

/// A scratch folder for the modules, removed when dropped.
struct Work(pub(super) PathBuf);

impl Work {
    fn new() -> Result<Work> {
        let dir = std::env::temp_dir().join(format!("ptxvec-engine-{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        Ok(Work(dir))
    }
}

impl Drop for Work {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The calls of one suite's runs: each module a subset of its records, each
/// buffer's records put where the whole variant's has them (the bytes of no record,
/// a memory block's padding, keep the poison unless the whole module ran).
struct Calls<'a> {
    runner: &'a Runner,
    work: &'a Work,
    s: &'a Suite,
    name: &'a str,
    module: (&'a str, &'a str),
    /// The whole variant's buffer: the poison where no call wrote.
    whole: Vec<u8>,
    /// Runner calls made.
    made: usize,
}

impl Calls<'_> {
    /// Runs the records `picked` (ascending) in one module.
    fn call(&mut self, picked: &[usize]) -> Result<std::result::Result<(), Failure>> {
        self.made += 1;
        let s = self.s;
        let sub = if picked.len() == s.records.len() {
            s.clone()
        } else {
            s.subset(picked)?
        };
        let path = self.work.0.join(format!("{}.{}.ptx", self.name, self.made));
        let out = self.work.0.join(format!("{}.{}.bin", self.name, self.made));
        let (ptx, target) = self.module;
        std::fs::write(&path, module(&sub, ptx, target, Entries::Raw)).map_err(|e| Error::io(&path, e))?;
        let l = sub.launch();
        let launch = Launch {
            module: &path,
            grid: l.grid,
            block: l.block,
            out_bytes: l.out_bytes,
            out: &out,
        };
        // Reasons name the module by the variant's file, not the scratch path.
        let (scratch, ours) = (path.to_string_lossy(), format!("{}.ptx", self.name.trim_end_matches(".bin")));
        let got = self.runner.run(&launch, &records_list(picked)).map_err(|f| Failure {
            reason: f.reason.replace(&*scratch, &ours),
            cannot_run: f.cannot_run.map(|said| said.replace(&*scratch, &ours)),
        });
        let _ = std::fs::remove_file(&path);
        let _ = std::fs::remove_file(&out);
        Ok(got.map(|bytes| {
            // The whole module: the buffer as the engine left it, padding included.
            if picked.len() == s.records.len() {
                self.whole = bytes;
                return;
            }
            for (k, &n) in picked.iter().enumerate() {
                let (from, to) = (sub.record_bytes(k), s.record_bytes(n));
                if let (Some(src), true) = (bytes.get(from), to.end <= self.whole.len()) {
                    self.whole[to].copy_from_slice(src);
                }
            }
        }))
    }

    /// Runs `picked`, halving it until each record that fails is found alone:
    /// those go to `crashed` with the reason.
    fn bisect(&mut self, picked: &[usize], crashed: &mut Vec<Crash>) -> Result<()> {
        if picked.is_empty() {
            return Ok(());
        }
        if let Err(f) = self.call(picked)? {
            if let [n] = picked {
                crashed.push(Crash {
                    record: *n,
                    reason: f.reason,
                });
            } else {
                let (a, b) = picked.split_at(picked.len() / 2);
                self.bisect(a, crashed)?;
                self.bisect(b, crashed)?;
            }
        }
        Ok(())
    }
}

/// Runs one suite on the engine: its whole buffer (the records that crashed left
/// as the poison) and how it went; no buffer when the engine cannot load it.
fn run_suite(
    runner: &Runner,
    work: &Work,
    s: &Suite,
    name: &str,
    ptx: &str,
    target: &str,
) -> Result<(Option<Vec<u8>>, EngineRun)> {
    let mut run = EngineRun {
        ptx: Some(ptx.to_owned()),
        target: Some(target.to_owned()),
        ..EngineRun::of(s, name)
    };
    let mut calls = Calls {
        runner,
        work,
        s,
        name,
        module: (ptx, target),
        whole: vec![raw::POISON; s.launch().out_bytes],
        made: 0,
    };
    let n = s.records.len();
    let all: Vec<usize> = (0..n).collect();
    if let Err(f) = calls.call(&all)? {
        if let Some(said) = f.cannot_run {
            run.not_run = Some(NotRun::CannotRun(said));
            run.calls = calls.made;
            return Ok((None, run));
        }
        // The first, middle and last record alone: if each fails too, the engine
        // cannot load the module, and bisecting would only run every record alone.
        let mut probes = vec![0, n / 2, n.saturating_sub(1)];
        probes.dedup();
        let mut crashed = Vec::new();
        for &p in &probes {
            if let Err(g) = calls.call(&[p])? {
                crashed.push(Crash {
                    record: p,
                    reason: g.reason,
                });
            }
        }
        if crashed.len() == probes.len() {
            run.not_run = Some(NotRun::Refused(f.reason));
            run.calls = calls.made;
            return Ok((None, run));
        }
        let rest: Vec<usize> = all.into_iter().filter(|r| !probes.contains(r)).collect();
        calls.bisect(&rest, &mut crashed)?;
        crashed.sort_by_key(|c| c.record);
        run.crashed = crashed;
    }
    run.calls = calls.made;
    let bytes = calls.whole;
    run.raw_sha256 = Some(raw::digest(s, &raw::decode(s, &bytes)));
    Ok((Some(bytes), run))
}
