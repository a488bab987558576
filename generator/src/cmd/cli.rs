//! Argument parsing and dispatch. Errors are printed once, here, at the edge, and
//! exit statuses are decided here alone: 0 pass, 1 findings, 2 any error, and 3
//! for check-syntax's "not covered".

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use ptxvec_oracle::profile::Profile;

use crate::error::{Error, Outcome, Result};

/// Turns the PTX ISA's syntax tables into conformance test vectors.
#[derive(Debug, Parser)]
#[command(name = "ptxvec", version, about)]
pub struct Cli {
    /// A spec folder (instructions/, targets.yaml, errata.yaml, seeds/) to read
    /// instead of the spec built into the binary (the repository's spec/ when it
    /// was built).
    #[arg(long, global = true)]
    pub spec: Option<PathBuf>,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List what the spec encodes: each instruction, its forms, qualifier and spelling counts.
    Spec,
    /// Write the vector files: vectors/syntax/<instruction>.jsonl,
    /// vectors/semantic/<variant>.jsonl.gz and vectors/index.json.
    Generate {
        /// The vectors folder.
        #[arg(long, default_value = "vectors")]
        out: PathBuf,
        /// Only these instructions (by name: red, match.sync, ...): their syntax files
        /// and semantic variants; index.json keeps the other variants' rows.
        #[arg(long = "instruction")]
        instructions: Vec<String>,
        /// Only these semantic variants (by id, `red.global.add.f32`, or instruction);
        /// index.json keeps the other variants' rows.
        #[arg(long = "variant")]
        variants: Vec<String>,
        /// The seed of the random inputs (recorded in every record and the index).
        #[arg(long, default_value_t = crate::vectors::semantic::DEFAULT_SEED)]
        seed: u64,
        /// Random input pairs per binary variant, beyond the catalog's cross product.
        #[arg(long, default_value_t = crate::vectors::semantic::DEFAULT_COUNT)]
        count: usize,
    },
    /// Evaluate records of the vector input format (JSON Lines with `text` and
    /// `inputs`): write each back with `expect` for the chosen profiles.
    Eval {
        /// The records: a file, or `-` for stdin.
        #[arg(default_value = "-")]
        input: PathBuf,
        /// The profile to expect under.
        #[arg(long, value_enum, default_value = "all")]
        profile: ProfileChoice,
        /// Evaluate a text that check-syntax refuses (its operands are then read as
        /// far as they go).
        #[arg(long)]
        force: bool,
    },
    /// Judge an instruction text in a module: exit 0 legal, 1 illegal, 2 usage error,
    /// 3 not covered (an instruction statement of an instruction ptxvec does not
    /// cover, which it neither accepts nor refuses). With `-`, read JSON Lines
    /// `{"text", "ptx", "target"}` from stdin and answer one JSON line each (`"kind":
    /// "not_covered"` and `"legal": null` for such a statement).
    CheckSyntax(crate::cmd::check_syntax::Args),
    /// Judge every covered instruction of whole PTX modules at each module's own
    /// `.version` and `.target`: one line per illegal one (`file:line:col: illegal:
    /// rule: message`), or one JSON document with --json. Exit 0 all legal, 1 an
    /// illegal one, 2 a file that is not a PTX module.
    Lint(crate::lint::Args),
    /// Wrap an instruction text in a minimal complete PTX module and print it; with
    /// `--variant`, write the self-checking module of a semantic variant instead.
    EmitPtx {
        /// The instruction text, or a case id from vectors/syntax.
        #[arg(required_unless_present = "variant")]
        text: Option<String>,
        /// A semantic variant id (`red.global.add.f32`): its self-checking module
        /// (entries ptxvec_check and ptxvec_raw; vectors/silicon/README.md).
        #[arg(long, conflicts_with = "text")]
        variant: Option<String>,
        /// With --variant: only the ptxvec_raw entry, no expectations.
        #[arg(long, requires = "variant")]
        raw: bool,
        /// With --variant, for a `red` stated with generic addressing: where its
        /// generic address points (global, shared), or the same vectors spelled with
        /// that state space (global-space, shared-space).
        #[arg(long, value_enum, default_value = "global", requires = "variant")]
        window: crate::device::selfcheck::Window,
        /// With --variant: only these records (`5`, `3,5-9`), numbered as in the
        /// ids `<variant>#<n>`; the k-th picked sits where record k would.
        #[arg(long, requires = "variant")]
        records: Option<String>,
        /// Write the module here rather than to stdout.
        #[arg(long)]
        out: Option<PathBuf>,
        /// With --variant: the vectors folder (index.json, semantic/); default:
        /// ./vectors if it holds index.json, else the checkout's the binary was built from.
        #[arg(long)]
        vectors: Option<PathBuf>,
        /// The module's `.version` (default: the case's).
        #[arg(long)]
        ptx: Option<String>,
        /// The module's `.target` (default: the case's).
        #[arg(long)]
        target: Option<String>,
        /// Emit a text the syntax judge finds malformed (one that stays inside the
        /// entry: no line break, no `;` before its end, braces one level deep).
        #[arg(long, conflicts_with = "variant")]
        force: bool,
    },
    /// Run the ptxas differential and print, per instruction, cases by verdict,
    /// agreement with ptxas, and the ledger entries. Exit 1 on an unexplained disagreement.
    AuditSyntax(crate::ptxas::audit::Args),
    /// Run every semantic variant the GPU can execute, compare its raw outputs with
    /// each profile, and write vectors.json evidence. Exit 2 without a GPU.
    Silicon(crate::device::silicon::vectors::Args),
    /// Run the semantic vectors on any CUDA engine through a runner program
    /// (runner/README.md): raw buffers for `grade --raw`, and runs.json. A record
    /// that crashes the engine is found by bisecting and recorded; the rest still
    /// run. Exit 1 when a record crashed or the engine could not load a module.
    RunEngine(crate::device::engine::Args),
    /// Run the litmus tests on any CUDA engine through a runner program
    /// (runner/README.md), one module per test: litmus-results.jsonl for `grade
    /// --litmus`, and litmus-runs.json (the tests not run, by reason). Exit 1 when a
    /// test did not run or an instance did not report.
    LitmusEngine(crate::device::engine::litmus::Args),
    /// Merge the folders of several run-engine calls (one per variant or group)
    /// into one, as one call over all their variants would have written it: the
    /// raw buffers, and runs.json in index order. Exit 2 when two folders hold the
    /// same run with different results, or name different engines without --engine.
    MergeRuns(crate::device::engine::merge::Args),
    /// Run every (memory, operand) pair of the 16-bit memory reductions on a GPU and
    /// write block digests to sweeps.json, with the pairs that differ from the sm_90
    /// oracle. Exit 2 without a GPU, 1 on a difference.
    SiliconSweep(crate::sweep::gpu::Args),
    /// Run the f32 and f64 adds of red and cp.reduce.async.bulk over structured sets
    /// of pairs (2^36 per f32 instruction, 2^32 per f64) on a GPU and write block
    /// digests to wide-sweeps.json, with the pairs that differ from the sm_90 oracle.
    /// Exit 2 without a GPU, 1 on a difference.
    SiliconSweepWide(crate::sweep::gpu::Args),
    /// Run the probes behind findings of the errata ledger on a GPU (`--probe
    /// cluster`: E025, the `.shared::cluster` bulk reduce without cluster
    /// dimensions; `--probe nan`: E026, the NaN of an f32/f64 add of NaNs) and write
    /// their evidence files. Exit 2 without a GPU, 1 where silicon differs from sm_90.
    SiliconProbe(crate::device::silicon::probe::Args),
    /// Run litmus tests of the memory model on a GPU, many instances a launch under
    /// memory stress and thread shuffling, and write each test's outcome histogram,
    /// judged by the oracle, to litmus.json. Exit 2 without a GPU, 1 where silicon
    /// showed a forbidden outcome the errata ledger does not explain.
    SiliconLitmus(crate::device::silicon::litmus::Args),
    /// Grade a consumer's results against the vectors (syntax results, semantic
    /// results, raw buffers): exit 0 all pass, 1 failures, 2 bad input.
    Grade(crate::grade::Args),
    /// Read the litmus tests of clients/compilers/ back from each recorded compiler's
    /// modules (vectors/clients/<compiler>/), judge them with the PTX memory model,
    /// and write each compiler's litmus.json: per test, the outcome the source
    /// language forbids and whether the compiled PTX allows it. Exit 1 on such a
    /// finding that spec/errata.yaml does not list (or, with --check, a stale report).
    LitmusCompiled(crate::compiled_litmus::Args),
    /// List every element of the spec with the vectors that witness it, and the
    /// defect class × form matrix; `--mutants` adds mutation adequacy. Exit 1 on a hole.
    Coverage(crate::coverage::Args),
    /// Time the main job's stages (syntax cases, semantic records, a full generate
    /// into a scratch folder): minimum and median of several runs; then the batch
    /// commands (`check-syntax -`, `eval`) on distinct lines, against serde_json's
    /// bare parse of the same lines; with `--sweep-runs`, every 16-bit sweep at every
    /// ISA level against the digest floor.
    Bench {
        /// Runs of each stage.
        #[arg(long, default_value_t = 5)]
        runs: usize,
        /// Where the full generate writes (default: a folder under the system's temp).
        #[arg(long)]
        scratch: Option<PathBuf>,
        /// Runs of each 16-bit sweep stage: every sweep and the digest floor at every
        /// ISA level this CPU has (`PTXVEC_SWEEP_LEVEL`: that one only), each a whole
        /// 2^32-pair sweep, about a second at the best level. 0 (the default) skips them.
        #[arg(long, default_value_t = 0)]
        sweep_runs: usize,
        /// Also write the tables, with this machine (CPU model, cores, SIMD level)
        /// and this command line, between the `<!-- bench -->` and `<!-- /bench -->`
        /// lines of this file (docs/bench.md); a missing file is created.
        #[arg(long, value_name = "FILE")]
        record: Option<PathBuf>,
    },
}

/// `eval --profile`: one of the oracle's profiles, or all of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ProfileChoice {
    /// What the document promises.
    #[value(name = "ptx-isa")]
    PtxIsa,
    /// What sm_90 silicon does.
    #[value(name = "sm_90")]
    Sm90,
    /// Both.
    All,
}

impl ProfileChoice {
    /// The profiles chosen, in [`Profile::ALL`] order.
    pub fn profiles(self) -> Vec<Profile> {
        match self {
            ProfileChoice::PtxIsa => vec![Profile::PtxIsa],
            ProfileChoice::Sm90 => vec![Profile::Sm90],
            ProfileChoice::All => Profile::ALL.to_vec(),
        }
    }
}

/// Exit status of a command that ran and found something (an illegal text, an
/// unexplained disagreement, silicon that does not match).
pub const EXIT_FINDINGS: u8 = 1;
/// Exit status for bad input or bad usage, and any other error.
pub const EXIT_ERROR: u8 = 2;
/// Exit status of check-syntax on one text that is an instruction statement no
/// covered instruction reads: neither legal (0) nor illegal (1).
pub const EXIT_NOT_COVERED: u8 = 3;

/// Parses the command line, runs it, and turns the outcome into an exit code: the
/// one place that decides them.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    // The flush at the end can fail too; the first error is the one reported.
    let result = crate::io::output::Stdout::open().and_then(|mut out| {
        let outcome = run(&cli, &mut out);
        let flushed = out.finish();
        outcome.and_then(|o| flushed.map(|()| o))
    });
    match result {
        Ok(Outcome::Pass) => ExitCode::SUCCESS,
        Ok(Outcome::Findings) => ExitCode::from(EXIT_FINDINGS),
        Ok(Outcome::NotCovered) => ExitCode::from(EXIT_NOT_COVERED),
        Err(e) => {
            // Nothing is left to do if stderr fails too; eprintln! would panic.
            let _ = writeln!(std::io::stderr(), "{}", e.report());
            ExitCode::from(EXIT_ERROR)
        }
    }
}

fn run(cli: &Cli, stdout: &mut crate::io::output::Stdout) -> Result<Outcome> {
    use crate::io::output::write_error;
    // Needs no spec: it runs where only the binary was copied.
    match &cli.command {
        Command::SiliconSweep(args) => return crate::sweep::gpu::run::<crate::sweep::gpu::bits16::Command>(args),
        Command::SiliconSweepWide(args) => return crate::sweep::gpu::run::<crate::sweep::gpu::wide::Command>(args),
        Command::MergeRuns(args) => return crate::device::engine::merge::run(args, stdout),
        _ => {}
    }
    let spec = match &cli.spec {
        Some(dir) => ptxvec_spec::Spec::load(dir)?,
        None => ptxvec_spec::Spec::embedded()?,
    };
    match &cli.command {
        Command::Spec => {
            write!(stdout, "{}", crate::cmd::spec_summary::render(&spec)).map_err(write_error)?;
            Ok(Outcome::Pass)
        }
        Command::Generate { out, instructions, variants, seed, count } => {
            let req = crate::vectors::generate::Request { instructions, variants, seed: *seed, count: *count };
            crate::vectors::generate::run(&spec, out, &req, stdout)?;
            Ok(Outcome::Pass)
        }
        Command::Eval { input, profile, force } => {
            let profiles = profile.profiles();
            if input.as_os_str() == "-" {
                crate::vectors::semantic::eval::run(&spec, "<stdin>", std::io::stdin(), stdout, &profiles, *force)
            } else {
                let f = std::fs::File::open(input).map_err(|e| Error::io(input, e))?;
                crate::vectors::semantic::eval::run(&spec, &input.display().to_string(), std::io::BufReader::new(f), stdout, &profiles, *force)
            }
        }
        Command::CheckSyntax(args) => crate::cmd::check_syntax::run(&spec, args, stdout),
        Command::Lint(args) => crate::lint::run(&spec, args, stdout),
        Command::EmitPtx { variant: Some(id), raw, window, records, out, vectors, ptx, target, .. } => {
            let vectors = crate::io::vectors_dir::resolve(vectors.as_deref())?;
            let req = crate::device::silicon::vectors::VariantModule {
                vectors: &vectors,
                id,
                raw_only: *raw,
                window: *window,
                ptx: ptx.as_deref(),
                target: target.as_deref(),
                records: records.as_deref(),
            };
            let module = crate::device::silicon::vectors::emit(&spec, req)?;
            write_module(stdout, out.as_deref(), &module)
        }
        Command::EmitPtx { text, ptx, target, out, force, .. } => {
            let module = crate::cmd::check_syntax::emit(&spec, text.as_deref().unwrap_or_default(), ptx.as_deref(), target.as_deref(), *force)?;
            write_module(stdout, out.as_deref(), &module)
        }
        Command::AuditSyntax(args) if args.explore.explore.is_some() => {
            let n = args.explore.explore.unwrap_or(0);
            let tools = if args.explore.offline || args.explore.requests {
                crate::ptxas::offline_tools(&spec)?
            } else {
                crate::ptxas::audit::tools(&spec, args)?
            };
            if args.explore.requests {
                crate::ptxas::explore::requests(&spec, &tools, (n, args.explore.seed, args.explore.as_of(&spec)?), stdout)?;
                return Ok(Outcome::Pass);
            }
            let e = crate::ptxas::explore::explore(&spec, &tools, &args.explore, n, args.jobs)?;
            write!(stdout, "{}", e.report).map_err(write_error)?;
            Ok(Outcome::findings_if(!e.unexplained.is_empty()))
        }
        Command::AuditSyntax(args) => {
            let tools = crate::ptxas::audit::tools(&spec, args)?;
            let a = crate::ptxas::audit::audit(&spec, &tools, args.jobs, &args.instructions)?;
            write!(stdout, "{}", a.report).map_err(write_error)?;
            if let Some(dir) = &args.results {
                let (path, n) = crate::ptxas::audit::write_results(&spec, &a.findings, dir)?;
                writeln!(stdout, "results: {} ({n} cases)", path.display()).map_err(write_error)?;
            }
            Ok(Outcome::findings_if(!a.unexplained.is_empty() || !a.stale.is_empty()))
        }
        Command::Silicon(args) => crate::device::silicon::vectors::run(args, &spec, cli.spec.as_deref(), stdout),
        Command::RunEngine(args) => crate::device::engine::run(args, &spec, stdout),
        Command::LitmusEngine(args) => crate::device::engine::litmus::run(args, stdout),
        Command::MergeRuns(args) => crate::device::engine::merge::run(args, stdout),
        Command::SiliconSweep(args) => crate::sweep::gpu::run::<crate::sweep::gpu::bits16::Command>(args),
        Command::SiliconSweepWide(args) => crate::sweep::gpu::run::<crate::sweep::gpu::wide::Command>(args),
        Command::SiliconProbe(args) => crate::device::silicon::probe::run(args, &spec, cli.spec.as_deref(), stdout),
        Command::SiliconLitmus(args) => {
            crate::device::silicon::litmus::run(args, &spec, &crate::device::silicon::litmus::cases()?, stdout)
        }
        Command::Grade(args) => crate::grade::run(&spec, args, stdout),
        Command::LitmusCompiled(args) => crate::compiled_litmus::run(&spec, args, stdout),
        Command::Coverage(args) => crate::coverage::run(&spec, args, stdout),
        Command::Bench {
            runs,
            scratch,
            sweep_runs,
            record,
        } => {
            if let Some(path) = record {
                crate::cmd::bench::record::check(path)?;
            }
            let dir = scratch.clone().unwrap_or_else(|| std::env::temp_dir().join(format!("ptxvec-bench-{}", std::process::id())));
            let mut tee = crate::cmd::bench::record::Tee { out: stdout, kept: Vec::new() };
            let result = crate::cmd::bench::run(&spec, *runs, *sweep_runs, &dir, &mut tee);
            if scratch.is_none() {
                let _ = std::fs::remove_dir_all(&dir);
            }
            result?;
            if let Some(path) = record {
                write_record(path, *sweep_runs, &tee.kept)?;
            }
            Ok(Outcome::Pass)
        }
    }
}

/// `bench --record`: the tables a run printed, with this machine and the command
/// line that ran, into the record's marked section.
fn write_record(path: &std::path::Path, sweep_runs: usize, tables: &[u8]) -> Result<()> {
    use crate::cmd::bench::record;
    let levels = if sweep_runs > 0 {
        crate::sweep::bench::levels()?
    } else {
        vec![crate::sweep::level::Level::from_env().map_err(|e| Error::Usage(e.to_string()))?]
    };
    let machine = record::Machine::here(levels.iter().map(|l| l.name().to_owned()).collect());
    let command = record::command_line(&std::env::args().collect::<Vec<_>>());
    let section = record::section(&machine, &command, &String::from_utf8_lossy(tables));
    record::write(path, &section)
}

/// `emit-ptx`'s module to `--out`, else to stdout.
fn write_module(stdout: &mut crate::io::output::Stdout, out: Option<&std::path::Path>, module: &str) -> Result<Outcome> {
    match out {
        Some(path) => crate::io::files::write_atomic(path, module.as_bytes()).map_err(|e| Error::io(path, e))?,
        None => write!(stdout, "{module}").map_err(crate::io::output::write_error)?,
    }
    Ok(Outcome::Pass)
}
