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
    /// engine cannot load its module. No buffer is written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_run: Option<String>,
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
