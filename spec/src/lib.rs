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
pub mod files;
pub mod limits;
pub mod mnemonic;
pub mod model;
pub mod qualifier;
pub mod source;
pub mod target;
pub mod template;
pub mod version;

mod validate;
mod yaml;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

pub use errata::{Departure, Erratum, ErratumKind, Ledger};
pub use error::{Location, SpecError, SpecErrors};
pub use files::Files;
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
        Spec::load_from(Files::Folder(root))
    }

    /// Loads and checks the spec built into the crate: the repository's `spec/` as
    /// it was at build time, its files named by their repository paths
    /// (`spec/instructions/red.yaml`).
    pub fn embedded() -> Result<Spec, SpecErrors> {
        Spec::load_from(Files::Embedded)
    }

    /// Loads and checks the spec that `files` holds, a folder or the embedded copy:
    /// the same reads, caps and checks for both, and every error returned.
    pub fn load_from(files: Files<'_>) -> Result<Spec, SpecErrors> {
        let root = files.root();
        let mut errors = Vec::new();
        let seeds = read_seeds(files, &root.join("seeds"), &mut errors);
        let seed_ids: BTreeSet<String> = seeds.keys().cloned().collect();

        let targets = load_checked(files, &root.join("targets.yaml"), &mut errors, validate::targets).0;
        // The shared vocabulary is optional: a spec whose instructions use only the
        // qualifiers code names, or declare their own, needs none.
        let vocabulary_path = root.join("qualifiers.yaml");
        if files.exists(&vocabulary_path) {
            if let Some(text) = read(files, &vocabulary_path, &mut errors) {
                declare_vocabulary(&vocabulary_path, &text, &mut errors);
            }
        }
        let errata_path = root.join("errata.yaml");
        let (ledger, errata_text): (Option<Ledger>, _) =
            load_checked(files, &errata_path, &mut errors, |_| Vec::new());
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
        match yaml_files(files, &dir, &mut errors) {
            None => unverifiable.all = true,
            Some(paths) => {
                for path in paths {
                    let Some(text) = read(files, &path, &mut errors) else {
                        unverifiable.note(&path, None);
                        continue;
                    };
                    let own = declare_header(&path, &text, &mut errors);
                    match mnemonic::reading_for(own, || yaml::from_str::<Instruction>(&path, &text)) {
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
                let own = declare_header(path, &text, &mut errors);
                mnemonic::reading_for(own, || checked::<Instruction>(path, &text, &mut errors, |i| validate::instruction(i, &cx)));
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

/// The shared vocabulary (`spec/qualifiers.yaml`): every row interned, before any
/// instruction file is read, since a syntax line's `.name` is a placeholder exactly
/// when the vocabulary has no `.name`.
fn declare_vocabulary(path: &Path, text: &str, errors: &mut Vec<SpecError>) {
    /// The file's shape.
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Vocabulary {
        qualifiers: Vec<qualifier::Declaration>,
    }
    match yaml::from_str::<Vocabulary>(path, text) {
        Err(e) => errors.extend(e),
        Ok(v) => {
            let problems = v
                .qualifiers
                .iter()
                .enumerate()
                .filter_map(|(i, d)| d.declare().err().map(|e| (format!("qualifiers[{i}]"), e.to_string())))
                .collect();
            report(path, text, problems, errors);
        }
    }
}

/// What an instruction file declares before it is read: its own qualifiers, then
/// its mnemonic with its opcode and infix, which it returns. A file whose head does
/// not read is left to the full read, which reports where.
fn declare_header(path: &Path, text: &str, errors: &mut Vec<SpecError>) -> Option<mnemonic::Mnemonic> {
    /// The head of an instruction file; every other key is the full read's.
    #[derive(serde::Deserialize)]
    struct Head {
        mnemonic: Option<String>,
        #[serde(default)]
        opcode: Option<HeadOpcode>,
        #[serde(default)]
        infix: Option<HeadInfix>,
        #[serde(default)]
        qualifiers: Vec<qualifier::Declaration>,
    }
    #[derive(serde::Deserialize)]
    struct HeadOpcode {
        words: String,
    }
    #[derive(serde::Deserialize)]
    struct HeadInfix {
        qualifier: String,
    }
    // The head's keys alone, at the top level with their indented lines: a few
    // lines to parse where the whole file is read once, after this (one call's
    // start-up reads every file of the spec).
    let Some(head) = yaml::loose::<Head>(&head_text(text)).or_else(|| yaml::loose::<Head>(text)) else { return None };
    let mut problems = Vec::new();
    for (i, d) in head.qualifiers.iter().enumerate() {
        if let Err(e) = d.declare() {
            problems.push((format!("qualifiers[{i}]"), e.to_string()));
        }
    }
    let mut own = None;
    if let Some(m) = &head.mnemonic {
        let infix = match head.infix.as_ref().map(|i| i.qualifier.parse::<Qualifier>()) {
            None => Ok(None),
            Some(Ok(q)) => Ok(Some(q)),
            Some(Err(e)) => Err(("infix.qualifier".to_owned(), e.to_string())),
        };
        match infix {
            Err(p) => problems.push(p),
            Ok(infix) => match mnemonic::Mnemonic::declare(m, head.opcode.as_ref().map(|o| o.words.as_str()), infix) {
                Ok(m) => own = Some(m),
                Err(e) => problems.push(("mnemonic".to_owned(), e.to_string())),
            },
        }
    }
    report(path, text, problems, errors);
    own
}

/// The lines of a file's top-level `mnemonic`, `opcode`, `infix` and `qualifiers`
/// keys, each with the indented lines under it.
fn head_text(text: &str) -> String {
    const KEYS: [&str; 4] = ["mnemonic:", "opcode:", "infix:", "qualifiers:"];
    let mut out = String::new();
    let mut keep = false;
    for line in text.lines() {
        let top = !line.starts_with([' ', '\t', '#', '-']) && !line.trim().is_empty();
        // A sequence written at the top level belongs to the key above it.
        if top {
            keep = KEYS.iter().any(|k| line.starts_with(k));
        }
        if keep {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

fn read(files: Files<'_>, path: &Path, errors: &mut Vec<SpecError>) -> Option<String> {
    files.read_text(path).map_err(|e| errors.push(e)).ok()
}

/// Reads, deserializes and checks one file; returns the value only if it has no
/// error, and the text whenever it was read.
fn load_checked<T: serde::de::DeserializeOwned>(
    files: Files<'_>,
    path: &Path,
    errors: &mut Vec<SpecError>,
    check: impl Fn(&T) -> Vec<validate::Problem>,
) -> (Option<T>, Option<String>) {
    let Some(text) = read(files, path, errors) else {
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
fn yaml_files(files: Files<'_>, dir: &Path, errors: &mut Vec<SpecError>) -> Option<Vec<PathBuf>> {
    let entries = files.entries(dir).map_err(|e| errors.push(e)).ok()?;
    let mut found = Vec::new();
    for path in entries {
        match path.extension().and_then(|e| e.to_str()) {
            Some("yaml") => found.push(path),
            Some("yml") => errors.push(SpecError::Extension {
                rename: path.with_extension("yaml"),
                path,
            }),
            _ => {}
        }
    }
    found.sort();
    Some(found)
}

/// The seed documents, by number; a seed that cannot be read is an error.
fn read_seeds(files: Files<'_>, dir: &Path, errors: &mut Vec<SpecError>) -> BTreeMap<String, Seed> {
    let mut seeds = BTreeMap::new();
    let Ok(mut entries) = files.entries(dir).map_err(|e| errors.push(e)) else {
        return seeds;
    };
    // In name order, so that the errors come out in the same order from a folder
    // and from the embedded copy.
    entries.sort();
    for path in entries {
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
        let Some(text) = read(files, &path, errors) else {
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
    use std::fs;

    /// The embedded copy is the checkout's spec folder, file for file and byte for
    /// byte, and loads to the same spec: it can never be stale (spec/build.rs
    /// rebuilds it when a file of the folder changes, appears or goes).
    #[test]
    fn the_embedded_spec_is_the_folder() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut on_disk = vec![
            root.join("targets.yaml"),
            root.join("errata.yaml"),
            root.join("qualifiers.yaml"),
        ];
        for folder in ["instructions", "seeds"] {
            for entry in fs::read_dir(root.join(folder)).unwrap() {
                on_disk.push(entry.unwrap().path());
            }
        }
        let mut on_disk: Vec<(PathBuf, Vec<u8>)> = on_disk
            .into_iter()
            .map(|p| {
                let bytes = fs::read(&p).unwrap();
                (Path::new("spec").join(p.strip_prefix(root).unwrap()), bytes)
            })
            .collect();
        on_disk.sort();
        let embedded: Vec<(PathBuf, Vec<u8>)> =
            files::embedded().map(|(p, b)| (p, b.to_vec())).collect();
        let names = |v: &[(PathBuf, Vec<u8>)]| v.iter().map(|(p, _)| p.clone()).collect::<Vec<_>>();
        assert_eq!(names(&embedded), names(&on_disk));
        for ((path, built), (_, disk)) in embedded.iter().zip(&on_disk) {
            assert!(built == disk, "{}: the embedded copy differs from the file", path.display());
        }

        let folder = Spec::load(root).unwrap();
        let built = Spec::embedded().unwrap();
        // The same spec, but for where its files were read from.
        let relative = |s: &Spec, root: &Path| -> Vec<PathBuf> {
            s.instructions.iter().map(|f| f.path.strip_prefix(root).unwrap().to_owned()).collect()
        };
        assert_eq!(relative(&built, Path::new("spec")), relative(&folder, root));
        let content = |s: &Spec| {
            let instructions: Vec<&Instruction> = s.instructions.iter().map(|f| &f.instruction).collect();
            format!("{instructions:?}\n{:?}\n{:?}\n{:?}", s.targets, s.errata, s.seeds)
        };
        assert!(content(&built) == content(&folder), "the embedded spec loads otherwise than the folder");
    }

    /// An embedded file is named by its repository path, as `--spec spec` names it
    /// in the checkout: its errors read the same whichever copy was loaded.
    #[test]
    fn embedded_files_are_named_by_their_repository_path() {
        let spec = Spec::embedded().unwrap();
        let red = spec.instructions.iter().find(|f| f.instruction.instruction == "red").unwrap();
        assert_eq!(red.path, Path::new("spec/instructions/red.yaml"));
        let bytes = files::embedded().find(|(p, _)| p == &red.path).unwrap().1;
        let bad = String::from_utf8(bytes.to_vec()).unwrap().replacen("instruction: red", "instruction: ../x", 1);
        let errors = spec.check_file(FileKind::Instruction, &red.path, bad.into_bytes());
        assert!(
            errors[0].to_string().starts_with("spec/instructions/red.yaml:"),
            "{}",
            errors[0]
        );
    }

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
