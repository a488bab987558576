//! `ptxvec silicon-probe`: targeted runs that ask silicon about one finding of the
//! errata ledger each, through variations of the self-checking modules
//! (`crate::device::selfcheck::emit::Variation`), and record what it did as evidence that a
//! machine without a GPU replays. Format and design: vectors/silicon/README.md,
//! "Probes".
//!
//! - [`cluster`] (E025): every `.shared::cluster` bulk reduce in an entry without
//!   cluster dimensions, and in one declared a cluster of one.
//! - [`nan`] (E026): the f32 and f64 adds of `red` and the bulk reduce on pairs of
//!   NaNs, each `red` with its operand in two registers.
//!
//! Each module runs in a child process of its own ([`super::child`]): a kernel that
//! faults leaves the CUDA context unusable, and the fault is what is recorded.

pub mod cluster;
pub mod nan;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use ptxvec_spec::Spec;
use serde::{Deserialize, Serialize};

use super::args::RunnerArgs;
use super::child::hex;
pub use super::child::unhex;
use super::device::{Device, DeviceError};
use super::evidence::Run;
use crate::error::{Error, Outcome, Result};
use crate::io::output::note;
use crate::device::selfcheck::emit::{
    module_varied, ClusterLayout, Entries, OperandPath, Variation, CHECK, RAW,
};
use crate::device::selfcheck::Suite;

/// How long one module's child may run.
pub const CHILD_TIMEOUT: Duration = Duration::from_secs(60);

/// Arguments of `ptxvec silicon-probe`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Where the evidence (`cluster-probe.json`, `nan-probe.json`) or the modules
    /// go; the child's variant.
    #[command(flatten)]
    pub runner: RunnerArgs,
    /// The vectors folder (index.json, semantic/); default: ./vectors if it holds
    /// index.json, else the checkout's the binary was built from.
    #[arg(long)]
    pub vectors: Option<PathBuf>,
    /// Only these probes (every probe by default).
    #[arg(long = "probe", value_enum)]
    pub probes: Vec<Probe>,
    /// With --child (which it needs): which module of the variant.
    #[arg(long, value_enum, hide = true, requires = "child")]
    pub shape: Option<Shape>,
}

impl Args {
    /// The vectors folder: the one named, or the one found
    /// ([`crate::io::vectors_dir::resolve`]).
    pub fn vectors(&self) -> Result<PathBuf> {
        crate::io::vectors_dir::resolve(self.vectors.as_deref())
    }
}

/// A probe, by the finding it asks about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Probe {
    /// E025: the `.shared::cluster` bulk reduce without cluster dimensions.
    Cluster,
    /// E026: the NaN an f32 or f64 add of two NaNs gives.
    Nan,
}

impl Probe {
    /// Every probe, in the order they run.
    pub const ALL: [Probe; 2] = [Probe::Cluster, Probe::Nan];
}

/// One module a probe runs: which records, in which variation of the
/// self-checking module, and whether its check entry runs too.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Shape {
    /// The variant's vectors, each CTA reducing into its own shared memory, in an
    /// entry without cluster dimensions; both entries.
    #[value(name = "no-cluster-dims")]
    NoClusterDims,
    /// The same, the entry declaring a cluster of one (`.reqnctapercluster 1, 1, 1`).
    #[value(name = "reqnctapercluster-1")]
    ClusterOfOne,
    /// The NaN probe's pairs, the operand as loaded; the raw entry.
    #[value(name = "nan-loaded")]
    NanLoaded,
    /// The NaN probe's pairs, the operand relaid through other registers.
    #[value(name = "nan-relaid")]
    NanRelaid,
}

impl Shape {
    /// Its name on the command line, in file names and in the evidence.
    pub fn name(self) -> &'static str {
        match self {
            Shape::NoClusterDims => "no-cluster-dims",
            Shape::ClusterOfOne => "reqnctapercluster-1",
            Shape::NanLoaded => "nan-loaded",
            Shape::NanRelaid => "nan-relaid",
        }
    }

    /// The variation of the self-checking module it runs.
    pub fn variation(self) -> Variation {
        match self {
            Shape::NoClusterDims => Variation {
                cluster: ClusterLayout::Alone { dims: false },
                ..Variation::default()
            },
            Shape::ClusterOfOne => Variation {
                cluster: ClusterLayout::Alone { dims: true },
                ..Variation::default()
            },
            Shape::NanLoaded => Variation::default(),
            Shape::NanRelaid => Variation {
                operand: OperandPath::Relaid,
                ..Variation::default()
            },
        }
    }

    /// The records it runs: the variant's vectors, or the NaN probe's pairs.
    pub fn suite(self, spec: &Spec, vectors: &Path, id: &str) -> Result<Suite> {
        let s = super::vectors::find(spec, vectors, id)?;
        match self {
            Shape::NoClusterDims | Shape::ClusterOfOne => Ok(s),
            Shape::NanLoaded | Shape::NanRelaid => nan::suite(s),
        }
    }

    /// Whether the check entry runs after the raw one (its verdict is compared with
    /// the CPU's judgement of the raw bits).
    fn checks(self) -> bool {
        matches!(self, Shape::NoClusterDims | Shape::ClusterOfOne)
    }

    /// The entries its module holds.
    fn entries(self) -> Entries {
        if self.checks() {
            Entries::Both
        } else {
            Entries::Raw
        }
    }
}

/// Where the driver refused a module or a launch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fault {
    /// The entry that was run (`ptxvec_raw`, `ptxvec_check`).
    pub entry: String,
    /// The driver's error, by name: `CUDA_ERROR_ILLEGAL_INSTRUCTION`.
    pub error: String,
    /// The step that got it: `loading the module`, `running the kernel`.
    pub step: String,
}

/// What a child hands back: the buffers of the entries that ran (hex), or the
/// fault that stopped them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Attempt {
    /// Every entry ran: the raw buffer, and the check entry's when it ran.
    Ran {
        /// `ptxvec_raw`'s buffer.
        raw: String,
        /// `ptxvec_check`'s result.
        check: Option<String>,
    },
    /// The driver refused.
    Faulted(Fault),
}

/// What a run of a module did, as the evidence records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Observed {
    /// The driver refused the module or a launch.
    Faulted(Fault),
    /// It ran: the raw outputs judged as `ptxvec silicon` judges a variant.
    Ran(Box<Run>),
    /// The child gave no answer (it timed out, or crashed): why.
    Failed(String),
}

/// Runs the subcommand: each probe asked for, writing its evidence file; findings
/// where silicon differs from the sm_90 profile.
pub fn run(args: &Args, spec: &Spec, spec_dir: Option<&Path>, out: &mut dyn Write) -> Result<Outcome> {
    if let Some(id) = &args.runner.child {
        let shape = args
            .shape
            .ok_or_else(|| Error::Usage("--child needs --shape".into()))?;
        return child(args, spec, id, shape, out);
    }
    let probes = if args.probes.is_empty() {
        Probe::ALL.to_vec()
    } else {
        args.probes.clone()
    };
    if let Some(dir) = &args.runner.emit_ptx {
        for p in &probes {
            for (s, shape) in modules(*p, spec, &args.vectors()?)? {
                let path = dir.join(format!("{}.{}.ptx", s.id.replace("::", "_"), shape.name()));
                let text = module_text(&s, shape);
                crate::io::files::write_atomic(&path, text.as_bytes())
                    .map_err(|e| Error::io(&path, e))?;
            }
        }
        return Ok(Outcome::Pass);
    }
    let dev = Device::open()?;
    let info = dev.info()?;
    drop(dev);
    note(format_args!("silicon-probe: {info}"));
    let mut findings = false;
    for p in probes {
        findings |= match p {
            Probe::Cluster => cluster::run(args, spec, spec_dir, &info, out)?,
            Probe::Nan => nan::run(args, spec, spec_dir, &info, out)?,
        };
    }
    Ok(Outcome::findings_if(findings))
}

/// The modules a probe runs: each suite with a shape it runs in, in the order
/// they run.
pub fn modules(p: Probe, spec: &Spec, vectors: &Path) -> Result<Vec<(Suite, Shape)>> {
    let mut v = Vec::new();
    match p {
        Probe::Cluster => {
            for s in cluster::variants(spec, vectors)? {
                for shape in cluster::SHAPES {
                    v.push((s.clone(), shape));
                }
            }
        }
        Probe::Nan => {
            for (id, shapes) in nan::plan() {
                for shape in shapes {
                    v.push((shape.suite(spec, vectors, id)?, shape));
                }
            }
        }
    }
    Ok(v)
}

/// The PTX of `s` in `shape`, for sm_90 (`--emit-ptx` writes it; the device
/// loads the same text with the device's own target).
pub fn module_text(s: &Suite, shape: Shape) -> String {
    let (p, t) = s.default_module();
    module_varied(s, &p, &t, shape.entries(), shape.variation())
}

/// A refusal of the driver as a fault of `entry`; any other error stays one.
fn fault(e: DeviceError, entry: &str) -> Result<Attempt> {
    match e.driver_code() {
        Some((error, step)) => Ok(Attempt::Faulted(Fault {
            entry: entry.to_owned(),
            error,
            step: step.to_owned(),
        })),
        None => Err(e.into()),
    }
}

fn child(args: &Args, spec: &Spec, id: &str, shape: Shape, out: &mut dyn Write) -> Result<Outcome> {
    let attempt = (|| -> Result<Attempt> {
        let s = shape.suite(spec, &args.vectors()?, id)?;
        let dev = Device::open()?;
        let (p, t) = super::vectors::module_on(&s, &dev.info()?, id)?;
        let l = s.launch();
        let v = shape.variation();
        let raw_module = module_varied(&s, &p, &t, Entries::Raw, v);
        let raw = match dev.run_one(&raw_module, RAW, (l.out_bytes, crate::device::selfcheck::raw::POISON), l.grid, l.block) {
            Ok(b) => b,
            Err(e) => return fault(e, RAW),
        };
        let check = if shape.checks() {
            let both = module_varied(&s, &p, &t, Entries::Both, v);
            match dev.run_one(&both, CHECK, (l.result_bytes, 0), l.grid, l.block) {
                Ok(b) => Some(hex(&b)),
                Err(e) => return fault(e, CHECK),
            }
        } else {
            None
        };
        Ok(Attempt::Ran {
            raw: hex(&raw),
            check,
        })
    })();
    super::child::answer(attempt, out)
}

/// Runs `id` in `shape` in a child process: what happened, or why the child gave
/// no answer.
pub fn attempt(
    args: &Args,
    spec_dir: Option<&Path>,
    id: &str,
    shape: Shape,
) -> std::result::Result<Attempt, String> {
    let argv = super::child::variant_argv(
        spec_dir,
        &args.runner,
        "silicon-probe",
        &args.vectors().map_err(|e| e.to_string())?,
        id,
        ("--shape", shape.name()),
    );
    super::child::run(&argv, CHILD_TIMEOUT).map_err(|e| e.to_string())
}
