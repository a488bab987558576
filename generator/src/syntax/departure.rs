//! Where ptxas departs from the verdict: the errata ledger's findings that ptxas
//! accepts a text the spec refuses, or fails on it, each with how ptxas reads such a
//! text ([`ptxvec_spec::Departure`]). A departure rewrites the text as ptxas reads
//! it; when the rewritten text is legal in the same module, the ledger predicts
//! what ptxas does with the original: `check-syntax` says so (`ptxas 13.5 accepts
//! this: E019`), and the explorer holds each prediction to ptxas.

use ptxvec_spec::errata::{Element, ElementAs, ElementPlace, ElementRead, OperandRead, Reading, TextRead, VectorSide, Written};
use ptxvec_spec::{Departure, Qualifier, Spec};

use super::chain_words::ChainWords;
use super::context::Module;
use super::illegal::CHECK_PTXAS;
use super::judge::{Judgement, Order};
use super::definition::judge;
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

/// Whether an element (or an address's base) is written as `e`.
fn element_is<S>(a: &Atom<S>, e: &Element) -> bool {
    match e {
        Element::Int => matches!(a, Atom::Imm(Literal::Int, _)),
        Element::Float => matches!(a, Atom::Imm(Literal::HexF32 | Literal::HexF64 | Literal::Decimal, _)),
        Element::AnyRegister => matches!(a, Atom::Reg(..)),
        Element::Register(ty) => matches!(a, Atom::Reg(c, _) if *c == super::operands::reg_for(*ty)),
    }
}

/// Whether an element is written as one of `forms`.
fn element_among<S>(a: &Atom<S>, forms: &[Element]) -> bool {
    forms.iter().any(|e| element_is(a, e))
}

/// Whether `op` is written as one of `kinds`.
fn written_as<S>(op: &Operand<S>, kinds: &[Written]) -> bool {
    kinds.iter().any(|k| match k {
        Written::Sink => matches!(op, Operand::Scalar(Atom::Sink)),
        Written::SinkPair => matches!(op, Operand::Pair(Atom::Reg(..) | Atom::Symbol(_), Atom::Sink)),
        Written::SinkPaired => matches!(op, Operand::Pair(Atom::Sink, _)),
        Written::Int => matches!(op, Operand::Scalar(a) if element_is(a, &Element::Int)),
        Written::Float => matches!(op, Operand::Scalar(a) if element_is(a, &Element::Float)),
        Written::F32Bits => matches!(op, Operand::Scalar(Atom::Imm(Literal::HexF32, _))),
        Written::F64Bits => matches!(op, Operand::Scalar(Atom::Imm(Literal::HexF64, _))),
        Written::Decimal => matches!(op, Operand::Scalar(Atom::Imm(Literal::Decimal, _))),
        Written::Register(ty) => matches!(op, Operand::Scalar(a) if element_is(a, &Element::Register(*ty))),
        Written::Address => matches!(op, Operand::Address(..)),
        Written::AddressOf(forms) => matches!(op, Operand::Address(a, _) if element_among(a, forms)),
        Written::VectorFrom(forms) => {
            matches!(op, Operand::Vector(elems) if elems.first().is_some_and(|a| element_among(a, forms)))
        }
    })
}

/// Whether the operands meet a step's conditions on them: their count and how
/// each named one is written.
fn operands_meet<S>(r: &Reading, operands: &[Operand<S>]) -> bool {
    let meets = |o: &ptxvec_spec::errata::OperandWritten| operands.get(o.at).is_some_and(|op| written_as(op, &o.is));
    r.operands.is_none_or(|n| operands.len() == n) && r.operand.iter().chain(&r.written).all(meets)
}

/// Whether a brace vector meets a step's conditions on its elements.
fn vector_meets<S>(r: &Reading, elems: &[Atom<S>]) -> bool {
    let form = |a: &Atom<S>| r.apart.iter().position(|e| element_is(a, e));
    (r.first.is_empty() || elems.first().is_some_and(|a| element_among(a, &r.first)))
        && (r.rest.is_empty() || (elems.len() > 1 && elems[1..].iter().all(|a| element_among(a, &r.rest))))
        && (r.registers.is_empty()
            || elems.iter().filter(|a| matches!(a, Atom::Reg(..))).all(|a| element_among(a, &r.registers)))
        && !elems
            .windows(2)
            .any(|w| matches!((form(&w[0]), form(&w[1])), (Some(a), Some(b)) if a != b))
}

/// `elems` with the elements `read` picks read as it says; unchanged where it
/// reads them as an element the vector does not have.
fn read_elements(read: &ElementRead, elems: &mut [Atom<&str>]) {
    let to = match &read.read_as {
        ElementAs::Register(ty) => {
            let class = super::operands::reg_for(*ty);
            Atom::Reg(class, class.row().example)
        }
        ElementAs::FirstOf(forms) => match elems.iter().find(|a| element_among(a, forms)) {
            Some(a) => a.clone(),
            None => return,
        },
    };
    for (k, e) in elems.iter_mut().enumerate() {
        let placed = match read.at {
            None => true,
            Some(ElementPlace::First) => k == 0,
            Some(ElementPlace::Rest) => k > 0,
        };
        if placed && element_among(e, &read.which) {
            *e = to.clone();
        }
    }
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

/// `t` read as `read`'s text, in its module: `t`'s label kept, and its guard but
/// for a register that is no predicate (ptxas reports it and goes on); `None`
/// where the text does not tokenize (the ledger's tests hold every one to).
fn read_as<'t>(read: &'t TextRead, t: &InstrText<&'t str>) -> Option<(InstrText<&'t str>, Module)> {
    let mut out = text::tokenize_borrowed(&read.text).ok()?;
    out.label = t.label;
    out.guard = t.guard.filter(|g| !text::guard_is_no_predicate(g));
    Some((out, Module { ptx: read.ptx, target: read.target }))
}

/// `t` read through the steps whose conditions it meets in `module`, each asking
/// of `t` as written, and the module it is read in (`module` but for a step that
/// reads the whole text as another).
fn read_steps<'t>(steps: &'t [Reading], t: &InstrText<&'t str>, module: Module) -> (InstrText<&'t str>, Module) {
    let has = |q: Qualifier| t.words.iter().any(|w| *w == word(q));
    let count = |set: &[Qualifier]| t.words.iter().filter(|w| set.iter().any(|q| **w == word(*q))).count();
    let meets = |r: &Reading| {
        r.with.iter().all(|set| set.iter().any(|q| has(*q)))
            && r.once.iter().all(|set| count(set) == 1)
            && !r.without.iter().any(|q| has(*q))
            && (!r.qualifiers_only || t.words.iter().skip(1).all(|w| Qualifier::from_word(w).is_some()))
            && r.ptx_from.is_none_or(|v| module.ptx >= v)
            && r.arch_from.is_none_or(|a| module.target.arch >= a)
            && r.arch_below.is_none_or(|a| module.target.arch < a)
            && operands_meet(r, &t.operands)
    };
    let mut out = t.clone();
    let mut read_in = module;
    for r in steps.iter().filter(|r| meets(r)) {
        if let Some(whole) = &r.read_as {
            if let Some((text, m)) = read_as(whole, t) {
                (out, read_in) = (text, m);
            }
            continue;
        }
        if let Some(target) = r.read_target {
            read_in.target = target;
        }
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
        if let (Some(side), Some(read)) = (r.vectors, &r.read_elements) {
            // The vectors on the step's side of the first address, each asked as
            // written (steps read one vector at a time, in place).
            let mut after_address = false;
            for (k, op) in out.operands.iter_mut().enumerate() {
                after_address |= matches!(op, Operand::Address(..));
                let on_side = after_address == (side == VectorSide::Sources);
                let written = t.operands.get(k);
                if let (true, Operand::Vector(elems), Some(Operand::Vector(as_written))) = (on_side, op, written) {
                    if vector_meets(r, as_written) {
                        read_elements(read, elems);
                    }
                }
            }
        }
        if let (Some(o), Some(read)) = (&r.operand, r.read_operand) {
            if read == OperandRead::Nothing {
                if o.at < out.operands.len() {
                    out.operands.remove(o.at);
                }
            } else if let Some(op) = out.operands.get_mut(o.at) {
                *op = match (read, &*op) {
                    (OperandRead::Address, _) => Operand::Address(Atom::Reg(text::RegClass::B64, "%rd1"), "%rd1"),
                    (OperandRead::Unpaired, Operand::Pair(d, _)) => Operand::Scalar(d.clone()),
                    (OperandRead::Unpaired | OperandRead::Nothing, written) => written.clone(),
                    (OperandRead::Register(ty), _) => {
                        let class = super::operands::reg_for(ty);
                        Operand::Scalar(Atom::Reg(class, class.row().example))
                    }
                };
            }
        }
    }
    (out, read_in)
}

/// The text as ptxas reads it under a departure, and the module it is read in
/// (the text's own but for a step that reads the whole text as another), if the
/// departure changes it.
fn rewrite<'t>(d: &'t Departure, t: &InstrText<&'t str>, module: Module) -> Option<(InstrText<&'t str>, Module)> {
    let (out, read_in) = read_steps(d.steps(), t, module);
    (out != *t || read_in != module).then_some((out, read_in))
}

/// Whether [`rewrite`] can change a text of a chain of these `words` under `d`,
/// by what each step asks of the chain: implied by `rewrite` changing it, so it
/// skips no departure, and it reads no text. The same for every text of a chain:
/// the batch judge asks it once per chain ([`word_departures`]), then
/// [`operands_may_change`] of each line.
fn words_may_change(d: &Departure, words: &ChainWords<'_>) -> bool {
    let has = |q: Qualifier| words.spelled.has(q);
    d.steps().iter().any(|r| {
        let changes = r.drop.iter().any(|q| has(*q))
            || r.drop_repeats.iter().any(|q| words.repeated.has(*q))
            || r.replace.keys().any(|q| has(*q))
            || !r.append.is_empty()
            || r.address
            || r.read_operand.is_some()
            || r.read_elements.is_some()
            || r.read_as.is_some()
            || r.read_target.is_some();
        r.with.iter().chain(&r.once).all(|set| set.iter().any(|q| has(*q)))
            && !r.without.iter().any(|q| has(*q))
            && changes
    })
}

/// [`words_may_change`]'s counterpart for a text's operands: what each step asks
/// of them, and that a vector holds an element the step reads.
fn operands_may_change<S>(d: &Departure, operands: &[Operand<S>]) -> bool {
    d.steps().iter().any(|r| {
        let elements = r.read_elements.as_ref().is_none_or(|read| {
            operands
                .iter()
                .any(|o| matches!(o, Operand::Vector(elems) if elems.iter().any(|a| element_among(a, &read.which))))
        });
        operands_meet(r, operands) && elements
    })
}

/// The rules a departure's texts are refused by: a qualifier the line has no place
/// for (in any line, or in the line the others fit), written twice or missing, an
/// operand of another shape, count or class, an address ptxas 12.9 faults on
/// before it refuses it (E054), a combination a table leaves out
/// (atom's four-operand line, E042), a rule of the instruction (`shared_cta`'s
/// target, E036), a value its set leaves out (red.async's `.relaxed` where the set
/// holds `.release`, E059).
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
            | RuleId::Set(_)
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
    /// Those that read a text whatever its defect ([`Departure::reads_whole_text`]).
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
            Gate::WholeText => d.reads_whole_text(),
        }
    }
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
pub fn predict_from<'t>(
    departures: &[(&'t ptxvec_spec::Erratum, &'t Departure)],
    t: &InstrText<&'t str>,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repo_spec as spec;

    fn module(ptx: &str, target: &str) -> Module {
        Module { ptx: ptx.parse().unwrap(), target: target.parse().unwrap() }
    }

    /// The departure of the ledger entry `id`.
    fn departure<'s>(spec: &'s Spec, id: &str) -> &'s Departure {
        spec.errata.errata.iter().find(|e| e.id == id).and_then(|e| e.departure.as_ref()).unwrap()
    }

    /// `text` as `id`'s departure reads it in `m`, rendered, with the module it is
    /// read in; `None` where it reads nothing.
    fn read(spec: &Spec, id: &str, text: &str, m: Module) -> Option<(String, Module)> {
        let t = text::tokenize_borrowed(text).unwrap();
        rewrite(departure(spec, id), &t, m).map(|(out, m)| (render(&out), m))
    }

    /// Every departure is steps of data that the one engine runs: the match has no
    /// arm beyond the two kinds of steps (a variant naming one reading would fail
    /// to compile here), and every ledger entry's steps are read by it.
    #[test]
    fn every_departure_is_steps_that_one_engine_reads() {
        let spec = spec();
        let mut departures = 0;
        for e in &spec.errata.errata {
            let Some(d) = &e.departure else { continue };
            let steps = match d {
                Departure::Reads(steps) | Departure::FailsOn(steps) => steps,
            };
            assert!(!steps.is_empty(), "{}", e.id);
            assert!(steps.iter().all(Reading::changes), "{}", e.id);
            departures += 1;
        }
        // The 13 entries that were data already and the 7 that were readings of
        // their own (E027, E028, E042, E044, E045, E051 to E054 but E050).
        assert!(departures >= 20, "{departures}");
    }

    /// A whole text read as another is a legal text in its module: the reading
    /// predicts what ptxas does with the written text only where it is.
    #[test]
    fn every_text_read_as_another_is_legal_in_its_module() {
        let spec = spec();
        let mut read = 0;
        for e in &spec.errata.errata {
            for r in e.departure.iter().flat_map(Departure::steps) {
                let Some(whole) = &r.read_as else { continue };
                let j = judge(&spec, &whole.text, whole.ptx, whole.target, Order::Strict);
                assert!(j.legal(), "{}: {} at {} {}: {:?}", e.id, whole.text, whole.ptx, whole.target, j.defect);
                read += 1;
            }
        }
        assert!(read > 0);
    }

    /// Vector elements as ptxas 13.5 reads them (the ledger's probes: E027, E028,
    /// E052, E053): a float literal after a register is read as that register, a
    /// literal first types the vector, an integer literal next to a float one
    /// stops the reading, and a `.pred` is read as the first `.b32` register
    /// unless a `.f32` stands next to it.
    #[test]
    fn vector_elements_are_read_as_the_ledger_says() {
        let spec = spec();
        let m = module("8.1", "sm_90");
        let text = |id: &str, t: &str| read(&spec, id, t, m).map(|(t, _)| t);
        assert_eq!(
            text("E027", "red.global.add.noftz.v2.f16 [%rd1], {%h1, 1.5};").as_deref(),
            Some("red.global.add.noftz.v2.f16 [%rd1], {%h1, %h1};")
        );
        // A literal first: read as the type's registers throughout.
        let typed = text("E027", "red.global.add.v2.f32 [%rd1], {0, %h1};").unwrap();
        assert!(typed.ends_with("{%f9, %f9};"), "{typed}");
        let typed = text("E027", "red.global.add.noftz.v4.f16 [%rd1], {0, %h1, %r1, %rd1};").unwrap();
        assert!(typed.ends_with("{%h9, %h9, %h9, %h9};"), "{typed}");
        // "Vector with elements of different types": no reading.
        assert_eq!(text("E027", "red.global.min.noftz.v4.bf16 [%rd1], {%h1, 1.5, 16, %h4};"), None);
        // A float literal first in a 16-bit vector is not read; no register to read it as.
        assert_eq!(text("E027", "red.global.add.noftz.v2.f16 [%rd1], {1.5, 2.5};"), None);
        // An integer literal past the first element (E028): the first register.
        assert_eq!(
            text("E028", "red.global.add.noftz.v2.f16 [%rd1], {%h1, 1};").as_deref(),
            Some("red.global.add.noftz.v2.f16 [%rd1], {%h1, %h1};")
        );
        assert_eq!(text("E028", "red.global.add.v2.f32 [%rd1], {%f1, 1};"), None);
        // `.pred` in atom's `d` (E052), in `b` (E053); beside `%f`, neither.
        let m = module("9.5", "sm_90");
        let text = |id: &str, t: &str| read(&spec, id, t, m).map(|(t, _)| t);
        assert_eq!(
            text("E052", "atom.global.min.noftz.v2.f16x2 {%p5, %r2}, [%rd1], {%r3, %r4};").as_deref(),
            Some("atom.global.min.noftz.v2.f16x2 {%r2, %r2}, [%rd1], {%r3, %r4};")
        );
        assert_eq!(text("E052", "atom.global.min.noftz.v2.f16x2 {%r3, %r4}, [%rd1], {%p5, %r2};"), None);
        assert_eq!(
            text("E053", "red.global.add.noftz.v2.f16x2 [%rd1], {%r11, %p9};").as_deref(),
            Some("red.global.add.noftz.v2.f16x2 [%rd1], {%r11, %r11};")
        );
        assert_eq!(text("E053", "red.global.add.noftz.v4.f16x2 [%rd1], {%r1, %f4, %p3, %r3};"), None);
    }

    /// Atom's fourth operand of the type's width is read as nothing (E042), but
    /// for `.shared` on sm_90 and later, where ptxas fails instead (E051); an
    /// integer there is a cache-policy, read by neither.
    #[test]
    fn an_extra_operand_is_read_as_nothing_by_its_type() {
        let spec = spec();
        let text = |id: &str, t: &str, m: Module| read(&spec, id, t, m).map(|(t, _)| t);
        let sm90 = module("9.0", "sm_90");
        let sm89 = module("9.0", "sm_89");
        assert_eq!(
            text("E042", "atom.global.and.b32 %r1, [%rd1], %r2, %r3;", sm90).as_deref(),
            Some("atom.global.and.b32 %r1, [%rd1], %r2;")
        );
        assert!(text("E042", "atom.global.exch.b64 %rd1, [%rd2], %rd3, 1.5;", sm90).is_some());
        assert!(text("E042", "atom.global.exch.b128 %q1, [%rd1], %q2, %q3;", sm90).is_some());
        assert_eq!(text("E042", "atom.global.and.b32 %r1, [%rd1], %r2, 1;", sm90), None);
        assert_eq!(text("E042", "atom.global.and.b64 %rd1, [%rd2], %rd3, %rd4;", sm90), None);
        assert_eq!(text("E042", "atom.shared.and.b32 %r1, [%rd1], %r2, %r3;", sm90), None);
        assert!(text("E042", "atom.shared.and.b32 %r1, [%rd1], %r2, %r3;", sm89).is_some());
        assert!(text("E051", "atom.shared.and.b32 %r1, [%rd1], %r2, %r3;", sm90).is_some());
        assert_eq!(text("E051", "atom.global.and.b32 %r1, [%rd1], %r2, %r3;", sm90), None);
        assert_eq!(text("E051", "atom.shared.and.b32 %r1, [%rd1], %r2, %r3;", sm89), None);
    }

    /// A sink `.bf16` atom is read as the one text that carries ptxas 12.9's fault
    /// (E054), in its module, the guard kept but for a register that is no
    /// predicate; a second type or a word no instruction has is not read.
    #[test]
    fn a_whole_text_is_read_as_another_in_its_module() {
        let spec = spec();
        let m = module("6.3", "sm_50");
        let at = module("7.8", "sm_90");
        let read = |t: &str| read(&spec, "E054", t, m);
        assert_eq!(
            read("atom.add.noftz.bf16 _, [%rd1], %h2;"),
            Some(("atom.global.add.noftz.bf16 %h1, [%rd1], %h2;".to_owned(), at))
        );
        assert_eq!(
            read("@%p1 atom.add.noftz.bf16x2 _|%p2, [%rd1], {%r2, %r3}, %rd4;"),
            Some(("@%p1 atom.global.add.noftz.bf16x2 %r1, [%rd1], %r2;".to_owned(), at))
        );
        assert_eq!(
            read("@%r1 atom.add.noftz.bf16 _, [%rd1], [%h2+4];"),
            Some(("atom.global.add.noftz.bf16 %h1, [%rd1], %h2;".to_owned(), at))
        );
        assert_eq!(read("atom.add.noftz.pred.bf16 _, [%rd1], 1;").map(|(_, m)| m), Some(at));
        assert_eq!(read("atom.add.noftz.bf16.bf16 _, [%rd1], %h2;"), None);
        assert_eq!(read("atom.add.noftz.bf16.f16 _, [%rd1], %h2;"), None);
        assert_eq!(read("atom.add.noftz.frob.bf16 _, [%rd1], %h2;"), None);
        assert_eq!(read("atom.add.noftz.L2::cache_hint.bf16 _, [%rd1], %h2;"), None);
        assert_eq!(read("atom.add.noftz.bf16 _, [%rd1], %r2;"), None);
        assert_eq!(read("atom.add.noftz.bf16 %h1, [%rd1], %h2;"), None);
    }
}
