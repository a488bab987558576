//! Mutation adequacy: the proof that the witnesses bite. Each operator changes one
//! element of the spec in memory; the mutant is killed when some committed case of
//! its instruction gets another verdict or rule from the mutant's judge, or when
//! the mutant's generator gives a case of the same id another verdict, rule,
//! module or requirement. A mutant that changes nothing is a survivor: a hole in
//! the vectors. The operators are stated in spec/README.md (Mutation operators).

use std::fmt::Write as _;
use std::time::Instant;

use ptxvec_spec::model::{AnyOf, Effect, Requirement, TableKind};
use ptxvec_spec::{Instruction, PtxVersion, Spec, Target, Variant};

use crate::io::progress::Progress;
use crate::error::Result;
use crate::syntax::case::{Case, Verdict};
use crate::syntax::judge::Order;
use crate::syntax::definition::judge;

/// One mutant: the element it mutates, the operator, and the mutated instruction.
pub struct Mutant {
    /// `red/table.op_type#3`, `red/rule.cluster_scope/7.8/version`, ...
    pub element: String,
    /// `drop row`, `widen version`, ...
    pub operator: &'static str,
    /// The instruction as mutated.
    pub instruction: Instruction,
}

/// A mutant no vector can tell from the spec: counted and listed with why, never
/// judged.
pub struct Equivalent {
    /// The element it would mutate.
    pub element: String,
    /// The operator.
    pub operator: &'static str,
    /// Why no module can tell it apart.
    pub why: String,
}

/// The result of a mutation run.
pub struct Adequacy {
    /// Mutants made.
    pub total: usize,
    /// Mutants killed, per operator: (operator, made, killed).
    pub per_operator: Vec<(&'static str, usize, usize)>,
    /// The survivors: element and operator.
    pub survivors: Vec<(String, &'static str)>,
    /// The equivalent mutants, not made.
    pub equivalent: Vec<Equivalent>,
    /// Wall time of the run, seconds (printed, so not in any file).
    pub seconds: f64,
}

impl Adequacy {
    /// The score and the survivors, as text.
    pub fn render(&self) -> String {
        let mut s = String::new();
        let killed = self.total - self.survivors.len();
        let _ = writeln!(
            s,
            "\nmutation adequacy: {killed} of {} mutants killed ({:.1}%), {} survivors, {:.1} s",
            self.total,
            100.0 * killed as f64 / self.total.max(1) as f64,
            self.survivors.len(),
            self.seconds
        );
        for (op, made, killed) in &self.per_operator {
            let _ = writeln!(s, "  {op:<28} {killed:>5} of {made:>5} killed");
        }
        for (element, op) in &self.survivors {
            let _ = writeln!(s, "survivor: {element} ({op})");
        }
        let _ = writeln!(
            s,
            "equivalent mutants, not made (no module can tell them apart): {}",
            self.equivalent.len()
        );
        for e in &self.equivalent {
            let _ = writeln!(s, "  equivalent: {} ({}): {}", e.element, e.operator, e.why);
        }
        s
    }
}

/// Every mutant of one instruction, and the equivalent ones it does not make.
pub fn mutants(spec: &Spec, i: &Instruction) -> (Vec<Mutant>, Vec<Equivalent>) {
    let name = &i.instruction;
    let mut out = Vec::new();
    let mut equivalent = Vec::new();
    let mut push = |element: String, operator: &'static str, m: Instruction| {
        out.push(Mutant {
            element,
            operator,
            instruction: m,
        })
    };
    // A syntax line dropped.
    for (gi, g) in i.syntax.iter().enumerate() {
        for (fi, f) in g.forms.iter().enumerate() {
            let mut m = i.clone();
            m.syntax[gi].forms.remove(fi);
            push(format!("{name}/{}", f.id), "drop syntax line", m);
        }
        // A qualifier value dropped from its set.
        for (p, set) in &g.sets {
            for (vi, v) in set.values.iter().enumerate() {
                let mut m = i.clone();
                if let Some(s) = m.syntax[gi].sets.get_mut(p) {
                    s.values.remove(vi);
                }
                let forms: Vec<&str> = g.forms.iter().map(|f| f.id.as_str()).collect();
                push(
                    format!("{name}/{}/.{p}={v}", forms.join("+")),
                    "drop qualifier value",
                    m,
                );
            }
        }
    }
    for (ti, t) in i
        .tables
        .iter()
        .enumerate()
        .filter(|(_, t)| t.kind == TableKind::Combinations)
    {
        for (ri, row) in t
            .rows
            .iter()
            .enumerate()
            .filter(|(_, r)| !r.entries.is_empty())
        {
            let mut m = i.clone();
            m.tables[ti].rows.remove(ri);
            push(
                format!("{name}/table.{}#{}", t.id, ri + 1),
                "drop table row",
                m,
            );
            let _ = row;
        }
        // A row the document lacks: one entry that every spelling matches.
        let mut m = i.clone();
        if let Some(r) = m.tables[ti].rows.first().cloned() {
            m.tables[ti].rows.push(ptxvec_spec::model::TableRow {
                entries: vec![Vec::new()],
                ..r
            });
        }
        push(format!("{name}/table.{}", t.id), "add table row", m);
    }
    for (ri, rule) in i.rules.iter().enumerate() {
        let id = format!("{name}/rule.{}", rule.id);
        let mut m = i.clone();
        m.rules.remove(ri);
        push(id.clone(), "drop rule", m);
        if !rule.when.is_empty() || !rule.unless.is_empty() {
            // The condition swapped: `when` and `unless` trade places, so the rule
            // binds the spellings it spared.
            let mut m = i.clone();
            let r = &mut m.rules[ri];
            let when: Vec<AnyOf> = r.unless.iter().map(|q| AnyOf(vec![*q])).collect();
            r.unless = r.when.iter().flat_map(|g| g.0.iter().copied()).collect();
            r.when = when;
            push(id.clone(), "swap rule condition", m);
        }
        let Effect::Requires(reqs) = &rule.effect else {
            continue;
        };
        for (ai, req) in reqs.iter().enumerate() {
            let alt = format!(
                "{id}/{}",
                req.ptx.map(|p| p.to_string()).unwrap_or_default()
                    + &req.target.map(|t| format!("+{t}")).unwrap_or_default()
            );
            if let Some(p) = req.ptx {
                let versions = &spec.targets.ptx_versions.values;
                let below = versions.iter().rev().find(|v| **v < p).copied();
                let above = versions.iter().find(|v| **v > p).copied();
                for (v, op) in [(below, "widen version"), (above, "narrow version")] {
                    let Some(v) = v else { continue };
                    let mut moved = reqs.clone();
                    moved[ai].ptx = Some(v);
                    // A move that leaves the rule met by exactly the same modules
                    // (no module between the two versions can name a target that
                    // meets the alternative, or every such module meets another
                    // alternative) changes no verdict: no vector can tell it apart
                    // (an equivalent mutant). It is counted and listed, not judged.
                    if same_modules(spec, reqs, &moved) {
                        equivalent.push(Equivalent {
                            element: format!("{alt}/version"),
                            operator: op,
                            why: format!(
                                "{p} → {v}: the rule is met by exactly the same modules (every .version of targets.yaml with every target it can name)"
                            ),
                        });
                        continue;
                    }
                    let mut m = i.clone();
                    if let Effect::Requires(rs) = &mut m.rules[ri].effect {
                        rs[ai].ptx = Some(v);
                    }
                    push(format!("{alt}/version"), op, m);
                }
            }
            if let Some(t) = req.target {
                for (nt, op) in neighbours(spec, t) {
                    let mut m = i.clone();
                    if let Effect::Requires(rs) = &mut m.rules[ri].effect {
                        rs[ai].target = Some(nt);
                    }
                    push(format!("{alt}/target"), op, m);
                }
            }
        }
    }
    (out, equivalent)
}

/// Whether alternative `n` of a requirement list has a version boundary of its
/// own: moving its version one release down changes which modules meet the list
/// (below sm_90's 7.8 no module names a target meeting sm_90 at all; redux.sync
/// `.f32`'s 8.8 with sm_100f has no boundary, since below it only sm_100a meets
/// sm_100f, and 8.6 with sm_100a holds there).
pub fn version_bounds(spec: &Spec, reqs: &[Requirement], n: usize) -> bool {
    let Some(p) = reqs.get(n).and_then(|r| r.ptx) else {
        return false;
    };
    spec.targets.version_before(p).is_some_and(|below| {
        let mut moved = reqs.to_vec();
        moved[n].ptx = Some(below);
        !same_modules(spec, reqs, &moved)
    })
}

/// Whether two requirement lists are met by exactly the same modules: every
/// `.version` of targets.yaml with every target it can name.
pub fn same_modules(spec: &Spec, a: &[Requirement], b: &[Requirement]) -> bool {
    let model = &spec.targets;
    let met = |reqs: &[Requirement], ptx: PtxVersion, target: Target| {
        reqs.iter().any(|r| {
            r.ptx.is_none_or(|p| ptx >= p) && r.target.is_none_or(|t| model.satisfies(target, t))
        })
    };
    model.ptx_versions.values.iter().all(|&ptx| {
        model
            .targets
            .iter()
            .filter(|t| model.check_version(ptx, t.name).is_ok())
            .all(|t| met(a, ptx, t.name) == met(b, ptx, t.name))
    })
}

/// The targets next to `t` of its own kind (plain, `a`, `f`) in spec/targets.yaml:
/// the one below widens a plain requirement (older architectures meet it), the
/// one above narrows it; for `a` and `f`, the plain target of the same
/// architecture widens.
fn neighbours(spec: &Spec, t: Target) -> Vec<(Target, &'static str)> {
    let same: Vec<Target> = spec
        .targets
        .targets
        .iter()
        .map(|x| x.name)
        .filter(|x| x.variant == t.variant)
        .collect();
    let below = same
        .iter()
        .filter(|x| x.arch < t.arch)
        .max_by_key(|x| x.arch)
        .copied();
    let above = same
        .iter()
        .filter(|x| x.arch > t.arch)
        .min_by_key(|x| x.arch)
        .copied();
    let mut out = Vec::new();
    if t.variant == Variant::Plain {
        out.extend(below.map(|b| (b, "widen target")));
    } else {
        out.push((
            Target {
                variant: Variant::Plain,
                ..t
            },
            "widen target",
        ));
    }
    out.extend(above.map(|a| (a, "narrow target")));
    out
}

/// The verdict and rule a committed case gets from a spec.
fn verdict(spec: &Spec, c: &Case) -> Option<(bool, Option<crate::syntax::rule_id::RuleId>)> {
    let m = c.module()?;
    let j = judge(spec, &c.text, m.ptx, m.target, Order::Lenient);
    Some((j.legal(), j.defect.map(|d| d.rule)))
}

/// Runs every mutant of every instruction against the committed cases.
pub fn run(spec: &Spec, cases: &[Case]) -> Result<Adequacy> {
    let start = Instant::now();
    // The seeds are not read by the generator or the judge: a mutant need not copy them.
    let mut light = spec.clone();
    light.seeds.clear();
    let mut per_operator: Vec<(&'static str, usize, usize)> = Vec::new();
    let mut survivors = Vec::new();
    let mut equivalent = Vec::new();
    let mut total = 0;
    let progress = Progress::new(spec.instructions.len() as u64, "instructions");
    for (fi, f) in spec.instructions.iter().enumerate() {
        progress.inc(1);
        let mine: Vec<&Case> = cases
            .iter()
            .filter(|c| c.instruction == f.instruction.instruction)
            .collect();
        let committed: std::collections::BTreeMap<&str, &Case> =
            mine.iter().map(|c| (c.id.as_str(), *c)).collect();
        let (made, same) = mutants(spec, &f.instruction);
        equivalent.extend(same);
        for m in made {
            total += 1;
            let mut ms = light.clone();
            ms.instructions[fi].instruction = m.instruction;
            // A mutant's sets differ from those its slots were resolved against.
            ms.instructions[fi].instruction.resolve_slots();
            let judged = mine
                .iter()
                .any(|c| verdict(&ms, c) != Some((c.verdict == Verdict::Legal, c.rule.clone())));
            let killed = judged || {
                let regenerated =
                    crate::syntax::vectors::cases(&ms, &ms.instructions[fi].instruction);
                regenerated.iter().any(|r| {
                    committed.get(r.id.as_str()).is_some_and(|c| {
                        c.verdict != r.verdict
                            || c.rule != r.rule
                            || c.ptx != r.ptx
                            || c.target != r.target
                            || c.requires != r.requires
                    })
                })
            };
            match per_operator.iter_mut().find(|(op, _, _)| *op == m.operator) {
                Some(e) => {
                    e.1 += 1;
                    e.2 += usize::from(killed);
                }
                None => per_operator.push((m.operator, 1, usize::from(killed))),
            }
            if !killed {
                survivors.push((m.element, m.operator));
            }
        }
    }
    per_operator.sort_by_key(|(op, _, _)| *op);
    Ok(Adequacy {
        total,
        per_operator,
        survivors,
        equivalent,
        seconds: start.elapsed().as_secs_f64(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(ptx: &str, target: &str) -> Requirement {
        Requirement {
            ptx: Some(ptx.parse().unwrap()),
            target: Some(target.parse().unwrap()),
        }
    }

    #[test]
    fn a_version_move_is_equivalent_only_when_no_module_tells_it_apart() {
        let spec = crate::repo_spec();
        // (rule, moved, same modules): targets.yaml's first versions decide.
        let cases = [
            // Nothing names sm_90 or later before PTX ISA 7.8 (red .bf16).
            (vec![req("7.8", "sm_90")], vec![req("7.7", "sm_90")], true),
            (vec![req("7.8", "sm_90")], vec![req("8.0", "sm_90")], false),
            // sm_35 is PTX ISA 3.1 and meets sm_32 (4.0): 64-bit red.and's 3.1 counts.
            (vec![req("3.1", "sm_32")], vec![req("3.2", "sm_32")], false),
            (vec![req("3.1", "sm_32")], vec![req("3.0", "sm_32")], true),
            // redux.sync .f32: at 8.7 only sm_100a meets sm_100f, and 8.6+sm_100a holds.
            (
                vec![req("8.6", "sm_100a"), req("8.8", "sm_100f")],
                vec![req("8.6", "sm_100a"), req("8.7", "sm_100f")],
                true,
            ),
            (
                vec![req("8.6", "sm_100a"), req("8.8", "sm_100f")],
                vec![req("8.6", "sm_100a"), req("9.0", "sm_100f")],
                false,
            ),
        ];
        for (a, b, want) in cases {
            assert_eq!(same_modules(&spec, &a, &b), want, "{a:?} vs {b:?}");
        }
    }
}
