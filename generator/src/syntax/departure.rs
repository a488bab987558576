//! Where ptxas departs from the verdict: the errata ledger's findings that ptxas
//! accepts a text the spec refuses, or fails on it, each with how ptxas reads such a
//! text ([`ptxvec_spec::Departure`]). A departure rewrites the text as ptxas reads
//! it; when the rewritten text is legal in the same module, the ledger predicts
//! what ptxas does with the original: `check-syntax` says so (`ptxas 13.5 accepts
//! this: E019`), and the explorer holds each prediction to ptxas.

use ptxvec_spec::errata::{OperandRead, Reading, Written};
use ptxvec_spec::{Departure, Qualifier, Spec};

use super::chain_words::ChainWords;
use super::context::Module;
use super::illegal::CHECK_PTXAS;
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

/// An element of a brace vector that may stand where an immediate does: the first
/// register element of the vector.
fn register_of<S: Clone>(elems: &[Atom<S>]) -> Option<Atom<S>> {
    elems.iter().find(|a| matches!(a, Atom::Reg(..))).cloned()
}

/// Replaces the immediates of one brace vector that `picks(position, literal)`
/// picks by its first register; whether one was replaced, or `None` when one is
/// picked and no register stands for it.
fn replace_immediates<S: Clone>(elems: &mut [Atom<S>], picks: impl Fn(usize, Literal) -> bool) -> Option<bool> {
    let reg = register_of(elems);
    let mut changed = false;
    for (k, e) in elems.iter_mut().enumerate() {
        if let Atom::Imm(lit, _) = e {
            if picks(k, *lit) {
                *e = reg.clone()?;
                changed = true;
            }
        }
    }
    Some(changed)
}

/// Whether a literal is a float's (its bits, `0f…`/`0d…`, or decimal).
fn float_literal(l: Literal) -> bool {
    matches!(l, Literal::HexF32 | Literal::HexF64 | Literal::Decimal)
}

/// Whether an integer literal and a float literal stand side by side in a vector
/// (`{%h1, 1.5, 16, %h4}`, `{%r1, 0f3F800000, 0, %r2}`, `{0, 0d3FF0000000000000}`):
/// ptxas 13.5 refuses such a vector, "Vector with elements of different types are
/// not allowed", before any reading E027 or E028 describe, in `.f32`, `.f16`,
/// `.bf16` and `.bf16x2` vectors alike. Apart (`{%h1, 16, %h3, 1.5}`, `{0, %h1,
/// 1.5, %r1}`), each literal is read as it would be alone (probes at 8.1, sm_90,
/// 2026-11-26; E027, E028).
fn literal_kinds_meet<S>(elems: &[Atom<S>]) -> bool {
    let kind = |a: &Atom<S>| match a {
        Atom::Imm(l, _) => Some(float_literal(*l)),
        _ => None,
    };
    elems
        .windows(2)
        .any(|w| matches!((kind(&w[0]), kind(&w[1])), (Some(a), Some(b)) if a != b))
}

/// Whether an element is a register of a bit type (`.b16`, `.b32`, `.b64`).
fn bit_register<S>(a: &Atom<S>) -> bool {
    matches!(a, Atom::Reg(text::RegClass::B16 | text::RegClass::B32 | text::RegClass::B64, _))
}

/// `t` with its brace vectors on one side of its address (`source`: after it, the
/// sources; else before it, atom's destination) each given to `edit`, which says
/// whether it changed one, or `None` to give up; `None` when none changed.
fn edit_vectors<S: Clone>(
    t: &InstrText<S>,
    source: bool,
    mut edit: impl FnMut(&mut Vec<Atom<S>>) -> Option<bool>,
) -> Option<InstrText<S>> {
    let mut out = t.clone();
    let mut changed = false;
    let mut after_address = false;
    for op in &mut out.operands {
        after_address |= matches!(op, Operand::Address(..));
        match op {
            Operand::Vector(elems) if after_address == source => changed |= edit(elems)?,
            _ => {}
        }
    }
    changed.then_some(out)
}

/// The register a vector reads as throughout when a literal opens it (E027,
/// E045): ptxas 13.5 takes the vector's type from that literal and then takes
/// registers of other widths after it. An integer literal opens a `.f32` or `.f16`
/// vector followed by bit registers alone (`.b16`, `.b32`, `.b64`: `{0, %h1}`,
/// `{0, %rd1}`, and float literals once a register stands before them); a float
/// literal opens a `.f32` one followed by those, `.f32` registers and float
/// literals. A `.f32`, `.f64` or predicate register after an
/// integer literal, or a literal after it of the other kind, draws "Vector with
/// elements of different types"; an integer literal after it, a fault (E028).
fn typed_by_first_literal<'t>(elems: &[Atom<&'t str>], f32_vector: bool, f16_vector: bool) -> Option<Atom<&'t str>> {
    use text::RegClass as R;
    let (Atom::Imm(first, _), rest) = elems.split_first()? else {
        return None;
    };
    // A float literal after an integer one is converted once a register stands
    // between them (`{0, %h1, 0f3F800000, %r1}`; `{0, 1.5}` is refused).
    let after_a_register = |k: usize| rest[..k].iter().any(bit_register);
    let takes = match first {
        Literal::Int if f32_vector || f16_vector => rest
            .iter()
            .enumerate()
            .all(|(k, a)| bit_register(a) || matches!(a, Atom::Imm(l, _) if float_literal(*l) && after_a_register(k))),
        l if float_literal(*l) && f32_vector => rest
            .iter()
            .all(|a| bit_register(a) || matches!(a, Atom::Reg(R::F32, _)) || matches!(a, Atom::Imm(l, _) if float_literal(*l))),
        _ => false,
    };
    let reg = if f32_vector { Atom::Reg(R::F32, "%f1") } else { Atom::Reg(R::B16, "%h1") };
    (takes && !rest.is_empty()).then_some(reg)
}

/// Whether `t` is atom's `.and`, `.or`, `.xor` or `.exch` of `.b32`, `.b64` or
/// `.b128` with a fourth operand that ptxas 13.5 takes as the `c` of `.cas`: a
/// register or float literal of the type's width. An integer literal or a `%rd`
/// register there it reads as a cache-policy (".L2::cache_hint modifier required
/// for instruction 'atom' with 4 arguments"); with `.L2::cache_hint`, five operands
/// draw "Arguments mismatch".
fn extra_operand<S: AsRef<str>>(t: &InstrText<S>) -> bool {
    use text::RegClass as R;
    let has = |q: Qualifier| t.words.iter().any(|w| w.as_ref() == word(q));
    if t.words.first().map(AsRef::as_ref) != Some("atom")
        || ![Qualifier::And, Qualifier::Or, Qualifier::Xor, Qualifier::Exch].into_iter().any(has)
        || has(Qualifier::Cas)
        || has(Qualifier::L2CacheHint)
        || t.operands.len() != 4
    {
        return false;
    }
    let Operand::Scalar(c) = &t.operands[3] else { return false };
    if has(Qualifier::B32) {
        matches!(c, Atom::Reg(R::B32 | R::F32, _) | Atom::Imm(Literal::HexF32, _))
    } else if has(Qualifier::B64) {
        matches!(c, Atom::Reg(R::F64, _) | Atom::Imm(Literal::HexF64 | Literal::Decimal, _))
    } else if has(Qualifier::B128) {
        matches!(c, Atom::Reg(R::B128, _))
    } else {
        false
    }
}

/// `t` with each `.pred` register of its brace vectors before the address
/// (`source` false: a destination) or after it (`source` true) read as the
/// vector's first `.b32` register, where the vector has one and no `.f32`
/// register stands next to a `.pred` one; `None` when no element is so read.
fn pred_elements<S: Clone + PartialEq>(t: &InstrText<S>, source: bool) -> Option<InstrText<S>> {
    use text::RegClass as R;
    edit_vectors(t, source, |elems| {
        // ptxas 13.5 compares each element with its neighbours: a `.pred` next to
        // a `.f32` register draws "Vector with elements of different types"
        // (`{%r1, %f4, %p3, %r3}`); next to `.b32` ones only, the reading holds
        // wherever a `.f32` stands (`{%r1, %f4, %r3, %p3}`; probes at 8.1, sm_90,
        // 2026-11-26, E052, E053).
        let pred_by_f32 = elems.windows(2).any(|w| {
            matches!(
                (&w[0], &w[1]),
                (Atom::Reg(R::Pred, _), Atom::Reg(R::F32, _)) | (Atom::Reg(R::F32, _), Atom::Reg(R::Pred, _))
            )
        });
        if pred_by_f32 {
            return Some(false);
        }
        let Some(b32) = elems.iter().find(|a| matches!(a, Atom::Reg(R::B32, _))).cloned() else {
            return Some(false);
        };
        let mut changed = false;
        for e in elems.iter_mut() {
            if matches!(e, Atom::Reg(R::Pred, _)) {
                *e = b32.clone();
                changed = true;
            }
        }
        Some(changed)
    })
}

/// `words` without the second and later copies of each word that `dropped` names
/// (as ptxas reads a repeat it ignores, or one it draws an error for and then goes on).
fn drop_repeats(words: &mut Vec<&str>, dropped: impl Fn(&str) -> bool) {
    let mut seen: Vec<&str> = Vec::with_capacity(words.len());
    words.retain(|w| {
        let again = seen.contains(w) && dropped(w);
        seen.push(w);
        !again
    });
}

/// `t` read through the steps of a [`Departure::Reads`] or [`Departure::FailsOn`]
/// whose conditions it meets in `module`, each asking of `t` as written.
fn read_steps<'t>(steps: &[Reading], t: &InstrText<&'t str>, module: Module) -> InstrText<&'t str> {
    let has = |q: Qualifier| t.words.iter().any(|w| *w == word(q));
    let meets = |r: &Reading| {
        r.with.iter().all(|set| set.iter().any(|q| has(*q)))
            && !r.without.iter().any(|q| has(*q))
            && r.ptx_from.is_none_or(|v| module.ptx >= v)
            && r.arch_from.is_none_or(|a| module.target.arch >= a)
            && r.arch_below.is_none_or(|a| module.target.arch < a)
            && r.operands.is_none_or(|n| t.operands.len() == n)
            && r.operand.as_ref().is_none_or(|o| t.operands.get(o.at).is_some_and(|op| written_as(op, &o.is)))
    };
    let mut out = t.clone();
    for r in steps.iter().filter(|r| meets(r)) {
        out.words.retain(|w| !r.drop.iter().any(|q| word(*q) == *w));
        drop_repeats(&mut out.words, |w| r.drop_repeats.iter().any(|q| word(*q) == w));
        for w in &mut out.words {
            if let Some(to) = r.replace.iter().find(|(from, _)| word(**from) == *w).map(|(_, to)| *to) {
                *w = word(to);
            }
        }
        out.words.extend(r.append.iter().map(|q| word(*q)));
        if r.address {
            out.operands.push(Operand::Address(Atom::Reg(text::RegClass::B64, "%rd1"), "%rd1"));
        }
        if let (Some(o), Some(read)) = (&r.operand, r.read_operand) {
            if let Some(op) = out.operands.get_mut(o.at) {
                *op = match (read, &*op) {
                    (OperandRead::Address, _) => Operand::Address(Atom::Reg(text::RegClass::B64, "%rd1"), "%rd1"),
                    (OperandRead::Unpaired, Operand::Pair(d, _)) => Operand::Scalar(d.clone()),
                    (OperandRead::Unpaired, written) => written.clone(),
                    (OperandRead::Register(ty), _) => {
                        let class = super::operands::reg_for(ty);
                        Operand::Scalar(Atom::Reg(class, class.row().example))
                    }
                };
            }
        }
    }
    out
}

/// Whether `op` is written as one of `kinds`.
fn written_as<S>(op: &Operand<S>, kinds: &[Written]) -> bool {
    kinds.iter().any(|k| match k {
        Written::Sink => matches!(op, Operand::Scalar(Atom::Sink)),
        Written::SinkPair => matches!(op, Operand::Pair(Atom::Reg(..) | Atom::Symbol(_), Atom::Sink)),
        Written::Int => matches!(op, Operand::Scalar(Atom::Imm(Literal::Int, _))),
        Written::Register(ty) => {
            matches!(op, Operand::Scalar(Atom::Reg(c, _)) if *c == super::operands::reg_for(*ty))
        }
    })
}

/// The type of an atom of `.bf16` or `.bf16x2` whose destination is the sink `_`
/// (`_|p` too), where ptxas 12.9 goes on to its fault (E054), or `None` where an
/// error it draws first stops it (exit status 255), by probes at 6.0 to 8.6 and
/// sm_52 to sm_90 alike:
/// - "Unexpected instruction types": a second type (`.pred` is not one: it is
///   ignored, E018), or `.cas`; "Illegal modifier '.sync'". Any other qualifier
///   of the spec, missing, repeated, misplaced or of another instruction (`.up`,
///   `.bulk_group`, `.rn`), draws its error and the fault; a word the spec does
///   not know is not predicted;
/// - "Arguments mismatch": an operand count other than three, or four with a
///   cache-policy (a 64-bit register or an integer; three with
///   `.L2::cache_hint` are a mismatch), an unbracketed address, or a `b` that is
///   none of: a register of the type (`.b16` for `.bf16`; `.b32` or `.f32` for
///   `.bf16x2`), an integer (an expression too: `-1`, `!1`), such a register in
///   brackets (`[%h2]`, `[%h2+4]`), or a vector whose first element is such a
///   register or an integer; a vector of the wrong length, or on a scalar type,
///   or with a later element of another class or `_`, draws its error and the
///   fault; `{_, _}`, `!%h2`, `%h2|%p1`, `_` and float literals stop it.
fn reaches_sink_bf16_fault(t: &InstrText<&str>) -> Option<Qualifier> {
    use text::RegClass as R;
    if t.words.first() != Some(&"atom")
        || !matches!(t.operands.first(), Some(Operand::Scalar(Atom::Sink) | Operand::Pair(Atom::Sink, _)))
    {
        return None;
    }
    let (mut ty, mut types, mut cache_hint) = (None, 0, false);
    for w in &t.words[1..] {
        match Qualifier::from_word(w)? {
            Qualifier::Sync | Qualifier::Cas => return None,
            Qualifier::Pred => {}
            Qualifier::L2CacheHint => cache_hint = true,
            q if q.kind() == ptxvec_spec::QualKind::Type => (ty, types) = (Some(q), types + 1),
            _ => {}
        }
    }
    let ty = ty.filter(|q| types == 1 && matches!(q, Qualifier::Bf16 | Qualifier::Bf16x2))?;
    let fits = |c: &R| if ty == Qualifier::Bf16 { *c == R::B16 } else { matches!(c, R::B32 | R::F32) };
    let [_, Operand::Address(..), b, policy @ ..] = &t.operands[..] else {
        return None;
    };
    let policy_read = match policy {
        [] => !cache_hint,
        [Operand::Scalar(Atom::Reg(R::B64, _) | Atom::Imm(Literal::Int, _))] => true,
        _ => false,
    };
    let b_read = match b {
        Operand::Scalar(Atom::Reg(c, _)) | Operand::Address(Atom::Reg(c, _), _) => fits(c),
        Operand::Scalar(Atom::Imm(Literal::Int, _)) => true,
        Operand::Vector(elems) => match elems.first() {
            Some(Atom::Reg(c, _)) => fits(c),
            Some(Atom::Imm(Literal::Int, _)) => true,
            _ => false,
        },
        _ => false,
    };
    (policy_read && b_read).then_some(ty)
}

/// The text as ptxas reads it under a departure, and the module it is read in
/// (the text's own but for [`Departure::SinkBf16Fault`]), if the departure changes it.
fn rewrite<'t>(d: &Departure, t: &InstrText<&'t str>, module: Module) -> Option<(InstrText<&'t str>, Module)> {
    let has = |q: Qualifier| t.words.iter().any(|w| *w == word(q));
    let mut read_in = module;
    let out = match d {
        Departure::Reads(steps) | Departure::FailsOn(steps) => read_steps(steps, t, module),
        // ptxas 13.5 takes a vector's type from its first element: a float
        // literal after a register is converted (`.f32`: anywhere), and an integer
        // literal first makes a `.f16` vector's type. A literal first makes the
        // vector's type whatever the registers after it: read as the type's
        // registers throughout ([`typed_by_first_literal`]).
        Departure::VectorImmediate => {
            let f32_vector = has(Qualifier::F32);
            let f16_vector = has(Qualifier::F16);
            let typed = |elems: &[Atom<&'t str>]| typed_by_first_literal(elems, f32_vector, f16_vector);
            edit_vectors(t, true, |elems| {
                if literal_kinds_meet(elems) {
                    return None;
                }
                if let Some(reg) = typed(elems) {
                    elems.iter_mut().for_each(|e| *e = reg.clone());
                    return Some(true);
                }
                replace_immediates(elems, |k, lit| {
                    (float_literal(lit) && (k > 0 || f32_vector)) || (lit == Literal::Int && k == 0 && f16_vector)
                })
            })?
        }
        // An integer literal past the first element of a vector whose type is a
        // bit type: 16-bit and packed vectors (`{%h1, 1}`), and a `.f32` one that
        // a `.b32` register or an integer literal opens (`{%r1, 7}`, `{0, %h1, 1,
        // %r1}`).
        Departure::VectorIntegerElementFault => {
            let half = [Qualifier::F16, Qualifier::Bf16, Qualifier::F16x2, Qualifier::Bf16x2]
                .into_iter()
                .any(has);
            let f32_vector = has(Qualifier::F32);
            edit_vectors(t, true, |elems| {
                if literal_kinds_meet(elems) {
                    return None;
                }
                // In a `.f32` vector, registers of one kind only: a `.f32` register
                // among `.b32` ones draws "Vector with elements of different types".
                let registers = |ok: fn(&Atom<&'t str>) -> bool| elems.iter().filter(|a| matches!(a, Atom::Reg(..))).all(ok);
                let opens_bits = match elems.first() {
                    Some(Atom::Reg(text::RegClass::B32, _)) => registers(|a| matches!(a, Atom::Reg(text::RegClass::B32, _))),
                    Some(Atom::Imm(Literal::Int, _)) => registers(bit_register),
                    _ => false,
                };
                if !(half || (f32_vector && opens_bits)) {
                    return Some(false);
                }
                replace_immediates(elems, |k, lit| lit == Literal::Int && k > 0)
            })?
        }
        // ptxas 13.5 on sm_90 and later stops with "(C7907) Internal compiler
        // error." on these texts to `.shared` or `.shared::cta` (ptxas 12.9 at sm_90,
        // and 13.5 below sm_90, accept them).
        Departure::ExtraOperand | Departure::ExtraOperandFault => {
            let shared_cta = has(Qualifier::Shared) || has(Qualifier::SharedCta);
            let faults = shared_cta && module.target.arch >= 90;
            if !extra_operand(t) || faults != matches!(d, Departure::ExtraOperandFault) {
                return None;
            }
            let mut out = t.clone();
            out.operands.truncate(3);
            out
        }
        // ptxas 13.5: `{%p1, %r2}` is taken, `{%p1, %f2}` draws "Vector with elements
        // of different types are not allowed in atom instruction", `{%p1, %p2}`
        // "Arguments mismatch"; in the source vector the same reading ends in
        // "(C7907) Internal compiler error.".
        Departure::PredVectorElement | Departure::PredVectorElementFault => {
            pred_elements(t, matches!(d, Departure::PredVectorElementFault))?
        }
        // ptxas 12.9 is killed by signal 11 unless an error it draws first stops it
        // ([`reaches_sink_bf16_fault`]); the text is read as the one spelling that
        // carries the fault, where `.bf16` atoms are legal (7.8, sm_90), so that
        // every text that reaches it is predicted alike.
        Departure::SinkBf16Fault => {
            use text::RegClass as R;
            let (ty, class, d, b) = match reaches_sink_bf16_fault(t)? {
                Qualifier::Bf16 => ("bf16", R::B16, "%h1", "%h2"),
                _ => ("bf16x2", R::B32, "%r1", "%r2"),
            };
            read_in = Module { ptx: "7.8".parse().ok()?, target: "sm_90".parse().ok()? };
            // A guard register of another class draws "Predicate expression
            // expected", and the fault follows (`@%r1`, `@!%r1`, `@%rd1`, `@%f1`,
            // `@%h1`: ptxas 12.9 at 7.8, sm_90); a guard of no register is unprobed.
            let guard = t.guard.filter(|g| !text::guard_is_no_predicate(g));
            InstrText {
                label: t.label,
                guard,
                words: vec!["atom", "global", "add", "noftz", ty],
                operands: vec![
                    Operand::Scalar(Atom::Reg(class, d)),
                    Operand::Address(Atom::Reg(R::B64, "%rd1"), "%rd1"),
                    Operand::Scalar(Atom::Reg(class, b)),
                ],
            }
        }
    };
    (out != *t).then_some((out, read_in))
}

/// Whether [`rewrite`] can change a text of a chain of these `words` under `d`,
/// by what each of its arms asks first of the chain: implied by `rewrite`
/// changing it, so it skips no departure, and it reads no text. True where an arm
/// asks nothing of the chain. The same for every text of a chain: the batch judge
/// asks it once per chain ([`word_departures`]), then [`operands_may_change`] of
/// each line.
fn words_may_change(d: &Departure, words: &ChainWords<'_>) -> bool {
    let has = |q: Qualifier| words.spelled.has(q);
    let first_word = |w: &str| words.first == w;
    match d {
        Departure::Reads(steps) | Departure::FailsOn(steps) => steps.iter().any(|r| {
            let changes = r.drop.iter().any(|q| has(*q))
                || r.drop_repeats.iter().any(|q| words.repeated.has(*q))
                || r.replace.keys().any(|q| has(*q))
                || !r.append.is_empty()
                || r.address
                || r.read_operand.is_some();
            r.with.iter().all(|set| set.iter().any(|q| has(*q))) && !r.without.iter().any(|q| has(*q)) && changes
        }),
        Departure::ExtraOperand | Departure::ExtraOperandFault | Departure::SinkBf16Fault => first_word("atom"),
        Departure::VectorImmediate
        | Departure::VectorIntegerElementFault
        | Departure::PredVectorElement
        | Departure::PredVectorElementFault => true,
    }
}

/// [`words_may_change`]'s counterpart for a text's operands: what each arm of
/// [`rewrite`] asks first of them (true where it asks nothing of them).
fn operands_may_change<S>(d: &Departure, operands: &[Operand<S>]) -> bool {
    use text::RegClass as R;
    let first_operand = |f: &dyn Fn(&Operand<S>) -> bool| operands.first().is_some_and(f);
    let in_a_vector = |f: &dyn Fn(&Atom<S>) -> bool| {
        operands.iter().any(|o| matches!(o, Operand::Vector(elems) if elems.iter().any(f)))
    };
    match d {
        Departure::VectorImmediate | Departure::VectorIntegerElementFault => {
            in_a_vector(&|a| matches!(a, Atom::Imm(..)))
        }
        Departure::SinkBf16Fault => {
            first_operand(&|o| matches!(o, Operand::Scalar(Atom::Sink) | Operand::Pair(Atom::Sink, _)))
        }
        Departure::ExtraOperand | Departure::ExtraOperandFault => operands.len() > 3,
        Departure::Reads(steps) | Departure::FailsOn(steps) => steps.iter().any(|r| {
            r.operands.is_none_or(|n| operands.len() == n)
                && r.operand.as_ref().is_none_or(|o| operands.get(o.at).is_some_and(|op| written_as(op, &o.is)))
        }),
        Departure::PredVectorElement | Departure::PredVectorElementFault => {
            in_a_vector(&|a| matches!(a, Atom::Reg(R::Pred, _)))
        }
    }
}

/// The rules a departure's texts are refused by: a qualifier the line has no place
/// for (in any line, or in the line the others fit), written twice or missing, an
/// operand of another shape, count or class, an address ptxas 12.9 faults on
/// before it refuses it (E054), a combination a table leaves out
/// (atom's four-operand line, E042), a rule of the instruction (`shared_cta`'s
/// target, E036).
fn departing(rule: &RuleId) -> bool {
    matches!(
        rule,
        RuleId::Qualifier(
            QualifierRule::NotAllowed | QualifierRule::Duplicate | QualifierRule::Missing | QualifierRule::Extra
        ) | RuleId::Operand(
            OperandRule::Shape | OperandRule::Class | OperandRule::Count | OperandRule::Address | OperandRule::AddressSize
        )
            | RuleId::Table(_)
            | RuleId::Spec(_)
    )
}

/// The text of tokens, as the enumerator writes it.
pub fn render<S: AsRef<str>>(t: &InstrText<S>) -> String {
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
/// prediction. The departures are tried in ledger order, each alone, then two at
/// once (the first's reading read again by the second: `red.pred.b32.and.shared::cta`
/// at sm_20 is E018's and E036's), the prediction naming both (`E018+E036`).
pub fn predict(spec: &Spec, text: &str, module: Module, release: &str, j: &Judgement) -> Option<Prediction> {
    predict_by(spec, text, module, release, j, |t, m| judge(spec, t, m.ptx, m.target, Order::Lenient))
}

/// [`predict`], with `judge` judging a rewritten text in a module (leniently) as
/// [`judge`] does.
pub fn predict_by(
    spec: &Spec,
    text: &str,
    module: Module,
    release: &str,
    j: &Judgement,
    judge: impl Fn(&str, Module) -> Judgement,
) -> Option<Prediction> {
    let instruction = j.instruction.as_deref()?;
    // A defect no departure changes: nothing to tokenize.
    gate(j.defect.as_ref())?;
    // `text::tokenize`'s tokens (comments made whitespace), borrowed.
    let code = text::uncommented(text).ok()?;
    let t = text::tokenize_borrowed(&code).ok()?;
    let departures = word_departures(spec, instruction, release, &ChainWords::of(&t.words));
    predict_from(&departures, &t, module, j.defect.as_ref(), &|t, m| judge(&render(t), m).legal())
}

/// Which departures can change a verdict with this defect; `None` where none can.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Gate {
    /// Any: the defect is one a departure's texts are refused by ([`departing`]).
    Any,
    /// Those that fail: a legal text can meet only a fault, ptxas failing on what
    /// it should take (E054: ptxas 12.9 on a legal `_` of `.bf16`).
    Fails,
    /// Those that read a text whatever its defect ([`reads_any_defect`]).
    WholeText,
}

fn gate(defect: Option<&Defect>) -> Option<Gate> {
    // Every departure reads a statement of the general grammar: a malformed text
    // has none. A module the target model refuses is no instruction's.
    match defect {
        None => Some(Gate::Fails),
        Some(d) if d.kind != super::defect::Kind::Invalid => None,
        Some(d) if departing(&d.rule) => Some(Gate::Any),
        Some(d) if !matches!(d.rule, RuleId::Module(_)) => Some(Gate::WholeText),
        Some(_) => None,
    }
}

impl Gate {
    fn lets(self, d: &Departure) -> bool {
        match self {
            Gate::Any => true,
            Gate::Fails => d.fails(),
            Gate::WholeText => reads_any_defect(d),
        }
    }
}

/// Whether a departure decides from the whole text, whatever defect the verdict
/// names: ptxas 12.9 reports any error of a sink `.bf16` atom's that does not stop
/// it, then fails ([`reaches_sink_bf16_fault`], E054).
fn reads_any_defect(d: &Departure) -> bool {
    matches!(d, Departure::SinkBf16Fault)
}

/// The departures of `instruction` seen in ptxas `release` that may change a text
/// whose chain has these `words`, in ledger order ([`words_may_change`]): the same
/// for every text of one chain, and asked once per chain by the batch judge
/// ([`super::index::Read::departures`]).
pub fn word_departures<'s>(
    spec: &'s Spec,
    instruction: &str,
    release: &str,
    words: &ChainWords<'_>,
) -> Vec<(&'s ptxvec_spec::Erratum, &'s Departure)> {
    spec.errata
        .departures_of(instruction)
        .filter(|(e, d)| {
            let seen_in = e.releases.is_empty() || e.releases.iter().any(|r| r == release);
            seen_in && words_may_change(d, words)
        })
        .collect()
}

/// The ledger's prediction for a text `t` of a chain whose [`word_departures`] are
/// `departures`, judged with `defect` in `module` (as [`predict`]), with `legal`
/// saying whether a rewritten text is legal in a module (the batch judge judges
/// the rewritten tokens through its index): the first of the departures that may
/// change `t` (alone, then two at once) whose reading of it is legal.
pub fn predict_from(
    departures: &[(&ptxvec_spec::Erratum, &Departure)],
    t: &InstrText<&str>,
    module: Module,
    defect: Option<&Defect>,
    legal: &dyn Fn(&InstrText<&str>, Module) -> bool,
) -> Option<Prediction> {
    let gate = gate(defect)?;
    let candidates: Vec<(&ptxvec_spec::Erratum, &Departure)> = departures
        .iter()
        .filter(|(_, d)| gate.lets(d) && operands_may_change(d, &t.operands))
        .copied()
        .collect();
    if candidates.is_empty() {
        return None;
    }
    let prediction = |read: &[&(&ptxvec_spec::Erratum, &Departure)]| {
        let fails = read.iter().any(|(_, d)| d.fails());
        Prediction {
            accepts: !fails,
            fails,
            erratum: read.iter().map(|(e, _)| e.id.as_str()).collect::<Vec<_>>().join("+"),
        }
    };
    let singles: Vec<Option<(InstrText<&str>, Module)>> = candidates.iter().map(|c| rewrite(c.1, t, module)).collect();
    for (c, r) in candidates.iter().zip(&singles) {
        if let Some((read, m)) = r {
            if legal(read, *m) {
                return Some(prediction(&[c]));
            }
        }
    }
    for (i, first) in candidates.iter().enumerate() {
        let Some((read, m)) = &singles[i] else { continue };
        for (k, second) in candidates.iter().enumerate() {
            // Two entries of one departure (E018 and E049) read a text alike.
            if k == i || first.1 == second.1 {
                continue;
            }
            if let Some((again, m2)) = rewrite(second.1, read, *m) {
                if legal(&again, m2) {
                    return Some(prediction(&[first, second]));
                }
            }
        }
    }
    None
}

/// The human line's note on a prediction: `(ptxas 13.5 accepts this: E019)`.
pub fn note(p: &Prediction) -> String {
    let does = if p.fails { "fails on" } else if p.accepts { "accepts" } else { "rejects" };
    format!(" (ptxas {CHECK_PTXAS} {does} this: {})", p.erratum)
}
