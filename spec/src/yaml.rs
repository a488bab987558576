//! The one module that reads YAML.
//!
//! serde_yaml turns a file into the typed model and reports shape errors with their
//! position. Errors found later, when one part of the spec is checked against
//! another, only know the serde path of the offending node (`syntax[0].forms[2]`);
//! [`Locator`] maps such paths back to line and column from yaml-rust2's events.

use std::collections::BTreeMap;
use std::path::Path;

use serde::de::DeserializeOwned;
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::Marker;

use crate::error::{Location, SpecError};

/// Deserializes one file, or says where and why it does not fit.
pub(crate) fn from_str<T: DeserializeOwned>(path: &Path, text: &str) -> Result<T, SpecError> {
    serde_yaml::from_str(text).map_err(|e| {
        let (line, column) = e.location().map_or((1, 1), |l| (l.line(), l.column()));
        let mut message = e.to_string();
        // serde_yaml appends " at line L column C"; the location says it already.
        if let Some(i) = message.rfind(" at line ") {
            message.truncate(i);
        }
        let (line, column) = refine(text, &message, line, column);
        SpecError::Yaml {
            at: location(path, text, line, column),
            message,
        }
    })
}

/// serde_yaml places an error raised while converting a value (an unknown qualifier,
/// a bad target) at the start of the enclosing node. When the message quotes the
/// offending text in backticks, point at that text instead, if it follows closely.
/// Field errors (missing, unknown, duplicate) are already placed well, and a verbatim
/// doc quote can hold anything without being at fault, so neither is searched.
fn refine(text: &str, message: &str, line: usize, column: usize) -> (usize, usize) {
    let field_error = ["missing field", "unknown field", "duplicate field"]
        .iter()
        .any(|m| message.contains(m));
    let Some(quoted) = message
        .split('`')
        .nth(1)
        .filter(|q| !q.is_empty() && !field_error)
    else {
        return (line, column);
    };
    const WITHIN: usize = 8;
    let verbatim = |l: &str| {
        ["doc_syntax:", "quote:", "text:"]
            .iter()
            .any(|k| l.contains(k))
    };
    for (i, l) in text
        .lines()
        .enumerate()
        .skip(line.saturating_sub(1))
        .take(WITHIN)
    {
        if verbatim(l) {
            continue;
        }
        let from = if i + 1 == line {
            column.saturating_sub(1).min(l.len())
        } else {
            0
        };
        if let Some(c) = l.get(from..).and_then(|rest| rest.find(quoted)) {
            return (i + 1, from + c + 1);
        }
    }
    (line, column)
}

/// A `Location` for a 1-based line and column of `text`.
pub(crate) fn location(path: &Path, text: &str, line: usize, column: usize) -> Location {
    let line_text = text
        .lines()
        .nth(line.saturating_sub(1))
        .unwrap_or("")
        .to_owned();
    Location {
        path: path.to_owned(),
        line,
        column,
        line_text,
    }
}

/// Finds the position of a node from its serde path.
pub(crate) struct Locator {
    at: BTreeMap<String, (usize, usize)>,
}

impl Locator {
    /// Indexes every node of a document that already deserialized.
    pub(crate) fn new(text: &str) -> Self {
        let mut rx = Receiver {
            stack: Vec::new(),
            at: BTreeMap::new(),
        };
        // The text parsed once already, so a failure here is impossible in practice;
        // if it happens the index is simply partial and positions fall back to 1:1.
        let _ = Parser::new_from_str(text).load(&mut rx, false);
        Locator { at: rx.at }
    }

    /// The 1-based line and column of the node at `path`, or of its nearest ancestor.
    pub(crate) fn find(&self, path: &str) -> (usize, usize) {
        let mut p = path;
        loop {
            if let Some(&pos) = self.at.get(p) {
                return pos;
            }
            match p.rfind(['.', '[']) {
                Some(i) => p = &p[..i],
                None => return self.at.get("").copied().unwrap_or((1, 1)),
            }
        }
    }
}

enum Frame {
    Map {
        path: String,
        key: Option<String>,
        keys_seen: usize,
    },
    Seq {
        path: String,
        next: usize,
    },
}

struct Receiver {
    stack: Vec<Frame>,
    at: BTreeMap<String, (usize, usize)>,
}

impl Receiver {
    /// The path of the node that is starting now, or `None` if it is a mapping key.
    fn child_path(&mut self) -> Option<String> {
        match self.stack.last_mut() {
            None => Some(String::new()),
            Some(Frame::Seq { path, next }) => {
                let p = format!("{path}[{next}]");
                *next += 1;
                Some(p)
            }
            Some(Frame::Map { path, key, .. }) => key.take().map(|k| {
                if path.is_empty() {
                    k
                } else {
                    format!("{path}.{k}")
                }
            }),
        }
    }
}

impl MarkedEventReceiver for Receiver {
    fn on_event(&mut self, ev: Event, mark: Marker) {
        let pos = (mark.line(), mark.col() + 1);
        match ev {
            Event::Scalar(value, ..) => match self.child_path() {
                // A value keeps the position of its key, which is what a reader looks for.
                Some(p) => {
                    self.at.entry(p).or_insert(pos);
                }
                None => {
                    if let Some(Frame::Map {
                        path,
                        key,
                        keys_seen,
                    }) = self.stack.last_mut()
                    {
                        // A block mapping's start mark can lie past its first key; the
                        // first key is where a reader sees the mapping begin.
                        if *keys_seen == 0 {
                            self.at.insert(path.clone(), pos);
                        }
                        *keys_seen += 1;
                        let p = if path.is_empty() {
                            value.clone()
                        } else {
                            format!("{path}.{value}")
                        };
                        self.at.insert(p, pos);
                        *key = Some(value);
                    }
                }
            },
            Event::Alias(_) => {
                if let Some(p) = self.child_path() {
                    self.at.entry(p).or_insert(pos);
                }
            }
            Event::MappingStart(..) | Event::SequenceStart(..) => {
                // A collection used as a mapping key has no serde path; give it a dummy one.
                let path = self.child_path().unwrap_or_else(|| "?".into());
                self.at.entry(path.clone()).or_insert(pos);
                self.stack.push(if matches!(ev, Event::MappingStart(..)) {
                    Frame::Map {
                        path,
                        key: None,
                        keys_seen: 0,
                    }
                } else {
                    Frame::Seq { path, next: 0 }
                });
            }
            Event::MappingEnd | Event::SequenceEnd => {
                self.stack.pop();
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locates_nested_nodes_by_serde_path() {
        let text = "a: 1\nlist:\n  - id: x\n    deep: {k: [p, q]}\n  - id: y\n";
        let l = Locator::new(text);
        assert_eq!(l.find("a"), (1, 1));
        assert_eq!(l.find("list[0].id"), (3, 5));
        assert_eq!(l.find("list[0].deep.k[1]"), (4, 19));
        assert_eq!(l.find("list[1]"), (5, 5));
        // A path below a scalar falls back to the nearest node that exists.
        assert_eq!(l.find("list[1].id.nothing"), (5, 5));
    }
}
