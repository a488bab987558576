//! Writing the semantic vector files and their manifest, vectors/index.json.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use ptxvec_spec::Spec;

use super::{records, variants, Variant};
use crate::error::{Error, Result};
use crate::files::write_atomic;

/// One manifest row.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IndexEntry {
    /// Relative to vectors/: `semantic/red.global.add.f32.jsonl`.
    pub file: String,
    /// The variant id.
    pub variant: String,
    /// Records in the file.
    pub records: usize,
    /// The spec's semantic notes that bear on the variant's values
    /// (`instruction#note`, spec/instructions/<instruction>.yaml).
    pub spec: Vec<String>,
    /// SHA-256 of the file's bytes, hex.
    pub sha256: String,
    /// The operands of the records' text, in order, and what each holds.
    pub operands: Vec<super::binding::Binding>,
    /// What a runner must choose that the records leave open.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<String>,
}

/// The manifest.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Index {
    /// What wrote it.
    pub generator: String,
    /// The seed of the random inputs.
    pub seed: u64,
    /// Random pairs per binary float variant.
    pub count: usize,
    /// Every semantic file.
    pub files: Vec<IndexEntry>,
}

/// A variant's file name: its id with `::` spelled `__`, so that every file system
/// takes it.
pub fn file_name(id: &str) -> String {
    format!("{}.jsonl", id.replace("::", "__"))
}

/// A variant's file, as text.
pub fn jsonl(v: &Variant<'_>, seed: u64, count: usize) -> Result<(String, usize)> {
    let recs = records::records(v, seed, count)?;
    let mut text = String::new();
    for r in &recs {
        text.push_str(&r.to_line());
        text.push('\n');
    }
    Ok((text, recs.len()))
}

/// Which variants to write: all, or those whose id or instruction is named.
pub fn selected<'s>(spec: &'s Spec, only: &[String]) -> Vec<Variant<'s>> {
    variants(spec)
        .into_iter()
        .filter(|v| {
            only.is_empty()
                || only
                    .iter()
                    .any(|o| *o == v.id || *o == v.spelling.instruction.instruction)
        })
        .collect()
}

/// Writes `out/semantic/<variant>.jsonl` for the selected variants, and
/// `out/index.json` when all are written. Returns the rows written.
pub fn write(
    spec: &Spec,
    out: &Path,
    only: &[String],
    seed: u64,
    count: usize,
) -> Result<Vec<IndexEntry>> {
    let chosen = selected(spec, only);
    if chosen.is_empty() {
        return Err(Error::Usage(format!(
            "--variant {}: no such variant or instruction (see vectors/index.json)",
            only.join(", ")
        )));
    }
    let mut rows = Vec::new();
    for v in &chosen {
        let (text, n) = jsonl(v, seed, count)?;
        let rel = PathBuf::from("semantic").join(file_name(&v.id));
        let path = out.join(&rel);
        write_atomic(&path, text.as_bytes()).map_err(|e| Error::io(&path, e))?;
        rows.push(IndexEntry {
            file: rel.to_string_lossy().replace('\\', "/"),
            variant: v.id.clone(),
            records: n,
            spec: v.notes.clone(),
            sha256: format!("{:x}", Sha256::digest(text.as_bytes())),
            operands: super::binding::operands(v),
            choices: super::binding::choices(v),
        });
    }
    if only.is_empty() {
        // A variant that no longer exists leaves no file behind.
        let keep: std::collections::BTreeSet<String> =
            rows.iter().map(|r| r.file.clone()).collect();
        if let Ok(dir) = std::fs::read_dir(out.join("semantic")) {
            for e in dir.flatten() {
                let rel = format!("semantic/{}", e.file_name().to_string_lossy());
                if rel.ends_with(".jsonl") && !keep.contains(&rel) {
                    std::fs::remove_file(e.path()).map_err(|err| Error::io(&e.path(), err))?;
                }
            }
        }
        let index = Index {
            generator: format!("ptxvec {}", env!("CARGO_PKG_VERSION")),
            seed,
            count,
            files: rows.clone(),
        };
        // The index holds strings and numbers: serde_json cannot fail on it.
        let text = serde_json::to_string_pretty(&index).unwrap_or_default() + "\n";
        let path = out.join("index.json");
        write_atomic(&path, text.as_bytes()).map_err(|e| Error::io(&path, e))?;
    }
    Ok(rows)
}
