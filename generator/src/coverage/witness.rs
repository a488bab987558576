//! Which vectors witness which element: the syntax cases, the semantic index and
//! silicon's runs, read from the vectors folder.

use std::collections::BTreeMap;

use ptxvec_spec::model::Effect;
use ptxvec_spec::{Instruction, PtxVersion, Qualifier, Spec, Target};

use super::elements::{Element, Probe, Respect, WitnessKind, Writing};
use crate::record::index::Index;
use crate::device::silicon::evidence::VectorsFile;
use crate::syntax::case::{Case, Verdict};
use crate::syntax::rule_id::{OperandRule, RuleId};

/// How many witness ids an element keeps for the report; the count is of all.
const KEPT: usize = 4;

/// A syntax case with what the probes ask of it, worked out once.
pub struct CaseInfo<'c> {
    /// The case.
    pub case: &'c Case,
    /// Legal cases: the qualifier per position of the line it reads as.
    pub slots: Option<Vec<Option<Qualifier>>>,
    /// The qualifiers written (legal: as read; illegal: those that parse).
    pub quals: Vec<Qualifier>,
    /// After `!` in an illegal case's id: `operand.class:a`.
    pub tag: String,
    /// Legal cases: the writing style, the id's last part (`reg`, `imm`, ...).
    pub style: String,
    /// The module the verdict holds in.
    pub module: Option<(PtxVersion, Target)>,
}

impl<'c> CaseInfo<'c> {
    /// Reads what the probes need from a case.
    pub fn of(spec: &Spec, case: &'c Case) -> CaseInfo<'c> {
        let legal = case.verdict == Verdict::Legal;
        let reading = legal
            .then(|| crate::syntax::judge::reading(spec, &case.text))
            .flatten();
        let quals = match &reading {
            Some(s) => s.qualifiers(),
            None => crate::syntax::text::tokenize(&case.text)
                .map(|t| {
                    t.words
                        .iter()
                        .filter_map(|w| format!(".{w}").parse().ok())
                        .collect()
                })
                .unwrap_or_default(),
        };
        CaseInfo {
            case,
            slots: reading.map(|s| s.slots),
            quals,
            tag: case
                .id
                .split_once('!')
                .map(|(_, t)| t.to_owned())
                .unwrap_or_default(),
            style: if legal {
                case.id.rsplit('/').next().unwrap_or_default().to_owned()
            } else {
                String::new()
            },
            module: case.ptx.parse().ok().zip(case.target.parse().ok()),
        }
    }

    fn legal(&self) -> bool {
        self.case.verdict == Verdict::Legal
    }

    fn rule(&self) -> Option<&RuleId> {
        self.case.rule.as_ref()
    }

    /// Whether the case breaks the spec rule `id`.
    fn breaks(&self, id: &str) -> bool {
        matches!(self.rule(), Some(RuleId::Spec(r)) if r == id)
    }
}

/// The witnesses found for one element: per kind, the count and the first ids;
/// and, where a silicon witness is missing for want of a device or of a recorded
/// run, why.
#[derive(Debug, Clone, Default)]
pub struct Found(
    pub BTreeMap<WitnessKind, (usize, Vec<String>)>,
    pub Option<Awaiting>,
);

/// A silicon witness that no recorded run can give yet: the silicon it needs and
/// why. Coverage reports these as their own category, not as holes; they are not
/// faked.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Awaiting {
    /// The silicon it needs: `sm_100a (PTX 8.6) or sm_100f (PTX 8.8)`, `sm_90`.
    pub silicon: String,
    /// Why no witness is recorded.
    pub why: String,
}

impl Found {
    fn add(&mut self, kind: WitnessKind, id: &str) {
        let e = self.0.entry(kind).or_default();
        e.0 += 1;
        if e.1.len() < KEPT {
            e.1.push(id.to_owned());
        }
    }

    /// The count of witnesses of a kind.
    pub fn count(&self, kind: WitnessKind) -> usize {
        self.0.get(&kind).map_or(0, |e| e.0)
    }
}

/// The semantic side: the index and silicon's runs.
pub struct Semantic<'a> {
    /// vectors/index.json.
    pub index: &'a Index,
    /// vectors/silicon/sm_90/vectors.json, where present.
    pub silicon: Option<&'a VectorsFile>,
    /// The probes recorded in vectors/silicon/sm_90/.
    pub probes: &'a Probes,
    /// The compiled litmus tests' recorded findings
    /// (vectors/clients/<compiler>/litmus.json), as `litmus:<compiler>:<test>`.
    pub litmus: &'a std::collections::BTreeSet<String>,
}

/// The probes' evidence files under vectors/silicon/sm_90/ (`ptxvec
/// silicon-probe`), each with the observations it records as witness ids: a
/// finding whose evidence cites such a file rests on those.
#[derive(Debug, Clone, Default)]
pub struct Probes(pub BTreeMap<String, Vec<String>>);

impl Probes {
    /// The observations of the probe file a section names
    /// (`vectors/silicon/sm_90/cluster-probe.json:3`), if it is one that is present.
    fn cited(&self, section: &str) -> Option<&[String]> {
        let path = section.split(':').next().unwrap_or_default();
        let name = path.strip_prefix("vectors/silicon/sm_90/")?;
        self.0.get(name).map(Vec::as_slice)
    }
}

impl Semantic<'_> {
    /// Why the device did not run a variant, if vectors.json says so.
    fn not_run(&self, variant: &str) -> Option<&str> {
        self.silicon?
            .variants
            .iter()
            .find(|r| r.variant == variant)?
            .not_run
            .as_deref()
    }

    /// Whether silicon ran the variant and every record matched sm_90.
    fn silicon_matches(&self, variant: &str) -> bool {
        self.silicon.is_some_and(|f| {
            f.variants.iter().any(|r| {
                r.variant == variant
                    && r.run.unwrap_or(0) > 0
                    && r.matched("sm_90") == r.run.unwrap_or(0)
                    && r.mismatched("sm_90") == 0
            })
        })
    }
}

/// The witnesses of every element.
pub fn find(
    spec: &Spec,
    elements: &[Element],
    cases: &[CaseInfo<'_>],
    semantic: &Semantic<'_>,
    explored: &BTreeMap<String, Vec<String>>,
) -> Vec<Found> {
    let by_instruction: BTreeMap<&str, Vec<&CaseInfo<'_>>> =
        cases.iter().fold(BTreeMap::new(), |mut m, c| {
            m.entry(c.case.instruction.as_str())
                .or_insert_with(Vec::new)
                .push(c);
            m
        });
    elements
        .iter()
        .map(|e| {
            let mut found = Found::default();
            if let Probe::Erratum { id, silicon } = &e.probe {
                erratum(spec, id, *silicon, cases, semantic, &mut found);
                for text in explored.get(id).into_iter().flatten() {
                    found.add(WitnessKind::Explored, text);
                }
                return found;
            }
            let Some(i) = spec
                .instructions
                .iter()
                .map(|f| &f.instruction)
                .find(|i| i.instruction == e.instruction)
            else {
                return found;
            };
            for c in by_instruction
                .get(e.instruction.as_str())
                .into_iter()
                .flatten()
            {
                if let Some(kind) = syntax_witness(spec, i, &e.probe, c) {
                    found.add(kind, &c.case.id);
                }
            }
            if let Probe::Note { key, .. } = &e.probe {
                let rows: Vec<_> = semantic
                    .index
                    .files
                    .iter()
                    .filter(|r| r.spec.contains(key))
                    .collect();
                for row in &rows {
                    found.add(WitnessKind::Semantic, &format!("{}#0", row.variant));
                    if semantic.silicon_matches(&row.variant) {
                        found.add(
                            WitnessKind::Silicon,
                            &format!("silicon:sm_90:{}", row.variant),
                        );
                    }
                }
                // Every variant the note bears on is one the device could not run
                // (vectors.json: `not_run`, the target it needs).
                let not_run: Vec<&str> = rows
                    .iter()
                    .filter_map(|r| semantic.not_run(&r.variant))
                    .collect();
                if found.count(WitnessKind::Silicon) == 0
                    && !rows.is_empty()
                    && not_run.len() == rows.len()
                {
                    let mut needs = not_run.clone();
                    needs.sort_unstable();
                    needs.dedup();
                    found.1 = Some(Awaiting {
                        silicon: needs
                            .iter()
                            .map(|n| n.trim_start_matches("needs "))
                            .collect::<Vec<_>>()
                            .join("; "),
                        why: format!(
                            "its {} semantic variants have records, and vectors/silicon/sm_90/vectors.json says `{}` for each",
                            rows.len(),
                            needs.join("; ")
                        ),
                    });
                }
            }
            found
        })
        .collect()
}

/// The kind of witness a syntax case is of an element, if any: legal or illegal
/// as the case is, where it witnesses the element at all.
fn syntax_witness(
    spec: &Spec,
    i: &Instruction,
    probe: &Probe,
    c: &CaseInfo<'_>,
) -> Option<WitnessKind> {
    let legal = c.legal();
    let witnesses = match probe {
        Probe::Form { form } => {
            let structural = c.rule().is_some_and(RuleId::structural);
            c.case.form == *form && (legal || structural)
        }
        Probe::Position {
            form,
            placeholder,
            values,
            optional,
            ..
        } => position_witness(c, form, placeholder.as_deref(), values, *optional),
        Probe::Value { form, slot, value } => value_witness(i, c, form, *slot, *value),
        Probe::Row {
            forms,
            entries,
            keys,
        } => row_witness(c, forms, entries, keys),
        Probe::Table { id } => !legal && matches!(c.rule(), Some(RuleId::Table(t)) if t == id),
        Probe::Rule { id, index } => {
            if legal {
                i.rules.get(*index).is_some_and(|rule| {
                    rule.effect.is_module_rule() && rule.condition().matches(&c.case.form, &c.quals)
                })
            } else {
                c.breaks(id)
            }
        }
        Probe::Operand {
            form,
            name,
            respect,
            requires,
        } => operand_witness(c, form, name, *respect, *requires),
        Probe::Boundary {
            index,
            ptx,
            target,
            version,
        } => i.rules.get(*index).is_some_and(|rule| {
            boundary_witness(spec, rule, c, (*ptx, *target), *version)
        }),
        Probe::Note { index, .. } => i
            .semantics
            .get(*index)
            .is_some_and(|note| legal && note.condition().matches(&c.case.form, &c.quals)),
        Probe::Erratum { .. } => false,
    };
    witnesses.then_some(if legal {
        WitnessKind::Legal
    } else {
        WitnessKind::Illegal
    })
}

/// An illegal case of the line whose defect is at the position: a value outside
/// its set, its value taken away, or an outsider of its kind a table refuses.
fn position_witness(
    c: &CaseInfo<'_>,
    form: &str,
    placeholder: Option<&str>,
    values: &[Qualifier],
    optional: bool,
) -> bool {
    if c.legal() || c.case.form != form {
        return false;
    }
    let set_rule = matches!((placeholder, c.rule()), (Some(p), Some(RuleId::Set(s))) if s == p);
    // `qualifier.missing:.add`, `qualifier.required:.sync`: the value this
    // position held, taken away; `operand.shape:without:.v2`: taken away,
    // and the rest read exactly as another line, whose defect it names.
    let missing = ["qualifier.missing:", "qualifier.required:"]
        .iter()
        .any(|p| {
            c.tag
                .strip_prefix(p)
                .is_some_and(|v| values.iter().any(|q| q.spelling() == v))
        })
        || c.tag
            .split_once(":without:")
            .is_some_and(|(_, v)| values.iter().any(|q| q.spelling() == v));
    // A value of the position's kind outside its set that a table refuses
    // (`.v8` with `.f32`: "Not supported"), named by the table.
    let refused_outsider = matches!(c.rule(), Some(RuleId::Table(_)))
        && c.quals.iter().any(|q| {
            !values.contains(q) && values.iter().any(|v| v.kind() == q.kind())
        });
    // An optional position left empty and a value of its kind outside its set
    // written: the judge reads no place for it (`qualifier.extra:.global` in
    // red.async's relaxed line, whose `{.ss}` is `.shared::cluster` alone).
    let extra_outsider = optional
        && c.tag
            .strip_prefix("qualifier.extra:")
            .and_then(|v| v.parse::<Qualifier>().ok())
            .is_some_and(|o| !values.contains(&o) && values.iter().any(|q| q.kind() == o.kind()));
    set_rule || missing || refused_outsider || extra_outsider
}

/// A legal case holding the value at the position; or, for a value no legal
/// spelling holds, the refusal of it.
fn value_witness(i: &Instruction, c: &CaseInfo<'_>, form: &str, slot: usize, value: Qualifier) -> bool {
    if c.case.form != form {
        return false;
    }
    if c.legal() {
        return c
            .slots
            .as_ref()
            .is_some_and(|s| s.get(slot) == Some(&Some(value)));
    }
    let refused = matches!(c.rule(), Some(RuleId::Table(_)))
        || i.rules
            .iter()
            .any(|r| c.breaks(&r.id) && matches!(r.effect, Effect::Forbid(_)));
    refused && c.quals.contains(&value)
}

/// A legal case of one of the table's forms (every form where it names none)
/// holding one of the row's entries (or, for a descriptive row, one of its keys).
fn row_witness(
    c: &CaseInfo<'_>,
    forms: &[String],
    entries: &[Vec<ptxvec_spec::model::AnyOf>],
    keys: &[Qualifier],
) -> bool {
    if !c.legal() || !(forms.is_empty() || forms.contains(&c.case.form)) {
        return false;
    }
    let q = &c.quals;
    if entries.is_empty() {
        keys.iter().any(|k| q.contains(k))
    } else {
        entries
            .iter()
            .any(|entry| entry.iter().all(|g| g.0.iter().any(|x| q.contains(x))))
    }
}

/// A legal case writing the operand in the respect's way (canonical, with the
/// operand present), or an illegal one whose defect is the operand's shape or
/// class.
fn operand_witness(
    c: &CaseInfo<'_>,
    form: &str,
    name: &str,
    respect: Respect,
    requires: Option<Qualifier>,
) -> bool {
    if c.case.form != form {
        return false;
    }
    if c.legal() {
        let written = requires.is_none_or(|q| c.quals.contains(&q));
        let style = match respect {
            Respect::Shape | Respect::Class => true,
            Respect::Writing(Writing::Register) => c.style == "reg",
            Respect::Writing(Writing::Immediate) => c.style == "imm",
            Respect::Writing(Writing::Sink) => c.style == "sink",
            Respect::Writing(Writing::Negated) => c.style == "not",
            Respect::Writing(Writing::Pair) => c.style == "pair",
        };
        return written && style && !c.case.noncanonical;
    }
    let about = c.tag.split(':').any(|part| part == name);
    use OperandRule::{Address, AddressSize, Class, MultipleOf, RegisterRequired, Shape, Sink};
    let kind = match (respect, c.rule()) {
        (Respect::Shape, Some(RuleId::Operand(r))) => matches!(r, Shape | Address | RegisterRequired | Sink),
        (Respect::Class, Some(RuleId::Operand(r))) => matches!(r, Class | AddressSize | MultipleOf),
        _ => false,
    };
    about && kind
}

/// A legal case the rule bears on, at the alternative's version (`version`) or
/// target; or an illegal case of the rule whose module misses exactly that.
fn boundary_witness(
    spec: &Spec,
    rule: &ptxvec_spec::model::Rule,
    c: &CaseInfo<'_>,
    (ptx, target): (Option<PtxVersion>, Option<Target>),
    version: bool,
) -> bool {
    if c.legal() {
        let bound = rule.condition().matches(&c.case.form, &c.quals);
        let at = c.case.requires.iter().any(|r| {
            if version {
                ptx.is_some_and(|p| r.ptx == p.to_string())
            } else {
                target.is_some_and(|t| r.target.as_deref() == Some(t.to_string().as_str()))
            }
        });
        return bound && at;
    }
    if !c.breaks(&rule.id) {
        return false;
    }
    let Some((have_ptx, have_target)) = c.module else {
        return false;
    };
    let version_ok = ptx.is_none_or(|p| have_ptx >= p);
    let target_ok = target.is_none_or(|t| spec.targets.satisfies(have_target, t));
    // The module misses exactly this alternative's version, or its target.
    if version {
        !version_ok && target_ok
    } else {
        version_ok && !target_ok
    }
}

/// An erratum's witnesses: the checks it lists as disagreements, the cases whose
/// citation names it or whose form, rule or table carries it, the doc examples it
/// explains (checked by the ptxas differential), and silicon's runs of the variants
/// its evidence cites.
fn erratum(
    spec: &Spec,
    id: &str,
    silicon: bool,
    cases: &[CaseInfo<'_>],
    semantic: &Semantic<'_>,
    found: &mut Found,
) {
    let Some(e) = spec.errata.errata.iter().find(|e| e.id == id) else {
        return;
    };
    if silicon {
        let mut variants: Vec<String> = e
            .disagreements
            .iter()
            .filter_map(|d| d.strip_prefix("silicon:sm_90:"))
            .map(str::to_owned)
            .collect();
        for s in &e.evidence {
            let Some(section) = &s.section else { continue };
            let file = section
                .split(':')
                .next()
                .unwrap_or_default()
                .trim_start_matches("vectors/");
            variants.extend(
                semantic
                    .index
                    .files
                    .iter()
                    .filter(|r| r.file == file)
                    .map(|r| r.variant.clone()),
            );
        }
        variants.sort();
        variants.dedup();
        for v in variants.iter().filter(|v| semantic.silicon_matches(v)) {
            found.add(WitnessKind::Silicon, &format!("silicon:sm_90:{v}"));
        }
        // A probe's record that the evidence cites: each of its observations.
        let mut probed: Vec<&str> = e
            .evidence
            .iter()
            .filter_map(|s| semantic.probes.cited(s.section.as_deref()?))
            .flatten()
            .map(String::as_str)
            .collect();
        probed.sort_unstable();
        probed.dedup();
        for w in probed {
            found.add(WitnessKind::Silicon, w);
        }
        // A finding whose silicon evidence is an observation no evidence file of
        // vectors/silicon records (a fault seen in a session, written in prose)
        // awaits a recorded run on that silicon.
        let unrecorded: Vec<&ptxvec_spec::Source> = e
            .evidence
            .iter()
            .filter(|s| matches!(s.origin, ptxvec_spec::Origin::Silicon(_)))
            .filter(|s| {
                !s.section.as_deref().is_some_and(|sec| {
                    sec.starts_with("vectors/semantic/")
                        || sec.starts_with("vectors/silicon/sm_90/vectors.json")
                        || semantic.probes.cited(sec).is_some()
                })
            })
            .collect();
        if found.count(WitnessKind::Silicon) == 0 {
            if let Some(s) = unrecorded.first() {
                let arch = match &s.origin {
                    ptxvec_spec::Origin::Silicon(a) => a.to_string(),
                    _ => String::new(),
                };
                found.1 = Some(Awaiting {
                    silicon: arch,
                    why: format!(
                        "its silicon evidence ({}) is an observation that no evidence file records",
                        s.section.as_deref().unwrap_or("no section")
                    ),
                });
            }
        }
        return;
    }
    let carriers: Vec<(String, bool)> = spec
        .instructions
        .iter()
        .flat_map(|f| {
            let i = &f.instruction;
            let forms = i
                .forms()
                .filter(|(_, f)| f.errata.iter().any(|x| x == id))
                .map(|(_, f)| (format!("{}/{}", i.instruction, f.id), true));
            let rules = i
                .rules
                .iter()
                .filter(|r| r.errata.iter().any(|x| x == id))
                .map(|r| (format!("{}!{}", i.instruction, r.id), false));
            let tables = i
                .tables
                .iter()
                .filter(|t| t.errata.iter().any(|x| x == id))
                .map(|t| (format!("{}!table.{}", i.instruction, t.id), false));
            forms.chain(rules).chain(tables).collect::<Vec<_>>()
        })
        .collect();
    for c in cases {
        let cited = c.case.source.cite.contains(id)
            || c.case
                .source
                .quote
                .as_deref()
                .is_some_and(|q| q.contains(id));
        let listed = e.disagreements.iter().any(|d| d == &c.case.id);
        let carried = carriers.iter().any(|(key, form)| {
            if *form {
                format!("{}/{}", c.case.instruction, c.case.form) == *key
            } else {
                format!("{}!{}", c.case.instruction, c.rule().map(ToString::to_string).unwrap_or_default()) == *key
            }
        });
        if cited || listed || carried {
            found.add(WitnessKind::Vector, &c.case.id);
        }
    }
    // A compiler's finding rests on its recorded litmus report.
    for d in e.disagreements.iter().filter(|d| semantic.litmus.contains(*d)) {
        found.add(WitnessKind::Vector, d);
    }
    for f in &spec.instructions {
        for ex in f
            .instruction
            .examples
            .iter()
            .filter(|x| x.errata.iter().any(|x| x == id))
        {
            found.add(
                WitnessKind::Vector,
                &format!("example:{}:{}", ex.printed.name(), ex.text),
            );
        }
    }
}
