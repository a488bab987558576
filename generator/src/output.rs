//! Standard output for the command line: every write error comes back as an error,
//! never as a panic (`print!` panics on one), and the caller flushes at the end so
//! that a failed flush is an error too. A reader that closes the pipe early ends the
//! program through SIGPIPE, whose default action main.rs restores.

use std::io::{self, StdoutLock, Write};

/// The locked standard output of the process.
pub struct Stdout {
    lock: StdoutLock<'static>,
}

impl Stdout {
    /// Locks stdout, or says why it cannot be written.
    pub fn open() -> Result<Stdout, String> {
        if closed_at_start() {
            return Err(
                "error: stdout: closed (the program was started with fd 1 closed, \
                        and its output would be lost; redirect it to a file, or to \
                        >/dev/null to discard it)"
                    .to_owned(),
            );
        }
        Ok(Stdout {
            lock: io::stdout().lock(),
        })
    }

    /// Flushes what is buffered: the last chance for a write error to show.
    pub fn finish(mut self) -> Result<(), String> {
        self.lock.flush().map_err(write_error)
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

/// The message for a failed write to stdout.
pub fn write_error(e: io::Error) -> String {
    format!("error: stdout: {e}")
}

/// Whether fd 1 was closed when the program started. Rust's runtime reopens a closed
/// standard descriptor on /dev/null, read-write, before main; a shell's `>/dev/null`
/// opens it write-only. So a read-write /dev/null on fd 1 is taken as closed (a
/// deliberate `1<>/dev/null` is refused too, which costs nothing).
#[cfg(unix)]
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
