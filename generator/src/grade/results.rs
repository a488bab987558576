//! A consumer's results, as `ptxvec grade` reads them: JSON Lines, one result per
//! line. Every line is read before anything is graded, and every bad line is
//! reported (`file:line:column: message`, the column counted in characters from 1),
//! so that one run shows them all.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::io::Read;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::failure::Failure;
use crate::error::{Error, Result};
use crate::record::position::{char_column, error_column};
use crate::record::{strip_position, Bits, Out, Outputs};

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
    /// It took the text as legal in the case's module, saying this if anything (a
    /// warning; shown in the reports).
    Accepted(Option<String>),
    /// It refused it, saying this if anything (shown in the reports).
    Rejected(Option<String>),
    /// It could not judge the case, for this reason (a target it does not
    /// assemble): not graded, and counted as such.
    Skipped(String),
}

/// A syntax results line as written: `{"id", "accepted": bool, "message"?}` or
/// `{"id", "skipped": "why"}`. A message goes with either answer: an assembler that
/// accepts may still warn.
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
            (Some(true), m, None) => Answer::Accepted(m),
            (Some(false), m, None) => Answer::Rejected(m),
            (None, None, Some(why)) => Answer::Skipped(why),
            (Some(_), _, Some(_)) => {
                return Err("\"accepted\" and \"skipped\" in one line".to_owned())
            }
            (None, _, None) => {
                return Err("expected \"accepted\" (true or false) or \"skipped\" (why)".to_owned())
            }
            (None, Some(_), Some(_)) => {
                return Err("\"message\" goes with \"accepted\", not \"skipped\"".to_owned())
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
            Answer::Accepted(m) => {
                l.accepted = Some(true);
                l.message = m;
            }
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
            answer: Answer::Accepted(None),
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
    let bytes = if crate::io::gz::is_gz(path) {
        crate::io::gz::compress(out.as_bytes())
    } else {
        out.into_bytes()
    };
    crate::io::files::write_atomic(path, &bytes).map_err(|e| Error::io(path, e))
}

/// One line of semantic results: what the consumer computed for a record of
/// vectors/semantic, or why it did not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SemanticResult {
    /// The record id (`red.add.f32#2`).
    pub id: String,
    /// What the consumer did.
    pub answer: Computed,
}

/// What a consumer did with a record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Computed {
    /// These outputs, shaped like the record's `expect` (`mem`, or `d` and `p`), each
    /// slot a bit pattern or `None` where the lane did not execute; a slot given as
    /// a list (each contending thread's value, for a `permutation`) holds its first,
    /// and the list is in `threads`.
    Outputs(Outputs<Option<Bits>>, Vec<ThreadValues>),
    /// It could not run the record, for this reason (an instruction or type it does
    /// not implement): not graded, and counted as such.
    Skipped(String),
}

/// A slot of a contention record given as every thread's value (atom's `d`, whose
/// expectation is a `permutation` of them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadValues {
    /// The output.
    pub out: Out,
    /// The slot (the element).
    pub slot: usize,
    /// The values, thread by thread.
    pub values: Vec<Bits>,
}

/// A semantic results line as written, `{"id", "outputs"}` or `{"id", "skipped"}`,
/// each slot kept as the text it is: a slot that is no bit pattern is then reported
/// at its own column (serde_json would name the character after it).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SemanticLine<'a> {
    id: String,
    #[serde(borrow, default, deserialize_with = "object_or_null")]
    outputs: Option<Outputs<Option<&'a RawValue>>>,
    #[serde(default)]
    skipped: Option<String>,
}

/// A struct written as a JSON object, or null: serde would read a struct from a
/// list of its fields too (`"outputs": [["0x1"]]` as `{"d": ["0x1"]}`), which the
/// results format is not.
fn object_or_null<'de, D, T>(d: D) -> std::result::Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct Object<T>(std::marker::PhantomData<T>);
    impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for Object<T> {
        type Value = Option<T>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an object (`{\"mem\": [...]}`) or null")
        }
        fn visit_none<E: serde::de::Error>(self) -> std::result::Result<Option<T>, E> {
            Ok(None)
        }
        fn visit_unit<E: serde::de::Error>(self) -> std::result::Result<Option<T>, E> {
            Ok(None)
        }
        fn visit_some<D2: serde::Deserializer<'de>>(self, d: D2) -> std::result::Result<Option<T>, D2::Error> {
            d.deserialize_map(self)
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> std::result::Result<Option<T>, A::Error> {
            T::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(Some)
        }
    }
    d.deserialize_option(Object(std::marker::PhantomData))
}

/// Why a line is not a result: where (a 1-based column of characters) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineError {
    /// The column.
    pub column: usize,
    /// The message, without a position.
    pub message: String,
}

impl LineError {
    /// serde_json's error `e` reading `line`.
    pub fn json(line: &str, e: &serde_json::Error) -> LineError {
        let message = match e.classify() {
            serde_json::error::Category::Data => strip_position(e),
            _ => format!("not JSON: {}", strip_position(e)),
        };
        LineError {
            column: error_column(line, e),
            message,
        }
    }
}

/// A kind of results line: how one line is read.
pub trait ResultLine: Sized {
    /// Reads `line` (one line, no newline).
    fn read(line: &str) -> std::result::Result<Self, LineError>;
    /// The case or record id it answers.
    fn id(&self) -> &str;
}

/// A line that is a JSON list: serde reads a struct from a list of its fields in
/// order (`["id", true]`), which no results format is.
pub fn refuse_list(line: &str) -> std::result::Result<(), LineError> {
    let blank = line.len() - line.trim_start_matches([' ', '\t', '\r']).len();
    if line[blank..].starts_with('[') {
        return Err(LineError {
            column: char_column(line, blank),
            message: "expected a JSON object (`{\"id\": ...}`), found a list".to_owned(),
        });
    }
    Ok(())
}

impl ResultLine for SyntaxResult {
    fn read(line: &str) -> std::result::Result<Self, LineError> {
        refuse_list(line)?;
        serde_json::from_str(line).map_err(|e| LineError::json(line, &e))
    }

    fn id(&self) -> &str {
        &self.id
    }
}

impl ResultLine for SemanticResult {
    fn id(&self) -> &str {
        &self.id
    }

    fn read(line: &str) -> std::result::Result<Self, LineError> {
        refuse_list(line)?;
        let l: SemanticLine<'_> =
            serde_json::from_str(line).map_err(|e| LineError::json(line, &e))?;
        let mut threads = Vec::new();
        let mut slots = |out: Out, v: Option<Vec<Option<&RawValue>>>| -> std::result::Result<_, LineError> {
            v.map(|v| {
                v.into_iter()
                    .enumerate()
                    .map(|(k, s)| match s {
                        Some(raw) if raw.get().starts_with('[') => {
                            let values = thread_values(line, raw)?;
                            let first = values[0];
                            threads.push(ThreadValues { out, slot: k, values });
                            Ok(Some(first))
                        }
                        s => s.map(|raw| slot(line, raw)).transpose(),
                    })
                    .collect()
            })
            .transpose()
        };
        // Keys that do not go together are wrong in the line as a whole: its first
        // character, as serde_json's own `try_from` errors are named.
        let whole = |message: &str| LineError {
            column: char_column(
                line,
                line.len() - line.trim_start_matches([' ', '\t', '\r']).len(),
            ),
            message: message.to_owned(),
        };
        let answer = match (l.outputs, l.skipped) {
            (Some(o), None) => {
                let outputs = Outputs {
                    d: slots(Out::D, o.d)?,
                    mem: slots(Out::Mem, o.mem)?,
                    p: slots(Out::P, o.p)?,
                };
                Computed::Outputs(outputs, threads)
            }
            (None, Some(why)) => Computed::Skipped(why),
            (Some(_), Some(_)) => {
                return Err(whole("\"outputs\" and \"skipped\" in one line"));
            }
            (None, None) => {
                return Err(whole(
                    "expected \"outputs\" (what the record computes) or \"skipped\" (why not)",
                ));
            }
        };
        Ok(SemanticResult { id: l.id, answer })
    }
}

/// A slot's bit pattern, read by [`Bits`]' own reader; an error names the column
/// where the slot's value starts in `line`.
fn slot(line: &str, raw: &RawValue) -> std::result::Result<Bits, LineError> {
    serde_json::from_str(raw.get()).map_err(|e| LineError {
        // `raw` borrows its text from `line`: its offset there is where it starts.
        column: char_column(
            line,
            (raw.get().as_ptr() as usize).saturating_sub(line.as_ptr() as usize),
        ),
        message: strip_position(&e),
    })
}

/// A slot given as a list: each thread's bit pattern, at least one; an error names
/// the column of what is wrong.
fn thread_values(line: &str, raw: &RawValue) -> std::result::Result<Vec<Bits>, LineError> {
    let at = |r: &RawValue| char_column(line, (r.get().as_ptr() as usize).saturating_sub(line.as_ptr() as usize));
    let items: Vec<&RawValue> = serde_json::from_str(raw.get()).map_err(|e| LineError {
        column: at(raw),
        message: strip_position(&e),
    })?;
    if items.is_empty() {
        return Err(LineError {
            column: at(raw),
            message: "expected a bit pattern, or a list of the contending threads' bit patterns; found an empty list".to_owned(),
        });
    }
    items.into_iter().map(|r| slot(line, r)).collect()
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

/// A results line that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BadLine {
    /// The results file, as named on the command line (`<stdin>` for `-`).
    pub file: String,
    /// The line, from 1.
    pub line: usize,
    /// The column, in characters from 1.
    pub column: usize,
    /// What is wrong.
    pub message: String,
    /// The id the line names, where it is JSON with a string `id`: the case or record
    /// it meant to answer, which the grade then reports as unreadable rather than
    /// as having no result.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

/// The one key a bad line may still give.
#[derive(Deserialize)]
struct IdOnly {
    id: String,
}

impl fmt::Display for BadLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file, self.line, self.column, self.message
        )
    }
}

/// One results file's lines by the id they name: those read, and the bad lines
/// that still name an id (JSON with a string `id`).
pub struct ById<'a, T> {
    map: BTreeMap<&'a str, (Vec<&'a Line<T>>, Vec<&'a BadLine>)>,
}

impl<'a, T: ResultLine> ById<'a, T> {
    /// `results` and `bad`, the lines of one file, by id.
    pub fn new(results: &'a [Line<T>], bad: &'a [BadLine]) -> ById<'a, T> {
        let mut map = BTreeMap::<&str, (Vec<&Line<T>>, Vec<&BadLine>)>::new();
        for r in results {
            map.entry(r.value.id()).or_default().0.push(r);
        }
        for b in bad {
            if let Some(id) = &b.id {
                map.entry(id.as_str()).or_default().1.push(b);
            }
        }
        ById { map }
    }

    /// Whether some line, read or not, names `id`.
    pub fn names(&self, id: &str) -> bool {
        self.map.contains_key(id)
    }

    /// The result to grade for `id`: the first line read that names it. Each bad
    /// line that names it is a failure of its own (the input error, where the case
    /// is), and so is an id that more than one line names.
    pub fn answer(&self, id: &str, failures: &mut Vec<Failure>) -> Option<&'a Line<T>> {
        let (good, bad) = self.map.get(id)?;
        let mut at: Vec<usize> = good
            .iter()
            .map(|l| l.line)
            .chain(bad.iter().map(|b| b.line))
            .collect();
        at.sort_unstable();
        if at.len() > 1 {
            let at: Vec<String> = at.iter().map(usize::to_string).collect();
            failures.push(Failure {
                what: format!("duplicate id: lines {}", at.join(", ")),
                expected: "one result".to_owned(),
                got: format!("{} results", at.len()),
                slot: None,
            });
        }
        for b in bad {
            failures.push(Failure {
                what: format!("unreadable result (line {}, an input error)", b.line),
                expected: "a line as the results format gives it".to_owned(),
                got: format!("column {}: {}", b.column, b.message),
                slot: None,
            });
        }
        good.first().copied()
    }

    /// The ids that no case of `known` holds, each with the lines read that name it
    /// (a bad line is reported as an input error already).
    pub fn unknown(&self, known: &BTreeSet<&str>) -> Vec<(&'a str, Vec<String>)> {
        self.map
            .iter()
            .filter(|(id, (good, _))| !good.is_empty() && !known.contains(*id))
            .map(|(id, (good, _))| (*id, good.iter().map(|l| l.line.to_string()).collect()))
            .collect()
    }
}

/// The most bytes a gzipped results file may hold once decompressed.
pub const MAX_GZ_BYTES: u64 = 1 << 30;

/// The bytes of `path`, or of stdin for `-`; a `*.gz` file decompressed.
pub fn read_input(path: &Path) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    if path.as_os_str() == "-" {
        std::io::stdin()
            .lock()
            .read_to_end(&mut bytes)
            .map_err(|e| Error::io(path, e))?;
    } else {
        bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        if crate::io::gz::is_gz(path) {
            bytes = crate::io::gz::decompress(&path.display().to_string(), &bytes, MAX_GZ_BYTES)?;
        }
    }
    Ok(bytes)
}

/// A client folder's syntax results: `syntax.jsonl`, or as recorded clients keep
/// it, `syntax.jsonl.gz`.
pub fn syntax_file(dir: &Path) -> Option<std::path::PathBuf> {
    ["syntax.jsonl", "syntax.jsonl.gz"].iter().map(|n| dir.join(n)).find(|p| p.is_file())
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
/// Each bad line is pushed onto `bad`.
pub fn parse<T: ResultLine>(name: &str, bytes: &[u8], bad: &mut Vec<BadLine>) -> Vec<Line<T>> {
    let mut out = Vec::new();
    for (i, raw) in bytes.split(|b| *b == b'\n').enumerate() {
        let line = i + 1;
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let mut bad_at = |column, message, id| {
            bad.push(BadLine {
                file: name.to_owned(),
                line,
                column,
                message,
                id,
            })
        };
        let text = match std::str::from_utf8(raw) {
            Ok(t) => t,
            Err(e) => {
                // The bytes before the bad one are UTF-8: count their characters.
                let good = std::str::from_utf8(&raw[..e.valid_up_to()]).unwrap_or_default();
                bad_at(good.chars().count() + 1, "not UTF-8".to_owned(), None);
                continue;
            }
        };
        if text.trim().is_empty() {
            continue;
        }
        match T::read(text) {
            Ok(value) => out.push(Line { line, value }),
            Err(e) => {
                let id = serde_json::from_str::<IdOnly>(text).ok().map(|i| i.id);
                bad_at(e.column, e.message, id)
            }
        }
    }
    out
}

/// The error for the bad lines of every results file: each line, up to
/// [`BAD_LINES_SHOWN`], then a count of the rest.
pub fn bad_lines_error(bad: &[BadLine]) -> Error {
    let mut msg = format!("{} bad line(s) in the results:", bad.len());
    for b in bad.iter().take(BAD_LINES_SHOWN) {
        msg.push('\n');
        msg.push_str(&b.to_string());
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
    fn a_list_is_no_results_line() {
        // serde would read `["a", true]` as `{"id": "a", "accepted": true}`.
        let e = SyntaxResult::read(r#" ["a", true]"#).unwrap_err();
        assert_eq!((e.column, e.message.as_str()), (2, "expected a JSON object (`{\"id\": ...}`), found a list"));
        let e = SemanticResult::read(r#"["a", {"mem": ["0x1"]}]"#).unwrap_err();
        assert_eq!(e.column, 1);
        // Nor are a line's outputs a list of them.
        let e = SemanticResult::read(r#"{"id": "a", "outputs": [["0x1"]]}"#).unwrap_err();
        assert!(e.message.starts_with("invalid type: sequence, expected an object"), "{e:?}");
        assert!(SemanticResult::read(r#"{"id": "a", "outputs": null, "skipped": "why"}"#).is_ok());
        assert!(SyntaxResult::read(r#"{"id": "a", "accepted": true}"#).is_ok());
    }

    /// The positions of the bad lines; lines given whole, their columns counted by
    /// hand (in characters: `é` is one).
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
            "{\"id\":\"é\",\"outputs\":{\"mem\":[\"0x1\", \"0xzz\"]}}\n",
            "{\"id\":\"é\",\"outputs\":{\"mem\":\"0x1\"}}\n",
            "{\"id\":\"é\",\"outputs\":{\"mem\":[]},}\n",
            "{\"outputs\":{}}\n",
            "{\"id\":\"g\",\"skipped\":\"no f16\"}\n",
            " {\"id\":\"h\",\"skipped\":\"no f16\",\"outputs\":{}}\n",
            "{\"id\":\"i\"}\n",
        );
        let mut bad = Vec::new();
        let got: Vec<Line<SemanticResult>> = parse("r.jsonl", text.as_bytes(), &mut bad);
        assert_eq!(got.iter().map(|l| l.line).collect::<Vec<_>>(), [1, 8, 13]);
        assert_eq!(got[2].value.answer, Computed::Skipped("no f16".to_owned()));
        let at: Vec<(usize, usize)> = bad.iter().map(|b| (b.line, b.column)).collect();
        assert_eq!(
            at,
            [
                (2, 2),   // `o`: "n" began a `null`
                (4, 29),  // the slot `"0x+1"`
                (5, 22),  // the key `"q"`
                (6, 27),  // the slot `7`
                (7, 24),  // the key `"extra"`
                (9, 36),  // the second slot, `"0xzz"`
                (10, 28), // the value `"0x1"`, where a list goes
                (11, 32), // the `}` after the trailing comma
                (12, 1),  // the object without `id`
                (14, 2),  // both answers: the line as a whole
                (15, 1),  // no answer
            ],
            "{bad:#?}"
        );
        let messages: Vec<&str> = bad.iter().map(|b| b.message.as_str()).collect();
        assert!(messages[0].starts_with("not JSON"), "{messages:?}");
        assert!(messages[1].contains("is not a bit pattern"), "{messages:?}");
        assert!(messages[2].contains("unknown field `q`"), "{messages:?}");
        assert!(
            messages[3].contains("invalid type: integer `7`"),
            "{messages:?}"
        );
        assert!(
            messages[4].contains("unknown field `extra`"),
            "{messages:?}"
        );
        assert!(
            messages[5].contains("`0xzz` is not a bit pattern"),
            "{messages:?}"
        );
        assert!(messages[8].contains("missing field `id`"), "{messages:?}");
        assert_eq!(messages[9], "\"outputs\" and \"skipped\" in one line");
        assert!(
            messages[10].starts_with("expected \"outputs\""),
            "{messages:?}"
        );
        assert_eq!(bad[1].to_string(), format!("r.jsonl:4:29: {}", messages[1]));
        // The id a bad line names, where it is JSON with a string id.
        let ids: Vec<Option<&str>> = bad.iter().map(|b| b.id.as_deref()).collect();
        assert_eq!(
            ids,
            [
                None,
                Some("b"),
                Some("c"),
                Some("d"),
                Some("e"),
                Some("é"),
                Some("é"),
                None, // not JSON: a trailing comma
                None,
                Some("h"),
                Some("i"),
            ]
        );
    }

    #[test]
    fn a_byte_that_is_not_utf8_is_named_by_its_character_column() {
        // `{"id":"é` is 8 characters (9 bytes): the bad byte is the 9th character.
        let mut bad = Vec::new();
        let _: Vec<Line<SyntaxResult>> = parse("s", b"{\"id\":\"\xc3\xa9\xff\"}\n", &mut bad);
        assert_eq!(bad[0].to_string(), "s:1:9: not UTF-8");
    }

    #[test]
    fn syntax_lines_take_an_optional_message() {
        let text = b"{\"id\":\"x\",\"accepted\":true}\n{\"id\":\"y\",\"accepted\":false,\"message\":\"no\"}\n{\"id\":\"z\",\"accepted\":\"yes\"}\n\xff\n{\"id\":\"w\",\"skipped\":\"sm_20\"}\n{\"id\":\"v\",\"accepted\":true,\"skipped\":\"sm_20\"}\n{\"id\":\"u\"}\n{\"id\":\"t\",\"accepted\":true,\"message\":\"m\"}\n{\"id\":\"s\",\"skipped\":\"sm_20\",\"message\":\"m\"}\n";
        let mut bad = Vec::new();
        let got: Vec<Line<SyntaxResult>> = parse("s", text, &mut bad);
        assert_eq!(got.len(), 4);
        assert_eq!(got[0].value.answer, Answer::Accepted(None));
        assert_eq!(got[1].value.answer, Answer::Rejected(Some("no".to_owned())));
        assert_eq!(got[2].value.answer, Answer::Skipped("sm_20".to_owned()));
        // An acceptance may say something too (a warning).
        assert_eq!(got[3].value.answer, Answer::Accepted(Some("m".to_owned())));
        let at: Vec<String> = bad
            .iter()
            .map(|b| format!("{}:{}", b.line, b.column))
            .collect();
        // Line 3: the value `"yes"`; lines 6, 7 and 9: a line whose keys do not go
        // together is wrong as a whole, from its first character.
        assert_eq!(at, ["3:22", "4:1", "6:1", "7:1", "9:1"], "{bad:?}");
        assert!(bad[4].message.contains("not \"skipped\""), "{bad:?}");
        assert_eq!(bad[1].message, "not UTF-8");
        // What is read is written back as it was.
        for (g, want) in got.iter().zip([
            "{\"id\":\"x\",\"accepted\":true}",
            "{\"id\":\"y\",\"accepted\":false,\"message\":\"no\"}",
            "{\"id\":\"w\",\"skipped\":\"sm_20\"}",
            "{\"id\":\"t\",\"accepted\":true,\"message\":\"m\"}",
        ]) {
            assert_eq!(g.value.to_line(), want);
        }
    }
}
