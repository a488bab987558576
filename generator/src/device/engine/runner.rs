//! One call of an engine's runner: the program that loads a module, launches its
//! `ptxvec_raw` entry over a buffer filled with the poison, and writes the buffer
//! back (runner/README.md gives the protocol). The runner may crash, hang or print
//! an error: each is a [`Failure`] with the reason, never a buffer.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};
use std::time::Duration;

use super::process::{self, Stopped};

/// The exit status with which a runner says that it cannot run a module at all
/// (a launch it does not support): the module is not run, and not bisected.
pub const CANNOT_RUN: i32 = 3;

/// The characters of the runner's stderr kept in a reason (its last lines).
const REASON_CHARS: usize = 300;

/// How to call the runner: the program and its own arguments, before ptxvec's.
#[derive(Debug, Clone)]
pub struct Runner {
    /// The program.
    pub program: PathBuf,
    /// Its arguments before the module's (`--api gpgpu-sim`).
    pub args: Vec<OsString>,
    /// How long one call may take.
    pub timeout: Duration,
}

impl Runner {
    /// The runner `program` with `args` before each module's, `timeout_s` seconds a
    /// call (at least one). A program that is not there is a usage error here: it
    /// would fail every call, and every module would read as one the engine cannot
    /// load.
    pub fn checked(program: &std::path::Path, args: &[String], timeout_s: u64) -> crate::error::Result<Runner> {
        if !program.is_file() {
            return Err(crate::error::Error::Usage(format!(
                "--runner {}: no such program (build runner/ptxvec-runner.c: runner/README.md)",
                program.display()
            )));
        }
        Ok(Runner {
            program: program.to_path_buf(),
            args: args.iter().map(Into::into).collect(),
            timeout: Duration::from_secs(timeout_s.max(1)),
        })
    }
}

/// One launch of a module's raw entry.
#[derive(Debug, Clone, Copy)]
pub struct Launch<'a> {
    /// The module file.
    pub module: &'a Path,
    /// Blocks (x).
    pub grid: u32,
    /// Threads per block (x).
    pub block: u32,
    /// The buffer's bytes.
    pub out_bytes: usize,
    /// Where the runner writes the buffer.
    pub out: &'a Path,
}

/// Why a call gave no buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// What happened, with the end of the runner's stderr.
    pub reason: String,
    /// The runner said it cannot run the module ([`CANNOT_RUN`]): the end of
    /// what it said (empty if nothing), the reason without how it ended.
    pub cannot_run: Option<String>,
}

impl Runner {
    /// Runs `launch`: the buffer the runner wrote, of exactly `out_bytes` bytes.
    pub fn run(&self, launch: &Launch<'_>, records: &str) -> Result<Vec<u8>, Failure> {
        let fail = |reason: String| Failure {
            reason,
            cannot_run: None,
        };
        let _ = std::fs::remove_file(launch.out);
        let mut c = Command::new(&self.program);
        c.args(&self.args)
            .arg(launch.module)
            .arg(crate::device::selfcheck::emit::RAW)
            .arg(launch.grid.to_string())
            .arg(launch.block.to_string())
            .arg(launch.out_bytes.to_string())
            .arg(format!("{:#04x}", crate::device::selfcheck::raw::POISON))
            .arg(launch.out)
            // For the runner's logs and for stand-ins: which records the module holds.
            .env("PTXVEC_RECORDS", records);
        let ended = process::run(c, self.timeout)
            .map_err(|e| fail(format!("cannot start {}: {e}", self.program.display())))?;
        let said = telling(&ended.stdout, &ended.stderr);
        let status = match ended.status {
            Ok(status) => status,
            Err(Stopped::TimedOut) => {
                return Err(fail(with_tail(format!("timed out after {} s", self.timeout.as_secs()), &said)))
            }
            Err(Stopped::Wait(e)) => return Err(fail(with_tail(format!("cannot wait for it: {e}"), &said))),
        };
        if !status.success() {
            return Err(Failure {
                reason: with_tail(how_it_ended(status), &said),
                cannot_run: (status.code() == Some(CANNOT_RUN)).then(|| tail(&said)),
            });
        }
        // The size first: an engine that wrote gigabytes is not read into memory.
        let size = std::fs::metadata(launch.out)
            .map_err(|e| fail(with_tail(format!("exited 0 but wrote no buffer ({e})"), &said)))?
            .len();
        if size != launch.out_bytes as u64 {
            return Err(fail(format!("exited 0 but wrote {size} bytes, not {}", launch.out_bytes)));
        }
        let bytes = std::fs::read(launch.out)
            .map_err(|e| fail(with_tail(format!("exited 0 but its buffer cannot be read ({e})"), &said)))?;
        if bytes.len() != launch.out_bytes {
            return Err(fail(format!(
                "exited 0 but wrote {} bytes, not {}",
                bytes.len(),
                launch.out_bytes
            )));
        }
        Ok(bytes)
    }
}

/// `killed by SIGSEGV`, `exited with status 1`.
fn how_it_ended(status: ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            let name = match sig {
                4 => "SIGILL",
                6 => "SIGABRT",
                7 => "SIGBUS",
                8 => "SIGFPE",
                9 => "SIGKILL",
                11 => "SIGSEGV",
                _ => return format!("killed by signal {sig}"),
            };
            return format!("killed by {name}");
        }
    }
    match status.code() {
        Some(c) => format!("exited with status {c}"),
        None => format!("ended: {status}"),
    }
}

/// What the runner said that tells why it failed: the first line of either stream
/// that speaks of an error (a simulator prints pages before it), else the end of
/// stderr.
fn telling(stdout: &str, stderr: &str) -> String {
    let says_error = |l: &&str| {
        let l = l.to_ascii_lowercase();
        ["error", "not implemented", "not (yet) implemented", "unsupported", "assert"]
            .iter()
            .any(|w| l.contains(w))
    };
    stderr
        .lines()
        .chain(stdout.lines())
        .find(says_error)
        .map_or_else(|| stderr.to_owned(), str::to_owned)
}

/// `what`, then the last characters of what the runner said, on one line.
fn with_tail(what: String, said: &str) -> String {
    match tail(said) {
        t if t.is_empty() => what,
        t => format!("{what}: {t}"),
    }
}

/// The last characters of what the runner said, on one line (`…` where cut).
fn tail(said: &str) -> String {
    let flat: String = said
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let skip = flat.chars().count().saturating_sub(REASON_CHARS);
    let tail: String = flat.chars().skip(skip).collect();
    let dots = if skip > 0 { "…" } else { "" };
    format!("{dots}{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_telling_line_is_the_first_that_speaks_of_an_error() {
        assert_eq!(telling("noise\nx.ptx:12 Syntax error:\nmore", ""), "x.ptx:12 Syntax error:");
        assert_eq!(telling("a\nERROR (x) instruction \"red\" not (yet) implemented", "warn"), "ERROR (x) instruction \"red\" not (yet) implemented");
        assert_eq!(telling("page of noise", "last words\n"), "last words\n");
        assert_eq!(telling("x", "ptxvec-runner: cuModuleLoadData (218) error"), "ptxvec-runner: cuModuleLoadData (218) error");
    }

    #[test]
    fn reasons_keep_the_end_of_what_the_runner_said() {
        assert_eq!(with_tail("exited".into(), ""), "exited");
        assert_eq!(with_tail("exited".into(), "a\n  b\n"), "exited: a b");
        let long = "x".repeat(1000) + " the end";
        let r = with_tail("killed".into(), &long);
        assert!(r.ends_with(" the end") && r.contains('…'), "{r}");
        assert_eq!(r.chars().count(), "killed: …".chars().count() + REASON_CHARS);
    }
}
