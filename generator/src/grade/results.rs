//! A consumer's results, as `ptxvec grade` reads them: JSON Lines, one result per
//! line. Every line is read before anything is graded, and every bad line is
//! reported (`file:line:column: message`), so that one run shows them all.

use std::io::Read;
use std::path::Path;

use serde::de::DeserializeOwned;
use serde::Deserialize;

use crate::error::{Error, Result};
use crate::record::{strip_position, Bits, Outputs};

/// One line of syntax results: whether the consumer accepted a case of
/// vectors/syntax.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SyntaxResult {
    /// The case id (`red/scalar/.global.add.u32/reg`).
    pub id: String,
    /// Whether the consumer took the text as legal in the case's module.
    pub accepted: bool,
    /// What the consumer said, if anything (shown in the reports).
    #[serde(default)]
    pub message: Option<String>,
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
        let text = b"{\"id\":\"x\",\"accepted\":true}\n{\"id\":\"y\",\"accepted\":false,\"message\":\"no\"}\n{\"id\":\"z\",\"accepted\":\"yes\"}\n\xff\n";
        let mut bad = Vec::new();
        let got: Vec<Line<SyntaxResult>> = parse("s", text, &mut bad);
        assert_eq!(got.len(), 2);
        assert_eq!(got[1].value.message.as_deref(), Some("no"));
        assert_eq!(bad.len(), 2, "{bad:?}");
        assert!(bad[0].starts_with("s:3:"), "{}", bad[0]);
        assert_eq!(bad[1], "s:4:1: not UTF-8");
    }
}
