//! Recorded third-party results (`vectors/clients/<client>-<version>/syntax.jsonl`):
//! what an assembler or parser made of each syntax case at the case's own module,
//! one JSON line per case in the order of the vectors/syntax files. Observations,
//! not expectations: `ptxvec grade` compares them with the verdicts.

use std::path::Path;

use serde::{Deserialize, Serialize};

/// The longest `message` kept, in characters.
pub const MESSAGE_CHARS: usize = 160;

/// One case as a client saw it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClientResult {
    /// The case id (vectors/syntax).
    pub id: String,
    /// Whether the client took the case's module without an error.
    pub accepted: bool,
    /// When rejected: the client's first error line, at most [`MESSAGE_CHARS`]
    /// characters (absent where a file drops repeated messages; its README says so).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl ClientResult {
    /// A rejection with the first line of `message`, trimmed.
    pub fn rejected(id: &str, message: &str) -> ClientResult {
        let line = message.lines().next().unwrap_or_default().trim();
        ClientResult {
            id: id.to_owned(),
            accepted: false,
            message: Some(line.chars().take(MESSAGE_CHARS).collect::<String>().trim_end().to_owned()),
        }
    }

    /// An acceptance.
    pub fn accepted(id: &str) -> ClientResult {
        ClientResult { id: id.to_owned(), accepted: true, message: None }
    }
}

/// Writes `results` as JSON Lines to `path` (through a temporary name).
pub fn write(path: &Path, results: &[ClientResult]) -> crate::error::Result<()> {
    let mut out = String::new();
    for r in results {
        // A struct of strings and a bool always serializes.
        out.push_str(&serde_json::to_string(r).unwrap_or_default());
        out.push('\n');
    }
    crate::files::write_atomic(path, out.as_bytes()).map_err(|e| crate::error::Error::io(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rejection_keeps_the_first_line_trimmed_to_160_characters() {
        let long = "é".repeat(200);
        let rows: &[(&str, Option<&str>)] = &[
            ("  Unknown symbol '%r9'  \nsecond line", Some("Unknown symbol '%r9'")),
            (&long, Some(&long[..2 * MESSAGE_CHARS])),
            ("", Some("")),
        ];
        for (message, want) in rows {
            let r = ClientResult::rejected("red/x", message);
            assert_eq!(r.message.as_deref(), *want, "{message:?}");
            assert!(!r.accepted);
        }
    }

    #[test]
    fn lines_read_back_and_an_acceptance_has_no_message() {
        let rows = [ClientResult::accepted("a"), ClientResult::rejected("b", "x")];
        let text: Vec<String> = rows.iter().map(|r| serde_json::to_string(r).unwrap()).collect();
        assert_eq!(text, [r#"{"id":"a","accepted":true}"#, r#"{"id":"b","accepted":false,"message":"x"}"#]);
        let back: Vec<ClientResult> = text.iter().map(|t| serde_json::from_str(t).unwrap()).collect();
        assert_eq!(back, rows);
    }
}
