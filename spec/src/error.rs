//! Load errors: each names its file, line and column, and the loader returns them all.

use std::fmt;
use std::path::PathBuf;

/// A place in a spec file, with the line's text for a caret display.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The file, as the caller named it.
    pub path: PathBuf,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// The text of that line.
    pub line_text: String,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.path.display(), self.line, self.column)
    }
}

/// One thing wrong with the spec.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    /// A file or folder could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
    /// A path the loader must read is not a regular file (a FIFO would block the
    /// load forever, a device would never end).
    #[error("{}: not a regular file ({what}); the spec is made of regular files", path.display())]
    NotAFile {
        /// The path.
        path: PathBuf,
        /// What it is instead: "a directory", "a FIFO", ...
        what: &'static str,
    },
    /// A file is larger than [`crate::limits::MAX_FILE_BYTES`].
    #[error("{}: {size} bytes; a spec file holds at most {cap} bytes", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size (at least; reading stops past the cap).
        size: u64,
        /// The cap.
        cap: u64,
    },
    /// A file in a spec folder whose name says YAML but not `.yaml`: it would be
    /// silently skipped otherwise.
    #[error("{}: spec files end in `.yaml`; rename it to {}", path.display(), rename.display())]
    Extension {
        /// The file.
        path: PathBuf,
        /// The name it should have.
        rename: PathBuf,
    },
    /// The YAML does not parse, or does not have the expected shape.
    #[error("{at}: {message}{}", caret(at))]
    Yaml {
        /// Where.
        at: Location,
        /// The parser's words: the offending key and the expected shape.
        message: String,
    },
    /// The YAML has the right shape but says something inconsistent.
    #[error("{at}: {message}{}", caret(at))]
    Invalid {
        /// Where.
        at: Location,
        /// What is wrong and what was expected.
        message: String,
    },
}

impl SpecError {
    /// Where the error is, when it is in a file's text.
    pub fn location(&self) -> Option<&Location> {
        match self {
            SpecError::Io { .. }
            | SpecError::NotAFile { .. }
            | SpecError::TooLarge { .. }
            | SpecError::Extension { .. } => None,
            SpecError::Yaml { at, .. } | SpecError::Invalid { at, .. } => Some(at),
        }
    }
}

fn caret(at: &Location) -> String {
    if at.line_text.is_empty() {
        return String::new();
    }
    // Columns count characters, not bytes: pad with one space per character before
    // the column, keeping tabs so that the caret lines up under a tab-indented line.
    let pad: String = at
        .line_text
        .chars()
        .chain(std::iter::repeat(' '))
        .take(at.column.saturating_sub(1))
        .map(|c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    format!("\n    | {}\n    | {pad}^", at.line_text)
}

/// Every error found in one load, in file order.
#[derive(Debug)]
pub struct SpecErrors(pub Vec<SpecError>);

impl fmt::Display for SpecErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "error: {e}")?;
        }
        write!(
            f,
            "\n{} error{} in the spec",
            self.0.len(),
            if self.0.len() == 1 { "" } else { "s" }
        )
    }
}

impl std::error::Error for SpecErrors {}
