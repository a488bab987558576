//! ptxvec-spec: the PTX ISA's syntax tables as typed, validated data.
//!
//! The spec folder holds one YAML file per instruction under `instructions/`, the
//! target model in `targets.yaml`, the errata ledger in `errata.yaml` and the seed
//! documents under `seeds/`. [`Spec::load`] reads and checks them all, and returns
//! every problem it finds, each with its file, line and column. This crate knows
//! nothing of what the instructions compute: that is the oracle's business.

// Tests unwrap freely: a panic there is the failure report.
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod errata;
pub mod error;
pub mod limits;
pub mod model;
pub mod qualifier;
pub mod source;
pub mod target;
pub mod template;
pub mod version;

mod validate;
mod yaml;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

pub use errata::{Departure, Erratum, ErratumKind, Ledger};
pub use error::{Location, SpecError, SpecErrors};
pub use model::Instruction;
pub use qualifier::{QualKind, Qualifier};
pub use source::{Origin, Source};
pub use target::{Target, TargetModel, Variant};
pub use template::{Mnemonic, Template};
pub use version::PtxVersion;

/// A seed document: its number, file name and text.
#[derive(Debug, Clone)]
pub struct Seed {
    /// "001".
    pub id: String,
    /// "001_44c068157a90ce4f.txt".
    pub file_name: String,
    /// The whole text.
    pub text: String,
}

/// An instruction file and what it holds.
#[derive(Debug, Clone)]
pub struct InstructionFile {
    /// The file, as the loader was given it.
    pub path: PathBuf,
    /// Its content.
    pub instruction: Instruction,
}

/// The whole spec, loaded and checked.
#[derive(Debug, Clone)]
pub struct Spec {
    /// Every instruction, ordered by file name.
    pub instructions: Vec<InstructionFile>,
    /// The target model.
    pub targets: TargetModel,
    /// The errata ledger.
    pub errata: Ledger,
    /// The seed documents, by number.
    pub seeds: BTreeMap<String, Seed>,
}

impl Spec {
    /// Loads and checks the spec folder `root` (the repository's `spec/`).
    ///
    /// Every error of every file is returned. The loader reads regular files only,
    /// and holds each to the caps in [`limits`].
    pub fn load(root: &Path) -> Result<Spec, SpecErrors> {
        let mut errors = Vec::new();
        let seeds = read_seeds(&root.join("seeds"), &mut errors);
        let seed_ids: BTreeSet<String> = seeds.keys().cloned().collect();

        let targets = load_checked(&root.join("targets.yaml"), &mut errors, validate::targets).0;
        let errata_path = root.join("errata.yaml");
        let (ledger, errata_text): (Option<Ledger>, _) =
            load_checked(&errata_path, &mut errors, |_| Vec::new());
        let errata_ids: BTreeSet<String> = ledger
            .iter()
            .flat_map(|l| l.errata.iter().map(|e| e.id.clone()))
            .collect();

        let mut instructions = Vec::new();
        let mut texts = Vec::new();
        // Instructions whose file did not load: a reference to one cannot be checked,
        // which does not make it wrong.
        let mut unverifiable = Unverifiable::default();
        let dir = root.join("instructions");
        match yaml_files(&dir, &mut errors) {
            None => unverifiable.all = true,
            Some(files) => {
                for path in files {
                    let Some(text) = read(&path, &mut errors) else {
                        unverifiable.note(&path, None);
                        continue;
                    };
                    match yaml::from_str::<Instruction>(&path, &text) {
                        Err(e) => {
                            errors.extend(e);
                            unverifiable.note(&path, yaml::instruction_name(&text));
                        }
                        Ok(mut instruction) => {
                            instruction.resolve_slots();
                            if let Some(targets) = &targets {
                                let cx = validate::Context {
                                    seeds: &seed_ids,
                                    errata: &errata_ids,
                                    targets,
                                };
                                report(
                                    &path,
                                    &text,
                                    validate::instruction(&instruction, &cx),
                                    &mut errors,
                                );
                            }
                            instructions.push(InstructionFile { path, instruction });
                            texts.push(text);
                        }
                    }
                }
            }
        }
        let mut names = BTreeSet::new();
        for (f, text) in instructions.iter().zip(&texts) {
            if !names.insert(f.instruction.instruction.as_str()) {
                let problem = (
                    "instruction".to_owned(),
                    format!("`{}` is defined by two files", f.instruction.instruction),
                );
                report(&f.path, text, vec![problem], &mut errors);
            }
        }
        if let (Some(ledger), Some(text)) = (&ledger, &errata_text) {
            let known = |name: &str| names.contains(name) || unverifiable.covers(name);
            report(
                &errata_path,
                text,
                validate::ledger(ledger, &known, &seed_ids),
                &mut errors,
            );
        }
        match (targets, ledger) {
            (Some(targets), Some(errata)) if errors.is_empty() => Ok(Spec {
                instructions,
                targets,
                errata,
                seeds,
            }),
            _ => Err(SpecErrors(errors)),
        }
    }

    /// Reads and checks one file's bytes as [`Spec::load`] reads and checks a file of
    /// that kind, every cross-reference resolved against this spec (its seeds, errata
    /// ids, target model and instruction names), and returns every error. What is
    /// checked across files (two files defining one instruction) is not. The fuzzer's
    /// entry point (`fuzz/fuzz_targets/spec_loader.rs`).
    pub fn check_file(&self, kind: FileKind, path: &Path, bytes: Vec<u8>) -> Vec<SpecError> {
        let mut errors = Vec::new();
        if bytes.len() as u64 > limits::MAX_FILE_BYTES {
            errors.push(SpecError::TooLarge {
                path: path.to_owned(),
                size: bytes.len() as u64,
                cap: limits::MAX_FILE_BYTES,
            });
            return errors;
        }
        let text = match yaml::text(path, bytes) {
            Ok(t) => t,
            Err(e) => return vec![e],
        };
        let seeds: BTreeSet<String> = self.seeds.keys().cloned().collect();
        match kind {
            FileKind::Instruction => {
                let errata: BTreeSet<String> =
                    self.errata.errata.iter().map(|e| e.id.clone()).collect();
                let cx = validate::Context {
                    seeds: &seeds,
                    errata: &errata,
                    targets: &self.targets,
                };
                checked::<Instruction>(path, &text, &mut errors, |i| validate::instruction(i, &cx));
            }
            FileKind::Targets => {
                checked::<TargetModel>(path, &text, &mut errors, validate::targets);
            }
            FileKind::Errata => {
                let known = |name: &str| self.instruction(name).is_some();
                checked::<Ledger>(path, &text, &mut errors, |l| {
                    validate::ledger(l, &known, &seeds)
                });
            }
        }
        errors
    }

    /// The instruction with this name (`red`, `match.sync`).
    pub fn instruction(&self, name: &str) -> Option<&Instruction> {
        self.instructions
            .iter()
            .map(|f| &f.instruction)
            .find(|i| i.instruction == name)
    }
}

/// Which file of the spec folder a text is, for [`Spec::check_file`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// `instructions/<name>.yaml`.
    Instruction,
    /// `targets.yaml`.
    Targets,
    /// `errata.yaml`.
    Errata,
}

/// The names of instructions whose files did not load.
#[derive(Default)]
struct Unverifiable {
    /// The instructions folder itself could not be read.
    all: bool,
    /// File stems (`match.sync` for match.sync.yaml) and `instruction:` values.
    names: BTreeSet<String>,
}

impl Unverifiable {
    fn note(&mut self, path: &Path, name: Option<String>) {
        if let Some(stem) = path.file_stem().and_then(|s| s.to_str()) {
            self.names.insert(stem.to_owned());
        }
        self.names.extend(name);
    }

    fn covers(&self, name: &str) -> bool {
        self.all || self.names.contains(name)
    }
}

fn read(path: &Path, errors: &mut Vec<SpecError>) -> Option<String> {
    read_text(path).map_err(|e| errors.push(e)).ok()
}

/// Reads a spec file as text, within the caps: a regular file (asked of its metadata
/// before it is opened, since opening a FIFO blocks until someone writes to it), no
/// larger than [`limits::MAX_FILE_BYTES`] (read no further even if it grows), UTF-8,
/// and no line longer than [`limits::MAX_LINE_BYTES`].
fn read_text(path: &Path) -> Result<String, SpecError> {
    let io = |source| SpecError::Io {
        path: path.to_owned(),
        source,
    };
    let meta = fs::metadata(path).map_err(io)?;
    if !meta.is_file() {
        return Err(SpecError::NotAFile {
            path: path.to_owned(),
            what: file_kind(&meta.file_type()),
        });
    }
    let too_large = |size| SpecError::TooLarge {
        path: path.to_owned(),
        size,
        cap: limits::MAX_FILE_BYTES,
    };
    if meta.len() > limits::MAX_FILE_BYTES {
        return Err(too_large(meta.len()));
    }
    let mut bytes = Vec::new();
    fs::File::open(path)
        .map_err(io)?
        .take(limits::MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > limits::MAX_FILE_BYTES {
        return Err(too_large(bytes.len() as u64));
    }
    yaml::text(path, bytes)
}

/// What a path that is not a regular file is, in words.
fn file_kind(t: &fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
    }
    if t.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

/// Reads, deserializes and checks one file; returns the value only if it has no
/// error, and the text whenever it was read.
fn load_checked<T: serde::de::DeserializeOwned>(
    path: &Path,
    errors: &mut Vec<SpecError>,
    check: impl Fn(&T) -> Vec<validate::Problem>,
) -> (Option<T>, Option<String>) {
    let Some(text) = read(path, errors) else {
        return (None, None);
    };
    (checked(path, &text, errors, check), Some(text))
}

/// Deserializes and checks one file's text; returns the value only if it has no
/// error.
fn checked<T: serde::de::DeserializeOwned>(
    path: &Path,
    text: &str,
    errors: &mut Vec<SpecError>,
    check: impl Fn(&T) -> Vec<validate::Problem>,
) -> Option<T> {
    match yaml::from_str::<T>(path, text) {
        Err(e) => {
            errors.extend(e);
            None
        }
        Ok(v) => {
            let before = errors.len();
            report(path, text, check(&v), errors);
            let ok = errors.len() == before;
            ok.then_some(v)
        }
    }
}

fn report(path: &Path, text: &str, problems: Vec<validate::Problem>, errors: &mut Vec<SpecError>) {
    if problems.is_empty() {
        return;
    }
    let locator = yaml::Locator::new(text);
    for (node, message) in problems {
        let (line, column) = locator.find(&node);
        let message = if node.is_empty() {
            message
        } else {
            format!("{node}: {message}")
        };
        errors.push(SpecError::Invalid {
            at: yaml::location(path, text, line, column),
            message,
        });
    }
}

/// The `.yaml` files of a folder, by name; `None` when the folder cannot be read.
/// A `.yml` file is an error: skipping it would silently drop an instruction.
fn yaml_files(dir: &Path, errors: &mut Vec<SpecError>) -> Option<Vec<PathBuf>> {
    let io = |source| SpecError::Io {
        path: dir.to_owned(),
        source,
    };
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            errors.push(io(e));
            return None;
        }
    };
    let mut files = Vec::new();
    for entry in entries {
        let path = match entry {
            Ok(e) => e.path(),
            Err(e) => {
                errors.push(io(e));
                return None;
            }
        };
        match path.extension().and_then(|e| e.to_str()) {
            Some("yaml") => files.push(path),
            Some("yml") => errors.push(SpecError::Extension {
                rename: path.with_extension("yaml"),
                path,
            }),
            _ => {}
        }
    }
    files.sort();
    Some(files)
}

/// The seed documents, by number; a seed that cannot be read is an error.
fn read_seeds(dir: &Path, errors: &mut Vec<SpecError>) -> BTreeMap<String, Seed> {
    let mut seeds = BTreeMap::new();
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(source) => {
            errors.push(SpecError::Io {
                path: dir.to_owned(),
                source,
            });
            return seeds;
        }
    };
    for entry in entries {
        let path = match entry {
            Ok(e) => e.path(),
            Err(source) => {
                errors.push(SpecError::Io {
                    path: dir.to_owned(),
                    source,
                });
                return seeds;
            }
        };
        let Some(file_name) = path.file_name().and_then(|n| n.to_str()).map(str::to_owned) else {
            continue;
        };
        // Seeds are named NNN_<hash>.txt; the number is how the spec cites them.
        let Some((id, _)) = file_name.split_once('_') else {
            continue;
        };
        if !file_name.ends_with(".txt") || id.len() != 3 || !id.bytes().all(|b| b.is_ascii_digit())
        {
            continue;
        }
        let Some(text) = read(&path, errors) else {
            continue;
        };
        seeds.insert(
            id.to_owned(),
            Seed {
                id: id.to_owned(),
                file_name,
                text,
            },
        );
    }
    seeds
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_file_agrees_with_load() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let spec = Spec::load(root).unwrap();
        let mut files = vec![
            (FileKind::Targets, root.join("targets.yaml")),
            (FileKind::Errata, root.join("errata.yaml")),
        ];
        for f in &spec.instructions {
            files.push((FileKind::Instruction, f.path.clone()));
        }
        for (kind, path) in files {
            let errors = spec.check_file(kind, &path, fs::read(&path).unwrap());
            assert!(errors.is_empty(), "{}: {errors:?}", path.display());
        }
        // A broken reference is found as `load` finds it, at its line.
        let path = root.join("instructions/activemask.yaml");
        let text = fs::read_to_string(&path).unwrap();
        let bad = text.replacen("instruction: activemask", "instruction: ../x", 1);
        let errors = spec.check_file(FileKind::Instruction, &path, bad.into_bytes());
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(
            errors[0].to_string().contains("is not an instruction name"),
            "{}",
            errors[0]
        );
    }
}
