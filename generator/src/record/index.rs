//! vectors/index.json, the manifest of the semantic vector files: what each
//! variant's file holds, its operands, and how to launch its self-checking
//! module; and the names of a variant's files.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// One manifest row.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IndexEntry {
    /// Relative to vectors/: `semantic/red.global.add.f32.jsonl.gz`.
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
    pub operands: Vec<Binding>,
    /// What a runner must choose that the records leave open.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<String>,
    /// How to launch the variant's self-checking module (`emit-ptx --variant`),
    /// once per run (a `red` stated with generic addressing runs in each window):
    /// what a runner needs, so that none reads the module's header comment.
    pub launches: Vec<LaunchEntry>,
}

/// One run of a variant's self-checking module: its launch and buffers
/// (vectors/silicon/README.md gives the calling convention).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaunchEntry {
    /// The window, for a `red` stated with generic addressing (`emit-ptx --window`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<String>,
    /// The module's `.version` and `.target` as `emit-ptx --variant` writes them.
    pub ptx: String,
    /// See `ptx`.
    pub target: String,
    /// Blocks, in x (y and z are 1).
    pub grid: u32,
    /// Threads per block, in x.
    pub block: u32,
    /// The cluster shape the module states itself (`.reqnctapercluster`): a plain
    /// launch still; absent where it states none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster: Option<[u32; 3]>,
    /// Bytes `ptxvec_raw` writes from its `out` pointer, which a runner fills with
    /// the poison byte first.
    pub raw_bytes: usize,
    /// Bytes `ptxvec_check` writes from its `result` pointer (zeroed first).
    pub check_bytes: usize,
    /// The poison byte (`0xa5`).
    pub poison: String,
    /// The raw buffer's file name, as `grade --raw` reads it.
    pub raw_file: String,
    /// Records the module skips (a lane outside the membermask executes), as a
    /// record list (`24-31,40-47`, as `emit-ptx --records` reads it).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub skipped: String,
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
/// takes it. The file is gzipped JSON Lines: the semantic vectors would not fit
/// vectors/'s 20 MB as text (`crate::io::gz`).
pub fn file_name(id: &str) -> String {
    format!("{}.jsonl.gz", stem(id))
}

/// A variant's file stem (its file name without `.jsonl.gz`), which names its raw
/// buffers too.
pub fn stem(id: &str) -> String {
    id.replace("::", "__")
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

/// One operand of the text and what it holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Binding {
    /// The operand as the text writes it: `[%rd1]`, `%r1|%p1`, `{%f1, %f2}`.
    pub operand: String,
    /// What it holds: an input key, an output key (`d`, `d|p`), `&mem` (the address
    /// of the memory whose bits are `inputs.mem` before and `expect.mem` after),
    /// `&operand` (the address of a buffer holding `inputs.operand`), `size` or
    /// `mbar`.
    pub holds: String,
}
