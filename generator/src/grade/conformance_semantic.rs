//! The semantic half of the conformance table: each recorded engine's raw buffers
//! (`vectors/clients/<engine>/`, written by `ptxvec run-engine`) graded under the
//! document's profile, per instruction: records passed, failed and not run, and the
//! failure groups that count most, each with the sentence that says what the
//! engine does wrong. The sentences are written by whoever read the engine's
//! source, in the client's `explanations.json` (`{"<instruction>: <group>":
//! "..."}`); a group among the top ones without its sentence is an error, so the
//! README never shows a failure nobody has explained.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use ptxvec_oracle::profile::Profile;
use ptxvec_spec::Spec;

use super::report::Status;
use super::semantic::{self, Mode};
use crate::device::engine::{RunsFile, FILE};
use crate::error::{Error, Result};

/// The failure groups shown per engine.
pub const TOP_GROUPS: usize = 4;
/// The file of the explanations, in the client's folder.
pub const EXPLANATIONS: &str = "explanations.json";

/// One instruction's records for one engine.
#[derive(Debug, Clone, Copy, Default)]
struct Count {
    passed: usize,
    failed: usize,
    not_run: usize,
}

/// The table, as markdown, for every `<client>/runs.json` under `clients`
/// (folders in name order).
pub fn table(spec: &Spec, vectors: &Path, clients: &Path) -> Result<String> {
    let variants = semantic::load(spec, vectors)?;
    let dirs = super::conformance::client_folders(clients)?.into_iter().filter(|p| p.join(FILE).is_file());
    let mut t = String::from(
        "| engine | instruction | passed | failed | not run |\n| --- | --- | --- | --- | --- |\n",
    );
    let mut notes = String::new();
    for dir in dirs {
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let runs = RunsFile::read(&dir)?.unwrap_or_else(|| RunsFile::new(""));
        let mode = Mode {
            profile: Profile::PtxIsa,
            all: false,
        };
        let section = semantic::grade_raw(&variants, &dir, mode)?;
        let mut counts: BTreeMap<String, Count> = BTreeMap::new();
        let mut groups: BTreeMap<(String, String), usize> = BTreeMap::new();
        for c in &section.cases {
            let n = counts.entry(c.instruction.clone()).or_default();
            match c.status {
                Status::Passed => n.passed += 1,
                Status::Failed => {
                    n.failed += 1;
                    *groups.entry((c.instruction.clone(), c.group())).or_default() += 1;
                }
                Status::NotGraded => {}
            }
        }
        for (instruction, n) in not_run_records(&runs, &variants) {
            counts.entry(instruction).or_default().not_run += n;
        }
        for (instruction, n) in &counts {
            let _ = writeln!(t, "| `{name}` | {instruction} | {} | {} | {} |", n.passed, n.failed, n.not_run);
        }
        let explained = explanations(&dir)?;
        let mut top: Vec<(&(String, String), &usize)> = groups.iter().collect();
        top.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let _ = writeln!(notes, "\nTop failure groups of `{name}` (records):\n");
        for ((instruction, g), n) in top.into_iter().take(TOP_GROUPS) {
            let key = format!("{instruction}: {g}");
            let why = explained.get(&key).ok_or_else(|| {
                Error::Input(format!(
                    "{}: no explanation for the failure group {key:?} ({n} records): add one",
                    dir.join(EXPLANATIONS).display()
                ))
            })?;
            let _ = writeln!(notes, "- {n} {key}. {why}");
        }
    }
    Ok(t + &notes)
}

/// The records of each variant an engine could not run, by its instruction.
pub fn not_run_records(runs: &RunsFile, variants: &[semantic::Variant]) -> Vec<(String, usize)> {
    runs.runs
        .iter()
        .filter(|r| r.not_run.is_some())
        .filter_map(|r| {
            let v = variants.iter().find(|v| v.suite.id == r.variant)?;
            Some((v.instruction.clone(), r.records))
        })
        .collect()
}

/// The client's explanations, by `<instruction>: <group>`.
pub fn explanations(dir: &Path) -> Result<BTreeMap<String, String>> {
    let path = dir.join(EXPLANATIONS);
    match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str(&text).map_err(|e| {
            Error::Input(format!(
                "{}:{}:{}: {e} (expected {{\"<instruction>: <group>\": \"what the engine does wrong\"}})",
                path.display(),
                e.line(),
                e.column()
            ))
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(BTreeMap::new()),
        Err(e) => Err(Error::io(&path, e)),
    }
}
