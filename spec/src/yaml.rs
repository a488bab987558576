//! The one module that reads YAML.
//!
//! serde_yaml turns a file into the typed model and reports shape errors with their
//! position. Errors found later, when one part of the spec is checked against
//! another, only know the serde path of the offending node (`syntax[0].forms[2]`);
//! [`Locator`] maps such paths back to line and column from yaml-rust2's events.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::de::DeserializeOwned;
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::Marker;

use crate::error::{Location, SpecError};
use crate::limits::{MAX_DEPTH, MAX_ERRORS_PER_FILE, MAX_LINE_BYTES, MAX_NODES};

/// A file's bytes as text: UTF-8, no line longer than [`MAX_LINE_BYTES`]. Both are
/// checked in one pass over the bytes, before any parser sees them.
pub(crate) fn text(path: &Path, bytes: Vec<u8>) -> Result<String, SpecError> {
    for (n, line) in bytes.split(|&b| b == b'\n').enumerate() {
        if line.len() > MAX_LINE_BYTES {
            let shown: String = String::from_utf8_lossy(&line[..80.min(line.len())]).into();
            return Err(SpecError::Invalid {
                at: Location {
                    path: path.to_owned(),
                    line: n + 1,
                    column: 1,
                    line_text: format!("{shown}…"),
                },
                message: format!(
                    "line of {} bytes; a spec line holds at most {MAX_LINE_BYTES} bytes",
                    line.len()
                ),
            });
        }
        if let Err(e) = std::str::from_utf8(line) {
            let good = e.valid_up_to();
            // The prefix is valid by construction, so this never falls back.
            let column = std::str::from_utf8(&line[..good]).map_or(good, |p| p.chars().count()) + 1;
            return Err(SpecError::Invalid {
                at: Location {
                    path: path.to_owned(),
                    line: n + 1,
                    column,
                    line_text: String::from_utf8_lossy(line).into_owned(),
                },
                message: format!(
                    "byte 0x{:02x} is not UTF-8 (spec files are UTF-8 text)",
                    line[good]
                ),
            });
        }
    }
    // Every line is valid UTF-8 by now, so this conversion does not fail.
    let text = String::from_utf8(bytes).map_err(|e| SpecError::Invalid {
        at: location(path, "", 1, 1),
        message: format!("not UTF-8: {e}"),
    })?;
    match foreign_break(&text) {
        Some((line, column, what)) => Err(SpecError::Invalid {
            at: location(path, &text, line, column),
            message: format!(
                "{what} breaks the line for one YAML parser and not for another; spec files break lines with LF (or CR LF)"
            ),
        }),
        None => Ok(text),
    }
}

/// The first line break other than LF and CR LF, as (line, column, what it is).
/// libyaml (serde_yaml's parser) also breaks lines at a lone CR, NEL, LS and PS,
/// yaml-rust2 (the [`Locator`]'s) at a lone CR, and positions here count LF: in a
/// file holding one, the three would disagree on where an error is (a fuzzed file
/// with one lone CR sent an error position past the last line).
fn foreign_break(text: &str) -> Option<(usize, usize, &'static str)> {
    for (n, line) in text.split('\n').enumerate() {
        let body = line.strip_suffix('\r').unwrap_or(line);
        for (c, ch) in body.chars().enumerate() {
            let what = match ch {
                '\r' => "a carriage return without a line feed",
                '\u{85}' => "NEXT LINE (U+0085)",
                '\u{2028}' => "LINE SEPARATOR (U+2028)",
                '\u{2029}' => "PARAGRAPH SEPARATOR (U+2029)",
                _ => continue,
            };
            return Some((n + 1, c + 1, what));
        }
    }
    None
}

/// Deserializes one file, or says where and why it does not fit: every error, each
/// at its line and column (up to [`MAX_ERRORS_PER_FILE`]), in file order.
///
/// serde stops at the first error. To find the next one, the sequence element that
/// holds the error is blanked out (positions of the rest stay as they were) and the
/// file is read again; a sequence element can go without making its parent wrong.
pub(crate) fn from_str<T: DeserializeOwned>(path: &Path, text: &str) -> Result<T, Vec<SpecError>> {
    let guard = guard(path, text);
    let mut errors = guard.errors;
    if guard.fatal {
        return Err(errors);
    }
    let mut now = text.to_owned();
    let mut seen: BTreeSet<(usize, usize)> = errors
        .iter()
        .filter_map(|e| e.location().map(|l| (l.line, l.column)))
        .collect();
    // Parses after the first, bounded as the errors are: a blanked element that does
    // not remove the error gives the same error again, uncounted, and a file of n
    // such elements would be parsed n times (a 126 KiB targets.yaml took 1.6 s).
    let mut parses = 0;
    let value = loop {
        parses += 1;
        let e = match serde_yaml::from_str::<T>(&now) {
            Ok(v) => break Some(v),
            Err(e) => e,
        };
        let (line, column) = e.location().map_or((1, 1), |l| (l.line(), l.column()));
        let mut message = e.to_string();
        // serde_yaml appends " at line L column C"; the location says it already.
        if let Some(i) = message.rfind(" at line ") {
            message.truncate(i);
        }
        let (line, column) = refine(&now, &message, line, column);
        // A duplicate key is reported by the guard already (serde repeats it for
        // struct fields, at the same place).
        if seen.insert((line, column)) {
            errors.push(SpecError::Yaml {
                at: location(path, text, line, column),
                message,
            });
        }
        if errors.len() >= MAX_ERRORS_PER_FILE || parses >= MAX_ERRORS_PER_FILE {
            break None;
        }
        match mask(&now, (line, column)) {
            Some(masked) if masked != now => now = masked,
            _ => break None,
        }
    };
    match value {
        Some(v) if errors.is_empty() => Ok(v),
        _ => {
            errors.sort_by_key(|e| e.location().map(|l| (l.line, l.column)));
            Err(errors)
        }
    }
}

/// A file's text read as `T` when the guard passes, else `None`: the loose read of
/// an instruction file's head before the full one ([`crate::Spec::load`]).
pub(crate) fn loose<T: DeserializeOwned>(text: &str) -> Option<T> {
    if guard(Path::new(""), text).fatal {
        return None;
    }
    serde_yaml::from_str::<T>(text).ok()
}

/// The `instruction:` of a file that did not load, if the rest of it is readable
/// enough to say (the guard passes and the key is a string).
pub(crate) fn instruction_name(text: &str) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct NameOnly {
        instruction: String,
    }
    let g = guard(Path::new(""), text);
    if g.fatal {
        return None;
    }
    serde_yaml::from_str::<NameOnly>(text)
        .ok()
        .map(|n| n.instruction)
}

/// What the guard found before serde saw the file.
struct Guard {
    /// Duplicate keys, and the one cap that was exceeded.
    errors: Vec<SpecError>,
    /// A cap was exceeded, or the YAML does not parse: serde must not see the file.
    fatal: bool,
}

impl Guard {
    /// Ends the walk on an error that serde must not read past.
    fn stop(mut self, error: SpecError) -> Guard {
        self.errors.push(error);
        self.fatal = true;
        self
    }
}

/// One open collection, for the guard.
struct GuardFrame {
    /// For a mapping, the keys so far and where they are; `None` for a sequence.
    keys: Option<BTreeMap<String, (usize, usize)>>,
    /// In a mapping: whether the next node is a key.
    expect_key: bool,
    /// The anchor on the collection (0: none).
    anchor: usize,
    /// The node count when the collection started.
    nodes_before: u64,
}

/// Walks the event stream once: refuses nesting deeper than [`MAX_DEPTH`] and
/// expansions past [`MAX_NODES`] (stopping at once, so that the work stays linear),
/// and reports every duplicate key of every mapping, which serde_yaml would keep
/// silently, the last one winning, for a map such as `operands` or `sets`.
fn guard(path: &Path, text: &str) -> Guard {
    let mut parser = Parser::new_from_str(text);
    let mut g = Guard {
        errors: Vec::new(),
        fatal: false,
    };
    let mut stack: Vec<GuardFrame> = Vec::new();
    let mut anchors: BTreeMap<usize, u64> = BTreeMap::new();
    let mut nodes: u64 = 0;
    let at = |mark: Marker| location(path, text, mark.line(), mark.col() + 1);
    loop {
        let (ev, mark) = match parser.next_token() {
            Ok(e) => e,
            // A syntax error ends the file here. serde_yaml must not read on: libyaml
            // accepts some text that yaml-rust2 refuses (flow collections at column 0
            // in a block mapping) and takes quadratic time on it when deeply nested.
            Err(e) => {
                // yaml-rust2's scanner reads ahead of the events, and has its own
                // nesting limit; name ours, the one a reader can act on.
                let message = if e.info().contains("recursion limit") {
                    format!(
                        "nested too deep ({}); a spec file nests at most {MAX_DEPTH} mappings and sequences",
                        e.info()
                    )
                } else {
                    e.info().to_owned()
                };
                return g.stop(SpecError::Yaml {
                    at: at(*e.marker()),
                    message,
                });
            }
        };
        // Mapping keys alternate with values; note whether this node is a key.
        let is_key = match stack.last_mut() {
            Some(f) if f.keys.is_some() => {
                let k = f.expect_key;
                if matches!(
                    ev,
                    Event::Scalar(..)
                        | Event::Alias(_)
                        | Event::MappingStart(..)
                        | Event::SequenceStart(..)
                ) {
                    f.expect_key = !f.expect_key;
                }
                k
            }
            _ => false,
        };
        match ev {
            Event::StreamEnd => return g,
            Event::Scalar(value, _, anchor, _) => {
                nodes += 1;
                if anchor != 0 {
                    anchors.insert(anchor, 1);
                }
                if is_key {
                    if let Some(keys) = stack.last_mut().and_then(|f| f.keys.as_mut()) {
                        let here = (mark.line(), mark.col() + 1);
                        if let Some(&(l, c)) = keys.get(&value) {
                            g.errors.push(SpecError::Invalid {
                                at: at(mark),
                                message: format!(
                                    "duplicate key `{value}` (first at line {l} column {c}); a key appears once in a mapping"
                                ),
                            });
                        } else {
                            keys.insert(value, here);
                        }
                    }
                }
            }
            Event::Alias(id) => {
                nodes = nodes.saturating_add(anchors.get(&id).copied().unwrap_or(1));
            }
            Event::MappingStart(anchor, _) | Event::SequenceStart(anchor, _) => {
                let keys = matches!(ev, Event::MappingStart(..)).then(BTreeMap::new);
                stack.push(GuardFrame {
                    keys,
                    expect_key: true,
                    anchor,
                    nodes_before: nodes,
                });
                nodes += 1;
                if stack.len() > MAX_DEPTH {
                    return g.stop(SpecError::Invalid {
                        at: at(mark),
                        message: format!(
                            "nested more than {MAX_DEPTH} levels deep; a spec file nests at most {MAX_DEPTH} mappings and sequences"
                        ),
                    });
                }
            }
            Event::MappingEnd | Event::SequenceEnd => {
                if let Some(f) = stack.pop() {
                    if f.anchor != 0 {
                        anchors.insert(f.anchor, nodes - f.nodes_before);
                    }
                }
            }
            _ => {}
        }
        if nodes > MAX_NODES {
            return g.stop(SpecError::Invalid {
                at: at(mark),
                message: format!(
                    "more than {MAX_NODES} nodes with aliases expanded; a spec file holds at most {MAX_NODES}"
                ),
            });
        }
    }
}

/// One element of a sequence, for [`mask`]: where it starts and ends (1-based line,
/// 1-based column in characters; the end is where the next element or the sequence's
/// end begins), how deep it is, and whether its sequence is a flow `[...]`.
#[derive(Clone, Copy)]
struct Element {
    start: (usize, usize),
    end: (usize, usize),
    depth: usize,
    flow: bool,
}

/// A sequence being read by [`mask`] (`None` on the stack for a mapping): the start of
/// the element now open, the elements so far, whether it is a flow `[...]`, and the
/// elements closed.
type OpenSeq = (Option<(usize, usize)>, usize, bool, Vec<Element>);

/// The text with the innermost sequence element around `pos` that has a sibling
/// blanked out, lines and columns of everything else unchanged; `None` when no such
/// element holds it.
fn mask(text: &str, pos: (usize, usize)) -> Option<String> {
    let lines: Vec<&str> = text.split('\n').collect();
    let char_at = |(l, c): (usize, usize)| {
        lines
            .get(l.wrapping_sub(1))
            .and_then(|t| t.chars().nth(c.wrapping_sub(1)))
    };
    let mut stack: Vec<Option<OpenSeq>> = Vec::new();
    let mut best: Option<Element> = None;
    let mut parser = Parser::new_from_str(text);
    loop {
        let (ev, mark) = parser.next_token().ok()?;
        let here = (mark.line(), mark.col() + 1);
        let depth = stack.len();
        let starts_node = matches!(
            ev,
            Event::Scalar(..)
                | Event::Alias(_)
                | Event::MappingStart(..)
                | Event::SequenceStart(..)
        );
        if starts_node {
            // A block mapping's start mark can lie past its first key: an element
            // starts no later than any node inside it.
            for (open, ..) in stack.iter_mut().flatten() {
                if let Some(o) = open.as_mut().filter(|o| here < **o) {
                    *o = here;
                }
            }
            if let Some(Some((open, count, flow, closed))) = stack.last_mut() {
                if let Some(start) = open.replace(here) {
                    closed.push(Element {
                        start,
                        end: here,
                        depth,
                        flow: *flow,
                    });
                }
                *count += 1;
            }
        }
        match ev {
            Event::StreamEnd => break,
            Event::SequenceStart(..) => {
                stack.push(Some((None, 0, char_at(here) == Some('['), Vec::new())))
            }
            Event::MappingStart(..) => stack.push(None),
            Event::MappingEnd => {
                stack.pop();
            }
            Event::SequenceEnd => {
                if let Some(Some((open, count, flow, mut closed))) = stack.pop() {
                    if let Some(start) = open {
                        closed.push(Element {
                            start,
                            end: here,
                            depth,
                            flow,
                        });
                    }
                    for e in closed {
                        // An element with siblings only: emptying a sequence can make its
                        // parent wrong ("exactly one of `requires` or `forbid`").
                        if count > 1
                            && e.start <= pos
                            && pos < e.end
                            && best.is_none_or(|b| e.depth > b.depth)
                        {
                            best = Some(e);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    let e = best?;
    let mut out: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
    // Both ends lie in the text: the parsers count lines as `lines` does (`text`
    // refuses the breaks they would count differently). Were they ever past it,
    // nothing is masked and the errors found so far stand.
    if e.start.0 == 0 || e.end.0 > out.len() {
        return None;
    }
    let blank = |l: &str, from: usize, to: Option<usize>| -> String {
        l.chars()
            .enumerate()
            .map(|(i, c)| {
                if i + 1 >= from && to.is_none_or(|t| i + 1 < t) {
                    ' '
                } else {
                    c
                }
            })
            .collect::<String>()
            .trim_end()
            .to_owned()
    };
    let first = lines.get(e.start.0 - 1)?;
    let prefix: String = first.chars().take(e.start.1 - 1).collect();
    let block_item = !e.flow
        && e.end.0 > e.start.0
        && prefix.trim().chars().all(|c| c == '-')
        && prefix.contains('-');
    if block_item {
        // The whole item, its `- ` included.
        for l in e.start.0..e.end.0 {
            out[l - 1] = String::new();
        }
    } else if e.start.0 == e.end.0 {
        out[e.start.0 - 1] = blank(&out[e.start.0 - 1], e.start.1, Some(e.end.1));
    } else {
        out[e.start.0 - 1] = blank(&out[e.start.0 - 1], e.start.1, None);
        for l in e.start.0 + 1..e.end.0 {
            out[l - 1] = String::new();
        }
        out[e.end.0 - 1] = blank(&out[e.end.0 - 1], 1, Some(e.end.1));
    }
    Some(out.join("\n"))
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
        // Columns count characters; slicing needs bytes.
        let from = if i + 1 == line {
            l.char_indices()
                .nth(column.saturating_sub(1))
                .map_or(l.len(), |(b, _)| b)
        } else {
            0
        };
        if let Some(c) = l.get(from..).and_then(|rest| rest.find(quoted)) {
            return (i + 1, l[..from + c].chars().count() + 1);
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

    #[test]
    fn an_error_past_the_last_line_masks_nothing() {
        // The spec_loader fuzzer's unit (fuzz/corpus/spec_loader/regress-lone-cr):
        // an instruction file with one lone CR, which `text` now refuses. Given to
        // the collector directly, the parsers' positions run one line past the
        // split text; the errors are reported and nothing panics.
        let bytes = include_bytes!("../../fuzz/corpus/spec_loader/regress-lone-cr");
        let text = String::from_utf8_lossy(&bytes[1..]);
        assert!(text.contains('\r'));
        let path = Path::new("x.yaml");
        let errors = from_str::<crate::model::Instruction>(path, &text).unwrap_err();
        assert!(!errors.is_empty());
        assert_eq!(
            foreign_break(&text).map(|(_, _, what)| what),
            Some("a carriage return without a line feed")
        );
    }
}
