//! Standard output for the command line: every write error comes back as an error,
//! never as a panic (`print!` panics on one), and the caller flushes at the end so
//! that a failed flush is an error too. A reader that closes the pipe early ends the
//! program through SIGPIPE, whose default action main.rs restores.

use std::io::{self, StdoutLock, Write};

use crate::error::Error;

/// The locked standard output of the process.
pub struct Stdout {
    lock: StdoutLock<'static>,
}

impl Stdout {
    /// Locks stdout, or says why it cannot be written.
    pub fn open() -> Result<Stdout, Error> {
        if closed_at_start() {
            return Err(Error::Usage(
                "stdout: closed (the program was started with fd 1 closed, \
                 and its output would be lost; redirect it to a file, or to \
                 >/dev/null to discard it)"
                    .to_owned(),
            ));
        }
        Ok(Stdout {
            lock: io::stdout().lock(),
        })
    }

    /// Flushes what is buffered: the last chance for a write error to show.
    pub fn finish(mut self) -> Result<(), Error> {
        self.lock.flush().map_err(Error::Stdout)
    }
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.lock.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.lock.flush()
    }
}

/// A failed write to stdout.
pub fn write_error(e: io::Error) -> Error {
    Error::Stdout(e)
}

/// A progress or diagnostic line on stderr; a failure to write it is ignored (it
/// carries no result, and `eprintln!` would panic).
pub fn note(args: std::fmt::Arguments<'_>) {
    let mut err = io::stderr().lock();
    let _ = err.write_fmt(args);
    let _ = err.write_all(b"\n");
}

/// Whether fd 1 was closed when the program started, as seen before Rust's runtime
/// reopens a closed standard descriptor on /dev/null (read-write, before `main`):
/// after that, a closed fd 1 and a /dev/null a harness opened read-write (Python's
/// `subprocess.DEVNULL`) look alike, and only the second asks for the output to be
/// discarded. A function in `.init_array` runs before the runtime's start-up (the
/// C library calls it before `main`), and records what fd 1 was then.
#[cfg(target_os = "linux")]
mod start {
    use std::sync::atomic::{AtomicBool, Ordering};

    /// fd 1 was not open when the process started.
    static CLOSED: AtomicBool = AtomicBool::new(false);

    #[allow(unsafe_code)]
    extern "C" fn record() {
        // SAFETY: F_GETFL reads the flags of descriptor 1; it takes no pointer and
        // changes nothing. A descriptor that is not open makes it return -1.
        let flags = unsafe { libc::fcntl(1, libc::F_GETFL) };
        CLOSED.store(flags == -1, Ordering::Relaxed);
    }

    /// The constructor's entry: the C library runs every function of
    /// `.init_array` before it calls `main`.
    // SAFETY: `.init_array` holds pointers to `extern "C" fn()` that the C library
    // calls once each, in one thread, before `main`; `record` is such a function,
    // and it touches only an atomic, which needs no start-up of its own.
    #[allow(unsafe_code)]
    #[used]
    #[link_section = ".init_array"]
    static RECORD: extern "C" fn() = record;

    /// What [`record`] saw.
    pub fn closed() -> bool {
        // Reading RECORD keeps its section in the link wherever this is called.
        let _ = std::hint::black_box(RECORD as usize);
        CLOSED.load(Ordering::Relaxed)
    }
}

#[cfg(target_os = "linux")]
fn closed_at_start() -> bool {
    start::closed()
}

/// Elsewhere on unix, after the runtime's start-up: a read-write /dev/null on fd 1
/// is taken as the runtime's stand-in for a closed descriptor (a harness's
/// read-write /dev/null is refused with it).
#[cfg(all(unix, not(target_os = "linux")))]
#[allow(unsafe_code)]
fn closed_at_start() -> bool {
    use std::os::fd::AsFd;
    use std::os::unix::fs::MetadataExt;
    // SAFETY: F_GETFL reads the flags of descriptor 1; it takes no pointer and
    // changes nothing. An invalid descriptor makes it return -1.
    let flags = unsafe { libc::fcntl(1, libc::F_GETFL) };
    if flags == -1 {
        return true;
    }
    if flags & libc::O_ACCMODE != libc::O_RDWR {
        return false;
    }
    let out = io::stdout()
        .as_fd()
        .try_clone_to_owned()
        .map(std::fs::File::from)
        .and_then(|f| f.metadata());
    match (out, std::fs::metadata("/dev/null")) {
        (Ok(out), Ok(null)) => out.rdev() == null.rdev() && out.dev() == null.dev(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn closed_at_start() -> bool {
    false
}

/// The answer a batch command writes in place of a line it cannot answer.
#[derive(Debug, serde::Serialize)]
pub struct ErrorAnswer {
    /// `<input>:line[:column]: what is wrong`.
    pub error: String,
}

impl ErrorAnswer {
    /// The answer line (no newline) for `error`.
    pub fn line(error: String) -> String {
        // A struct of one string serializes whatever the string holds.
        serde_json::to_string(&ErrorAnswer { error }).unwrap_or_default()
    }
}
