//! `runs.json`: how each run of `ptxvec run-engine` went, beside its raw buffers.
//! `grade --raw` reads it to tell crashed records and variants the engine could
//! not run from records it ran; a run's digest is the silicon evidence's
//! (`selfcheck::raw::digest`), so that an engine's buffers can be compared with
//! silicon's without the bits.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::device::selfcheck::Suite;
use super::runner;

/// The file's name in the raw folder.
pub const FILE: &str = "runs.json";
/// Its `format`.
pub const FORMAT: &str = "ptxvec-engine-runs/1";

/// A record whose module the engine failed on, found alone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Crash {
    /// Its number in the variant (`<variant>#<n>`).
    pub record: usize,
    /// How the runner ended, and the end of what it said.
    pub reason: String,
}

/// Why a variant was not run. On disk it is one sentence, which says which of
/// these it is by how it begins (`needs `, [`REFUSED`], `exited with status 3`); each
/// reads back as the same sentence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum NotRun {
    /// It needs more than the engine is: the targets it may have and the PTX
    /// each takes (`sm_100a (PTX 8.6) or sm_100f (PTX 8.8)`). Not a finding.
    Needs(String),
    /// The engine cannot load its module: the whole module and its first, middle
    /// and last records each failed alone. How the whole module's call failed.
    Refused(String),
    /// The runner said it cannot run the module at all (exit status
    /// [`runner::CANNOT_RUN`]): the end of what it said, if anything.
    CannotRun(String),
}

/// How a [`NotRun::Needs`] begins.
const NEEDS: &str = "needs ";
/// How a [`NotRun::Refused`] begins, before `: ` and the reason.
const REFUSED: &str = "the module fails whole and record by record";
/// How a [`NotRun::CannotRun`] begins: the runner's exit, as a failure's
/// reason says it.
fn cannot_run() -> String {
    format!("exited with status {}", runner::CANNOT_RUN)
}

impl NotRun {
    /// Whether it tells of something wrong with the engine (every reason but
    /// needing more than it is).
    pub fn is_finding(&self) -> bool {
        !matches!(self, NotRun::Needs(_))
    }
}

impl std::fmt::Display for NotRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotRun::Needs(what) => write!(f, "{NEEDS}{what}"),
            NotRun::Refused(why) => write!(f, "{REFUSED}: {why}"),
            NotRun::CannotRun(said) if said.is_empty() => f.write_str(&cannot_run()),
            NotRun::CannotRun(said) => write!(f, "{}: {said}", cannot_run()),
        }
    }
}

impl From<NotRun> for String {
    fn from(n: NotRun) -> String {
        n.to_string()
    }
}

impl TryFrom<String> for NotRun {
    type Error = String;

    fn try_from(text: String) -> std::result::Result<NotRun, String> {
        if let Some(what) = text.strip_prefix(NEEDS) {
            return Ok(NotRun::Needs(what.to_owned()));
        }
        if let Some(why) = text.strip_prefix(REFUSED).and_then(|t| t.strip_prefix(": ")) {
            return Ok(NotRun::Refused(why.to_owned()));
        }
        // Read back only what Display writes: `exited with status 3`, alone or
        // with `: ` and what the runner said.
        let exit = cannot_run();
        let said = match text.strip_prefix(&exit) {
            Some("") => Some(""),
            Some(rest) => rest.strip_prefix(": ").filter(|said| !said.is_empty()),
            None => None,
        };
        said.map(|said| NotRun::CannotRun(said.to_owned())).ok_or_else(|| {
            format!("not_run {text:?}: expected `{NEEDS}...`, `{REFUSED}: ...` or `{exit}[: ...]`")
        })
    }
}

/// One run: a variant, in one window for a `red` stated with generic addressing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineRun {
    /// The raw buffer's file name.
    pub run: String,
    /// The variant id.
    pub variant: String,
    /// The window, for a variant stated with generic addressing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<String>,
    /// Records in the variant.
    pub records: usize,
    /// The module's `.version`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ptx: Option<String>,
    /// The module's `.target`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// Runner calls made (1 when the whole module ran).
    #[serde(default)]
    pub calls: usize,
    /// Records the engine failed on, each alone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub crashed: Vec<Crash>,
    /// Why the variant was not run: it needs more than the engine is, or the
    /// engine cannot load or run its module. No buffer is written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_run: Option<NotRun>,
    /// The digest of the buffer's pinned slots, as the silicon evidence has it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_sha256: Option<String>,
    /// Whether the digest is the sm_90 silicon evidence's for this run (`same`,
    /// `differs`), where the evidence has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<String>,
}

impl EngineRun {
    /// A run of `s` into file `run`, nothing done yet.
    pub fn of(s: &Suite, run: &str) -> EngineRun {
        EngineRun {
            run: run.to_owned(),
            variant: s.id.clone(),
            window: s.window().map(str::to_owned),
            records: s.records.len(),
            ptx: None,
            target: None,
            calls: 0,
            crashed: Vec::new(),
            not_run: None,
            raw_sha256: None,
            evidence: None,
        }
    }

    /// Its line in the command's table.
    pub fn line(&self) -> String {
        let what = match (&self.not_run, self.crashed.len()) {
            (Some(why), _) => format!("not run: {why}"),
            (None, 0) => format!("ran {} records", self.records),
            (None, c) => format!(
                "ran {} records, {c} crashed (first: #{} {})",
                self.records - c,
                self.crashed[0].record,
                self.crashed[0].reason
            ),
        };
        let evidence = match self.evidence.as_deref() {
            Some(e) => format!("; silicon evidence: {e}"),
            None => String::new(),
        };
        format!("{:<70} {what}{evidence}", self.run)
    }
}

/// The whole file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunsFile {
    /// [`FORMAT`].
    pub format: String,
    /// What the engine is, as the command was told.
    pub engine: String,
    /// Every run, in `index.json` order.
    pub runs: Vec<EngineRun>,
}

impl RunsFile {
    /// An empty file for `engine`.
    pub fn new(engine: &str) -> RunsFile {
        RunsFile {
            format: FORMAT.to_owned(),
            engine: engine.to_owned(),
            runs: Vec::new(),
        }
    }

    /// The JSON text: one run per line, so that a change shows as a line of diff.
    pub fn render(&self) -> String {
        let head = serde_json::json!({"format": self.format, "engine": self.engine});
        let mut s = head.to_string();
        s.pop();
        s += ",\"runs\":[\n";
        let lines: Vec<String> = self
            .runs
            .iter()
            .map(|r| serde_json::to_string(r).unwrap_or_default())
            .collect();
        s += &lines.join(",\n");
        s += "\n]}\n";
        s
    }

    /// Reads `dir/runs.json`, if there is one.
    pub fn read(dir: &Path) -> Result<Option<RunsFile>> {
        let path = dir.join(FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io(&path, e)),
        };
        let f: RunsFile = serde_json::from_str(&text).map_err(|e| {
            Error::Input(format!(
                "{}:{}:{}: {e} (expected {FORMAT}, vectors/silicon/README.md)",
                path.display(),
                e.line(),
                e.column()
            ))
        })?;
        if f.format != FORMAT {
            return Err(Error::Input(format!(
                "{}: format {:?}, expected {FORMAT:?}",
                path.display(),
                f.format
            )));
        }
        Ok(Some(f))
    }

    /// Compares each run's digest with the silicon evidence's for the same variant
    /// and window (`variants` of vectors.json).
    pub fn compare(&mut self, evidence: &[crate::device::silicon::evidence::Run]) {
        let by_run: BTreeMap<(&str, Option<&str>), &str> = evidence
            .iter()
            .filter_map(|e| Some(((e.variant.as_str(), e.window.as_deref()), e.raw_sha256.as_deref()?)))
            .collect();
        for r in &mut self.runs {
            let (Some(ours), Some(theirs)) = (
                r.raw_sha256.as_deref(),
                by_run.get(&(r.variant.as_str(), r.window.as_deref())),
            ) else {
                continue;
            };
            r.evidence = Some(if ours == *theirs { "same" } else { "differs" }.to_owned());
        }
    }

    /// The last line of the command: runs, records crashed, runs not run, and how
    /// many give the silicon evidence's digest.
    pub fn summary(&self) -> String {
        let n = self.runs.len();
        let not_run = self.runs.iter().filter(|r| r.not_run.is_some()).count();
        let crashed: usize = self.runs.iter().map(|r| r.crashed.len()).sum();
        let compared = self.runs.iter().filter(|r| r.evidence.is_some()).count();
        let same = self
            .runs
            .iter()
            .filter(|r| r.evidence.as_deref() == Some("same"))
            .count();
        format!(
            "run-engine: {n} runs, {} ran, {not_run} not run, {crashed} records crashed; {same} of {compared} compared runs give the sm_90 silicon evidence's digest",
            n - not_run
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_reason_not_to_run_reads_back_as_the_sentence_written() {
        let table = [
            (NotRun::Needs("sm_100 (PTX 8.7)".into()), "needs sm_100 (PTX 8.7)"),
            (
                NotRun::Refused("exited with status 1: x.ptx:12 Syntax error:".into()),
                "the module fails whole and record by record: exited with status 1: x.ptx:12 Syntax error:",
            ),
            (NotRun::Refused("timed out after 1 s".into()), "the module fails whole and record by record: timed out after 1 s"),
            (NotRun::CannotRun("stand-in: cannot launch this".into()), "exited with status 3: stand-in: cannot launch this"),
            (NotRun::CannotRun(String::new()), "exited with status 3"),
        ];
        for (typed, text) in table {
            let json = serde_json::to_string(&typed).unwrap_or_default();
            assert_eq!(json, serde_json::to_string(text).unwrap_or_default(), "case: {typed:?} {text:?}");
            let back: NotRun = serde_json::from_str(&json).unwrap_or_else(|e| panic!("case: {text:?}: {e}"));
            assert_eq!(back, typed, "case: {text:?}");
            assert_eq!(back.is_finding(), !text.starts_with("needs "), "case: {text:?}");
        }
    }

    #[test]
    fn a_sentence_of_no_known_reason_is_refused() {
        for text in ["", "crashed", "exited with status 30: x", "exited with status 3: ", "exited with status 1"] {
            let e = serde_json::from_str::<NotRun>(&serde_json::to_string(text).unwrap_or_default())
                .err()
                .unwrap_or_else(|| panic!("case: {text:?} read"));
            assert!(e.to_string().contains("expected `needs ...`"), "case: {text:?}: {e}");
        }
    }
}
