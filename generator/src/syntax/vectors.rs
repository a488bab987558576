//! The syntax vector files: vectors/syntax/<instruction>.jsonl, one case per line,
//! legal cases first (form order), then illegal ones (form order, mutation order).

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use ptxvec_spec::{Instruction, Spec};

use super::case::Case;
use super::illegal::illegal_cases;
use super::legal::legal_cases;

/// Every case of one instruction.
pub fn cases(spec: &Spec, instruction: &Instruction) -> Vec<Case> {
    let mut out = legal_cases(spec, instruction);
    out.extend(illegal_cases(spec, instruction));
    out
}

/// The file an instruction's cases go to, under the vectors folder.
pub fn file_for(vectors: &Path, instruction: &str) -> PathBuf {
    vectors.join("syntax").join(format!("{instruction}.jsonl"))
}

/// The JSON Lines text of some cases.
pub fn to_jsonl(cases: &[Case]) -> Result<String, serde_json::Error> {
    let mut out = String::new();
    for c in cases {
        out.push_str(&serde_json::to_string(c)?);
        out.push('\n');
    }
    Ok(out)
}

/// Writes a file through a temporary name in the same folder, then renames it, so
/// that a reader never sees half a file.
pub fn write_atomic(path: &Path, text: &str) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir)?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("out");
    let tmp = dir.join(format!(".{name}.tmp{}", std::process::id()));
    let result = (|| {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}
