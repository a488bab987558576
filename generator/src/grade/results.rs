//! A consumer's results, as `ptxvec grade` reads them: JSON Lines, one result per
//! line. Every line is read before anything is graded, and every bad line is
//! reported (`file:line:column: message`), so that one run shows them all.

use std::io::Read;
use std::path::Path;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::record::{strip_position, Bits, Outputs};

/// One line of syntax results: what the consumer made of a case of
/// vectors/syntax, in its module. The one type for every syntax results file:
/// `ptxvec grade` reads it, `audit-syntax --results` and the client adapters write
/// it (vectors/clients).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "SyntaxLine", into = "SyntaxLine")]
pub struct SyntaxResult {
    /// The case id (`red/scalar/.global.add.u32/reg`).
    pub id: String,
    /// What the consumer did.
    pub answer: Answer,
}

/// What a consumer did with a case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// It took the text as legal in the case's module.
    Accepted,
    /// It refused it, saying this if anything (shown in the reports).
    Rejected(Option<String>),
    /// It could not judge the case, for this reason (a target it does not
    /// assemble): not graded, and counted as such.
    Skipped(String),
}

/// A syntax results line as written: `{"id", "accepted": bool, "message"?}` or
/// `{"id", "skipped": "why"}`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SyntaxLine {
    id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    accepted: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    skipped: Option<String>,
}

impl TryFrom<SyntaxLine> for SyntaxResult {
    type Error = String;

    fn try_from(l: SyntaxLine) -> std::result::Result<SyntaxResult, String> {
        let answer = match (l.accepted, l.message, l.skipped) {
            (Some(true), None, None) => Answer::Accepted,
            (Some(false), m, None) => Answer::Rejected(m),
            (None, None, Some(why)) => Answer::Skipped(why),
            (Some(true), Some(_), _) => {
                return Err("\"message\" goes with \"accepted\": false".to_owned())
            }
            (Some(_), _, Some(_)) => {
                return Err("\"accepted\" and \"skipped\" in one line".to_owned())
            }
            (None, _, None) => {
                return Err("expected \"accepted\" (true or false) or \"skipped\" (why)".to_owned())
            }
            (None, Some(_), Some(_)) => {
                return Err("\"message\" goes with \"accepted\": false".to_owned())
            }
        };
        Ok(SyntaxResult { id: l.id, answer })
    }
}

impl From<SyntaxResult> for SyntaxLine {
    fn from(r: SyntaxResult) -> SyntaxLine {
        let mut l = SyntaxLine {
            id: r.id,
            ..SyntaxLine::default()
        };
        match r.answer {
            Answer::Accepted => l.accepted = Some(true),
            Answer::Rejected(m) => {
                l.accepted = Some(false);
                l.message = m;
            }
            Answer::Skipped(why) => l.skipped = Some(why),
        }
        l
    }
}

impl SyntaxResult {
    /// The longest `message` a recorded client keeps, in characters.
    pub const MESSAGE_CHARS: usize = 160;

    /// An acceptance of `id`.
    pub fn accepted(id: &str) -> SyntaxResult {
        SyntaxResult {
            id: id.to_owned(),
            answer: Answer::Accepted,
        }
    }

    /// A rejection of `id` with the first line of `message`, trimmed to
    /// [`Self::MESSAGE_CHARS`].
    pub fn rejected(id: &str, message: &str) -> SyntaxResult {
        let line = message.lines().next().unwrap_or_default().trim();
        let kept: String = line.chars().take(Self::MESSAGE_CHARS).collect();
        SyntaxResult {
            id: id.to_owned(),
            answer: Answer::Rejected(Some(kept.trim_end().to_owned())),
        }
    }

    /// `id` not judged, for `why`.
    pub fn skipped(id: &str, why: &str) -> SyntaxResult {
        SyntaxResult {
            id: id.to_owned(),
            answer: Answer::Skipped(why.to_owned()),
        }
    }

    /// The line as a results file writes it (no newline).
    pub fn to_line(&self) -> String {
        // Strings and a bool: serde_json cannot fail on them.
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// Writes syntax results as JSON Lines to `path` (through a temporary name).
pub fn write_syntax(path: &Path, results: &[SyntaxResult]) -> Result<()> {
    let mut out = String::new();
    for r in results {
        out.push_str(&r.to_line());
        out.push('\n');
    }
    crate::files::write_atomic(path, out.as_bytes()).map_err(|e| Error::io(path, e))
}

/// One line of semantic results: what the consumer computed for a record of
/// vectors/semantic, shaped like the record's `expect` (`mem`, or `d` and `p`), each
/// slot a bit pattern or `null` where the lane did not execute.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SemanticResult {
    /// The record id (`red.add.f32#2`).
    pub id: String,
    /// The outputs.
    pub outputs: Outputs<Option<Bits>>,
}

/// A result and the line it was read from (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line<T> {
    /// The line.
    pub line: usize,
    /// What it holds.
    pub value: T,
}

/// Bad lines reported in the error before the rest are only counted.
pub const BAD_LINES_SHOWN: usize = 100;

/// The bytes of `path`, or of stdin for `-`.
pub fn read_input(path: &Path) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    if path.as_os_str() == "-" {
        std::io::stdin()
            .lock()
            .read_to_end(&mut bytes)
            .map_err(|e| Error::io(path, e))?;
    } else {
        bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    }
    Ok(bytes)
}

/// The name `path` has in messages (`<stdin>` for `-`).
pub fn display_name(path: &Path) -> String {
    if path.as_os_str() == "-" {
        "<stdin>".to_owned()
    } else {
        path.display().to_string()
    }
}

/// Reads every line of `bytes` (named `name`) as a `T`; blank lines are skipped.
/// Each bad line is pushed onto `bad` as `name:line:column: message` (or
/// `name:line: message` where no column applies).
pub fn parse<T: DeserializeOwned>(name: &str, bytes: &[u8], bad: &mut Vec<String>) -> Vec<Line<T>> {
    let mut out = Vec::new();
    for (i, raw) in bytes.split(|b| *b == b'\n').enumerate() {
        let line = i + 1;
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let text = match std::str::from_utf8(raw) {
            Ok(t) => t,
            Err(e) => {
                bad.push(format!("{name}:{line}:{}: not UTF-8", e.valid_up_to() + 1));
                continue;
            }
        };
        if text.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<T>(text) {
            Ok(value) => out.push(Line { line, value }),
            Err(e) => {
                let message = match e.classify() {
                    serde_json::error::Category::Data => strip_position(&e),
                    _ => format!("not JSON: {}", strip_position(&e)),
                };
                bad.push(format!("{name}:{line}:{}: {message}", e.column()));
            }
        }
    }
    out
}

/// The error for the bad lines of every results file: each line, up to
/// [`BAD_LINES_SHOWN`], then a count of the rest.
pub fn bad_lines_error(bad: &[String]) -> Error {
    let mut msg = format!("{} bad line(s) in the results:", bad.len());
    for b in bad.iter().take(BAD_LINES_SHOWN) {
        msg.push('\n');
        msg.push_str(b);
    }
    if bad.len() > BAD_LINES_SHOWN {
        msg.push_str(&format!("\n... and {} more", bad.len() - BAD_LINES_SHOWN));
    }
    Error::Input(msg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bad_line_is_reported_with_its_position() {
        let text = concat!(
            "{\"id\":\"a\",\"outputs\":{\"mem\":[\"0x0001\"]}}\n",
            "not json\n",
            "\n",
            "{\"id\":\"b\",\"outputs\":{\"mem\":[\"0x+1\"]}}\n",
            "{\"id\":\"c\",\"outputs\":{\"q\":[]}}\n",
            "{\"id\":\"d\",\"outputs\":{\"d\":[7]}}\n",
            "{\"id\":\"e\",\"outputs\":{},\"extra\":1}\n",
            "{\"id\":\"f\",\"outputs\":{\"d\":[null,\"0x1\"]}}\n",
        );
        let mut bad = Vec::new();
        let got: Vec<Line<SemanticResult>> = parse("r.jsonl", text.as_bytes(), &mut bad);
        assert_eq!(got.iter().map(|l| l.line).collect::<Vec<_>>(), [1, 8]);
        let lines: Vec<&str> = bad
            .iter()
            .map(|b| b.split(": ").next().unwrap_or_default())
            .collect();
        assert_eq!(
            lines,
            [
                "r.jsonl:2:2",
                "r.jsonl:4:34", // the end of the bad value, as serde_json counts
                "r.jsonl:5:24",
                "r.jsonl:6:27",
                "r.jsonl:7:30"
            ],
            "{bad:#?}"
        );
        assert!(bad[0].contains("not JSON"), "{}", bad[0]);
        assert!(bad[1].contains("is not a bit pattern"), "{}", bad[1]);
        assert!(bad[2].contains("unknown field `q`"), "{}", bad[2]);
        assert!(bad[4].contains("unknown field `extra`"), "{}", bad[4]);
    }

    #[test]
    fn syntax_lines_take_an_optional_message() {
        let text = b"{\"id\":\"x\",\"accepted\":true}\n{\"id\":\"y\",\"accepted\":false,\"message\":\"no\"}\n{\"id\":\"z\",\"accepted\":\"yes\"}\n\xff\n{\"id\":\"w\",\"skipped\":\"sm_20\"}\n{\"id\":\"v\",\"accepted\":true,\"skipped\":\"sm_20\"}\n{\"id\":\"u\"}\n{\"id\":\"t\",\"accepted\":true,\"message\":\"m\"}\n";
        let mut bad = Vec::new();
        let got: Vec<Line<SyntaxResult>> = parse("s", text, &mut bad);
        assert_eq!(got.len(), 3);
        assert_eq!(got[1].value.answer, Answer::Rejected(Some("no".to_owned())));
        assert_eq!(got[2].value.answer, Answer::Skipped("sm_20".to_owned()));
        assert_eq!(bad.len(), 5, "{bad:?}");
        assert!(bad[0].starts_with("s:3:"), "{}", bad[0]);
        assert_eq!(bad[1], "s:4:1: not UTF-8");
        for (k, line) in [(2, 6), (3, 7), (4, 8)] {
            assert!(bad[k].starts_with(&format!("s:{line}:")), "{}", bad[k]);
        }
        // What is read is written back as it was.
        for (g, want) in got.iter().zip([
            "{\"id\":\"x\",\"accepted\":true}",
            "{\"id\":\"y\",\"accepted\":false,\"message\":\"no\"}",
            "{\"id\":\"w\",\"skipped\":\"sm_20\"}",
        ]) {
            assert_eq!(g.value.to_line(), want);
        }
    }
}
