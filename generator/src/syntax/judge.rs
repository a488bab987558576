//! `check-syntax`: is this instruction text legal in a module of this `.version` and
//! `.target`, and if not, which rule does it break?
//!
//! The order of the checks decides which defect is named when there are several:
//! the module, then the text's shape (malformed), then the qualifiers against the
//! syntax lines, the operands, the tables and forbid rules, and last the version
//! and target rules (invalid). The generator's illegal cases carry one defect each,
//! so for them the order never matters; a test holds the two to the same answers.

use std::fmt;

use ptxvec_spec::model::SyntaxGroup;
use ptxvec_spec::model::{Effect, Form, Rule};
use ptxvec_spec::template::SlotToken;
use ptxvec_spec::{Instruction, Mnemonic, PtxVersion, Qualifier, Spec, Target};

use super::across;
use super::operands;
use super::placement::{fit, in_order, Fit};
use super::spelling::{Refusal, Spelling};
use super::text::{self, RegClass};

/// Malformed: does not parse as the syntax. Invalid: parses, but is not allowed.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Not the syntax: unknown qualifier, missing or extra operand, wrong shape.
    Malformed,
    /// Well-formed but ruled out: a table, a rule, a version, a target.
    Invalid,
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Kind::Malformed => "malformed",
            Kind::Invalid => "invalid",
        })
    }
}

/// Why a text is illegal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Defect {
    /// Malformed or invalid.
    pub kind: Kind,
    /// The rule id: a spec rule (`cache_hint`), a table (`table.op_type`), or one of
    /// the syntax checks (`syntax.unknown_qualifier`, `operand.class`, ...).
    pub rule: String,
    /// What is wrong, for people.
    pub message: String,
}

/// The verdict on one text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judgement {
    /// The instruction's name, once the mnemonic is known.
    pub instruction: Option<String>,
    /// The syntax line it was read as, once one is chosen.
    pub form: Option<String>,
    /// `None` when legal.
    pub defect: Option<Defect>,
    /// Legal but worth saying: a non-canonical qualifier order.
    pub warnings: Vec<String>,
}

impl Judgement {
    /// Whether the text is legal.
    pub fn legal(&self) -> bool {
        self.defect.is_none()
    }
}

/// How strictly qualifier order is held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Any order ptxas accepts, with a warning when it is not the document's.
    Lenient,
    /// The document's order only.
    Strict,
}

fn fail(kind: Kind, rule: impl Into<String>, message: impl Into<String>) -> Defect {
    Defect {
        kind,
        rule: rule.into(),
        message: message.into(),
    }
}

/// Judges one instruction text in a module of `.version ptx` and `.target target`.
pub fn judge(spec: &Spec, text: &str, ptx: PtxVersion, target: Target, order: Order) -> Judgement {
    let mut j = Judgement {
        instruction: None,
        form: None,
        defect: None,
        warnings: Vec::new(),
    };
    if let Err(e) = spec.targets.check_version(ptx, target) {
        j.defect = Some(fail(Kind::Invalid, "module.target", e.to_string()));
        return j;
    }
    let parsed = match text::tokenize(text) {
        Ok(p) => p,
        Err(e) => {
            j.defect = Some(fail(Kind::Malformed, "syntax.parse", e.to_string()));
            return j;
        }
    };
    // PTX ISA 4.3 (Statements): "Statements begin with an optional label and end with
    // a semicolon." ptxas 13.5 without it: "Parsing error near 'ret': syntax error".
    if !text.trim_end().ends_with(';') {
        j.defect = Some(fail(
            Kind::Malformed,
            "syntax.semicolon",
            "expected `;` at the end of the instruction: every PTX statement ends with one",
        ));
        return j;
    }
    let chain = parsed.words.join(".");
    let Some(mnemonic) = Mnemonic::prefix_of(&chain) else {
        j.defect = Some(fail(
            Kind::Malformed,
            "syntax.mnemonic",
            format!("`{}` is not one of the instructions ptxvec covers (red, redux.sync, vote.sync, shfl.sync, match, activemask, cp.reduce.async.bulk)", parsed.words.first().map_or("", String::as_str)),
        ));
        return j;
    };
    let Some(instruction) = spec
        .instructions
        .iter()
        .map(|f| &f.instruction)
        .find(|i| i.mnemonic == mnemonic)
    else {
        j.defect = Some(fail(
            Kind::Malformed,
            "syntax.mnemonic",
            format!("no spec for `{mnemonic}`"),
        ));
        return j;
    };
    j.instruction = Some(instruction.instruction.clone());
    if let Some(g) = &parsed.guard {
        let name = g.trim_start_matches('@').trim_start_matches('!');
        if RegClass::of_name(name).is_some_and(|c| c != RegClass::Pred) {
            j.defect = Some(fail(
                Kind::Invalid,
                "operand.guard",
                format!("guard `{g}` must be a predicate"),
            ));
            return j;
        }
    }
    let skip = mnemonic.spelling().split('.').count();
    let mut quals = Vec::new();
    for w in &parsed.words[skip..] {
        let spelled = format!(".{w}");
        match spelled.parse::<Qualifier>() {
            Ok(q) if quals.contains(&q) => {
                j.defect = Some(fail(
                    Kind::Malformed,
                    "syntax.duplicate_qualifier",
                    format!("`{q}` is written twice"),
                ));
                return j;
            }
            Ok(q) => quals.push(q),
            Err(_) => {
                j.defect = Some(fail(
                    Kind::Malformed,
                    "syntax.unknown_qualifier",
                    format!("`{spelled}` is not a PTX qualifier"),
                ));
                return j;
            }
        }
    }
    match read_qualifiers(instruction, &quals) {
        Err(d) => {
            j.form = d.1;
            j.defect = Some(d.0);
        }
        Ok(candidates) => {
            let mut first_defect = None;
            for (spelling, in_order) in candidates {
                j.form = Some(spelling.form.id.clone());
                match operands::check(&spelling, &parsed.operands) {
                    Err(d) => {
                        first_defect.get_or_insert((
                            spelling.form.id.clone(),
                            fail(
                                if d.malformed {
                                    Kind::Malformed
                                } else {
                                    Kind::Invalid
                                },
                                d.rule,
                                d.message,
                            ),
                        ));
                    }
                    Ok(()) => {
                        if !in_order {
                            let msg = format!(
                                "qualifiers not in the document's order `{}`",
                                spelling.chain()
                            );
                            if order == Order::Strict {
                                j.defect =
                                    Some(fail(Kind::Malformed, "syntax.qualifier_order", msg));
                                return j;
                            }
                            j.warnings.push(msg);
                        }
                        j.defect = allowed(spec, &spelling, ptx, target).err();
                        return j;
                    }
                }
            }
            if let Some((form, d)) = first_defect {
                j.form = Some(form);
                j.defect = Some(d);
            }
        }
    }
    j
}

/// Whether a well-formed spelling is allowed: tables and forbid rules, then the
/// version and target rules in file order.
pub fn allowed(
    spec: &Spec,
    s: &Spelling<'_>,
    ptx: PtxVersion,
    target: Target,
) -> Result<(), Defect> {
    if let Some(d) = refusal_defect(s) {
        return Err(d);
    }
    match s.unmet_rule(&spec.targets, ptx, target) {
        Some(rule) => unmet_defect(rule, &s.chain(), ptx, target).map_or(Ok(()), Err),
        None => Ok(()),
    }
}

/// The defect of a table or forbid rule that rules the spelling out in every module.
pub fn refusal_defect(s: &Spelling<'_>) -> Option<Defect> {
    match s.refusal()? {
        Refusal::Table(id) => Some(fail(
            Kind::Invalid,
            format!("table.{id}"),
            format!(
                "`{}` is not among the combinations of table `{id}`",
                s.chain()
            ),
        )),
        Refusal::Forbidden(rule) => {
            let reason = match &rule.effect {
                Effect::Forbid(r) => r.as_str(),
                Effect::Requires(_) => "",
            };
            Some(fail(Kind::Invalid, rule.id.clone(), reason.to_owned()))
        }
    }
}

/// The defect of a requirement rule that a module breaks (`chain`: the spelling's
/// canonical chain); `None` for a rule that requires nothing.
pub fn unmet_defect(rule: &Rule, chain: &str, ptx: PtxVersion, target: Target) -> Option<Defect> {
    let Effect::Requires(reqs) = &rule.effect else {
        return None;
    };
    let alts: Vec<String> = reqs
        .iter()
        .map(|r| match (r.ptx, r.target) {
            (Some(v), Some(t)) => format!("PTX ISA {v} with {t}"),
            (Some(v), None) => format!("PTX ISA {v}"),
            (None, Some(t)) => t.to_string(),
            (None, None) => String::new(),
        })
        .collect();
    Some(fail(
        Kind::Invalid,
        rule.id.clone(),
        format!(
            "`{chain}` needs {}; the module has .version {ptx} and .target {target}",
            alts.join(" or ")
        ),
    ))
}

/// A qualifier defect, and the id of the syntax line it was judged against.
pub(crate) type QualDefect = (Defect, Option<String>);

/// The spellings the qualifiers can be read as (each with whether the order is the
/// document's), or the defect of the nearest syntax line (and that line's id).
pub(crate) fn read_qualifiers<'s>(
    instruction: &'s Instruction,
    quals: &[Qualifier],
) -> Result<Vec<(Spelling<'s>, bool)>, QualDefect> {
    let vocabulary: Vec<Qualifier> = instruction
        .forms()
        .flat_map(|(g, f)| f.possible_qualifiers(g))
        .collect();
    if let Some(q) = quals.iter().find(|q| !vocabulary.contains(q)) {
        return Err((
            fail(
                Kind::Invalid,
                "qualifier.not_allowed",
                format!("`{q}` is not a qualifier of {}", instruction.instruction),
            ),
            None,
        ));
    }
    let fits: Vec<(&SyntaxGroup, &Form, Fit)> = instruction
        .forms()
        .map(|(g, f)| (g, f, fit(g, f, quals, &[])))
        .collect();
    let exact: Vec<(Spelling<'s>, bool)> = fits
        .iter()
        .filter(|(_, f, fit)| fit.cost(f) == 0)
        .map(|(g, f, fit)| {
            let slots = fit.placed.iter().map(|p| p.map(|i| quals[i])).collect();
            (
                Spelling {
                    instruction,
                    group: g,
                    form: f,
                    slots,
                },
                in_order(&fit.placed),
            )
        })
        .collect();
    if !exact.is_empty() {
        return Ok(exact);
    }
    if let Some((table, s)) = across::table_refusal(instruction, quals) {
        return Err((
            fail(
                Kind::Invalid,
                format!("table.{}", table.id),
                format!(
                    "`{}` is not among the combinations of table `{}`",
                    s.chain(),
                    table.id
                ),
            ),
            Some(s.form.id.clone()),
        ));
    }
    if let Some(rule) = across::forbidden(instruction, quals) {
        let reason = match &rule.effect {
            Effect::Forbid(r) => r.clone(),
            Effect::Requires(_) => String::new(),
        };
        return Err((fail(Kind::Invalid, rule.id.clone(), reason), None));
    }
    let Some((g, form, fit)) = fits
        .iter()
        .min_by_key(|(_, f, fit)| (fit.cost(f), fit.unplaced.len()))
    else {
        return Err((
            fail(
                Kind::Malformed,
                "syntax.missing_qualifier",
                "no syntax line",
            ),
            None,
        ));
    };
    let missing = fit.missing(form);
    let form_id = Some(form.id.clone());
    let names = |ix: &[usize]| {
        ix.iter()
            .map(|i| quals[*i].spelling())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let placeholders: Vec<&str> = missing
        .iter()
        .filter_map(|t| match t {
            SlotToken::Placeholder(p) => Some(p.as_str()),
            SlotToken::Fixed(_) => None,
        })
        .collect();
    if let ([one], [p]) = (fit.unplaced.as_slice(), placeholders.as_slice()) {
        if missing.len() == 1 {
            let q = quals[*one];
            let values = g
                .sets
                .get(*p)
                .map(|s| {
                    s.values
                        .iter()
                        .map(|v| v.spelling())
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .unwrap_or_default();
            return Err((
                fail(
                    Kind::Invalid,
                    format!("set.{p}"),
                    if g.sets.get(*p).is_some_and(|s| s.values.contains(&q)) {
                        // It is one of them, but written after a qualifier of its
                        // kind that fills a later position (placement::fit).
                        format!(
                            "`{q}` is one of .{p}, but written after a qualifier of its kind that comes later in `{}`: such qualifiers are read in the syntax line's order",
                            form.syntax.text
                        )
                    } else {
                        format!(
                            "`{q}` is not one of .{p} = {{{values}}} in `{}`",
                            form.syntax.text
                        )
                    },
                ),
                form_id,
            ));
        }
    }
    if !placeholders.is_empty() {
        return Err((
            fail(
                Kind::Malformed,
                "syntax.missing_qualifier",
                format!(
                    "no `.{}` qualifier; nearest syntax line `{}`",
                    placeholders.join("`, `."),
                    form.syntax.text
                ),
            ),
            form_id,
        ));
    }
    if !missing.is_empty() && fit.unplaced.is_empty() {
        let fixed: Vec<&str> = missing
            .iter()
            .filter_map(|t| match t {
                SlotToken::Fixed(q) => Some(q.spelling()),
                SlotToken::Placeholder(_) => None,
            })
            .collect();
        return Err((
            fail(
                Kind::Invalid,
                "qualifier.required",
                format!("`{}` requires {}", form.syntax.text, fixed.join(" ")),
            ),
            form_id,
        ));
    }
    Err((
        fail(
            Kind::Invalid,
            "qualifier.extra",
            format!(
                "no syntax line takes {} here; nearest `{}`",
                names(&fit.unplaced),
                form.syntax.text
            ),
        ),
        form_id,
    ))
}

/// The syntax lines nearest to a list of qualifiers: those that place them with the
/// fewest defects (none: an exact reading). The generator keeps a qualifier mutation
/// only when its own line is the one nearest, so that its rule is unambiguous.
pub fn nearest_forms(instruction: &Instruction, quals: &[Qualifier]) -> (usize, Vec<String>) {
    let costs: Vec<(usize, usize, &str)> = instruction
        .forms()
        .map(|(g, f)| {
            let fit = fit(g, f, quals, &[]);
            (fit.cost(f), fit.unplaced.len(), f.id.as_str())
        })
        .collect();
    let best = costs.iter().map(|c| (c.0, c.1)).min().unwrap_or((0, 0));
    let ids = costs
        .iter()
        .filter(|c| (c.0, c.1) == best)
        .map(|c| c.2.to_owned())
        .collect();
    (best.0, ids)
}

/// The spelling a text is read as, if its qualifiers fit a syntax line exactly
/// (operands and rules aside): what `emit-ptx` declares symbolic operands by.
pub fn reading<'s>(spec: &'s Spec, text: &str) -> Option<Spelling<'s>> {
    let parsed = text::tokenize(text).ok()?;
    let chain = parsed.words.join(".");
    let mnemonic = Mnemonic::prefix_of(&chain)?;
    let instruction = spec
        .instructions
        .iter()
        .map(|f| &f.instruction)
        .find(|i| i.mnemonic == mnemonic)?;
    let skip = mnemonic.spelling().split('.').count();
    let quals: Vec<Qualifier> = parsed.words[skip..]
        .iter()
        .map(|w| format!(".{w}").parse())
        .collect::<Result<_, _>>()
        .ok()?;
    read_qualifiers(instruction, &quals)
        .ok()?
        .into_iter()
        .next()
        .map(|(s, _)| s)
}
