//! The semantic vector files and their manifest, vectors/index.json (written by
//! `generate`, through [`crate::staging`]).

use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use ptxvec_spec::Spec;

use super::{records, variants, Variant};
use crate::error::{Error, Result};

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

/// The index row and the text of each of `chosen`'s files.
pub fn files(chosen: &[Variant<'_>], seed: u64, count: usize) -> Result<Vec<(IndexEntry, String)>> {
    chosen
        .iter()
        .map(|v| {
            let (text, n) = jsonl(v, seed, count)?;
            let row = IndexEntry {
                file: format!("semantic/{}", file_name(&v.id)),
                variant: v.id.clone(),
                records: n,
                spec: v.notes.clone(),
                sha256: format!("{:x}", Sha256::digest(text.as_bytes())),
                operands: super::binding::operands(v),
                choices: super::binding::choices(v),
            };
            Ok((row, text))
        })
        .collect()
}

impl Index {
    /// A manifest of `files`, written by this ptxvec.
    pub fn new(seed: u64, count: usize, files: Vec<IndexEntry>) -> Index {
        Index {
            generator: format!("ptxvec {}", env!("CARGO_PKG_VERSION")),
            seed,
            count,
            files,
        }
    }

    /// The file's text.
    pub fn text(&self) -> String {
        // The index holds strings and numbers: serde_json cannot fail on it.
        serde_json::to_string_pretty(self).unwrap_or_default() + "\n"
    }

    /// Reads `dir/index.json`: `None` when there is none.
    pub fn read(dir: &Path) -> Result<Option<Index>> {
        let path = dir.join("index.json");
        match std::fs::read(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Error::io(&path, e)),
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map(Some)
                .map_err(|e| Error::Input(format!("{}: {e}", path.display()))),
        }
    }
}
