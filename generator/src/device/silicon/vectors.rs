//! `ptxvec silicon`: runs the semantic vectors on a GPU and records how silicon's
//! raw outputs compare with each profile, as `vectors.json` evidence that a machine
//! without a GPU replays (`replay`). Format and design: vectors/silicon/README.md.
//!
//! Each variant runs in a child process of its own (a kernel that faults leaves the
//! CUDA context unusable, and one that hangs is killed after [`CHILD_TIMEOUT`]).
//! The child runs the raw entry, whose bits the parent judges on the CPU, and the
//! check entry, whose on-device verdict must agree with the CPU's.

use std::path::{Path, PathBuf};
use std::time::Duration;

use std::io::Write;

use ptxvec_oracle::profile::Profile;
use ptxvec_spec::Spec;

use super::args::RunnerArgs;
use super::child::{hex, unhex};
use super::device::{Device, DeviceInfo};
use crate::error::{Context, Error, Outcome, Result};
use crate::io::output::note;
use crate::record::{Bits, Out};
use crate::device::selfcheck::emit::{self, Entries, RESULT_PER_PROFILE};
use crate::device::selfcheck::raw::{self, SlotBits};
use crate::device::selfcheck::{self, Suite, Window, FIRST_FAILS};

use super::evidence::{Header, Run, SlotReport};
pub use super::evidence::{FILE, FORMAT};
/// How long one variant's child may run.
pub const CHILD_TIMEOUT: Duration = Duration::from_secs(60);
/// ptx-isa mismatching slots kept per variant as examples (the rest are counted;
/// a replay recomputes them all from the rebuilt outputs).
pub const EXAMPLES: usize = 4;

/// Arguments of `ptxvec silicon`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Where the evidence (`vectors.json`) or the modules go; the child's variant.
    #[command(flatten)]
    pub runner: RunnerArgs,
    /// The variants run.
    #[command(flatten)]
    pub select: selfcheck::Selection,
    /// Also write each run's raw buffer here, named as `grade --raw` reads them
    /// (what `run-engine` on the same device must reproduce byte for byte).
    #[arg(long)]
    pub raw_out: Option<PathBuf>,
    /// With --child: the window a generic variant runs in.
    #[arg(long, value_enum, hide = true, default_value = "global")]
    pub window: Window,
    /// With --child: load this PTX file as the raw module instead of the generated
    /// one (to try a kernel by hand on the device).
    #[arg(long, hide = true, requires = "child")]
    pub module_file: Option<PathBuf>,
}

/// The variant `id` of the vectors folder, loaded; an id the index does not list is
/// a usage error.
pub fn find(spec: &Spec, vectors: &Path, id: &str) -> Result<Suite> {
    let idx = selfcheck::index(vectors)?;
    let entry = idx.iter().find(|e| e.variant == id).ok_or_else(|| {
        Error::Usage(format!(
            "unknown variant {id:?} ({} in {})",
            idx.len(),
            vectors.join("index.json").display()
        ))
    })?;
    selfcheck::load(spec, entry, vectors)
}

/// The `(.version, .target)` of the module that runs suite `id` on the device
/// `info` describes; a usage error where none does.
pub fn module_on(s: &Suite, info: &DeviceInfo, id: &str) -> Result<(String, String)> {
    s.module_for(info.cc)
        .ok_or_else(|| Error::Usage(format!("{id}: not for this device")))
}

/// What `ptxvec emit-ptx --variant ID` writes.
#[derive(Debug, Clone, Copy)]
pub struct VariantModule<'a> {
    /// The vectors folder (index.json, semantic/).
    pub vectors: &'a Path,
    /// The variant id.
    pub id: &'a str,
    /// Only the `ptxvec_raw` entry.
    pub raw_only: bool,
    /// Where a generic variant's address points.
    pub window: Window,
    /// The module's `.version`, if not the variant's own.
    pub ptx: Option<&'a str>,
    /// The module's `.target`, if not the variant's own.
    pub target: Option<&'a str>,
    /// Only these records (`3,5-9`, numbered as in the ids `<variant>#<n>`).
    pub records: Option<&'a str>,
}

/// `ptxvec emit-ptx --variant ID [--raw] [--window W]`: the module's text.
pub fn emit(spec: &Spec, req: VariantModule<'_>) -> Result<String> {
    let VariantModule {
        vectors,
        id,
        raw_only,
        window,
        ptx,
        target,
        records,
    } = req;
    let mut s = find(spec, vectors, id)?.in_window(window)?;
    if let Some(list) = records {
        s = s.subset(&selfcheck::subset::parse_records(list, s.records.len())?)?;
    }
    let (p, t) = s.default_module();
    // A module is lowered (or raised) only where the instructions allow it: the
    // records' requirement, which ptxas holds every variant's module to
    // (tests/silicon_vectors.rs).
    let (p, t) = (ptx.map_or(p, str::to_owned), target.map_or(t, str::to_owned));
    if !s.allows(&spec.targets, &p, &t) {
        if let Some((rv, rt)) = s.removal {
            let in_withdrawal = match (p.parse::<ptxvec_spec::PtxVersion>(), t.parse::<ptxvec_spec::Target>()) {
                (Ok(v), Ok(have)) => v >= rv && spec.targets.satisfies(have, rt),
                _ => false,
            };
            if in_withdrawal {
                let last = s.before_removal.as_ref().map_or(String::new(), |(bp, bt)| format!("; `.version {bp}` `.target {bt}` is its last module on that target"));
                return Err(Error::Usage(format!(
                    "{id}: `.version {p}` `.target {t}` is past its withdrawal (PTX ISA {rv} on .target {rt} and later): the module would not assemble{last}"
                )));
            }
        }
        let need: Vec<String> = s.requires.iter().map(|(p, t)| format!("{t} with PTX {p}")).collect();
        return Err(Error::Usage(format!(
            "{id}: `.version {p}` `.target {t}` is below what its records require ({}): the module would not assemble",
            need.join(" or ")
        )));
    }
    let entries = if raw_only {
        Entries::Raw
    } else {
        Entries::Both
    };
    Ok(emit::module(&s, &p, &t, entries))
}

/// Runs the subcommand, a table of the runs onto `out`: findings when a variant
/// failed on the device or silicon disagrees with sm_90.
pub fn run(args: &Args, spec: &Spec, spec_dir: Option<&Path>, out: &mut dyn Write) -> Result<Outcome> {
    if let Some(id) = &args.runner.child {
        return child(args, spec, id, out);
    }
    if let Some(dir) = &args.runner.emit_ptx {
        return emit_all(args, spec, dir);
    }
    let dev = Device::open()?;
    let info = dev.info()?;
    drop(dev);
    note(format_args!("silicon: {info}"));
    let idx = args.select.entries()?;
    let mut entries = Vec::new();
    let mut failed = false;
    writeln!(
        out,
        "{:<90} {:>5} {:>5} {:>8} {:>8} {:>6} {:>6}",
        "variant", "run", "skip", "ptx-isa", "sm_90", "!isa", "!sm90"
    )
    .map_err(Error::Stdout)?;
    for entry in &idx {
        let id = &entry.variant;
        let s = selfcheck::load(spec, entry, &args.select.vectors()?)?;
        let Some((p, t)) = s.module_for(info.cc) else {
            let need: Vec<String> = s
                .requires
                .iter()
                .map(|(p, t)| format!("{t} (PTX {p})"))
                .collect();
            writeln!(out, "{id:<90} not run: needs {}", need.join(" or "))
                .map_err(Error::Stdout)?;
            // One line per run it would have, each window of a generic variant
            // named, as `run-engine` lists them.
            for sw in s.runs() {
                entries.push(Run {
                    not_run: Some(format!("needs {}", need.join(" or "))),
                    window: sw.window().map(str::to_owned),
                    ..Run::of(id)
                });
            }
            continue;
        };
        // A variant stated with generic addressing runs in each of its windows: its
        // address into global and into shared memory, and spelled with each state
        // space (the hardware resolves a generic address at run time, and the
        // variant covers every space).
        for sw in s.runs() {
            let w = sw.window.unwrap_or(Window::Global);
            let label = match sw.window() {
                Some(x) => format!("{id} ({x})"),
                None => id.clone(),
            };
            let result = spawn(args, spec_dir, id, w)
                .and_then(|b| Ok((unhex(&b.raw)?, unhex(&b.check)?)));
            let (raw_bytes, check) = match result {
                Ok(x) => x,
                Err(e) => {
                    writeln!(out, "{label:<90} failed: {e}").map_err(Error::Stdout)?;
                    entries.push(Run {
                        error: Some(e.to_string()),
                        ptx: Some(p.clone()),
                        target: Some(t.clone()),
                        window: sw.window().map(str::to_owned),
                        ..Run::of(id)
                    });
                    failed = true;
                    continue;
                }
            };
            if let Some(dir) = &args.raw_out {
                let name = sw.raw_file(&crate::record::index::stem(id));
                crate::io::files::write_atomic(&dir.join(&name), &raw_bytes).map_err(|e| Error::io(&dir.join(&name), e))?;
            }
            let e = evaluate(&sw, &p, &t, &raw_bytes, &check);
            let agrees = e.selfcheck.as_deref() == Some(AGREES);
            writeln!(
                out,
                "{label:<90} {:>5} {:>5} {:>8} {:>8} {:>6} {:>6}{}",
                e.run.unwrap_or(0),
                e.skipped.unwrap_or(0),
                e.matched("ptx-isa"),
                e.matched("sm_90"),
                e.mismatched("ptx-isa"),
                e.mismatched("sm_90"),
                if agrees {
                    String::new()
                } else {
                    format!(
                        "  selfcheck: {}",
                        e.selfcheck.as_deref().unwrap_or_default()
                    )
                }
            )
            .map_err(Error::Stdout)?;
            if e.mismatched("sm_90") != 0 || !agrees {
                failed = true;
            }
            entries.push(e);
        }
    }
    let text = super::evidence::render(&Header::of(&info, FORMAT), &entries);
    let path = args.runner.out.join(FILE);
    crate::io::files::write_atomic(&path, text.as_bytes()).map_err(|e| Error::io(&path, e))?;
    note(format_args!(
        "silicon: {} variants -> {}",
        entries.len(),
        path.display()
    ));
    Ok(Outcome::findings_if(failed))
}

/// `--emit-ptx DIR`: every selected variant's module, both entries, at its own
/// `.version` and `.target`, one file per run (`<stem>.ptx`, or
/// `<stem>.<window>.ptx` for a variant run in windows), as `ptxvec emit-ptx
/// --variant` writes it.
fn emit_all(args: &Args, spec: &Spec, dir: &Path) -> Result<Outcome> {
    for entry in args.select.entries()? {
        let s = selfcheck::load(spec, &entry, &args.select.vectors()?)?;
        let stem = crate::record::index::stem(&entry.variant);
        for sw in s.runs() {
            let (p, t) = sw.default_module();
            let name = match sw.window() {
                Some(w) => format!("{stem}.{w}.ptx"),
                None => format!("{stem}.ptx"),
            };
            let path = dir.join(name);
            crate::io::files::write_atomic(&path, emit::module(&sw, &p, &t, Entries::Both).as_bytes())
                .map_err(|e| Error::io(&path, e))?;
        }
    }
    Ok(Outcome::Pass)
}

/// What a child hands back: the raw entry's buffer and the check entry's result,
/// in hex.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Buffers {
    raw: String,
    check: String,
}

fn child(args: &Args, spec: &Spec, id: &str, out: &mut dyn Write) -> Result<Outcome> {
    let buffers = (|| -> Result<Buffers> {
        let s = find(spec, &args.select.vectors()?, id)?.in_window(args.window)?;
        let dev = Device::open()?;
        let (p, t) = module_on(&s, &dev.info()?, id)?;
        let l = s.launch();
        let raw_module = match &args.module_file {
            Some(f) => std::fs::read_to_string(f).map_err(|e| Error::io(f, e))?,
            None => emit::module(&s, &p, &t, Entries::Raw),
        };
        let raw = dev
            .run_one(&raw_module, emit::RAW, (l.out_bytes, crate::device::selfcheck::raw::POISON), l.grid, l.block)
            .context(emit::RAW)?;
        let both = emit::module(&s, &p, &t, Entries::Both);
        let check = dev
            .run_one(&both, emit::CHECK, (l.result_bytes, 0), l.grid, l.block)
            .context(emit::CHECK)?;
        Ok(Buffers {
            raw: hex(&raw),
            check: hex(&check),
        })
    })();
    super::child::answer(buffers, out)
}

/// Runs one variant in `window` in a child process.
fn spawn(args: &Args, spec_dir: Option<&Path>, id: &str, window: Window) -> Result<Buffers> {
    let argv = super::child::variant_argv(
        spec_dir,
        &args.runner,
        "silicon",
        &args.select.vectors()?,
        id,
        ("--window", window.name()),
    );
    super::child::run(&argv, CHILD_TIMEOUT)
}

fn slot_key(s: &SlotBits) -> String {
    format!("{}[{}]", s.out.name(), s.slot)
}

fn width_of(s: &Suite, o: Out) -> u32 {
    s.outputs()
        .into_iter()
        .find(|(x, _)| *x == o)
        .map_or(32, |(_, w)| w)
}

/// The evidence entry of a variant from its raw buffer and check result.
pub fn evaluate(s: &Suite, p: &str, t: &str, raw_bytes: &[u8], check: &[u8]) -> Run {
    let vals = raw::decode(s, raw_bytes);
    let verdicts: Vec<raw::Tally> = Profile::ALL
        .iter()
        .map(|&pr| raw::judge(s, &vals, pr))
        .collect();
    let per_profile = |f: &dyn Fn(&raw::Tally) -> usize| {
        Profile::ALL
            .iter()
            .zip(&verdicts)
            .map(|(pr, v)| (pr.name().to_owned(), f(v)))
            .collect()
    };
    let detail = |p: Profile, limit: usize| -> Vec<SlotReport> {
        verdicts[raw::profile_index(p)]
            .slots
            .iter()
            .take(limit)
            .map(|d| {
                let rec = &s.records[d.record];
                SlotReport {
                    expected: s.slots(rec, p, d.out)[d.slot].clone(),
                    got: Bits::new(d.got, width_of(s, d.out)).to_string(),
                    id: rec.id.clone(),
                    out: slot_key(d),
                }
            })
            .collect()
    };
    let unpinned = raw::unpinned(s, &vals)
        .iter()
        .map(|u| {
            (
                s.records[u.record].id.clone(),
                slot_key(u),
                Bits::new(u.got, width_of(s, u.out)).to_string(),
            )
        })
        .collect();
    Run {
        matches: Some(per_profile(&|v| v.matches)),
        mismatches: Some(per_profile(&|v| v.mismatched.len())),
        ptx: Some(p.to_owned()),
        ptx_isa_examples: Some(detail(Profile::PtxIsa, EXAMPLES)),
        raw_sha256: Some(raw::digest(s, &vals)),
        records: Some(s.records.len()),
        run: Some(s.run_count()),
        selfcheck: Some(selfcheck_agrees(&verdicts, check)),
        skipped: Some(s.records.len() - s.run_count()),
        sm_90_mismatches: Some(detail(Profile::Sm90, usize::MAX)),
        target: Some(t.to_owned()),
        unpinned: Some(unpinned),
        window: s.window().map(str::to_owned),
        ..Run::of(&s.id)
    }
}

/// The self-check's word when the device counted as the CPU did.
pub const AGREES: &str = "agrees";

/// "agrees" when the device's pass/fail counts and first failures equal the CPU's.
fn selfcheck_agrees(verdicts: &[raw::Tally], check: &[u8]) -> String {
    let word = |i: usize| -> u32 {
        check
            .get(4 * i..4 * i + 4)
            .map_or(u32::MAX, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let mut diffs = Vec::new();
    for (pi, v) in verdicts.iter().enumerate() {
        let base = pi * RESULT_PER_PROFILE / 4;
        let (pass, fail) = (word(base), word(base + 1));
        let first: Vec<u32> = (0..FIRST_FAILS)
            .map(|i| word(base + 2 + i))
            .take_while(|x| *x != u32::MAX)
            .collect();
        let want: Vec<u32> = v
            .mismatched
            .iter()
            .take(FIRST_FAILS)
            .map(|r| *r as u32)
            .collect();
        if pass as usize != v.matches || fail as usize != v.mismatched.len() || first != want {
            diffs.push(format!(
                "{}: device pass {pass} fail {fail} first {first:?}, cpu pass {} fail {} first {want:?}",
                Profile::ALL[pi].name(),
                v.matches,
                v.mismatched.len()
            ));
        }
    }
    if diffs.is_empty() {
        AGREES.to_owned()
    } else {
        diffs.join("; ")
    }
}

/// What a replay of one evidence entry found: problems, one line each.
pub fn replay(entry: &Run, s: &Suite) -> Vec<String> {
    let mut problems = Vec::new();
    let id = &s.id;
    let mut kept = Vec::new();
    for (rid, key, got) in entry.unpinned.iter().flatten() {
        let parsed = (|| -> Option<SlotBits> {
            let record = s.records.iter().position(|r| r.id == *rid)?;
            let (o, k) = key.strip_suffix(']')?.split_once('[')?;
            let out = [Out::Mem, Out::D, Out::P]
                .into_iter()
                .find(|x| x.name() == o)?;
            Some(SlotBits {
                record,
                out,
                slot: k.parse().ok()?,
                got: Bits::parse(got).ok()?.value,
            })
        })();
        match parsed {
            Some(b) => kept.push(b),
            None => problems.push(format!(
                "{id}: unpinned entry ({rid}, {key}, {got}) names no slot of the vectors"
            )),
        }
    }
    let vals = match raw::rebuild(s, &kept) {
        Ok(v) => v,
        Err(e) => {
            problems.push(format!("{id}: {e}"));
            return problems;
        }
    };
    let digest = raw::digest(s, &vals);
    if entry.raw_sha256.as_deref() != Some(digest.as_str()) {
        problems.push(format!(
            "{id}: the sm_90 expectations no longer rebuild silicon's outputs (digest {digest}, silicon {:?}): an oracle or vector change broke agreement with silicon, or the vectors changed and silicon must run again",
            entry.raw_sha256
        ));
    }
    if entry.run != Some(s.run_count()) {
        problems.push(format!(
            "{id}: {:?} records run on silicon, the vectors run {}",
            entry.run,
            s.run_count()
        ));
    }
    for &p in Profile::ALL {
        let v = raw::judge(s, &vals, p);
        if entry.matched(p.name()) != v.matches {
            problems.push(format!(
                "{id}: {} matches {} records of silicon now, {} when recorded",
                p.name(),
                v.matches,
                entry.matched(p.name())
            ));
        }
    }
    problems
}
