//! `ptxvec audit-syntax --explore N --seed S`: the differential on texts the
//! generator never made. N seeded random walks from the legal spellings
//! ([`walk`]), each judged at a (version, target) pair by ptxas and by
//! `check-syntax`; every disagreement the errata ledger does not predict is
//! reported by class, and makes the run exit 1.
//!
//! What ptxas said is kept in a verdict cache ([`cache`], committed as
//! `explore/ptxas-verdicts.txt`), so that a rerun of a recorded
//! exploration asks ptxas nothing (`--offline` asks it nothing at all).

pub mod cache;
pub mod walk;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use ptxvec_spec::{Qualifier, Spec};

use crate::ptxas::differential::{self, Check};
use crate::error::{Error, Result};
use crate::ptxas::Ptxas;
use crate::syntax::case::Case;
use crate::syntax::context::{self, Module};
use crate::syntax::departure::{self, Prediction};
use crate::syntax::judge::{Judgement, Order};
use crate::syntax::definition::judge;
use crate::syntax::vectors;

use self::cache::{Cache, Kept};
use self::walk::{Step, Walked};

/// The committed verdict cache, relative to the repository.
pub const DEFAULT_CACHE: &str = "explore/ptxas-verdicts.txt";
/// A recorded exploration (explore/README.md), with its verdicts in the committed
/// cache.
#[derive(Debug, Clone, Copy)]
pub struct Recorded {
    /// The walks' seed.
    pub seed: u64,
    /// How many texts.
    pub n: usize,
    /// The newest instruction it walks: it walks the instructions of [`ADDED`] up
    /// to this one, those the spec had when it was recorded, so that an instruction
    /// added later changes none of its texts (`--as-of`).
    pub as_of: &'static str,
}

/// The instructions the recorded explorations walk, in the order they were added
/// to the spec: a record of what each exploration saw, not a list of what is
/// judged (every instruction of the spec is). An exploration as of an instruction
/// not in it walks every instruction.
pub const ADDED: &[&str] = &[
    "red",
    "redux.sync",
    "vote.sync",
    "shfl.sync",
    "match.sync",
    "activemask",
    "cp.reduce.async.bulk",
    "vote",
    "shfl",
    "atom",
    "elect.sync",
    "bar.red",
    "barrier.red",
    "red.async",
];

/// The recorded explorations.
pub const RECORDED: &[Recorded] = &[
    Recorded { seed: 22, n: 100_000, as_of: "atom" },
    Recorded { seed: 2026, n: 40_000, as_of: "atom" },
    Recorded { seed: 13, n: 40_000, as_of: "atom" },
    Recorded { seed: 100, n: 40_000, as_of: "atom" },
    Recorded { seed: 2026112901, n: 100_000, as_of: "atom" },
    Recorded { seed: 2026112811, n: 40_000, as_of: "elect.sync" },
    Recorded { seed: 2026112914, n: 40_000, as_of: "barrier.red" },
    Recorded { seed: 2026112916, n: 40_000, as_of: "red.async" },
];

/// Per ledger entry, the texts of the recorded explorations on which ptxas departs
/// from the verdict as the entry predicts (from the committed cache, no ptxas):
/// `coverage`'s witnesses of the entries with a `departure`.
pub fn recorded_departures(spec: &Spec, cache: &std::path::Path) -> Result<BTreeMap<String, Vec<String>>> {
    let tools = crate::ptxas::offline_tools(spec)?;
    let cache = Cache::read(cache)?;
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    // Every instruction's cases, made once for the eight explorations (each walks
    // those up to its `as_of`).
    let cases = cases(spec, None);
    let recorded = RECORDED.iter().flat_map(|r| {
        let texts = texts_among(spec, &tools, (r.n, r.seed, added_at(r.as_of)), &cases);
        probes_of(spec, &tools, texts, &cache)
    });
    for p in recorded {
        let (Some(pr), Some((_, kept))) = (&p.predicted, &p.ptxas) else { continue };
        if Said::of(kept) == p.expected() {
            // A prediction of two departures at once (`E018+E036`) witnesses both.
            for id in pr.erratum.split('+') {
                out.entry(id.to_owned()).or_default().push(format!(
                    "explore:{}:{}:{}",
                    p.module.ptx, p.module.target, p.walked.text
                ));
            }
        }
    }
    Ok(out)
}

/// The explorer's arguments (part of `audit-syntax`'s).
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Explore N texts made by seeded random walks from the legal spellings,
    /// instead of the differential over the vectors.
    #[arg(long, value_name = "N")]
    pub explore: Option<usize>,
    /// The walks' seed.
    #[arg(long, default_value_t = 1, requires = "explore")]
    pub seed: u64,
    /// The verdict cache read before asking ptxas.
    #[arg(long, default_value = DEFAULT_CACHE, requires = "explore")]
    pub cache: PathBuf,
    /// Write the verdicts ptxas gave into the cache.
    #[arg(long, requires = "explore")]
    pub update_cache: bool,
    /// Ask ptxas nothing: every verdict must be in the cache (exit 2 if not).
    #[arg(long, requires = "explore")]
    pub offline: bool,
    /// Print the explored texts as `check-syntax -` requests
    /// (`{"text", "ptx", "target"}`, one a line) and judge nothing: a stream of
    /// near misses for a parser under test.
    #[arg(long, requires = "explore")]
    pub requests: bool,
    /// Walk only the instructions of the spec up to this one (an instruction's
    /// name, as `spec` lists them) in the order they were added
    /// ([`ADDED`]): a recorded exploration replays so after instructions are
    /// added (explore/README.md).
    #[arg(long, value_name = "INSTRUCTION", requires = "explore")]
    pub as_of: Option<String>,
}

impl Args {
    /// The newest instruction `--as-of` names, by its place in [`ADDED`] (`None`:
    /// every instruction); a name the spec does not have is a usage error.
    pub fn as_of(&self, spec: &Spec) -> Result<Option<usize>> {
        let Some(name) = &self.as_of else { return Ok(None) };
        let found = spec.instructions.iter().find(|f| f.instruction.instruction == *name);
        found.map(|f| added_at(&f.instruction.instruction)).ok_or_else(|| {
            let known: Vec<&str> = spec.instructions.iter().map(|f| f.instruction.instruction.as_str()).collect();
            Error::Usage(format!("--as-of {name}: no such instruction (expected one of {})", known.join(", ")))
        })
    }
}

/// An instruction's place in [`ADDED`]; `None` for one added after it.
fn added_at(name: &str) -> Option<usize> {
    ADDED.iter().position(|a| *a == name)
}

/// Whether an exploration as of `as_of` (a place in [`ADDED`]; `None`: every
/// instruction) walks the instruction named `name`.
fn walks_instruction(name: &str, as_of: Option<usize>) -> bool {
    as_of.is_none_or(|newest| added_at(name).is_some_and(|at| at <= newest))
}

impl Default for Args {
    /// No exploration: `audit-syntax`'s differential over the vectors.
    fn default() -> Args {
        Args {
            explore: None,
            seed: 1,
            cache: PathBuf::from(DEFAULT_CACHE),
            update_cache: false,
            offline: false,
            requests: false,
            as_of: None,
        }
    }
}

/// The explored texts as `check-syntax -` requests, one JSON line each.
pub fn requests(spec: &Spec, tools: &[Ptxas], walk: Walk, out: &mut dyn std::io::Write) -> Result<()> {
    #[derive(serde::Serialize)]
    struct Request<'a> {
        text: &'a str,
        ptx: String,
        target: String,
    }
    for (w, _, m) in texts(spec, tools, walk) {
        let r = Request {
            text: &w.text,
            ptx: m.ptx.to_string(),
            target: m.target.to_string(),
        };
        // Strings only: serde_json cannot fail on them.
        let mut line = serde_json::to_vec(&r).unwrap_or_default();
        line.push(b'\n');
        out.write_all(&line).map_err(crate::io::output::write_error)?;
    }
    Ok(())
}

/// One explored text, judged.
#[derive(Debug, Clone)]
pub struct Probe {
    /// The walk.
    pub walked: Walked,
    /// The instruction it started from.
    pub instruction: String,
    /// Where it is judged.
    pub module: Module,
    /// check-syntax's verdict.
    pub ours: Judgement,
    /// What the ledger predicts ptxas does with it, where ptxas departs from the verdict.
    pub predicted: Option<Prediction>,
    /// ptxas's release and verdict, if one could assemble the module.
    pub ptxas: Option<(String, Kept)>,
}

impl Probe {
    /// What ptxas is expected to do: accept, refuse or fail (the ledger's
    /// prediction, else our verdict).
    pub fn expected(&self) -> Said {
        match &self.predicted {
            Some(p) if p.fails => Said::Fails,
            Some(p) if p.accepts => Said::Accepts,
            Some(_) => Said::Rejects,
            None if self.ours.legal() => Said::Accepts,
            None => Said::Rejects,
        }
    }
}

/// What ptxas does with a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Said {
    /// It assembles.
    Accepts,
    /// It gives an error.
    Rejects,
    /// It fails: a signal, the time limit, an internal compiler error.
    Fails,
}

/// Whether a ptxas message is an internal compiler error (`(C7907) Internal
/// compiler error.`): ptxas failing on a text, not a verdict on it (E051).
pub fn internal_error(message: &str) -> bool {
    message.contains("Internal compiler error")
}

impl Said {
    fn of(k: &Kept) -> Said {
        match k {
            Kept::Accepted => Said::Accepts,
            Kept::Rejected(m) if internal_error(m) => Said::Fails,
            Kept::Rejected(_) => Said::Rejects,
            Kept::Failed(_) => Said::Fails,
        }
    }

    fn word(self) -> &'static str {
        match self {
            Said::Accepts => "accepts",
            Said::Rejects => "rejects",
            Said::Fails => "fails",
        }
    }
}

/// The modules a text may be judged at: every (version, target) a ptxas of `tools`
/// assembles.
fn modules(spec: &Spec, tools: &[Ptxas]) -> Vec<Module> {
    let model = &spec.targets;
    let mut out = Vec::new();
    for t in &model.targets {
        for &v in &model.ptx_versions.values {
            let m = Module { ptx: v, target: t.name };
            if model.check_version(v, t.name).is_ok() && tools.iter().any(|p| p.can(m)) {
                out.push(m);
            }
        }
    }
    out.sort();
    out
}

/// The module a walk is judged at: three in five the lowest module ptxas knows that
/// meets its start's needs (where the text is most likely legal), one in five the
/// newest version on that target (where what later PTX ISA versions added is met:
/// E034's `.noftz` on `.f32` from 9.4), else any module.
fn module_for(spec: &Spec, start: &Case, all: &[Module], rng: &mut ChaCha8Rng) -> Option<Module> {
    let checkable = start
        .requires
        .iter()
        .filter_map(|r| differential::need_of(spec, r))
        .find_map(|need| context::checkable(&spec.targets, &need, crate::syntax::illegal::CHECK_PTXAS));
    let newest = |m: Module| all.iter().copied().filter(|n| n.target == m.target).max();
    match (checkable, rng.random_range(0..5)) {
        (Some(m), 0..=2) => Some(m),
        (Some(m), 3) => newest(m).or(Some(m)),
        _ if all.is_empty() => None,
        _ => Some(all[rng.random_range(0..all.len())]),
    }
}

/// The explored texts, each with its start's instruction and the module it is
/// judged at, from the seed: what [`probes`] judges and `bench` streams.
pub fn texts(spec: &Spec, tools: &[Ptxas], walk: Walk) -> Vec<(Walked, String, Module)> {
    texts_among(spec, tools, walk, &cases(spec, walk.2))
}

/// The syntax cases of the instructions walked as of `as_of`, each with its
/// instruction's index in the spec: where the walks start.
fn cases(spec: &Spec, as_of: Option<usize>) -> Vec<(usize, Case)> {
    spec.instructions
        .iter()
        .enumerate()
        .filter(|(_, f)| walks_instruction(&f.instruction.instruction, as_of))
        .flat_map(|(i, f)| vectors::cases(spec, &f.instruction).into_iter().map(move |c| (i, c)))
        .collect()
}

/// [`texts`], from `cases` (at least those of the instructions walked, in spec
/// order): the explorations that share them make them once.
fn texts_among(spec: &Spec, tools: &[Ptxas], (n, seed, as_of): Walk, cases: &[(usize, Case)]) -> Vec<(Walked, String, Module)> {
    let starts = walk::starts(spec, cases, |i| walks_instruction(&i.instruction, as_of));
    let all = modules(spec, tools);
    // The modules come from a stream of their own, so that the texts of a seed do
    // not depend on how modules are chosen.
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x6d6f_6475_6c65_7321);
    walk::walks(&starts, n, seed, &foreign_pool(spec, as_of))
        .into_iter()
        .filter_map(|w| {
            let (ins, start) = starts[w.origin];
            let module = module_for(spec, start, &all, &mut rng)?;
            Some((w, ins.instruction.clone(), module))
        })
        .collect()
}

/// The qualifiers a walk may borrow from outside its instruction: every one, but
/// those that only instructions after `as_of` take (`bar.red`'s `.popc`), so that
/// a recorded exploration's choices do not shift when an instruction brings new
/// qualifiers.
fn foreign_pool(spec: &Spec, as_of: Option<usize>) -> Vec<Qualifier> {
    let vocabulary = |walked: bool| -> std::collections::BTreeSet<Qualifier> {
        spec.instructions
            .iter()
            .filter(|f| walks_instruction(&f.instruction.instruction, as_of) == walked)
            .flat_map(|f| f.instruction.forms().flat_map(|(g, form)| form.possible_qualifiers(g)))
            .collect()
    };
    let (walked, later) = (vocabulary(true), vocabulary(false));
    crate::syntax::illegal::known_vocabulary(spec)
        .into_iter()
        .filter(|q| walked.contains(q) || !later.contains(q))
        .collect()
}

/// Which walks: how many texts, their seed, and the newest instruction walked
/// (`None`: every one; [`Recorded::as_of`]).
pub type Walk = (usize, u64, Option<usize>);

/// The explored texts, judged by us, with the ptxas verdicts the cache holds.
pub fn probes(spec: &Spec, tools: &[Ptxas], walk: Walk, cache: &Cache) -> Vec<Probe> {
    probes_of(spec, tools, texts(spec, tools, walk), cache)
}

/// `texts` judged, with the ptxas verdicts the cache holds.
fn probes_of(spec: &Spec, tools: &[Ptxas], texts: Vec<(Walked, String, Module)>, cache: &Cache) -> Vec<Probe> {
    use rayon::prelude::*;
    texts
        .into_par_iter()
        .map(|(w, instruction, module)| {
            let ours = judge(spec, &w.text, module.ptx, module.target, Order::Lenient);
            let tool = Ptxas::pick(tools, module).map(|i| &tools[i]);
            let release = tool.map_or(crate::syntax::illegal::CHECK_PTXAS, |t| t.release.as_str());
            let predicted = departure::predict(spec, &w.text, module, release, &ours);
            let ptxas = tool.and_then(|t| {
                let kept = cache.verdicts.get(&(t.release.clone(), module, cache::hash(&w.text)))?;
                Some((t.release.clone(), kept.clone()))
            });
            Probe {
                walked: w,
                instruction,
                module,
                ours,
                predicted,
                ptxas,
            }
        })
        .collect()
}

/// Asks ptxas about every probe the cache did not answer, and keeps its verdicts
/// in the cache.
pub fn ask(
    spec: &Spec,
    tools: &[Ptxas],
    probes: &mut [Probe],
    cache: &mut Cache,
    jobs: usize,
    unverifiable: &mut BTreeMap<String, usize>,
) -> Result<usize> {
    let missing: Vec<usize> = (0..probes.len())
        .filter(|&i| probes[i].ptxas.is_none() && tools.iter().any(|t| t.can(probes[i].module)))
        .collect();
    // One question per distinct (module, text); `asked[k]` is the question of
    // `missing[k]`.
    let mut first: BTreeMap<(Module, &str), usize> = BTreeMap::new();
    let mut checks = Vec::new();
    let mut asked = Vec::with_capacity(missing.len());
    for &i in &missing {
        let p = &probes[i];
        let k = *first.entry((p.module, p.walked.text.as_str())).or_insert_with(|| {
            checks.push(Check {
                case: format!("explore:{i}"),
                instruction: p.instruction.clone(),
                boundary: "explore",
                text: p.walked.text.clone(),
                module: p.module,
                ours_legal: p.ours.legal(),
                errata: Vec::new(),
            });
            checks.len() - 1
        });
        asked.push(k);
    }
    drop(first);
    let n = checks.len();
    let findings = differential::run(spec, checks, tools, &std::env::temp_dir(), jobs)
        .map_err(|e| Error::Usage(format!("cannot start the ptxas threads: {e}")))?;
    for (&i, &k) in missing.iter().zip(&asked) {
        let p = &mut probes[i];
        let Some(f) = findings.get(k) else {
            continue;
        };
        let (Some(release), Some(kept)) = (f.ptxas.clone(), Kept::of(&f.outcome)) else {
            if let crate::ptxas::Outcome::Unverifiable(why) = &f.outcome {
                *unverifiable.entry(why.clone()).or_default() += 1;
            }
            continue;
        };
        cache
            .verdicts
            .insert((release.clone(), p.module, cache::hash(&p.walked.text)), kept.clone());
        p.ptxas = Some((release, kept));
    }
    Ok(n)
}

/// A class of disagreement: the instruction, which way, the rule we name or the
/// message ptxas gives, and the walk's steps.
fn class_of(p: &Probe) -> Option<String> {
    let (_, kept) = p.ptxas.as_ref()?;
    let said = Said::of(kept);
    if said == p.expected() {
        return None;
    }
    let mut steps: Vec<&str> = p.walked.steps.iter().map(|s| s.name()).collect();
    steps.sort_unstable();
    steps.dedup();
    let steps = steps.join("+");
    Some(match (&p.predicted, kept) {
        (Some(pr), _) => format!(
            "{}: the ledger predicts ptxas {} ({}), ptxas {} [{steps}]",
            p.instruction,
            p.expected().word(),
            pr.erratum,
            said.word()
        ),
        (None, Kept::Rejected(m)) if !internal_error(m) => format!("{}: ours legal, ptxas rejects: {} [{steps}]", p.instruction, normalized(m)),
        (None, _) => format!(
            "{}: ours {} ({}), ptxas {} [{steps}]",
            p.instruction,
            if p.ours.legal() { "legal" } else { "illegal" },
            p.ours.defect.as_ref().map_or_else(String::new, |d| d.rule.to_string()),
            said.word()
        ),
    })
}

/// A ptxas message with its quoted operands and identifiers folded, so that one
/// kind of message is one class.
fn normalized(m: &str) -> String {
    let mut out = String::new();
    let mut quoted = false;
    for c in m.chars() {
        if c == '\'' {
            quoted = !quoted;
            if quoted {
                out.push_str("'…");
            } else {
                out.push('\'');
            }
        } else if !quoted {
            out.push(c);
        }
    }
    out
}

/// The exploration's outcome.
pub struct Explored {
    /// Every probe.
    pub probes: Vec<Probe>,
    /// Disagreements the ledger does not predict: class → probes.
    pub unexplained: BTreeMap<String, Vec<usize>>,
    /// The report.
    pub report: String,
}

/// Runs an exploration: the probes, ptxas for those the cache lacks (none with
/// `offline`), the comparison and the report.
pub fn explore(spec: &Spec, tools: &[Ptxas], args: &Args, n: usize, jobs: usize) -> Result<Explored> {
    let mut cache = Cache::read(&args.cache)?;
    let mut probes = probes(spec, tools, (n, args.seed, args.as_of(spec)?), &cache);
    let mut unverifiable = BTreeMap::new();
    let asked = if args.offline {
        let missing = probes.iter().filter(|p| p.ptxas.is_none()).count();
        if missing > 0 {
            return Err(Error::Usage(format!(
                "--offline: {missing} of {} texts have no verdict in {} (run without --offline, with ptxas, to ask it)",
                probes.len(),
                args.cache.display()
            )));
        }
        0
    } else {
        ask(spec, tools, &mut probes, &mut cache, jobs, &mut unverifiable)?
    };
    if args.update_cache {
        cache.write(&args.cache, &cache_header())?;
    }
    let mut e = report(probes, n, args.seed, asked);
    for (why, k) in &unverifiable {
        let _ = writeln!(e.report, "  unverified ({k}): {why}");
    }
    Ok(e)
}

fn cache_header() -> String {
    "ptxvec audit-syntax --explore: what ptxas said of each explored text (generator/src/ptxas/explore/cache.rs).\n\
     Written by `ptxvec audit-syntax --explore N --seed S --update-cache`; explore/README.md."
        .to_owned()
}

/// Compares and reports.
pub fn report(probes: Vec<Probe>, n: usize, seed: u64, asked: usize) -> Explored {
    let mut unexplained: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    let mut confirmed: BTreeMap<String, usize> = BTreeMap::new();
    let (mut agree, mut unverified, mut legal) = (0, 0, 0);
    for (i, p) in probes.iter().enumerate() {
        legal += usize::from(p.ours.legal());
        match class_of(p) {
            Some(c) => unexplained.entry(c).or_default().push(i),
            None if p.ptxas.is_none() => unverified += 1,
            None => {
                agree += 1;
                if let Some(pr) = &p.predicted {
                    *confirmed.entry(pr.erratum.clone()).or_default() += 1;
                }
            }
        }
    }
    let mut r = String::new();
    let bad: usize = unexplained.values().map(Vec::len).sum();
    let _ = writeln!(
        r,
        "explore: {n} texts from seed {seed}, {} judged ({legal} legal by check-syntax), {asked} put to ptxas now, the rest from the cache",
        probes.len()
    );
    let _ = writeln!(
        r,
        "explore agreement: {agree} of {} verifiable texts agree with ptxas or with the ledger's prediction ({bad} unexplained); {unverified} unverified",
        agree + bad
    );
    for (e, k) in &confirmed {
        let _ = writeln!(r, "  ledgered departure {e}: ptxas departs from the verdict as predicted on {k} texts");
    }
    let mut steps: BTreeMap<Step, usize> = BTreeMap::new();
    for p in &probes {
        for s in &p.walked.steps {
            *steps.entry(*s).or_default() += 1;
        }
    }
    let _ = writeln!(
        r,
        "  steps taken: {}",
        steps.iter().map(|(s, k)| format!("{} {k}", s.name())).collect::<Vec<_>>().join(", ")
    );
    for (class, idx) in &unexplained {
        let _ = writeln!(r, "  UNEXPLAINED ({}): {class}", idx.len());
        for &i in idx.iter().take(3) {
            let p = &probes[i];
            let said = match &p.ptxas {
                Some((rel, Kept::Accepted)) => format!("ptxas {rel} accepts"),
                Some((rel, Kept::Rejected(m))) => format!("ptxas {rel}: {m}"),
                Some((rel, Kept::Failed(m))) => format!("ptxas {rel} failed: {m}"),
                None => String::new(),
            };
            let ours = match &p.ours.defect {
                None => "legal".to_owned(),
                Some(d) => format!("{} {}: {}", d.kind, d.rule, d.message),
            };
            let _ = writeln!(
                r,
                "    {} [.version {} .target {}] ours {ours} / {said}",
                p.walked.text, p.module.ptx, p.module.target
            );
        }
    }
    Explored {
        probes,
        unexplained,
        report: r,
    }
}
