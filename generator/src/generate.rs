//! `ptxvec generate`: writes the vector files.

use std::io::Write;
use std::path::{Path, PathBuf};

use ptxvec_spec::{Instruction, Spec};

use crate::error::{Error, Result};
use crate::syntax::vectors;

/// Writes vectors/syntax/<instruction>.jsonl for every instruction (or those named),
/// and prints one line per file onto `summary`.
pub fn run(spec: &Spec, out: &Path, only: &[String], summary: &mut dyn Write) -> Result<()> {
    for name in only {
        if spec.instruction(name).is_none() {
            let known: Vec<&str> = spec
                .instructions
                .iter()
                .map(|f| f.instruction.instruction.as_str())
                .collect();
            return Err(Error::Usage(format!(
                "--instruction {name}: no such instruction (expected one of {})",
                known.join(", ")
            )));
        }
    }
    for file in &spec.instructions {
        let ins = &file.instruction;
        if !only.is_empty() && !only.contains(&ins.instruction) {
            continue;
        }
        let (path, cases, legal) = write_one(spec, ins, out)?;
        writeln!(
            summary,
            "{:<28} {:>6} legal {:>6} illegal",
            path.display(),
            legal,
            cases - legal
        )
        .map_err(crate::output::write_error)?;
    }
    Ok(())
}

/// Writes every syntax file without printing (what `bench` times); returns the
/// number of cases.
pub fn run_quiet(spec: &Spec, out: &Path) -> Result<usize> {
    spec.instructions
        .iter()
        .try_fold(0, |n, f| Ok(n + write_one(spec, &f.instruction, out)?.1))
}

/// One instruction's syntax file: its path, its case count and how many are legal.
fn write_one(spec: &Spec, ins: &Instruction, out: &Path) -> Result<(PathBuf, usize, usize)> {
    let cases = vectors::cases(spec, ins);
    let text = vectors::to_jsonl(&cases);
    let path = vectors::file_for(out, &ins.instruction);
    crate::files::write_atomic(&path, text.as_bytes()).map_err(|e| Error::io(&path, e))?;
    let legal = cases.iter().filter(|c| c.rule.is_none()).count();
    Ok((path, cases.len(), legal))
}
