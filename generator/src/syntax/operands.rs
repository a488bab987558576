//! A spelling's operands: what each position takes, how the enumerator writes it,
//! and how the judge checks what was written.
//!
//! Register compatibility follows ptxas 13.5 (probed per position, recorded in the
//! spec's `int_registers` notes): sizes always match; a bit-size type takes any
//! register of its size unless the position takes integer registers only; `.u`/`.s`
//! types take integer registers; `.f32`/`.f64` take `.b` or `.f` registers; 16-bit
//! and packed float types take `.b16` and `.b32` registers; `.pred` takes `.pred`.

use ptxvec_spec::model::{NarrowAddress, NarrowRegister, OperandClass, OperandSpec};
use ptxvec_spec::template::{OperandShape, OperandToken};
use ptxvec_spec::Qualifier;

use super::spelling::Spelling;
use super::rule_id::OperandRule;
use super::text::{Atom, Literal, Operand, RegClass};

/// What one operand position of a spelling takes.
#[derive(Debug, Clone)]
pub struct Position<'s> {
    /// The doc's name.
    pub name: &'s str,
    /// Its spec.
    pub spec: &'s OperandSpec,
    /// The register type, `None` for an address.
    pub class: Option<Qualifier>,
    /// A brace vector of this many elements.
    pub vector_len: Option<u32>,
    /// May be left out (`{, cache-policy}`).
    pub optional: bool,
    /// `{!}a`.
    pub negatable: bool,
    /// The second destination of `d|p` or `d[|p]`: its position, and whether it may be left out.
    pub pair: Option<(Box<Position<'s>>, bool)>,
}

/// How the enumerator writes the operands of one legal case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Style {
    /// Registers everywhere, optional pairs left out.
    Registers,
    /// Every source that the spec marks `imm` written as an immediate.
    Immediates,
    /// Optional `|p` written.
    WithPair,
    /// `{!}a` written negated.
    Negated,
    /// The first sink-capable destination written as `_`.
    Sink,
    /// Every optional operand that no qualifier governs written, as a register
    /// (`bar.red`'s thread count `b`); [`Style::Immediates`] writes it as an
    /// immediate, the other styles leave it out.
    WithOptional,
}

impl Style {
    /// Every style.
    pub const ALL: &'static [Style] = &[
        Style::Registers,
        Style::Immediates,
        Style::WithPair,
        Style::Negated,
        Style::Sink,
        Style::WithOptional,
    ];

    /// The suffix a case id carries for this style.
    pub const fn tag(self) -> &'static str {
        match self {
            Style::Registers => "reg",
            Style::Immediates => "imm",
            Style::WithPair => "pair",
            Style::Negated => "not",
            Style::Sink => "sink",
            Style::WithOptional => "opt",
        }
    }
}

/// Every operand position of a spelling, pairs nested.
pub fn positions<'s>(s: &Spelling<'s>) -> Vec<Position<'s>> {
    s.form
        .syntax
        .operands
        .iter()
        .filter_map(|tok| position(s, tok, &tok.name))
        .collect()
}

fn position<'s>(s: &Spelling<'s>, tok: &'s OperandToken, name: &'s str) -> Option<Position<'s>> {
    let spec = s.form.operands.get(name)?;
    let class = match &spec.class {
        OperandClass::Address => None,
        OperandClass::Fixed(q) => Some(*q),
        OperandClass::FromSlot(p) => s.value_of(p),
    };
    let vector_len = spec
        .vector
        .as_deref()
        .and_then(|v| s.value_of(v))
        .and_then(Qualifier::vector_len);
    let pair = match &tok.pair {
        Some((p, optional)) if name == tok.name => {
            let inner = position(s, tok, p)?;
            Some((Box::new(Position { pair: None, ..inner }), *optional))
        }
        _ => None,
    };
    Some(Position {
        name,
        spec,
        class,
        vector_len,
        optional: tok.optional,
        negatable: tok.negatable && name == tok.name,
        pair: pair.filter(|_| tok.shape == OperandShape::Value),
    })
}

/// The register class the enumerator writes for a type: the class declared with
/// it, else the first that fits it ([`super::text::CLASSES`]).
pub fn reg_for(class: Qualifier) -> RegClass {
    let rows = super::text::CLASSES.iter();
    rows.clone()
        .find(|r| r.declared == class)
        .or_else(|| rows.clone().find(|r| r.fits.contains(&class)))
        .map_or(RegClass::B32, |r| r.class)
}

/// Whether a register of class `r` may stand where type `t` is expected (ptxas
/// 13.5; [`RegClass::fits`]).
pub fn reg_fits(t: Qualifier, r: RegClass, int_only: bool) -> bool {
    r.fits(t, int_only)
}

/// Whether an immediate of this literal syntax may stand where type `t` is expected
/// (ptxas 13.5: integer literals are integers, `0f` is .f32, `1.0` and `0d` are .f64;
/// a float literal fits a bit-size type of its own size; 16-bit floats take none).
pub fn literal_fits(t: Qualifier, lit: Literal, int_only: bool) -> bool {
    use Qualifier as Q;
    let float_type = matches!(t, Q::F32 | Q::F64);
    match lit {
        Literal::Int => t.type_bits().is_some() && !float_type && !is_half_float(t),
        Literal::HexF32 => float_type || (t == Q::B32 && !int_only),
        Literal::HexF64 | Literal::Decimal => float_type || (t == Q::B64 && !int_only),
    }
}

fn is_half_float(t: Qualifier) -> bool {
    matches!(
        t,
        Qualifier::F16 | Qualifier::Bf16 | Qualifier::F16x2 | Qualifier::Bf16x2
    )
}

/// The immediate the enumerator writes for a position, if the spec allows one.
fn immediate_for(p: &Position<'_>) -> Option<String> {
    let class = p.class?;
    if !p.spec.imm || p.vector_len.is_some() {
        return None;
    }
    if let Some(m) = p.spec.multiple_of {
        return Some(m.to_string());
    }
    Some(match class {
        Qualifier::F32 => "0f3F800000".to_owned(),
        Qualifier::F64 => "0d3FF0000000000000".to_owned(),
        _ if p.name == "membermask" => "0xffffffff".to_owned(),
        _ if literal_fits(class, Literal::Int, true) => "1".to_owned(),
        _ => return None,
    })
}

/// Hands out register names per class: `%r1`, `%r2`, `%rd1`, ...
#[derive(Debug, Default)]
pub struct Registers {
    next: [u32; RegClass::ALL.len()],
}

impl Registers {
    /// The next register of a class.
    pub fn take(&mut self, class: RegClass) -> String {
        let i = RegClass::ALL.iter().position(|c| *c == class).unwrap_or(0);
        self.next[i] += 1;
        format!("{}{}", class.prefix(), self.next[i])
    }
}

/// Whether a style makes a case different from `Registers` for this spelling.
pub fn style_applies(s: &Spelling<'_>, style: Style) -> bool {
    let ps = positions(s);
    match style {
        Style::Registers => true,
        Style::Immediates => ps.iter().any(|p| immediate_for(p).is_some()),
        Style::WithPair => ps.iter().any(|p| matches!(p.pair, Some((_, true)))),
        Style::Negated => ps.iter().any(|p| p.negatable),
        Style::WithOptional => ps.iter().any(free_optional),
        // `_` is a property of the operand, not of the chain: one witness per
        // spelling that writes no optional qualifier (atom's `d` takes it in every
        // form and with every .sem, .scope and .space; ptxas 13.5).
        Style::Sink => {
            bare(s)
                && ps.iter().any(|p| {
                    p.spec.sink || p.pair.as_ref().is_some_and(|(q, _)| q.spec.sink)
                })
        }
    }
}

/// An optional operand that no qualifier governs (`bar.red`'s `{, b}`), unlike
/// `{, cache-policy}`, which stands exactly with `.L2::cache_hint`.
fn free_optional(p: &Position<'_>) -> bool {
    p.optional && p.spec.requires.is_none() && p.spec.required_by.is_none()
}

/// Whether the spelling writes none of its optional qualifiers.
fn bare(s: &Spelling<'_>) -> bool {
    s.form
        .syntax
        .slots
        .iter()
        .zip(&s.slots)
        .all(|(slot, q)| !slot.optional || q.is_none())
}

/// The operands of a legal case in a style: `[%rd1]`, `%r1`, `%rd2`.
pub fn render(s: &Spelling<'_>, style: Style) -> Vec<String> {
    let quals = s.qualifiers();
    let mut regs = Registers::default();
    let mut out: Vec<String> = Vec::new();
    let mut sink_used = false;
    for p in positions(s) {
        let written = if free_optional(&p) {
            matches!(style, Style::WithOptional | Style::Immediates)
        } else {
            !p.optional || p.spec.requires.is_some_and(|q| quals.contains(&q))
        };
        if !written {
            continue;
        }
        let mut text = scalar_text(&p, style, &mut regs);
        // The first sink-capable destination: of a pair, or alone (atom's `d`).
        if style == Style::Sink && p.spec.sink && !sink_used && (p.pair.is_some() || p.spec.dest) {
            text = "_".to_owned();
            sink_used = true;
        }
        if let Some((q, optional)) = &p.pair {
            let write_pair = !optional || matches!(style, Style::WithPair | Style::Sink);
            if write_pair {
                let second = if style == Style::Sink && q.spec.sink && !sink_used {
                    sink_used = true;
                    "_".to_owned()
                } else {
                    scalar_text(q, Style::Registers, &mut regs)
                };
                text = format!("{text}|{second}");
            }
        }
        out.push(text);
    }
    out
}

/// The spec's evidence for the operand that [`render`] writes as the sink `_` in
/// [`Style::Sink`]: the first sink-capable destination of a pair. The syntax line
/// shows no `_`, so a sink case's verdict rests on this source, not on the line.
pub fn sink_source<'s>(s: &Spelling<'s>) -> Option<&'s ptxvec_spec::Source> {
    positions(s).into_iter().find_map(|p| match &p.pair {
        _ if p.spec.sink && (p.pair.is_some() || p.spec.dest) => p.spec.source.as_ref(),
        Some(pair) if pair.0.spec.sink => pair.0.spec.source.as_ref(),
        _ => None,
    })
}

fn scalar_text(p: &Position<'_>, style: Style, regs: &mut Registers) -> String {
    let Some(class) = p.class else {
        return format!("[{}]", regs.take(RegClass::B64));
    };
    if let Some(n) = p.vector_len {
        let elems: Vec<String> = (0..n).map(|_| regs.take(reg_for(class))).collect();
        return format!("{{{}}}", elems.join(", "));
    }
    if style == Style::Immediates {
        if let Some(imm) = immediate_for(p) {
            return imm;
        }
    }
    let r = regs.take(reg_for(class));
    if style == Style::Negated && p.negatable {
        format!("!{r}")
    } else {
        r
    }
}

/// One thing wrong with the operands, and which rule it breaks. Every such defect
/// is invalid: the operands were read under the general statement grammar, and
/// what is wrong is this instruction's count, shape or class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OperandDefect {
    /// The rule it breaks: `operand.count`, `operand.class`, ...
    pub rule: OperandRule,
    /// What is wrong, for people.
    pub message: String,
}

fn defect(rule: OperandRule, message: String) -> OperandDefect {
    OperandDefect { rule, message }
}

/// Whether a check words its defect's message. The judge tries a chain's
/// readings one after another and keeps the first defect only when none fits, so
/// the batch judge asks first whether each fits ([`fits`]), without the messages
/// (a formatted message was a fiftieth of its time on the explorer's stream).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Say {
    Message,
    RuleOnly,
}

impl Say {
    /// The message `word` makes, where the check words its messages; an empty
    /// one where it does not.
    fn word(self, word: impl FnOnce() -> String) -> String {
        match self {
            Say::Message => word(),
            Say::RuleOnly => String::new(),
        }
    }
}

/// `format!` under [`Say::word`].
macro_rules! said {
    ($say:expr, $($arg:tt)*) => {
        $say.word(|| format!($($arg)*))
    };
}

/// Checks written operands against a spelling's positions.
pub fn check(s: &Spelling<'_>, written: &[Operand]) -> Result<(), OperandDefect> {
    check_at(s, &positions(s), written)
}

/// [`check`] with the spelling's [`positions`] given (the judge's cache keeps them).
pub fn check_at<S: AsRef<str>>(
    s: &Spelling<'_>,
    ps: &[Position<'_>],
    written: &[Operand<S>],
) -> Result<(), OperandDefect> {
    check_saying(s, ps, written, Say::Message)
}

/// Whether [`check_at`] takes the written operands: the same checks, no message.
pub fn fits<S: AsRef<str>>(s: &Spelling<'_>, ps: &[Position<'_>], written: &[Operand<S>]) -> bool {
    check_saying(s, ps, written, Say::RuleOnly).is_ok()
}

fn check_saying<S: AsRef<str>>(
    s: &Spelling<'_>,
    ps: &[Position<'_>],
    written: &[Operand<S>],
    say: Say,
) -> Result<(), OperandDefect> {
    let required = ps.iter().filter(|p| !p.optional).count();
    if written.len() < required || written.len() > ps.len() {
        let message = say.word(|| count_message(s, ps, required, written.len()));
        return Err(defect(OperandRule::Count, message));
    }
    for (p, w) in self::written(ps, written.len()).zip(written) {
        check_one(s, p, w, say)?;
    }
    let present = bound(ps, written.len());
    // An optional operand and the qualifier it goes with (PTX ISA: "When the optional
    // argument cache-policy is specified, the qualifier .level::cache_hint is required";
    // E011: ptxas also rejects the qualifier without the operand).
    let written_q = |q: &Qualifier| s.slots.contains(&Some(*q));
    for (p, &present) in ps.iter().zip(&present) {
        if let Some(q) = p.spec.requires.filter(|q| present && !written_q(q)) {
            return Err(defect(OperandRule::Requires,
            said!(say, "operand `{}` needs the qualifier `{q}`", p.name),
            ));
        }
        if let Some(q) = p.spec.required_by.filter(|q| !present && written_q(q)) {
            return Err(defect(OperandRule::RequiredBy,
            said!(say, "the qualifier `{q}` needs the operand `{}`", p.name),
            ));
        }
    }
    Ok(())
}

/// Which positions `n` written operands stand at (`n` between the required count
/// and all): every required one, and the optional ones in order until the count
/// is met, so that the last optional positions are those left out (`red`'s
/// `[a], b{, cache-policy}` with 2 written; `bar.red`'s `d, a{, b}, {!}c` with 3
/// written: `d`, `a`, `c`).
pub fn bound(ps: &[Position<'_>], n: usize) -> Vec<bool> {
    let required = ps.iter().filter(|p| !p.optional).count();
    let mut optional_left = n.saturating_sub(required);
    ps.iter()
        .map(|p| {
            !p.optional || {
                let take = optional_left > 0;
                optional_left = optional_left.saturating_sub(1);
                take
            }
        })
        .collect()
}

/// The positions `n` written operands stand at, in order ([`bound`]).
pub fn written<'a, 's>(ps: &'a [Position<'s>], n: usize) -> impl Iterator<Item = &'a Position<'s>> {
    ps.iter().zip(bound(ps, n)).filter(|(_, b)| *b).map(|(p, _)| p)
}

/// `written`, rendered operands of `s`, with the negatable source written `!`
/// (what [`Style::Negated`] does to the operands of [`Style::Registers`]).
pub fn negate(s: &Spelling<'_>, written_ops: &[String]) -> Vec<String> {
    let ps = positions(s);
    written_ops
        .iter()
        .zip(written(&ps, written_ops.len()))
        .map(|(t, p)| if p.negatable { format!("!{t}") } else { t.clone() })
        .collect()
}

/// "red takes 2 to 3 operands (a, b, cache-policy); 1 written": written piece by
/// piece, not formatted (a tenth of the explorer's lines draw it, and `format!`
/// made it a fiftieth of the batch judge's time).
fn count_message(s: &Spelling<'_>, ps: &[Position<'_>], required: usize, written: usize) -> String {
    let mut m = String::with_capacity(96);
    m.push_str(s.form.syntax.mnemonic.spelling());
    m.push_str(" takes ");
    let number = |m: &mut String, n: usize| match u8::try_from(n) {
        Ok(d @ 0..=9) => m.push(char::from(b'0' + d)),
        _ => m.push_str(&n.to_string()),
    };
    number(&mut m, required);
    if required != ps.len() {
        m.push_str(" to ");
        number(&mut m, ps.len());
    }
    m.push_str(" operands (");
    for (k, p) in ps.iter().enumerate() {
        if k > 0 {
            m.push_str(", ");
        }
        m.push_str(p.name);
    }
    m.push_str("); ");
    number(&mut m, written);
    m.push_str(" written");
    m
}

fn check_one<S: AsRef<str>>(
    s: &Spelling<'_>,
    p: &Position<'_>,
    w: &Operand<S>,
    say: Say,
) -> Result<(), OperandDefect> {
    // Concatenated, not formatted: the commonest defect of the explorer's lines.
    let shape = |expected: &str| {
        let message = say.word(|| ["operand `", p.name, "` must be ", expected, "; ", w.shape(), " written"].concat());
        Err(defect(OperandRule::Shape, message))
    };
    let Some(class) = p.class else {
        return match w {
            Operand::Address(base, _) => check_address(s, p, base, say),
            _ => shape("an address `[...]`"),
        };
    };
    if let Some(n) = p.vector_len {
        return match w {
            // PTX ISA 6.4 (Vector Operands): a vector operand is a brace-enclosed
            // list of scalar registers; ptxas's reading of immediates there is a
            // ledgered departure (E027, E028).
            // ptxas 13.5 infers a brace vector's type from its registers: one of
            // sinks alone draws "Unable to infer type of vector elements (assuming
            // .b8)" (`atom.global.add.v2.f32 {_, _}, ...`), where `{_, %f2}` and
            // `_` for the whole vector are taken.
            Operand::Vector(elems) if elems.iter().all(|a| matches!(a, Atom::Sink)) => Err(defect(OperandRule::Shape,
                said!(say, "operand `{}`: a brace vector of sinks alone has no type; write `_` for the whole vector", p.name),
            )),
            Operand::Vector(elems) if elems.len() as u32 == n => elems.iter().try_for_each(|a| match a {
                Atom::Imm(_, text) => Err(defect(OperandRule::Shape,
                    said!(say, "operand `{}`: the elements of a brace vector are registers; the immediate `{}` written", p.name, text.as_ref()),
                )),
                // ptxas 13.5: an element of a packed vector (`.v2.f16x2`) takes any
                // 32-bit register, `.f32` included, where the scalar operand takes
                // `.b32` only (`{%r1, %f3}` is accepted, `red.add.noftz.f16x2 [a], %f1`
                // draws "Arguments mismatch").
                Atom::Reg(RegClass::F32, _) if matches!(class, Qualifier::F16x2 | Qualifier::Bf16x2) => Ok(()),
                _ => check_atom(p, class, a, false, say),
            }),
            Operand::Vector(elems) => Err(defect(OperandRule::Shape,
            said!(say,
                    "operand `{}` must be a vector of {n} elements; {} written",
                    p.name,
                    elems.len()
                ),
            )),
            // ptxas 13.5: a sink-capable vector destination takes `_` whole
            // (`atom.global.add.v2.f32 _, [%rd1], {%f1, %f2};`), as each element.
            Operand::Scalar(Atom::Sink) if p.spec.dest && p.spec.sink => Ok(()),
            _ => shape(&said!(say, "a brace vector of {n} elements")),
        };
    }
    match w {
        // ptxas 13.5: elect.sync's `d|p` without its `|p` draws "Predicate output
        // expected for instruction 'elect'".
        Operand::Scalar(_) if matches!(p.pair, Some((_, false))) => {
            shape("written with its predicate output: `d|p`")
        }
        Operand::Scalar(a) => check_atom(p, class, a, false, say),
        Operand::Not(a) if p.negatable => check_atom(p, class, a, false, say),
        Operand::Not(_) => shape("written without `!`: only a predicate source may be negated"),
        Operand::Pair(d, q) => match &p.pair {
            Some((qp, _)) => {
                if matches!(d, Atom::Sink) && matches!(q, Atom::Sink) {
                    // ptxas 13.5: `_|_` is a parse error (E015).
                    return shape("at most one sink in `d|p`");
                }
                check_atom(p, class, d, true, say)?;
                check_atom(qp, qp.class.unwrap_or(Qualifier::Pred), q, true, say)
            }
            None => shape("a single register: this instruction has no predicate output `|p`"),
        },
        Operand::Vector(_) => shape("a scalar, not a brace vector"),
        Operand::Address(..) => shape("a register or an immediate, not an address"),
    }
}

fn check_atom<S: AsRef<str>>(
    p: &Position<'_>,
    class: Qualifier,
    a: &Atom<S>,
    in_pair: bool,
    say: Say,
) -> Result<(), OperandDefect> {
    let int_only = p.spec.int_registers;
    match a {
        Atom::Sink if !p.spec.dest => Err(defect(OperandRule::Shape,
            said!(say, "operand `{}` is a source: the sink `_` stands only for a destination", p.name),
        )),
        Atom::Sink if !p.spec.sink => Err(defect(OperandRule::Sink,
            said!(say, "operand `{}` may not be the sink `_`", p.name),
        )),
        Atom::Sink => Ok(()),
        Atom::Imm(..) if p.spec.dest && in_pair => Err(defect(OperandRule::Shape,
            said!(say, "operand `{}` of a `d|p` pair must be a register", p.name),
        )),
        Atom::Imm(..) if p.spec.dest => Err(defect(OperandRule::RegisterRequired,
            said!(say, "operand `{}` is a destination: it must be a register", p.name),
        )),
        // ptxas 13.5 takes an immediate `b` of atom's `.b128` forms but is killed by
        // signal 11 on an immediate `c` of `.cas.b128` (E043): no text ptxas
        // assembles has one, so the operand without `imm` takes none.
        Atom::Imm(_, text) if class == Qualifier::B128 && !p.spec.imm => Err(defect(OperandRule::Class,
            said!(say, "immediate `{}` for operand `{}` of type `.b128`: it takes a register (ptxas 13.5 faults on an immediate here, E043)", text.as_ref(), p.name),
        )),
        Atom::Imm(lit, text) => {
            let text = text.as_ref();
            if !literal_fits(class, *lit, int_only) {
                return Err(defect(OperandRule::Class,
            said!(say, "immediate `{text}` does not fit operand `{}` of type `{class}`", p.name),
                ));
            }
            if let (Some(max), Some(v)) = (&p.spec.max, int_value(text)) {
                let v = match class.type_bits() {
                    Some(bits) if max.wraps && bits < 64 => v.rem_euclid(1i128 << bits),
                    _ => v,
                };
                if v < 0 || v > i128::from(max.value) {
                    return Err(defect(OperandRule::Range,
            said!(say, "operand `{}` must lie in 0..={}; {text} written", p.name, max.value),
                    ));
                }
            }
            if let (Some(m), Some(v)) = (p.spec.multiple_of, int_value(text)) {
                if v % i128::from(m) != 0 {
                    return Err(defect(OperandRule::MultipleOf,
            said!(say, "operand `{}` must be a multiple of {m}; {text} written", p.name),
                    ));
                }
            }
            Ok(())
        }
        Atom::Reg(r, name) if !reg_fits(class, *r, int_only) => {
            let message = say.word(|| {
                let (reg, declared, spelling) = (name.as_ref(), r.declared_type(), class.spelling());
                ["register `", reg, "` (", declared, ") does not fit operand `", p.name, "` of type `", spelling, "`"].concat()
            });
            Err(defect(OperandRule::Class, message))
        }
        Atom::Reg(..) | Atom::Symbol(_) => Ok(()),
    }
}

fn check_address<S: AsRef<str>>(
    s: &Spelling<'_>,
    p: &Position<'_>,
    base: &Atom<S>,
    say: Say,
) -> Result<(), OperandDefect> {
    match base {
        Atom::Reg(RegClass::F32 | RegClass::F64 | RegClass::Pred, name) => Err(defect(OperandRule::Class,
            said!(say, "register `{}` cannot hold the address `{}`", name.as_ref(), p.name),
        )),
        Atom::Reg(r, name) if narrow_refused(s, p.spec).is_some_and(|n| *r == narrow_class(n)) => {
            Err(defect(OperandRule::AddressSize,
            said!(say, "register `{}` is narrower than the address `{}`, which ptxas refuses here", name.as_ref(), p.name),
            ))
        }
        // "Immediate addresses allowed only for .local state space".
        Atom::Imm(_, text) => Err(defect(OperandRule::Address,
            said!(say, "`[{}]`: an immediate address is allowed only for .local", text.as_ref()),
        )),
        // The tokenizer refuses `[_]` (malformed); an operand built by hand is
        // refused here too.
        Atom::Sink => Err(defect(OperandRule::Shape,
            said!(say, "operand `{}`: `[_]` is not an address", p.name),
        )),
        Atom::Reg(..) | Atom::Symbol(_) => Ok(()),
    }
}

/// The register narrower than the address that ptxas refuses as the address
/// operand `spec` of `s` (the operand's `narrow`, where `s` writes none of its
/// `unless`): the judge refuses by it, and the illegal vectors write it.
pub fn narrow_refused<'s>(s: &Spelling<'_>, spec: &'s OperandSpec) -> Option<&'s NarrowAddress> {
    let n = spec.narrow.as_ref()?;
    (!s.qualifiers().iter().any(|q| n.unless.contains(q))).then_some(n)
}

/// The register class of a narrow address register: the class declared with its
/// type.
pub fn narrow_class(n: &NarrowAddress) -> RegClass {
    let ty = match n.register {
        NarrowRegister::B16 => Qualifier::B16,
        NarrowRegister::B32 => Qualifier::B32,
    };
    reg_for(ty)
}

/// The value of an integer literal or constant expression, for the range and
/// multiple-of checks (ptxas 13.5 checks the value an expression computes:
/// `16|0xffffffff` draws "unexpected value '4294967295', expected to be multiple
/// of 16"). `None` where it has none (a division by zero).
fn int_value(text: &str) -> Option<i128> {
    let (neg, body) = match text.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, text),
    };
    let body = body.strip_suffix('U').unwrap_or(body);
    let v = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        i128::from_str_radix(h, 16).ok()
    } else if let Some(b) = body.strip_prefix("0b").or_else(|| body.strip_prefix("0B")) {
        i128::from_str_radix(b, 2).ok()
    } else {
        body.parse().ok()
    };
    match v {
        Some(v) => Some(if neg { -v } else { v }),
        None => crate::syntax::text::int_expression_value(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first legal spelling of `instruction`'s `form`.
    fn first<'s>(spec: &'s ptxvec_spec::Spec, instruction: &str, form: &str) -> Spelling<'s> {
        let i = &spec.instructions.iter().find(|f| f.instruction.instruction == instruction).unwrap().instruction;
        crate::syntax::legal::legal_spellings(spec, i, form).swap_remove(0).spelling
    }

    /// A written operand list binds every required position and the optional ones
    /// in order: `bar.red`'s `d, a{, b}, {!}c` with 3 written leaves `b` out (ptxas
    /// 13.5 reads `bar.red.popc.u32 %r1, 0, %p1;` as `d, a, c`), with 4 binds it;
    /// `red`'s trailing `{, cache-policy}` as before.
    #[test]
    fn written_operands_bind_the_required_positions_first() {
        let spec = crate::repo_spec();
        let (bar, red) = (first(&spec, "bar.red", "popc"), first(&spec, "red", "scalar"));
        let bar = positions(&bar);
        fn names<'a>(ps: &'a [Position<'_>], n: usize) -> Vec<&'a str> {
            written(ps, n).map(|p| p.name).collect()
        }
        assert_eq!(names(&bar, 3), ["d", "a", "c"]);
        assert_eq!(names(&bar, 4), ["d", "a", "b", "c"]);
        let red = positions(&red);
        assert_eq!(names(&red, 2), ["a", "b"]);
        assert_eq!(names(&red, 3), ["a", "b", "cache-policy"]);
        // Fewer than required: the required ones still bind (the count check refuses
        // the text before any operand is read).
        assert_eq!(names(&bar, 2), ["d", "a", "c"]);
    }
}
