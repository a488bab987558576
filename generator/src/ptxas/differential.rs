//! The ptxas differential: every syntax case, and every doc example, judged by ptxas
//! at the modules where our verdict changes, and compared with ours.
//!
//! A legal case is checked at each alternative's minimum module (accepted), one PTX
//! ISA version below (rejected), on the nearest targets outside (rejected), and at
//! the lowest module the newest ptxas knows (accepted). An illegal case is checked
//! in its own module (rejected). A module that no available ptxas can assemble is
//! counted as unverified, never as passing.

use std::collections::BTreeMap;
use std::path::Path;

use ptxvec_spec::Spec;
use rayon::prelude::*;
use rayon::ThreadPoolBuildError;

use crate::io::progress::Progress;
use crate::ptxas::{self, Outcome, Ptxas};
use crate::syntax::case::{Case, Verdict};
use crate::syntax::context::{self, Module};
use crate::syntax::judge::{reading, Order};
use crate::syntax::definition::judge;
use crate::syntax::needs::Need;

/// One question put to ptxas.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    /// The case id, or `example:<seed>:<text>` for a doc example.
    pub case: String,
    /// The instruction's name.
    pub instruction: String,
    /// Which boundary: `minimum`, `version_below`, `target_outside`, `checkable`, `illegal`, `example`.
    pub boundary: &'static str,
    /// The text.
    pub text: String,
    /// The module.
    pub module: Module,
    /// Our verdict there.
    pub ours_legal: bool,
    /// Ledger entries the case or example cites.
    pub errata: Vec<String>,
}

/// A check with ptxas's answer.
#[derive(Debug, Clone)]
pub struct Finding {
    /// The check.
    pub check: Check,
    /// The ptxas release that answered, if any could.
    pub ptxas: Option<String>,
    /// What it said.
    pub outcome: Outcome,
}

impl Finding {
    /// Agrees, disagrees, or was not verifiable.
    pub fn agrees(&self) -> Option<bool> {
        match &self.outcome {
            Outcome::Accepted => Some(self.check.ours_legal),
            Outcome::Rejected(_) => Some(!self.check.ours_legal),
            Outcome::Unverifiable(_) | Outcome::Failed(_) => None,
        }
    }
}

/// The need a case's `requires` entry records, if it reads.
pub fn need_of(spec: &Spec, r: &crate::syntax::case::NeedRecord) -> Option<Need> {
    Some(Need {
        ptx: r.ptx.parse().ok()?,
        target: match &r.target {
            Some(t) => Some(t.parse().ok()?),
            None => None,
        },
    })
    .filter(|_| !spec.targets.targets.is_empty())
}

/// The checks for a list of cases.
pub fn case_checks(spec: &Spec, cases: &[Case], newest: &str) -> Vec<Check> {
    let model = &spec.targets;
    let mut out = Vec::new();
    for c in cases {
        let mk = |boundary: &'static str, module: Module, ours_legal: bool| Check {
            case: c.id.clone(),
            instruction: c.instruction.clone(),
            boundary,
            text: c.text.clone(),
            module,
            ours_legal,
            errata: Vec::new(),
        };
        match c.verdict {
            Verdict::Illegal => {
                if let Some(m) = c.module() {
                    out.push(mk("illegal", m, false));
                }
            }
            Verdict::Legal => {
                let needs: Vec<Need> = c.requires.iter().filter_map(|r| need_of(spec, r)).collect();
                let all = crate::syntax::needs::Needs(needs.clone());
                // Legal where the needs are met, unless a rule has withdrawn it there
                // (the non-sync `vote` from PTX ISA 6.4 on sm_70).
                let removed = c.removed.as_ref().and_then(|r| need_of(spec, r));
                let legal_in = |m: Module| {
                    all.met_by(model, m.ptx, m.target) && !removed.is_some_and(|r| r.met_by(model, m.ptx, m.target))
                };
                let mut seen = Vec::new();
                // The case's own module, where it is not its needs' minimum (the
                // legal witnesses just below a withdrawal).
                if let Some(own) = c.module() {
                    if !needs.iter().any(|n| context::minimum(model, n) == Some(own)) {
                        seen.push(own);
                        out.push(mk("own", own, legal_in(own)));
                    }
                }
                for need in &needs {
                    let mut probes = Vec::new();
                    if let Some(min) = context::minimum(model, need) {
                        probes.push(("minimum", min));
                        if let Some(b) = context::version_below(model, min) {
                            probes.push(("version_below", b));
                        }
                    }
                    for o in context::outside(model, need) {
                        probes.push(("target_outside", o));
                    }
                    if let Some(k) = context::checkable(model, need, newest) {
                        probes.push(("checkable", k));
                    }
                    for (b, m) in probes {
                        if seen.contains(&m) {
                            continue;
                        }
                        seen.push(m);
                        out.push(mk(b, m, legal_in(m)));
                    }
                }
            }
        }
    }
    out
}

/// The checks for the doc's examples: each in the lowest module the newest ptxas
/// knows that meets the needs of the spelling it is read as (or of its form's first
/// legal spelling), judged by us there.
pub fn example_checks(spec: &Spec, newest: &str) -> Vec<Check> {
    let mut out = Vec::new();
    for file in &spec.instructions {
        let ins = &file.instruction;
        for ex in ins.examples.iter().filter(|e| !e.context) {
            let form = ex.form.as_deref().unwrap_or("");
            let needs = match reading(spec, &ex.text) {
                Some(s) => s.needs(&spec.targets),
                None => match crate::syntax::legal::legal_spellings(spec, ins, form).first() {
                    Some(l) => l.needs.clone(),
                    None => continue,
                },
            };
            let Some(module) = needs
                .0
                .iter()
                .find_map(|n| context::checkable(&spec.targets, n, newest))
            else {
                continue;
            };
            let j = judge(spec, &ex.text, module.ptx, module.target, Order::Lenient);
            out.push(Check {
                case: format!("example:{}:{}", ex.printed.name(), ex.text),
                instruction: ins.instruction.clone(),
                boundary: "example",
                text: ex.text.clone(),
                module,
                ours_legal: j.legal(),
                errata: ex.errata.clone(),
            });
        }
    }
    out
}

/// Whether a text writes an address in a 16- or 32-bit register. ptxas judges such
/// a text by the module around it (E033): a 32-bit address alone is fatal ("32-Bit
/// compilation is no longer supported"), but not beside a 16-bit one, so these
/// texts are assembled alone.
fn narrow_address(text: &str) -> bool {
    use crate::syntax::text::{tokenize, Atom, Operand, RegClass};
    tokenize(text).is_ok_and(|t| {
        t.operands.iter().any(|o| {
            matches!(o, Operand::Address(Atom::Reg(RegClass::B32 | RegClass::B16, _), _))
        })
    })
}

/// The most texts put to ptxas in one module.
pub const MAX_BATCH: usize = 64;

/// Runs every check on the ptxas that can assemble its module (the first in the
/// list that can), many to a module, on `jobs` threads. `Err` only if the threads
/// cannot be started; a panic while running a batch is the caller's panic.
pub fn run(
    spec: &Spec,
    checks: Vec<Check>,
    tools: &[Ptxas],
    dir: &Path,
    jobs: usize,
) -> Result<Vec<Finding>, ThreadPoolBuildError> {
    // Batches: (tool, module) → indices, in check order; examples run alone, since
    // their symbolic names may clash.
    let mut batches: BTreeMap<(usize, Module, usize), Vec<usize>> = BTreeMap::new();
    let mut findings: Vec<Option<Finding>> = vec![None; checks.len()];
    for (i, c) in checks.iter().enumerate() {
        match Ptxas::pick(tools, c.module) {
            Some(t) => {
                // A text whose verdict depends on the module around it (an
                // example's symbols, a narrow address: E033) runs alone.
                let solo = if c.boundary == "example" || narrow_address(&c.text) { i + 1 } else { 0 };
                batches.entry((t, c.module, solo)).or_default().push(i);
            }
            None => {
                findings[i] = Some(Finding {
                    check: c.clone(),
                    ptxas: None,
                    outcome: Outcome::Unverifiable(format!(
                        "no available ptxas assembles .version {} .target {}",
                        c.module.ptx, c.module.target
                    )),
                });
            }
        }
    }
    // A module of at most MAX_BATCH texts: a fatal reruns the texts after it, so a
    // batch's cost grows with its length times its fatals (the explorer's texts
    // are often malformed).
    let work: Vec<((usize, Module, usize), Vec<usize>)> = batches
        .into_iter()
        .flat_map(|(key, idx)| {
            idx.chunks(MAX_BATCH)
                .map(|c| (key, c.to_vec()))
                .collect::<Vec<_>>()
        })
        .collect();
    let progress = Progress::new(work.iter().map(|(_, idx)| idx.len() as u64).sum(), "ptxas checks");
    let results = on_threads(jobs, &work, |((t, module, _), idx)| {
        let texts: Vec<&str> = idx.iter().map(|i| checks[*i].text.as_str()).collect();
        let outcomes = ptxas::run(&tools[*t], spec, *module, &texts, dir);
        progress.inc(idx.len() as u64);
        outcomes
    })?;
    progress.finish();
    for (((t, _, _), idx), outcomes) in work.iter().zip(results) {
        for (&i, o) in idx.iter().zip(outcomes) {
            findings[i] = Some(Finding {
                check: checks[i].clone(),
                ptxas: Some(tools[*t].release.clone()),
                outcome: o,
            });
        }
    }
    Ok(findings.into_iter().flatten().collect())
}

/// `f` of every item on a pool of `jobs` threads (at least one), in input order.
/// A panic in `f` reaches the caller once the running items finish: no result is
/// dropped silently.
fn on_threads<T: Sync, R: Send>(
    jobs: usize,
    items: &[T],
    f: impl Fn(&T) -> R + Sync,
) -> Result<Vec<R>, ThreadPoolBuildError> {
    // One item per job: a batch's cost is its ptxas run, which varies, so rayon
    // balances them.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()?;
    Ok(pool.install(|| items.par_iter().with_max_len(1).map(&f).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A legal case a rule withdraws is held to ptxas on both sides of the
    /// withdrawal: legal in its own module just below it (`own`), illegal in the
    /// withdrawal's first module, wherever a probe lands there. PTX ISA 9.1, 9.7.13.8:
    /// "Support for `vote` instruction without a `.sync` qualifier is removed in PTX
    /// ISA version 6.4 for `.target` `sm_70` or higher."
    #[test]
    fn a_withdrawn_spelling_is_checked_on_both_sides() {
        let spec = crate::repo_spec();
        let cases = crate::syntax::vectors::cases(&spec, spec.instruction("vote").unwrap());
        let below: Vec<&Case> = cases.iter().filter(|c| c.id.contains("@6.3:sm_70")).collect();
        assert!(!below.is_empty());
        for c in &below {
            let checks = case_checks(&spec, std::slice::from_ref(*c), "13.5");
            let own = checks.iter().find(|k| k.boundary == "own").expect("a check at its own module");
            assert_eq!((own.module.ptx.to_string(), own.module.target.to_string()), ("6.3".to_owned(), "sm_70".to_owned()));
            assert!(own.ours_legal);
            for k in &checks {
                let withdrawn = k.module.ptx >= "6.4".parse().unwrap() && k.module.target.arch >= 70;
                assert_eq!(k.ours_legal, !withdrawn && k.boundary != "version_below" && k.boundary != "target_outside", "{k:?}");
            }
        }
    }

    #[test]
    fn threads_keep_the_input_order() {
        let items: Vec<u32> = (0..100).collect();
        let out = on_threads(3, &items, |&x| x * 2).unwrap();
        assert_eq!(out, items.iter().map(|x| x * 2).collect::<Vec<_>>());
    }

    #[test]
    fn a_worker_panic_fails_the_run() {
        // One batch panics among many on two threads: the run must panic, not
        // return the other batches' results.
        let items: Vec<u32> = (0..64).collect();
        let run = std::panic::catch_unwind(|| {
            on_threads(2, &items, |&x| {
                assert_ne!(x, 37, "injected worker panic");
                x
            })
        });
        let payload = run.expect_err("a worker panic was swallowed");
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or_default();
        assert!(message.contains("injected worker panic"), "{message:?}");
    }
}
