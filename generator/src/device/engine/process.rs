//! A runner call's process, run so that no engine can stall `run-engine` or fill
//! its memory: the runner leads a process group of its own, and a call that runs
//! past its time is killed with everything it started; its output is read as it
//! comes (a runner never blocks on a full pipe) and only the end of each stream is
//! kept; and a process the runner left behind holding the output open is killed,
//! or, if it left the group, given up on. A group of its own no longer hears the
//! terminal's Ctrl-C, so `run-engine` passes that on: SIGINT, SIGTERM or SIGHUP
//! kill the call in flight's group before `run-engine` ends by the signal.

use std::io::Read;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// The bytes kept of each of the runner's streams: the last ones. A simulator's
/// error comes after its pages of log, and a reason keeps 300 characters of it.
pub const KEPT_BYTES: usize = 64 * 1024;

/// The bytes read from a stream at a time.
const CHUNK: usize = 16 * 1024;

/// How long the runner's output may stay open after it ended (a process it
/// started holds it) before that process is killed, and again after the kill.
const LINGER: Duration = Duration::from_millis(500);

/// How often a running call is looked at.
const POLL: Duration = Duration::from_millis(5);

/// The process group of the call in flight (its runner's pid), 0 when none: the
/// one a signal to `run-engine` kills. Calls are made one at a time.
static IN_FLIGHT: AtomicI32 = AtomicI32::new(0);

/// How a call ended, and the end of what it said.
#[derive(Debug)]
pub struct Ended {
    /// Its exit status, or why there is none.
    pub status: Result<ExitStatus, Stopped>,
    /// The last [`KEPT_BYTES`] of its stdout, lossily as text.
    pub stdout: String,
    /// The last [`KEPT_BYTES`] of its stderr, lossily as text.
    pub stderr: String,
}

/// Why a call has no exit status.
#[derive(Debug)]
pub enum Stopped {
    /// It ran past its time and was killed, with its process group.
    TimedOut,
    /// Waiting for it failed.
    Wait(std::io::Error),
}

/// Runs `command` (its stdin empty, its output read) for at most `timeout`.
/// Fails only when the process cannot be started.
pub fn run(mut command: Command, timeout: Duration) -> std::io::Result<Ended> {
    #[cfg(unix)]
    {
        // Its own group, so that a kill reaches what the runner started (a
        // simulator's worker, a shell's `sleep &`), which would keep the pipes open.
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    pass_on_signals();
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    IN_FLIGHT.store(group_of(&child), Ordering::SeqCst);
    let drains = Drain::start(child.stdout.take()).and_then(|out| Ok((out, Drain::start(child.stderr.take())?)));
    let (mut out, mut err) = match drains {
        Ok(drains) => drains,
        Err(e) => {
            kill_group(&child);
            let _ = child.kill();
            let _ = child.wait();
            IN_FLIGHT.store(0, Ordering::SeqCst);
            return Err(e);
        }
    };
    let status = wait(&mut child, timeout);
    // A process the runner started may hold its output open after the runner
    // ended: kill the group, and give up on one that left the group.
    let linger = Instant::now() + LINGER;
    if !(out.ended_by(linger) & err.ended_by(linger)) {
        kill_group(&child);
        let linger = Instant::now() + LINGER;
        out.ended_by(linger);
        err.ended_by(linger);
    }
    IN_FLIGHT.store(0, Ordering::SeqCst);
    Ok(Ended {
        status,
        stdout: out.text(),
        stderr: err.text(),
    })
}

/// Waits for `child` at most `timeout`; past it, kills its group and reaps it.
fn wait(child: &mut Child, timeout: Duration) -> Result<ExitStatus, Stopped> {
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(status),
            Ok(None) if start.elapsed() > timeout => {
                // Before the reap: while the leader is unreaped its group id
                // cannot name another group.
                kill_group(child);
                let _ = child.kill();
                let _ = child.wait();
                return Err(Stopped::TimedOut);
            }
            Ok(None) => std::thread::sleep(POLL),
            Err(e) => {
                kill_group(child);
                let _ = child.kill();
                return Err(Stopped::Wait(e));
            }
        }
    }
}

/// The process group `child` leads; 0 (none) for an id no group can have: a
/// kill of group 0 or 1 would reach our own group or every process.
fn group_of(child: &Child) -> i32 {
    i32::try_from(child.id()).ok().filter(|&g| g > 1).unwrap_or(0)
}

/// Sends SIGKILL to the process group `child` leads.
fn kill_group(child: &Child) {
    kill_group_id(group_of(child));
}

/// Sends SIGKILL to process group `pgid`, if it is one (> 1). Async-signal-safe:
/// the signal handler calls it.
#[cfg(unix)]
#[allow(unsafe_code)]
fn kill_group_id(pgid: i32) {
    if pgid <= 1 {
        return;
    }
    // SAFETY: kill(2) takes two integers and reads no memory of ours. `-pgid` names
    // the group `run` made the runner lead (process_group(0)). After the runner is
    // reaped, the id stays reserved while a process of its group lives; when none
    // does, the call finds no group (ESRCH), unless the id came round again as
    // another group's within LINGER, which takes the system's whole pid range.
    unsafe {
        libc::kill(-pgid, libc::SIGKILL);
    }
}

/// Elsewhere there is no group: the runner alone is killed.
#[cfg(not(unix))]
fn kill_group_id(_: i32) {}

/// The signals that end `run-engine` and are passed on to the call in flight.
#[cfg(unix)]
const ENDING: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

/// Installs [`on_ending_signal`] for [`ENDING`], once; a signal that was ignored
/// (`nohup`, a background job) stays ignored.
#[cfg(unix)]
#[allow(unsafe_code)]
fn pass_on_signals() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        for sig in ENDING {
            let handler = on_ending_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            // SAFETY: signal(2) sets the action of one signal; the handler calls
            // only async-signal-safe functions (an atomic load, kill, signal,
            // raise). Putting SIG_IGN back where it was leaves that choice alone.
            unsafe {
                if libc::signal(sig, handler) == libc::SIG_IGN {
                    libc::signal(sig, libc::SIG_IGN);
                }
            }
        }
    });
}

#[cfg(not(unix))]
fn pass_on_signals() {}

/// Kills the call in flight's group, then ends `run-engine` by the same signal
/// (its default action), as if it had not been caught.
#[cfg(unix)]
#[allow(unsafe_code)]
extern "C" fn on_ending_signal(sig: libc::c_int) {
    kill_group_id(IN_FLIGHT.load(Ordering::SeqCst));
    // SAFETY: signal and raise are async-signal-safe; the default action of these
    // signals ends the process.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}

/// The end of a stream, as much as [`KEPT_BYTES`] of it.
#[derive(Debug, Default)]
struct Tail {
    /// The last bytes read, at most twice [`KEPT_BYTES`] (cut back to
    /// [`KEPT_BYTES`] when it grows past that, so that a cut is rare).
    bytes: Vec<u8>,
}

impl Tail {
    /// Appends `chunk`, keeping the bound.
    fn push(&mut self, chunk: &[u8]) {
        self.bytes.extend_from_slice(chunk);
        if self.bytes.len() > 2 * KEPT_BYTES {
            let cut = self.bytes.len() - KEPT_BYTES;
            self.bytes.drain(..cut);
        }
    }

    /// The last [`KEPT_BYTES`], lossily as text (a cut may split a character).
    fn text(&self) -> String {
        let from = self.bytes.len().saturating_sub(KEPT_BYTES);
        String::from_utf8_lossy(&self.bytes[from..]).into_owned()
    }
}

/// A thread reading one of the runner's streams to its end into a [`Tail`].
struct Drain {
    tail: Arc<Mutex<Tail>>,
    /// Says when the stream ended.
    done: mpsc::Receiver<()>,
    /// The stream was seen to end.
    ended: bool,
}

impl Drain {
    /// Starts reading `stream`; none (never, with piped output) is an ended one.
    fn start(stream: Option<impl Read + Send + 'static>) -> std::io::Result<Drain> {
        let tail = Arc::new(Mutex::new(Tail::default()));
        let (tx, done) = mpsc::channel();
        let Some(mut stream) = stream else {
            return Ok(Drain { tail, done, ended: true });
        };
        let kept = Arc::clone(&tail);
        std::thread::Builder::new()
            .name("runner-output".to_owned())
            .spawn(move || {
                let mut buf = vec![0; CHUNK];
                loop {
                    match stream.read(&mut buf) {
                        Ok(0) => break,
                        Ok(n) => kept.lock().unwrap_or_else(PoisonError::into_inner).push(&buf[..n]),
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                        Err(_) => break,
                    }
                }
                let _ = tx.send(());
            })?;
        Ok(Drain { tail, done, ended: false })
    }

    /// Whether the stream has ended, waiting for that until `deadline`. A
    /// stream still open then is left to its thread, which reads on (keeping the
    /// bound) until whoever holds it closes it.
    fn ended_by(&mut self, deadline: Instant) -> bool {
        if !self.ended {
            let left = deadline.saturating_duration_since(Instant::now());
            self.ended = !matches!(self.done.recv_timeout(left), Err(RecvTimeoutError::Timeout));
        }
        self.ended
    }

    /// What was kept so far.
    fn text(&self) -> String {
        self.tail.lock().unwrap_or_else(PoisonError::into_inner).text()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tail_keeps_the_last_bytes_and_no_more_than_its_bound() {
        let mut t = Tail::default();
        t.push(b"start ");
        assert_eq!(t.text(), "start ");
        for n in 0..1000u32 {
            t.push(format!("line {n}\n").repeat(100).as_bytes());
            assert!(t.bytes.len() <= 2 * KEPT_BYTES, "{} bytes kept", t.bytes.len());
        }
        t.push(b"the end");
        let text = t.text();
        assert_eq!(text.len(), KEPT_BYTES);
        assert!(text.ends_with("line 999\nthe end") && !text.contains("start"), "{}", &text[text.len() - 40..]);
    }

    #[test]
    fn a_cut_through_a_character_reads_as_a_replacement() {
        let mut t = Tail::default();
        t.push(&"é".repeat(KEPT_BYTES).into_bytes());
        // An odd number of bytes kept of two-byte characters: the first is cut.
        t.push(b"x");
        assert!(t.text().starts_with('\u{fffd}') && t.text().ends_with("éx"));
    }
}
