//! Where ptxas departs from the verdict: the errata ledger's findings that ptxas
//! accepts a text the spec refuses, or fails on it, each with how ptxas reads such a
//! text ([`ptxvec_spec::Departure`]). A departure rewrites the text as ptxas reads
//! it; when the rewritten text is legal in the same module, the ledger predicts
//! what ptxas does with the original: `check-syntax` says so (`ptxas 13.5 accepts
//! this: E019`), and the explorer holds each prediction to ptxas.

use ptxvec_spec::{Departure, PtxVersion, Qualifier, Spec, Target};

use super::context::Module;
use super::illegal::CHECK_PTXAS;
use super::index::{Index, Tokens};
use super::judge::{judge, Judgement, Order};
use super::defect::Defect;
use super::rule_id::{OperandRule, QualifierRule, RuleId};
use super::text::{self, Atom, InstrText, Literal, Operand};

/// What the ledger predicts ptxas does with a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prediction {
    /// Whether ptxas accepts it.
    pub accepts: bool,
    /// Whether ptxas fails on it (a signal) instead of answering.
    pub fails: bool,
    /// The finding that says so.
    pub erratum: String,
}

/// The word of a qualifier in a chain, without its dot.
fn word(q: Qualifier) -> &'static str {
    &q.spelling()[1..]
}

/// A token's spelling as a departure rewrites it: owned (the text tokenized here)
/// or borrowed from the text (the batch judge's tokens), and made from a literal
/// where the rewriting writes one (`%rd1`).
trait Spelled: AsRef<str> + Clone + PartialEq {
    fn literal(s: &'static str) -> Self;
}

impl Spelled for String {
    fn literal(s: &'static str) -> String {
        s.to_owned()
    }
}

impl Spelled for &str {
    fn literal(s: &'static str) -> Self {
        s
    }
}

/// An element of a brace vector that may stand where an immediate does: the first
/// register element of the vector.
fn register_of<S: Clone>(elems: &[Atom<S>]) -> Option<Atom<S>> {
    elems.iter().find(|a| matches!(a, Atom::Reg(..))).cloned()
}

/// Replaces the immediates of `t`'s source brace vectors that `takes(position, literal)`
/// picks by a register element of the same vector; `None` when none is replaced,
/// or when one that is picked has no register to stand for it.
fn vector_immediates<S: Spelled>(t: &InstrText<S>, takes: impl Fn(usize, Literal) -> bool) -> Option<InstrText<S>> {
    let mut out = t.clone();
    let mut changed = false;
    // Only a source: a vector before the address is a destination (atom's `d`),
    // where ptxas 13.5 takes no immediate.
    let mut after_address = false;
    for op in &mut out.operands {
        after_address |= matches!(op, Operand::Address(..));
        let Operand::Vector(elems) = op else { continue };
        if !after_address {
            continue;
        }
        let reg = register_of(elems);
        for (k, e) in elems.iter_mut().enumerate() {
            if let Atom::Imm(lit, _) = e {
                if takes(k, *lit) {
                    *e = reg.clone()?;
                    changed = true;
                }
            }
        }
    }
    changed.then_some(out)
}

/// The text as ptxas reads it under a departure, if the departure changes it.
fn rewrite<S: Spelled>(d: &Departure, t: &InstrText<S>, module: Module) -> Option<InstrText<S>> {
    let has = |q: Qualifier| t.words.iter().any(|w| w.as_ref() == word(q));
    let float_literal = |l: Literal| matches!(l, Literal::HexF32 | Literal::HexF64 | Literal::Decimal);
    let out = match d {
        Departure::ExtraPred => {
            let mut out = t.clone();
            out.words.retain(|w| w.as_ref() != word(Qualifier::Pred));
            out
        }
        Departure::RepeatIgnored(quals) => {
            let mut out = t.clone();
            let mut seen: Vec<S> = Vec::new();
            out.words.retain(|w| {
                let ignored = quals.iter().any(|q| word(*q) == w.as_ref());
                if ignored && seen.contains(w) {
                    return false;
                }
                seen.push(w.clone());
                true
            });
            out
        }
        Departure::BareMbar => {
            // cp.reduce.async.bulk's fourth operand, where the syntax line writes `[mbar]`.
            // A 64-bit register or an integer (`16`, `-1`) is taken; a 32-bit
            // register draws "Arguments mismatch" (E020).
            let mut out = t.clone();
            let op = out.operands.get_mut(3)?;
            match op {
                Operand::Scalar(Atom::Reg(text::RegClass::B64, _) | Atom::Imm(Literal::Int, _)) => {
                    *op = Operand::Address(Atom::Reg(text::RegClass::B64, S::literal("%rd1")), S::literal("%rd1"));
                }
                _ => return None,
            }
            out
        }
        // ptxas 13.5 takes a vector's type from its first element: a float
        // literal after a register is converted (`.f32`: anywhere), and an integer
        // literal first makes a `.f16` vector's type.
        Departure::VectorImmediate => {
            let f32_vector = has(Qualifier::F32);
            let f16_vector = has(Qualifier::F16);
            vector_immediates(t, |k, lit| {
                (float_literal(lit) && (k > 0 || f32_vector)) || (lit == Literal::Int && k == 0 && f16_vector)
            })?
        }
        Departure::VectorIntegerElementFault => {
            let half = [Qualifier::F16, Qualifier::Bf16, Qualifier::F16x2, Qualifier::Bf16x2]
                .into_iter()
                .any(has);
            if !half {
                return None;
            }
            vector_immediates(t, |k, lit| lit == Literal::Int && k > 0)?
        }
        Departure::SharedSinkAddress | Departure::SinkAddressFault => {
            let shared = [Qualifier::Shared, Qualifier::SharedCta, Qualifier::SharedCluster]
                .into_iter()
                .any(has);
            if shared != matches!(d, Departure::SharedSinkAddress) {
                return None;
            }
            let mut out = t.clone();
            let first = out.operands.first_mut()?;
            if *first != Operand::Scalar(Atom::Sink) {
                return None;
            }
            *first = Operand::Address(Atom::Reg(text::RegClass::B64, S::literal("%rd1")), S::literal("%rd1"));
            out
        }
        // The destination only (elsewhere `|` is a parse error), and not `_|_`.
        Departure::SinkPredicateIgnored => {
            let mut out = t.clone();
            match out.operands.first_mut()? {
                op @ Operand::Pair(Atom::Reg(..) | Atom::Symbol(_), Atom::Sink) => {
                    let Operand::Pair(d, _) = op.clone() else { return None };
                    *op = Operand::Scalar(d);
                }
                _ => return None,
            }
            out
        }
        Departure::VoteWithoutMode => {
            let modes = [Qualifier::All, Qualifier::Any, Qualifier::Uni, Qualifier::Ballot];
            // Below sm_90 ptxas 12.9 lowers `vote.sync` without a mode to a call it
            // then refuses ("Call to '__cuda_sm70_votesync' requires call
            // prototype"); the non-sync `vote` it takes on every target.
            let sync = t.words.iter().any(|w| w.as_ref() == "sync");
            if t.words.first().map(AsRef::as_ref) != Some("vote")
                || modes.into_iter().any(has)
                || !has(Qualifier::Pred)
                || (sync && module.target.arch < 90)
            {
                return None;
            }
            let mut out = t.clone();
            out.words.push(S::literal(word(Qualifier::All)));
            out
        }
        // ptxas 13.5: "Feature 'red with .noftz and .f32' requires PTX ISA .version
        // 9.4 or later" below it, and "... requires .target sm_90 or higher" below
        // that target.
        Departure::NoftzF32 => {
            if !has(Qualifier::F32) || module.ptx < "9.4".parse().ok()? || module.target.arch < 90 {
                return None;
            }
            let mut out = t.clone();
            out.words.retain(|w| w.as_ref() != word(Qualifier::Noftz));
            out
        }
    };
    (out != *t).then_some(out)
}

/// Whether a departure can change `text` at all, asked of the raw text before it is
/// tokenized (most illegal texts are not departures; the batch judge asks of each).
fn may_apply(d: &Departure, text: &str) -> bool {
    match d {
        Departure::ExtraPred => text.contains(".pred"),
        Departure::RepeatIgnored(quals) => quals.iter().any(|q| text.matches(q.spelling()).nth(1).is_some()),
        // A guard may stand before the opcode.
        Departure::BareMbar => text.contains("cp."),
        Departure::VectorImmediate | Departure::VectorIntegerElementFault => text.contains('{'),
        Departure::SharedSinkAddress | Departure::SinkAddressFault => starts_a_sink(text),
        Departure::SinkPredicateIgnored => text.contains('|') && starts_a_sink(text),
        Departure::VoteWithoutMode => text.contains("vote"),
        Departure::NoftzF32 => text.contains(".noftz") && text.contains(".f32"),
    }
}

/// Whether a `_` in `text` starts a token (a sink, or a name such as `_x`), not a
/// word's inside (`bulk_group`, `L2::cache_hint`).
fn starts_a_sink(text: &str) -> bool {
    let b = text.as_bytes();
    (0..b.len()).any(|i| b[i] == b'_' && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b"_:$%".contains(&b[i - 1]))))
}

/// The rules a departure's texts are refused by: a qualifier the line has no place
/// for (in any line, or in the line the others fit), written twice or missing, an
/// operand of another shape.
fn departing(rule: &RuleId) -> bool {
    matches!(
        rule,
        RuleId::Qualifier(
            QualifierRule::NotAllowed | QualifierRule::Duplicate | QualifierRule::Missing | QualifierRule::Extra
        ) | RuleId::Operand(OperandRule::Shape)
    )
}

/// The text of tokens, as the enumerator writes it.
fn render<S: AsRef<str>>(t: &InstrText<S>) -> String {
    let mut s = String::new();
    if let Some(l) = &t.label {
        s.push_str(l.as_ref());
        s.push_str(": ");
    }
    if let Some(g) = &t.guard {
        s.push_str(g.as_ref());
        s.push(' ');
    }
    let ops: Vec<String> = t.operands.iter().map(ToString::to_string).collect();
    let words: Vec<&str> = t.words.iter().map(AsRef::as_ref).collect();
    s.push_str(&super::legal::compose(&words.join("."), &ops));
    s
}

/// The ledger's prediction for a text judged `j` in `module`, where ptxas departs
/// from the verdict, for ptxas `release` (`13.5`); `None` where the verdict is the
/// prediction. The departures are tried in ledger order, each alone.
pub fn predict(spec: &Spec, text: &str, module: Module, release: &str, j: &Judgement) -> Option<Prediction> {
    predict_by(spec, text, module, release, j, |t| judge(spec, t, module.ptx, module.target, Order::Lenient))
}

/// [`predict`], with `judge` judging a rewritten text in `module` (leniently) as
/// [`judge`] does: the batch judge's index answers it there.
pub fn predict_by(
    spec: &Spec,
    text: &str,
    module: Module,
    release: &str,
    j: &Judgement,
    judge: impl Fn(&str) -> Judgement,
) -> Option<Prediction> {
    predict_with(spec, text, None, module, release, j.instruction.as_deref(), j.defect.as_ref(), |t| judge(t).legal())
}

/// [`predict`] for a verdict given as its instruction and defect, with `legal`
/// saying whether a rewritten text is legal in `module` (judged leniently, as
/// [`judge`] does). `tokens`, where given, are `text`'s as [`text::tokenize`]
/// makes them (the batch judge's, borrowed); else `text` is tokenized here.
#[allow(clippy::too_many_arguments)]
pub fn predict_with(
    spec: &Spec,
    text: &str,
    tokens: Option<&InstrText<&str>>,
    module: Module,
    release: &str,
    instruction: Option<&str>,
    defect: Option<&Defect>,
    legal: impl Fn(&str) -> bool,
) -> Option<Prediction> {
    // Every departure reads a statement of the general grammar: a malformed text
    // has none.
    let defect = defect?;
    if defect.kind != super::defect::Kind::Invalid || !departing(&defect.rule) {
        return None;
    }
    let instruction = instruction?;
    let mut candidates = spec
        .errata
        .errata
        .iter()
        .filter_map(|e| {
            let d = e.departure.as_ref()?;
            let seen_in = e.releases.is_empty() || e.releases.iter().any(|r| r == release);
            (seen_in && e.instructions.iter().any(|i| i == instruction) && may_apply(d, text)).then_some((e, d))
        })
        .peekable();
    // Tokenized once some departure may apply, as few texts are.
    candidates.peek()?;
    let predicted = |(e, d): (&ptxvec_spec::Erratum, &Departure), read: String| {
        legal(&read).then(|| Prediction {
            accepts: !d.fails(),
            fails: d.fails(),
            erratum: e.id.clone(),
        })
    };
    match tokens {
        Some(t) => candidates.find_map(|c| predicted(c, render(&rewrite(c.1, t, module)?))),
        None => {
            let t = text::tokenize(text).ok()?;
            candidates.find_map(|c| predicted(c, render(&rewrite(c.1, &t, module)?)))
        }
    }
}

/// The ledger's prediction for a verdict (as [`predict`]), its rewritten texts
/// judged through the batch's index.
pub fn predict_by_index(index: &Index<'_>, text: &str, ptx: PtxVersion, target: Target, j: &Judgement) -> Option<Prediction> {
    let module = Module { ptx, target };
    predict_by(index.spec(), text, module, CHECK_PTXAS, j, |t| {
        index.judge(t, &Tokens::of(t), ptx, target, Order::Lenient)
    })
}

/// The human line's note on a prediction: `(ptxas 13.5 accepts this: E019)`.
pub fn note(p: &Prediction) -> String {
    let does = if p.fails { "fails on" } else if p.accepts { "accepts" } else { "rejects" };
    format!(" (ptxas {CHECK_PTXAS} {does} this: {})", p.erratum)
}
