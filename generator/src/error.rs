//! What stops a command, for the whole crate: one error type, context added where
//! the `?` is ([`Context`]), printed once at the edge (`cli`), which alone turns
//! an outcome into an exit status.

use std::fmt::Display;
use std::path::{Path, PathBuf};

/// Why a command could not do what it was asked.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The spec does not load: every problem, each at its file:line:column.
    #[error("{0}")]
    Spec(#[from] ptxvec_spec::SpecErrors),
    /// The command line asks for something that does not exist or cannot be.
    #[error("{0}")]
    Usage(String),
    /// An input (a file, stdin, a vector file) is not what was expected.
    #[error("{0}")]
    Input(String),
    /// Standard output cannot be written.
    #[error("stdout: {0}")]
    Stdout(std::io::Error),
    /// A file or folder cannot be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// Another run holds the lock of the folder it writes.
    #[error("{}: locked by another `ptxvec generate` (pid {pid}), which is writing this folder now; run again when it has finished", lock.display())]
    Busy {
        /// The lock file.
        lock: PathBuf,
        /// What the lock file says: the pid of the run that holds it.
        pid: String,
    },
    /// No GPU, or the driver failed.
    #[error("{0}")]
    Device(Leaf),
    /// A run on the device gave no result (its child process failed or timed out).
    #[error("{0}")]
    Run(String),
    /// ptxas could not be run, or refused a module it had to take.
    #[error("{0}")]
    Ptxas(String),
    /// The oracle gives no exact bits where a sweep needs them.
    #[error("{0}")]
    Inexact(Leaf),
    /// A wide sweep's oracle cannot answer.
    #[error("{0}")]
    Wide(Leaf),
    /// A fast sweep kernel cannot run here, or disagrees with the oracle.
    #[error("{0}")]
    Fast(Leaf),
    /// A worker pool could not start.
    #[error("starting the worker threads: {0}")]
    Threads(#[from] rayon::ThreadPoolBuildError),
    /// Something went wrong in a step that names itself.
    #[error("{context}: {source}")]
    Context {
        /// The step.
        context: String,
        /// What went wrong in it.
        source: Box<Error>,
    },
}

/// A module's own error, carried as it is. This file names no module's error
/// type, so that no module above it is a dependency of every module: each such
/// module converts its own (`impl From<DeviceError> for Error` beside the type).
pub type Leaf = Box<dyn std::error::Error + Send + Sync>;

/// The crate's result.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An error reading or writing `path`.
    pub fn io(path: &Path, source: std::io::Error) -> Error {
        Error::Io {
            path: path.to_owned(),
            source,
        }
    }

    /// The error as the command line prints it: the spec's diagnostics as they
    /// are (each with its location and caret), anything else after `error: `.
    pub fn report(&self) -> String {
        match self {
            Error::Spec(e) => e.to_string(),
            e => format!("error: {e}"),
        }
    }
}

/// Adds the step that failed to an error, where the `?` is.
pub trait Context<T> {
    /// On an error, `what` names the step it happened in.
    fn context(self, what: impl Display) -> Result<T>;
}

impl<T, E: Into<Error>> Context<T> for std::result::Result<T, E> {
    fn context(self, what: impl Display) -> Result<T> {
        self.map_err(|e| Error::Context {
            context: what.to_string(),
            source: Box::new(e.into()),
        })
    }
}

/// What a command found, when it ran to its end: the command line turns it into
/// the exit status (0, 1 and 3; an [`Error`] is 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Everything as it should be: legal, agreeing, matching.
    Pass,
    /// The command ran and found something: an illegal text, a disagreement with
    /// ptxas the ledger does not explain, silicon that does not match.
    Findings,
    /// check-syntax was given an instruction statement that no covered instruction
    /// reads: it has no verdict on it, legal or illegal.
    NotCovered,
}

impl Outcome {
    /// `Findings` when `found`, else `Pass`.
    pub fn findings_if(found: bool) -> Outcome {
        if found {
            Outcome::Findings
        } else {
            Outcome::Pass
        }
    }
}
