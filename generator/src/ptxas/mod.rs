//! Running ptxas on many instructions at once.
//!
//! ptxas reports semantic errors per line and goes on (`file, line N; error : ...`),
//! so one module holds many instructions and each gets its own verdict. A `fatal`
//! stops the module: when it names a line, the instructions after it are run again
//! in a fresh module; when it names none, the batch is halved until each fatal is
//! pinned to one instruction. A text is accepted only from a module that
//! assembled: after any error the texts without one are run again on their own.

pub mod audit;
pub mod differential;
pub mod explore;

use std::path::{Path, PathBuf};
use std::process::Command;

use ptxvec_spec::{PtxVersion, Spec, Target};

use crate::device::wrap::wrap;
use crate::syntax::context::Module;

/// One ptxas binary and what it can assemble.
#[derive(Debug, Clone)]
pub struct Ptxas {
    /// The binary.
    pub path: PathBuf,
    /// The CUDA release it comes with: "13.5".
    pub release: String,
    /// The newest `.version` it takes (the target model's CUDA release table).
    pub max_ptx: PtxVersion,
    /// The targets it knows: those targets.yaml records a probe of this release for.
    pub targets: Vec<Target>,
}

impl Ptxas {
    /// Describes a binary from the target model; `None` if the model does not know the release.
    pub fn new(spec: &Spec, path: PathBuf, release: &str) -> Option<Ptxas> {
        let max_ptx = spec.targets.ptx_of_cuda(release)?;
        let targets = spec
            .targets
            .targets
            .iter()
            .filter(|t| t.ptxas.as_ref().is_some_and(|p| p.version == release))
            .map(|t| t.name)
            .collect();
        Some(Ptxas {
            path,
            release: release.to_owned(),
            max_ptx,
            targets,
        })
    }

    /// Whether this ptxas can assemble a module: one of a target it knows, or of a
    /// plain target older than all it knows, which it assembles for its oldest
    /// ([`Ptxas::arch_for`]).
    pub fn can(&self, m: Module) -> bool {
        m.ptx <= self.max_ptx && (self.targets.contains(&m.target) || self.arch_for(m.target) != m.target)
    }

    /// Of `tools`, the one to assemble a module with: the first that knows its
    /// target, else the one whose oldest architecture is nearest below it.
    pub fn pick(tools: &[Ptxas], m: Module) -> Option<usize> {
        tools
            .iter()
            .position(|t| m.ptx <= t.max_ptx && t.targets.contains(&m.target))
            .or_else(|| {
                (0..tools.len())
                    .filter(|&i| tools[i].can(m))
                    .min_by_key(|&i| tools[i].arch_for(m.target).arch)
            })
    }

    /// The architecture a module of `.target target` is assembled for (`-arch`):
    /// the target itself, or for a plain target older than every target this
    /// ptxas knows, its oldest plain one. ptxas judges the instructions by the
    /// module's `.target` whatever `-arch` says (ptxas 12.9 at `-arch=sm_50`:
    /// `.target sm_12` refuses `vote.ballot.b32` with "Instruction 'vote.ballot'
    /// requires .target sm_20 or higher", and `.version 9.5 .target sm_60` at
    /// ptxas 13.5 `-arch=sm_90` keeps the non-sync `vote` that sm_70 loses at
    /// 6.4), so the verdicts are the old target's.
    pub fn arch_for(&self, target: Target) -> Target {
        let oldest = self
            .targets
            .iter()
            .filter(|t| t.variant == ptxvec_spec::Variant::Plain)
            .min_by_key(|t| t.arch);
        match oldest {
            Some(&o) if target.variant == ptxvec_spec::Variant::Plain && target.arch < o.arch => o,
            _ => target,
        }
    }
}

/// What ptxas made of one instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// No error on its line.
    Accepted,
    /// Its messages, in ptxas's order (without the `ptxas FILE, line N; error :` prefix).
    Rejected(Vec<String>),
    /// The module itself failed (unknown target, unsupported version, no ptxas).
    Unverifiable(String),
    /// ptxas itself failed on this text alone: it was killed by a signal, or ran
    /// past [`TIME_LIMIT`]. A finding about ptxas, never a verdict.
    Failed(String),
}

/// The longest one ptxas run may take; a run past it is killed and its texts are
/// split until the one that hangs is found ([`Outcome::Failed`]). ptxas 13.5 takes
/// 20 to 60 ms for a module of a few hundred of our instructions.
pub const TIME_LIMIT: std::time::Duration = std::time::Duration::from_secs(30);

/// How one ptxas process ended.
enum Ran {
    /// It exited (with any status): its stderr.
    Exited(std::process::Output),
    /// A signal ended it, or the time limit: why.
    Failed(String),
    /// It could not be started: why.
    NotStarted(String),
}

/// Runs ptxas on one file, killed at [`TIME_LIMIT`].
fn assemble(path: &Path, target: &str, file: &Path) -> Ran {
    use std::process::Stdio;
    let child = Command::new(path)
        .arg(format!("-arch={target}"))
        .arg(file)
        .arg("-o")
        .arg(if cfg!(windows) { "NUL" } else { "/dev/null" })
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => return Ran::NotStarted(format!("{}: {e}", path.display())),
    };
    // ptxas writes a few lines at most, far below a pipe's buffer, so waiting
    // before reading cannot block it.
    let started = std::time::Instant::now();
    let mut pause = std::time::Duration::from_micros(200);
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if started.elapsed() > TIME_LIMIT => {
                let _ = child.kill();
                let _ = child.wait();
                return Ran::Failed(format!("ptxas ran past {} s", TIME_LIMIT.as_secs()));
            }
            Ok(None) => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(std::time::Duration::from_millis(5));
            }
            Err(e) => return Ran::NotStarted(format!("{}: {e}", path.display())),
        }
    }
    match child.wait_with_output() {
        Ok(o) => match signal_of(&o.status) {
            Some(sig) => Ran::Failed(format!("ptxas was killed by signal {sig}")),
            None => Ran::Exited(o),
        },
        Err(e) => Ran::NotStarted(format!("{}: {e}", path.display())),
    }
}

#[cfg(unix)]
fn signal_of(status: &std::process::ExitStatus) -> Option<i32> {
    std::os::unix::process::ExitStatusExt::signal(status)
}

#[cfg(not(unix))]
fn signal_of(_: &std::process::ExitStatus) -> Option<i32> {
    None
}

struct Message {
    line: Option<usize>,
    fatal: bool,
    text: String,
}

/// ptxas's errors and fatals. A line number counts only when it is in `ours`:
/// ptxas also reports lines of its own expansions (`<macro util>, line 3`), which
/// say nothing about which of our lines caused them.
fn parse_messages(stderr: &str, ours: &str) -> Vec<Message> {
    let mut out = Vec::new();
    for l in stderr.lines() {
        let Some(rest) = l.strip_prefix("ptxas") else {
            continue;
        };
        let (line, rest) = match rest.find(", line ") {
            Some(i) => {
                let after = &rest[i + 7..];
                let end = after.find(';').unwrap_or(after.len());
                let line = after[..end]
                    .trim()
                    .parse()
                    .ok()
                    .filter(|_| rest[..i].trim() == ours);
                (line, &after[(end + 1).min(after.len())..])
            }
            None => (None, rest),
        };
        let rest = rest.trim();
        let (fatal, text) = if let Some(t) = rest.strip_prefix("fatal") {
            (true, t)
        } else if let Some(t) = rest.strip_prefix("error") {
            (false, t)
        } else {
            continue;
        };
        let text = text.trim_start().trim_start_matches(':').trim().to_owned();
        if text == "Ptx assembly aborted due to errors" {
            continue;
        }
        out.push(Message { line, fatal, text });
    }
    out
}

/// Assembles the texts in one module (or as many as fatals force) and returns one
/// outcome per text.
pub fn run(ptxas: &Ptxas, spec: &Spec, module: Module, texts: &[&str], dir: &Path) -> Vec<Outcome> {
    if texts.is_empty() {
        return Vec::new();
    }
    let m = wrap(spec, module, texts);
    // A text that needs a register class the module's `.version` cannot declare
    // (the table's `since`: `.b128` below PTX ISA 8.3) makes ptxas refuse the whole
    // module at its declaration. Such texts are each run alone, and the others
    // together, rather than found by halving.
    if texts.len() > 1 && m.late.contains(&true) && m.late.contains(&false) {
        let (late, timely): (Vec<usize>, Vec<usize>) = (0..texts.len()).partition(|&i| m.late[i]);
        let batch: Vec<&str> = timely.iter().map(|&i| texts[i]).collect();
        let mut out: Vec<(usize, Outcome)> = timely.into_iter().zip(run(ptxas, spec, module, &batch, dir)).collect();
        for i in late {
            out.extend(run(ptxas, spec, module, &texts[i..=i], dir).into_iter().map(|o| (i, o)));
        }
        out.sort_by_key(|(i, _)| *i);
        return out.into_iter().map(|(_, o)| o).collect();
    }
    let file = dir.join(format!("m{}_{}.ptx", std::process::id(), unique()));
    if let Err(e) = std::fs::write(&file, &m.text) {
        return vec![Outcome::Unverifiable(format!("{}: {e}", file.display())); texts.len()];
    }
    let result = assemble(&ptxas.path, &ptxas.arch_for(module.target).to_string(), &file);
    let _ = std::fs::remove_file(&file);
    let output = match result {
        Ran::Exited(o) => o,
        Ran::NotStarted(why) => return vec![Outcome::Unverifiable(why); texts.len()],
        // Which text it failed on is found by halving, as for a lineless error.
        Ran::Failed(why) if texts.len() == 1 => return vec![Outcome::Failed(why)],
        Ran::Failed(_) => {
            let half = texts.len() / 2;
            let mut out = run(ptxas, spec, module, &texts[..half], dir);
            out.extend(run(ptxas, spec, module, &texts[half..], dir));
            return out;
        }
    };
    let stderr = String::from_utf8_lossy(&output.stderr);
    let messages = parse_messages(&stderr, &file.display().to_string());
    if output.status.success() {
        return vec![Outcome::Accepted; texts.len()];
    }
    let index_of = |line: usize| m.lines.iter().position(|l| *l == line);
    if let Some(header) = messages
        .iter()
        .find(|msg| msg.line.is_some_and(|l| index_of(l).is_none()))
    {
        // The module declares only the register classes its texts use, so a
        // declaration ptxas refuses (`.reg .b128` below PTX ISA 8.3) is refused
        // with the texts that need it: which, is found by halving.
        let declared = header
            .line
            .and_then(|l| m.text.lines().nth(l.saturating_sub(1)))
            .is_some_and(|l| l.trim_start().starts_with(".reg "));
        return match (declared, texts.len()) {
            (true, 1) => vec![Outcome::Rejected(vec![header.text.clone()])],
            (true, n) => {
                let mut out = run(ptxas, spec, module, &texts[..n / 2], dir);
                out.extend(run(ptxas, spec, module, &texts[n / 2..], dir));
                out
            }
            (false, _) => vec![Outcome::Unverifiable(header.text.clone()); texts.len()],
        };
    }
    let mut per: Vec<Vec<String>> = vec![Vec::new(); texts.len()];
    let mut stop: Option<usize> = None;
    // An error that names none of our lines (a fatal, or one from ptxas's own
    // expansions) is pinned by halving the batch.
    let mut lineless = None;
    for msg in &messages {
        match msg.line.and_then(index_of) {
            Some(i) => {
                per[i].push(msg.text.clone());
                if msg.fatal {
                    stop = Some(stop.map_or(i, |s| s.min(i)));
                }
            }
            None => lineless = Some(msg.text.clone()),
        }
    }
    if lineless.is_some() && per.iter().all(Vec::is_empty) {
        if texts.len() == 1 {
            return vec![Outcome::Rejected(vec![lineless.unwrap_or_default()])];
        }
        let half = texts.len() / 2;
        let mut out = run(ptxas, spec, module, &texts[..half], dir);
        out.extend(run(ptxas, spec, module, &texts[half..], dir));
        return out;
    }
    if per.iter().all(Vec::is_empty) {
        let why = stderr
            .lines()
            .next()
            .unwrap_or("ptxas failed without a message")
            .to_owned();
        return vec![Outcome::Unverifiable(why); texts.len()];
    }
    // Errors of one phase hide the checks of later phases (a 32-bit address is
    // refused only once the module parses), and a fatal stops the rest: a text
    // without errors is accepted only from a module that assembled, so the clean
    // ones are run again without the rejected ones.
    let unreached = stop.map_or(texts.len(), |k| k + 1);
    let again: Vec<usize> = (0..texts.len())
        .filter(|&i| per[i].is_empty() || i >= unreached)
        .collect();
    let mut out: Vec<Outcome> = per.iter().map(|m| outcome(m)).collect();
    let rerun = run(
        ptxas,
        spec,
        module,
        &again.iter().map(|&i| texts[i]).collect::<Vec<_>>(),
        dir,
    );
    for (i, o) in again.into_iter().zip(rerun) {
        out[i] = o;
    }
    out
}

fn outcome(msgs: &[String]) -> Outcome {
    if msgs.is_empty() {
        Outcome::Accepted
    } else {
        Outcome::Rejected(msgs.to_vec())
    }
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

/// Assembles one complete module (a kernel, not a batch of instructions) for
/// `target`: `Ok` when ptxas accepts it, else its messages. The tests of every
/// emitted kernel (probes, sweeps, self-checking modules) share it.
pub fn assemble_module(
    ptxas: &Path,
    target: &str,
    text: &str,
    dir: &Path,
    name: &str,
) -> crate::error::Result<()> {
    use crate::error::Error;
    let file = dir.join(format!("{name}.ptx"));
    std::fs::write(&file, text).map_err(|e| Error::io(&file, e))?;
    let o = Command::new(ptxas)
        .arg(format!("-arch={target}"))
        .arg(&file)
        .arg("-o")
        .arg(if cfg!(windows) { "NUL" } else { "/dev/null" })
        .output()
        .map_err(|e| Error::io(ptxas, e))?;
    if o.status.success() {
        Ok(())
    } else {
        Err(Error::Ptxas(
            String::from_utf8_lossy(&o.stderr).into_owned(),
        ))
    }
}

/// The assembler that the environment variable `var` (`PTXVEC_PTXAS`,
/// `PTXVEC_PTXAS_CU12`) names; an error when it is unset or names no file. The tests
/// that run ptxas take it from here: they run only under `cfg(ptxas)` (see
/// generator/build.rs), where a missing assembler fails them.
pub fn from_env(var: &str) -> crate::error::Result<PathBuf> {
    locate(
        std::env::var_os(var).map(PathBuf::from),
        var,
        "bash .ci/run installs ptxas and sets it",
    )
}

/// The assembler at `path`, given by `how` (a variable or a flag): an error when
/// none is given (`hint` says where to get one) or it names no file.
pub fn locate(path: Option<PathBuf>, how: &str, hint: &str) -> crate::error::Result<PathBuf> {
    use crate::error::Error;
    let path = path.ok_or_else(|| Error::Usage(format!("{how} is not set ({hint})")))?;
    if path.is_file() {
        Ok(path)
    } else {
        Err(Error::Usage(format!(
            "{how}={}: no such file",
            path.display()
        )))
    }
}

/// The assemblers as the target model describes them, without a binary: what an
/// offline exploration keys its cached verdicts by.
pub fn offline_tools(spec: &Spec) -> crate::error::Result<Vec<Ptxas>> {
    [crate::syntax::illegal::CHECK_PTXAS, "12.9"]
        .iter()
        .map(|release| {
            Ptxas::new(spec, PathBuf::new(), release).ok_or_else(|| {
                crate::error::Error::Usage(format!("CUDA {release} is not in spec/targets.yaml"))
            })
        })
        .collect()
}


