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
use std::path::{Path, PathBuf};

pub use errata::{Erratum, ErratumKind, Ledger};
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
    pub fn load(root: &Path) -> Result<Spec, SpecErrors> {
        let mut errors = Vec::new();
        let seeds = read_seeds(&root.join("seeds")).unwrap_or_else(|e| {
            errors.push(e);
            BTreeMap::new()
        });
        let seed_ids: BTreeSet<String> = seeds.keys().cloned().collect();

        let targets = load_checked(&root.join("targets.yaml"), &mut errors, validate::targets);
        let ledger: Option<Ledger> =
            load_checked(&root.join("errata.yaml"), &mut errors, |_| Vec::new());
        let errata_ids: BTreeSet<String> = ledger
            .iter()
            .flat_map(|l| l.errata.iter().map(|e| e.id.clone()))
            .collect();

        let mut instructions = Vec::new();
        let dir = root.join("instructions");
        match yaml_files(&dir) {
            Err(e) => errors.push(e),
            Ok(files) => {
                for path in files {
                    let Some(text) = read(&path, &mut errors) else {
                        continue;
                    };
                    match yaml::from_str::<Instruction>(&path, &text) {
                        Err(e) => errors.push(e),
                        Ok(instruction) => {
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
                        }
                    }
                }
            }
        }
        let mut names = BTreeSet::new();
        for f in &instructions {
            if !names.insert(f.instruction.instruction.as_str()) {
                let text = fs::read_to_string(&f.path).unwrap_or_default();
                let problem = (
                    "instruction".to_owned(),
                    format!("`{}` is defined by two files", f.instruction.instruction),
                );
                report(&f.path, &text, vec![problem], &mut errors);
            }
        }
        if let Some(ledger) = &ledger {
            let path = root.join("errata.yaml");
            let text = fs::read_to_string(&path).unwrap_or_default();
            report(
                &path,
                &text,
                validate::ledger(ledger, &names, &seed_ids),
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

    /// The instruction with this name (`red`, `match.sync`).
    pub fn instruction(&self, name: &str) -> Option<&Instruction> {
        self.instructions
            .iter()
            .map(|f| &f.instruction)
            .find(|i| i.instruction == name)
    }
}

fn read(path: &Path, errors: &mut Vec<SpecError>) -> Option<String> {
    fs::read_to_string(path)
        .map_err(|source| {
            errors.push(SpecError::Io {
                path: path.to_owned(),
                source,
            })
        })
        .ok()
}

fn load_checked<T: serde::de::DeserializeOwned>(
    path: &Path,
    errors: &mut Vec<SpecError>,
    check: impl Fn(&T) -> Vec<validate::Problem>,
) -> Option<T> {
    let text = read(path, errors)?;
    match yaml::from_str::<T>(path, &text) {
        Err(e) => {
            errors.push(e);
            None
        }
        Ok(v) => {
            let before = errors.len();
            report(path, &text, check(&v), errors);
            (errors.len() == before).then_some(v)
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

fn yaml_files(dir: &Path) -> Result<Vec<PathBuf>, SpecError> {
    let io = |source| SpecError::Io {
        path: dir.to_owned(),
        source,
    };
    let mut files = Vec::new();
    for entry in fs::read_dir(dir).map_err(io)? {
        let path = entry.map_err(io)?.path();
        if path.extension().is_some_and(|e| e == "yaml") {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

fn read_seeds(dir: &Path) -> Result<BTreeMap<String, Seed>, SpecError> {
    let io = |source| SpecError::Io {
        path: dir.to_owned(),
        source,
    };
    let mut seeds = BTreeMap::new();
    for entry in fs::read_dir(dir).map_err(io)? {
        let path = entry.map_err(io)?.path();
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
        let text = fs::read_to_string(&path).map_err(|source| SpecError::Io {
            path: path.clone(),
            source,
        })?;
        seeds.insert(
            id.to_owned(),
            Seed {
                id: id.to_owned(),
                file_name,
                text,
            },
        );
    }
    Ok(seeds)
}
