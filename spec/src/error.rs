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
    /// 1-based column.
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
            SpecError::Io { .. } => None,
            SpecError::Yaml { at, .. } | SpecError::Invalid { at, .. } => Some(at),
        }
    }
}

fn caret(at: &Location) -> String {
    if at.line_text.is_empty() {
        return String::new();
    }
    let pad = " ".repeat(at.column.saturating_sub(1));
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
