//! `ptxvec merge-runs`: the folders of several `run-engine` calls (one per variant
//! or per group, each with its own `--out`) as one, as a single call over all
//! their variants would have written it: every raw buffer, and one runs.json with
//! the runs in index order. A run that two folders hold must be the same in both;
//! folders of different engines are merged only under a name given for the
//! result.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::error::{Error, Outcome, Result};
use crate::device::selfcheck;
use super::runs::{EngineRun, RunsFile, FILE};

/// Arguments of `ptxvec merge-runs`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The folders `run-engine` wrote, each with its runs.json and raw buffers.
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// The folder the merged buffers and runs.json go to (it may be one of the
    /// folders merged).
    #[arg(long)]
    pub out: PathBuf,
    /// The engine the merged runs.json names; without it every folder must name
    /// the same engine.
    #[arg(long)]
    pub engine: Option<String>,
    /// The vectors folder whose index.json orders the runs; default: ./vectors if
    /// it holds index.json, else the checkout's the binary was built from.
    #[arg(long)]
    pub vectors: Option<PathBuf>,
}

/// One run taken from a folder, with its buffer as stored there (a plain or a
/// gzipped `.bin`), if it has one.
struct Taken<'a> {
    dir: &'a Path,
    run: EngineRun,
    buffer: Option<Buffer>,
}

/// A raw buffer as a folder holds it.
struct Buffer {
    /// Its file name: the run's, or that with `.gz`.
    name: String,
    /// The file's bytes.
    stored: Vec<u8>,
    /// The buffer itself (the stored bytes, gunzipped where they are gzipped).
    bytes: Vec<u8>,
}

/// Runs the subcommand: the merged folder, and its summary line on `out`.
pub fn run(args: &Args, out: &mut dyn std::io::Write) -> Result<Outcome> {
    let inputs = args
        .dirs
        .iter()
        .map(|dir| {
            let file = RunsFile::read(dir)?.ok_or_else(|| {
                Error::Usage(format!("{}: no {FILE} (expected a folder `ptxvec run-engine --out` wrote)", dir.display()))
            })?;
            Ok((dir.as_path(), file))
        })
        .collect::<Result<Vec<_>>>()?;
    let engine = engine(&inputs, args.engine.as_deref())?;
    let vectors = crate::io::vectors_dir::resolve(args.vectors.as_deref())?;
    // Where each run's buffer sits in a whole run: its variant's place in the
    // index, then its launch's (the windows in run-engine's order).
    let mut order: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for (i, entry) in selfcheck::index(&vectors)?.iter().enumerate() {
        for (j, launch) in entry.launches.iter().enumerate() {
            order.insert(launch.raw_file.clone(), (i, j));
        }
    }
    let mut merged: BTreeMap<(usize, usize), Taken<'_>> = BTreeMap::new();
    for (dir, file) in &inputs {
        for run in &file.runs {
            let at = *order.get(&run.run).ok_or_else(|| {
                Error::Input(format!(
                    "{}: run {} is not one of {}'s launches",
                    dir.join(FILE).display(),
                    run.run,
                    vectors.join("index.json").display()
                ))
            })?;
            let taken = Taken {
                dir,
                buffer: buffer(dir, run)?,
                run: run.clone(),
            };
            match merged.get(&at) {
                None => {
                    merged.insert(at, taken);
                }
                Some(kept) => same(kept, &taken)?,
            }
        }
    }
    std::fs::create_dir_all(&args.out).map_err(|e| Error::io(&args.out, e))?;
    let mut file = RunsFile::new(&engine);
    for taken in merged.into_values() {
        if let Some(b) = &taken.buffer {
            let path = args.out.join(&b.name);
            crate::io::files::write_atomic(&path, &b.stored).map_err(|e| Error::io(&path, e))?;
        }
        file.runs.push(taken.run);
    }
    let path = args.out.join(FILE);
    crate::io::files::write_atomic(&path, file.render().as_bytes()).map_err(|e| Error::io(&path, e))?;
    writeln!(out, "merge-runs: {} folders into {}", inputs.len(), args.out.display()).map_err(Error::Stdout)?;
    writeln!(out, "{}", file.summary()).map_err(Error::Stdout)?;
    Ok(Outcome::Pass)
}

/// The engine the merged file names: the one given, else the one every folder
/// names.
fn engine(inputs: &[(&Path, RunsFile)], given: Option<&str>) -> Result<String> {
    if let Some(name) = given {
        return Ok(name.to_owned());
    }
    let mut named: BTreeMap<&str, &Path> = BTreeMap::new();
    for (dir, file) in inputs {
        named.entry(file.engine.as_str()).or_insert(dir);
    }
    match named.len() {
        1 => Ok(inputs[0].1.engine.clone()),
        _ => {
            let list: Vec<String> = named.iter().map(|(e, d)| format!("{e:?} ({})", d.display())).collect();
            Err(Error::Usage(format!(
                "the folders name different engines: {}; name the merged one with --engine",
                list.join(", ")
            )))
        }
    }
}

/// The buffer of `run` in `dir`: none for a run not run, else its `.bin` or
/// `.bin.gz`, exactly one of them.
fn buffer(dir: &Path, run: &EngineRun) -> Result<Option<Buffer>> {
    if run.not_run.is_some() {
        return Ok(None);
    }
    let gz = format!("{}.gz", run.run);
    let read = |name: &str| match std::fs::read(dir.join(name)) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(&dir.join(name), e)),
    };
    match (read(&run.run)?, read(&gz)?) {
        (Some(stored), None) => Ok(Some(Buffer {
            name: run.run.clone(),
            bytes: stored.clone(),
            stored,
        })),
        (None, Some(stored)) => {
            let shown = dir.join(&gz).display().to_string();
            // A run's buffer is a few MB at most; a stream that inflates past
            // 1 GiB is no buffer of ours.
            let bytes = crate::io::gz::decompress(&shown, &stored, 1 << 30)?;
            Ok(Some(Buffer { name: gz, stored, bytes }))
        }
        (None, None) => Err(Error::Input(format!(
            "{}: {FILE} lists run {} as run, but the folder has no {} or {gz}",
            dir.display(),
            run.run,
            run.run
        ))),
        (Some(_), Some(_)) => Err(Error::Input(format!(
            "{}: both {} and {gz}; keep one",
            dir.display(),
            run.run
        ))),
    }
}

/// Refuses two takes of one run that differ: in runs.json, or in the buffer.
fn same(a: &Taken<'_>, b: &Taken<'_>) -> Result<()> {
    let differ = |what: &str| {
        Err(Error::Input(format!(
            "{} and {} both hold run {}, with different {what}; merge one of them",
            a.dir.display(),
            b.dir.display(),
            a.run.run
        )))
    };
    if a.run != b.run {
        return differ(FILE);
    }
    if a.buffer.as_ref().map(|x| &x.bytes) != b.buffer.as_ref().map(|x| &x.bytes) {
        return differ("raw buffers");
    }
    Ok(())
}
