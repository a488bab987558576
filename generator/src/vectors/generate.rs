//! `ptxvec generate`: writes the vector files, as one transaction
//! ([`crate::io::staging`]): a reader of the folder sees the old set or the new one.
//!
//! Everything is computed first, in memory, after the names asked for are checked:
//! an unknown `--instruction` or `--variant` stops the run before any file is
//! touched. Then the folder is locked and its set replaced; the summary is printed
//! last, so that a reader that stops early (`| head -1`) ends the program only once
//! the whole set is in place.
//!
//! A full run (no `--instruction`, no `--variant`) writes every syntax and semantic
//! file, `index.json`, `rules.json`, `targets.json`, the schemas and the litmus
//! records (`litmus.jsonl.gz`, [`crate::litmus`]), and drops ptxvec's files of
//! the old set that the new one has not (a variant that no longer exists). A partial
//! run writes the syntax files of the named instructions and the semantic files of
//! their variants and of the named variants, and updates those variants' rows of
//! `index.json`, which keeps the rest; it keeps the set's seed and count.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;

use ptxvec_spec::Spec;

use crate::error::{Error, Result};
use crate::record::index::{file_name, Index, IndexEntry};
use crate::vectors::semantic::export;
use crate::vectors::semantic::{self, Variant};
use crate::io::staging::Transaction;
use crate::syntax::vectors;

/// What to write.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// Only these instructions' syntax files and semantic variants.
    pub instructions: &'a [String],
    /// Only these semantic variants (by id, or every variant of an instruction).
    pub variants: &'a [String],
    /// The seed of the random inputs.
    pub seed: u64,
    /// Random input pairs per binary variant.
    pub count: usize,
}

impl Request<'_> {
    /// Every file, with the committed set's seed and count.
    pub fn all() -> Request<'static> {
        Request {
            instructions: &[],
            variants: &[],
            seed: semantic::DEFAULT_SEED,
            count: semantic::DEFAULT_COUNT,
        }
    }

    fn full(&self) -> bool {
        self.instructions.is_empty() && self.variants.is_empty()
    }
}

/// One syntax file written.
#[derive(Debug, Clone)]
pub struct SyntaxFile {
    /// Relative to the folder: `syntax/red.jsonl`.
    pub file: String,
    /// Legal cases.
    pub legal: usize,
    /// Illegal cases.
    pub illegal: usize,
}

/// What a run wrote.
#[derive(Debug, Clone, Default)]
pub struct Written {
    /// The syntax files.
    pub syntax: Vec<SyntaxFile>,
    /// The semantic files' index rows.
    pub semantic: Vec<IndexEntry>,
    /// The litmus records written (a full run's).
    pub litmus: Option<usize>,
}

/// The relative paths of the files ptxvec writes into a folder whose `index.json`
/// is at `tree`: the fixed files, a syntax file per instruction, a semantic file per
/// variant of the spec, and every file that `tree/index.json` lists.
pub fn owned(spec: &Spec, tree: &Path) -> BTreeSet<String> {
    with_index(fixed(spec), tree)
}

/// The files ptxvec writes whatever a folder's index says.
fn fixed(spec: &Spec) -> BTreeSet<String> {
    let mut out: BTreeSet<String> =
        ["index.json", "rules.json", "targets.json", "lint.schema.json", "schema.json", "litmus.schema.json", LITMUS_FILE]
        .map(String::from)
        .into();
    out.extend(
        spec.instructions
            .iter()
            .map(|f| syntax_file(&f.instruction.instruction)),
    );
    out.extend(
        semantic::variants(spec)
            .iter()
            .map(|v| format!("semantic/{}", file_name(&v.id))),
    );
    out
}

/// `names` and every file that `tree/index.json` lists.
fn with_index(mut names: BTreeSet<String>, tree: &Path) -> BTreeSet<String> {
    if let Ok(Some(index)) = Index::read(tree) {
        names.extend(index.files.into_iter().map(|r| r.file));
    }
    names
}

/// The litmus records, written by a full run.
pub const LITMUS_FILE: &str = "litmus.jsonl.gz";

fn syntax_file(instruction: &str) -> String {
    format!("syntax/{instruction}.jsonl")
}

/// Checks the names, computes the files, and replaces the set in `out`.
pub fn generate(spec: &Spec, out: &Path, req: &Request<'_>) -> Result<Written> {
    let (instructions, variants) = select(spec, req)?;
    let mut writes: Vec<(String, Vec<u8>)> = Vec::new();
    let mut written = Written::default();
    for ins in &instructions {
        let f = spec
            .instructions
            .iter()
            .find(|f| f.instruction.instruction == *ins);
        let Some(f) = f else { continue };
        let cases = vectors::cases(spec, &f.instruction);
        let legal = cases.iter().filter(|c| c.rule.is_none()).count();
        let file = syntax_file(ins);
        writes.push((file.clone(), vectors::to_jsonl(&cases).into_bytes()));
        written.syntax.push(SyntaxFile {
            file,
            legal,
            illegal: cases.len() - legal,
        });
    }
    for (row, bytes) in export::files(spec, &variants, req.seed, req.count)? {
        writes.push((row.file.clone(), bytes));
        written.semantic.push(row);
    }
    if req.full() {
        let litmus = crate::litmus::record::jsonl(&crate::litmus::generated())
            .map_err(|e| Error::Input(format!("{LITMUS_FILE}: a generated litmus test is outside the oracle: {e}")))?;
        written.litmus = Some(litmus.lines().count());
        writes.push((LITMUS_FILE.to_owned(), crate::io::gz::compress(litmus.as_bytes())));
        let tables = crate::vectors::tables::files(spec).into_iter();
        // A full run's variants are every one of the spec's.
        for (name, text) in tables.chain(crate::vectors::schemas::files(spec, &variants)) {
            writes.push((name.to_owned(), text.into_bytes()));
        }
    }
    let fixed = fixed(spec);
    let owned = |tree: &Path| with_index(fixed.clone(), tree);
    let tx = Transaction::begin(out, &owned)?;
    let index = index(spec, tx.dir(), out, req, &written.semantic)?;
    writes.push(("index.json".to_owned(), index.text().into_bytes()));
    // A full run replaces all of ptxvec's files; a partial one keeps the rest.
    let obsolete = if req.full() {
        owned(tx.dir())
    } else {
        BTreeSet::new()
    };
    tx.commit(&writes, &obsolete)?;
    Ok(written)
}

/// The instructions whose syntax files to write and the variants whose semantic
/// files to write; an unknown name is a usage error.
fn select<'s>(spec: &'s Spec, req: &Request<'_>) -> Result<(Vec<String>, Vec<Variant<'s>>)> {
    let known: Vec<&str> = spec
        .instructions
        .iter()
        .map(|f| f.instruction.instruction.as_str())
        .collect();
    for name in req.instructions {
        if !known.contains(&name.as_str()) {
            return Err(Error::Usage(format!(
                "--instruction {name}: no such instruction (expected one of {})",
                known.join(", ")
            )));
        }
    }
    let all = semantic::variants(spec);
    for name in req.variants {
        if !all
            .iter()
            .any(|v| v.id == *name || v.spelling.instruction.instruction == *name)
        {
            return Err(Error::Usage(format!(
                "--variant {name}: no such variant or instruction (variant ids are the stems of vectors/semantic/*.jsonl.gz with `__` read `::`, as vectors/index.json lists them)"
            )));
        }
    }
    if req.full() {
        return Ok((known.iter().map(|s| (*s).to_owned()).collect(), all));
    }
    let named = |v: &Variant<'_>| {
        let ins = &v.spelling.instruction.instruction;
        req.instructions.contains(ins) || req.variants.iter().any(|n| *n == v.id || n == ins)
    };
    let instructions = known
        .iter()
        .filter(|k| req.instructions.iter().any(|n| n == *k))
        .map(|s| (*s).to_owned())
        .collect();
    Ok((instructions, all.into_iter().filter(named).collect()))
}

/// The new `index.json`: of the written rows for a full run; for a partial one, the
/// folder's index with the written variants' rows replaced or added.
fn index(
    spec: &Spec,
    dir: &Path,
    shown: &Path,
    req: &Request<'_>,
    rows: &[IndexEntry],
) -> Result<Index> {
    if req.full() {
        return Ok(Index::new(req.seed, req.count, rows.to_vec()));
    }
    let Some(old) = Index::read(dir).map_err(|e| {
        Error::Input(format!(
            "{}: cannot update it ({e}); run `ptxvec generate` without --instruction and --variant to rewrite the whole set",
            shown.join("index.json").display()
        ))
    })?
    else {
        return Ok(Index::new(req.seed, req.count, rows.to_vec()));
    };
    if (old.seed, old.count) != (req.seed, req.count) {
        return Err(Error::Usage(format!(
            "--seed {} --count {}: {} holds seed {} and count {}, which a partial run keeps; run without --instruction and --variant to change them",
            req.seed,
            req.count,
            shown.join("index.json").display(),
            old.seed,
            old.count
        )));
    }
    let mut files = old.files;
    for row in rows {
        match files.iter_mut().find(|r| r.file == row.file) {
            Some(r) => *r = row.clone(),
            None => files.push(row.clone()),
        }
    }
    // The order of a full run's: the spec's variants, any others after them.
    let order: Vec<String> = semantic::variants(spec).into_iter().map(|v| v.id).collect();
    files.sort_by_key(|r| {
        order
            .iter()
            .position(|id| *id == r.variant)
            .unwrap_or(usize::MAX)
    });
    Ok(Index::new(req.seed, req.count, files))
}

/// Runs `generate` and then prints one line per syntax file and one for the
/// semantic files onto `summary`.
pub fn run(spec: &Spec, out: &Path, req: &Request<'_>, summary: &mut dyn Write) -> Result<()> {
    let written = generate(spec, out, req)?;
    for f in &written.syntax {
        writeln!(
            summary,
            "{:<28} {:>6} legal {:>6} illegal",
            out.join(&f.file).display(),
            f.legal,
            f.illegal
        )
        .map_err(crate::io::output::write_error)?;
    }
    if !written.semantic.is_empty() {
        let records: usize = written.semantic.iter().map(|r| r.records).sum();
        writeln!(
            summary,
            "{:<28} {:>6} files {:>8} records",
            out.join("semantic").display(),
            written.semantic.len(),
            records
        )
        .map_err(crate::io::output::write_error)?;
    }
    if let Some(n) = written.litmus {
        writeln!(summary, "{:<28} {:>6} tests", out.join(LITMUS_FILE).display(), n)
            .map_err(crate::io::output::write_error)?;
    }
    Ok(())
}
