//! A syntax line in the PTX ISA's own notation, parsed.
//!
//! `red{.sem}{.scope}{.space}.op{.level::cache_hint}.type [a], b{, cache-policy};`
//! reads as: the mnemonic `red`; then qualifier positions in canonical order, each
//! either a placeholder (`.op`, named by a set such as `.op = {.add, ...}`) or a fixed
//! qualifier (`.noftz`), optional when written in braces; then the operands.
//! A `.name` is a placeholder exactly when `name` is not a known qualifier.

use std::fmt;

use crate::qualifier::{QualMask, Qualifier};

/// The mnemonics of the covered instructions: what a syntax line starts with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Mnemonic {
    /// `red`
    Red,
    /// `redux.sync`
    ReduxSync,
    /// `vote.sync`
    VoteSync,
    /// `shfl.sync`
    ShflSync,
    /// `match` (the doc writes `match.any.sync`, so `.sync` is a qualifier here)
    Match,
    /// `activemask`
    Activemask,
    /// `cp.reduce.async.bulk`
    CpReduceAsyncBulk,
    /// `vote` without `.sync` (deprecated at PTX ISA 6.0, removed for sm_70 and
    /// later at 6.4)
    Vote,
    /// `shfl` without `.sync` (as `vote`)
    Shfl,
    /// `atom`
    Atom,
    /// `elect.sync`
    ElectSync,
    /// `bar.red`, and `bar.cta.red` ([`Mnemonic::infix`])
    BarRed,
    /// `barrier.red`, and `barrier.cta.red`
    BarrierRed,
    /// `red.async`
    RedAsync,
}

impl Mnemonic {
    /// Every mnemonic, in the order the instructions were added: a new one goes
    /// last, since a recorded exploration walks the instructions up to the newest
    /// it had (`audit-syntax --as-of`).
    pub const ALL: &'static [Mnemonic] = &[
        Mnemonic::Red,
        Mnemonic::ReduxSync,
        Mnemonic::VoteSync,
        Mnemonic::ShflSync,
        Mnemonic::Match,
        Mnemonic::Activemask,
        Mnemonic::CpReduceAsyncBulk,
        Mnemonic::Vote,
        Mnemonic::Shfl,
        Mnemonic::Atom,
        Mnemonic::ElectSync,
        Mnemonic::BarRed,
        Mnemonic::BarrierRed,
        Mnemonic::RedAsync,
    ];

    /// The PTX spelling.
    pub const fn spelling(self) -> &'static str {
        match self {
            Mnemonic::Red => "red",
            Mnemonic::ReduxSync => "redux.sync",
            Mnemonic::VoteSync => "vote.sync",
            Mnemonic::ShflSync => "shfl.sync",
            Mnemonic::Match => "match",
            Mnemonic::Activemask => "activemask",
            Mnemonic::CpReduceAsyncBulk => "cp.reduce.async.bulk",
            Mnemonic::Vote => "vote",
            Mnemonic::Shfl => "shfl",
            Mnemonic::Atom => "atom",
            Mnemonic::ElectSync => "elect.sync",
            Mnemonic::BarRed => "bar.red",
            Mnemonic::BarrierRed => "barrier.red",
            Mnemonic::RedAsync => "red.async",
        }
    }

    /// The words ptxas reads as the opcode: the spelling up to the words that may
    /// stand anywhere among the qualifiers. ptxas 13.5 takes the `.sync` of
    /// `redux.sync`, `vote.sync` and `shfl.sync` at any position of the chain
    /// (`redux.add.sync.u32`, `shfl.up.b32.sync`, `vote.all.sync.pred`: accepted, every
    /// permutation tried), and refuses a chain without it (`redux.add.u32`:
    /// ".sync modifier required for instruction 'redux'"); `cp.reduce.async.bulk` is
    /// one word to it (`cp.async.bulk.reduce...`: "Unknown modifier '.reduce'");
    /// `elect.sync` is `elect` with its `.sync` (`elect %r1|%p2, 0xffffffff;`:
    /// ".sync modifier required for instruction 'elect'").
    pub const fn opcode(self) -> &'static str {
        match self {
            Mnemonic::ReduxSync => "redux",
            Mnemonic::VoteSync => "vote",
            Mnemonic::ShflSync => "shfl",
            Mnemonic::ElectSync => "elect",
            m => m.spelling(),
        }
    }

    /// A qualifier ptxas reads inside the opcode, after its first word, where the
    /// document writes it in braces: `bar{.cta}.red` is `bar.red` or `bar.cta.red`.
    /// ptxas 13.5 names the four opcodes in its messages ("Illegal modifier '.and'
    /// for instruction 'barrier.cta'", "Feature 'bar.cta.red' requires PTX ISA
    /// .version 7.8"), refuses the `.cta` after `.red` ("Illegal modifier '.cta' for
    /// instruction 'bar.red'") and a `.red` anywhere but right after them ("Unknown
    /// modifier '.red'"). A spelling holds it as its first qualifier.
    pub const fn infix(self) -> Option<Qualifier> {
        match self {
            Mnemonic::BarRed | Mnemonic::BarrierRed => Some(Qualifier::Cta),
            _ => None,
        }
    }

    /// How many of a chain's words (`bar`, `cta`, `red`, `popc`) its opcode takes
    /// as written, the infix included; `None` when the chain does not open with it.
    pub fn opcode_in<S: AsRef<str>>(self, words: &[S]) -> Option<usize> {
        let infix_written = self
            .infix()
            .is_some_and(|q| words.get(1).map(AsRef::as_ref) == Some(&q.spelling()[1..]));
        let mut at = 0;
        for (k, w) in self.opcode().split('.').enumerate() {
            if k == 1 && infix_written {
                at += 1;
            }
            if words.get(at).map(AsRef::as_ref) != Some(w) {
                return None;
            }
            at += 1;
        }
        Some(at)
    }

    /// The chain of the qualifiers spelled `quals` (`.cta`, `.popc`, in canonical
    /// order; a mutant's may be no qualifier) after the mnemonic: its infix, if the
    /// first of them, in its place (`bar.cta.red.popc.u32`).
    pub fn chain<S: AsRef<str>>(self, quals: &[S]) -> String {
        let mut s = String::with_capacity(32);
        let rest = match (self.infix(), quals.first()) {
            (Some(i), Some(q)) if q.as_ref() == i.spelling() => {
                let (first, after) = self.spelling().split_once('.').unwrap_or((self.spelling(), ""));
                s.push_str(first);
                s.push_str(i.spelling());
                s.push('.');
                s.push_str(after);
                &quals[1..]
            }
            _ => {
                s.push_str(self.spelling());
                quals
            }
        };
        for q in rest {
            s.push_str(q.as_ref());
        }
        s
    }

    /// The mnemonic that `text` starts with: the longest one that ends at a `.`,
    /// `{`, whitespace or the end (so `redux.sync.add` is not `red`).
    pub fn prefix_of(text: &str) -> Option<Mnemonic> {
        Mnemonic::ALL
            .iter()
            .copied()
            .filter(|m| {
                text.strip_prefix(m.spelling()).is_some_and(|rest| {
                    rest.is_empty()
                        || rest.starts_with(['.', '{'])
                        || rest.starts_with(char::is_whitespace)
                })
            })
            .max_by_key(|m| m.spelling().len())
    }
}

impl fmt::Display for Mnemonic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.spelling())
    }
}

impl<'de> serde::Deserialize<'de> for Mnemonic {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Mnemonic::ALL.iter().copied().find(|m| m.spelling() == s).ok_or_else(|| {
            let known: Vec<&str> = Mnemonic::ALL.iter().map(|m| m.spelling()).collect();
            serde::de::Error::custom(format_args!(
                "unknown mnemonic `{s}` (expected one of {})",
                known.join(", ")
            ))
        })
    }
}

/// What stands at one qualifier position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SlotToken {
    /// A placeholder such as `.op`, whose values a set lists.
    Placeholder(String),
    /// A qualifier written out, such as `.noftz` or `.sync`.
    Fixed(Qualifier),
}

/// One qualifier position of a syntax line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slot {
    /// What stands there.
    pub token: SlotToken,
    /// Written in braces: may be left out.
    pub optional: bool,
    /// What the position takes, once its line's group has resolved it
    /// ([`crate::model::Instruction::resolve_slots`]); `None` until then, when
    /// [`crate::model::SyntaxGroup::takes`] asks the group's sets. A cache: code
    /// that changes a loaded group's sets (the coverage mutants) resolves again.
    pub takes: Option<QualMask>,
}

/// How an operand is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OperandShape {
    /// `[a]`: an address.
    Address,
    /// `b`: a register, an immediate, or a brace vector, as the operand's spec says.
    Value,
}

/// One operand position of a syntax line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OperandToken {
    /// The doc's name for it: `a`, `membermask`, `cache-policy`.
    pub name: String,
    /// Written as `{, name}`.
    pub optional: bool,
    /// Address or value.
    pub shape: OperandShape,
    /// Written as `{!}a`: a predicate that may be negated.
    pub negatable: bool,
    /// Written as `d|p` or `d[|p]`: a second destination, and whether it may be left out.
    pub pair: Option<(String, bool)>,
}

impl OperandToken {
    /// The names this position binds: the operand, and its pair if any.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.name.as_str()).chain(self.pair.as_ref().map(|(p, _)| p.as_str()))
    }
}

/// A parsed syntax line.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(try_from = "String")]
pub struct Template {
    /// The text as written in the spec.
    pub text: String,
    /// The mnemonic it starts with.
    pub mnemonic: Mnemonic,
    /// Qualifier positions, in canonical order.
    pub slots: Vec<Slot>,
    /// Operand positions, in order.
    pub operands: Vec<OperandToken>,
}

/// Why a syntax line does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("syntax line `{text}`: {message} at character {offset}")]
pub struct TemplateError {
    /// The line.
    pub text: String,
    /// What was expected.
    pub message: String,
    /// Zero-based character offset into the line.
    pub offset: usize,
}

impl Template {
    /// The placeholders, in order.
    pub fn placeholders(&self) -> impl Iterator<Item = &str> {
        self.slots.iter().filter_map(|s| match &s.token {
            SlotToken::Placeholder(p) => Some(p.as_str()),
            SlotToken::Fixed(_) => None,
        })
    }

    /// Every operand name, pairs included, in order.
    pub fn operand_names(&self) -> Vec<&str> {
        self.operands.iter().flat_map(OperandToken::names).collect()
    }

    /// Parses a syntax line.
    pub fn parse(text: &str) -> Result<Template, TemplateError> {
        let err = |message: String, offset: usize| TemplateError {
            text: text.to_owned(),
            message,
            offset,
        };
        // `bar{.cta}.red`: the infix in braces, its first position.
        let braced = Mnemonic::ALL.iter().find_map(|&m| {
            let i = m.infix()?;
            let (first, after) = m.spelling().split_once('.')?;
            let written = format!("{first}{{{}}}.{after}", i.spelling());
            text.starts_with(&written).then_some((m, written.len(), i))
        });
        let (mnemonic, at, mut slots) = match braced {
            Some((m, at, i)) => (
                m,
                at,
                vec![Slot {
                    takes: None,
                    token: SlotToken::Fixed(i),
                    optional: true,
                }],
            ),
            None => {
                let m = Mnemonic::prefix_of(text).ok_or_else(|| {
                    let known: Vec<&str> = Mnemonic::ALL.iter().map(|m| m.spelling()).collect();
                    err(format!("expected one of the covered mnemonics ({})", known.join(", ")), 0)
                })?;
                (m, m.spelling().len(), Vec::new())
            }
        };
        let mut p = Cursor {
            s: &text[at..],
            at,
        };
        loop {
            if p.eat("{.") {
                let name = p.word(is_qual_char);
                if name.is_empty() || !p.eat("}") {
                    return Err(err("expected `{.name}`".into(), p.at));
                }
                slots.push(Slot {
                    takes: None,
                    token: slot_token(&name),
                    optional: true,
                });
            } else if p.eat(".") {
                let name = p.word(is_qual_char);
                if name.is_empty() {
                    return Err(err(
                        "expected a qualifier or placeholder after `.`".into(),
                        p.at,
                    ));
                }
                slots.push(Slot {
                    takes: None,
                    token: slot_token(&name),
                    optional: false,
                });
            } else {
                break;
            }
        }
        if !p.rest().is_empty() && !p.rest().starts_with(char::is_whitespace) {
            return Err(err(
                "expected `.qualifier`, `{.qualifier}` or whitespace".into(),
                p.at,
            ));
        }
        if slots.len() > crate::limits::MAX_SLOTS {
            return Err(err(
                format!("expected at most {} qualifier positions", crate::limits::MAX_SLOTS),
                p.at,
            ));
        }
        let operands = parse_operands(&mut p).map_err(|(m, at)| err(m, at))?;
        Ok(Template {
            text: text.to_owned(),
            mnemonic,
            slots,
            operands,
        })
    }
}

impl TryFrom<String> for Template {
    type Error = TemplateError;

    fn try_from(text: String) -> Result<Self, TemplateError> {
        Template::parse(&text)
    }
}

fn slot_token(name: &str) -> SlotToken {
    match format!(".{name}").parse::<Qualifier>() {
        Ok(q) => SlotToken::Fixed(q),
        Err(_) => SlotToken::Placeholder(name.to_owned()),
    }
}

fn is_qual_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == ':'
}

fn is_operand_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

fn parse_operands(p: &mut Cursor<'_>) -> Result<Vec<OperandToken>, (String, usize)> {
    let mut out = Vec::new();
    p.skip_ws();
    if p.rest().is_empty() || p.eat(";") {
        return Ok(out);
    }
    loop {
        let optional = p.eat("{,");
        p.skip_ws();
        let mut tok = operand(p)?;
        tok.optional = optional;
        p.skip_ws();
        if optional && !p.eat("}") {
            return Err(("expected `}` closing an optional operand".into(), p.at));
        }
        out.push(tok);
        p.skip_ws();
        if p.eat(",") {
            p.skip_ws();
            continue;
        }
        if p.rest().starts_with("{,") {
            continue;
        }
        p.eat(";");
        p.skip_ws();
        if !p.rest().is_empty() {
            return Err((
                "expected `,`, `{, operand}`, `;` or the end of the line".into(),
                p.at,
            ));
        }
        return Ok(out);
    }
}

fn operand(p: &mut Cursor<'_>) -> Result<OperandToken, (String, usize)> {
    let address = p.eat("[");
    let negatable = !address && p.eat("{!}");
    let name = p.word(is_operand_char);
    if name.is_empty() {
        return Err(("expected an operand name".into(), p.at));
    }
    if address && !p.eat("]") {
        return Err(("expected `]`".into(), p.at));
    }
    let pair = if p.eat("[|") {
        let second = p.word(is_operand_char);
        if second.is_empty() || !p.eat("]") {
            return Err(("expected `[|name]`".into(), p.at));
        }
        Some((second, true))
    } else if p.eat("|") {
        let second = p.word(is_operand_char);
        if second.is_empty() {
            return Err(("expected a name after `|`".into(), p.at));
        }
        Some((second, false))
    } else {
        None
    };
    let shape = if address {
        OperandShape::Address
    } else {
        OperandShape::Value
    };
    Ok(OperandToken {
        name,
        optional: false,
        shape,
        negatable,
        pair,
    })
}

struct Cursor<'a> {
    s: &'a str,
    at: usize,
}

impl Cursor<'_> {
    fn rest(&self) -> &str {
        self.s
    }
    fn eat(&mut self, lit: &str) -> bool {
        match self.s.strip_prefix(lit) {
            Some(r) => {
                self.s = r;
                self.at += lit.len();
                true
            }
            None => false,
        }
    }
    fn word(&mut self, ok: fn(char) -> bool) -> String {
        let n = self.s.find(|c: char| !ok(c)).unwrap_or(self.s.len());
        let w = self.s[..n].to_owned();
        self.s = &self.s[n..];
        self.at += n;
        w
    }
    fn skip_ws(&mut self) {
        let n = self.s.len() - self.s.trim_start().len();
        self.s = &self.s[n..];
        self.at += n;
    }
}

impl fmt::Display for Template {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ph(name: &str, optional: bool) -> Slot {
        Slot {
            takes: None,
            token: SlotToken::Placeholder(name.into()),
            optional,
        }
    }
    fn fixed(q: Qualifier, optional: bool) -> Slot {
        Slot {
            takes: None,
            token: SlotToken::Fixed(q),
            optional,
        }
    }

    #[test]
    fn red_scalar_line_from_seed_001() {
        let t = Template::parse(
            "red{.sem}{.scope}{.space}.op{.level::cache_hint}.type [a], b{, cache-policy};",
        )
        .unwrap();
        assert_eq!(
            t.slots,
            vec![
                ph("sem", true),
                ph("scope", true),
                ph("space", true),
                ph("op", false),
                ph("level::cache_hint", true),
                ph("type", false)
            ]
        );
        assert_eq!(t.operand_names(), ["a", "b", "cache-policy"]);
        assert_eq!(t.operands[0].shape, OperandShape::Address);
        assert!(!t.operands[1].optional && t.operands[2].optional);
    }

    #[test]
    fn a_line_holds_at_most_the_capped_positions() {
        let line = |n: usize| format!("red{}.u32 [a], b;", ".op".repeat(n - 1));
        assert_eq!(Template::parse(&line(crate::limits::MAX_SLOTS)).unwrap().slots.len(), crate::limits::MAX_SLOTS);
        let e = Template::parse(&line(crate::limits::MAX_SLOTS + 1)).unwrap_err();
        assert!(e.to_string().contains("expected at most 64 qualifier positions"), "{e}");
    }

    /// A line of no covered instruction names every one the spec knows.
    #[test]
    fn an_unknown_mnemonic_lists_the_known_ones() {
        let e = Template::parse("add.s32 d, a, b;").unwrap_err();
        assert_eq!(e.offset, 0);
        for m in Mnemonic::ALL {
            assert!(e.message.contains(m.spelling()), "{m:?} not in {}", e.message);
        }
    }

    /// PTX ISA 9.1, 9.7.13.1 writes `bar{.cta}.red`: ptxas reads `bar`, `bar.cta`,
    /// `barrier` and `barrier.cta` as opcodes with `.red` right after them
    /// ("Illegal modifier '.cta' for instruction 'bar.red'", "Unknown modifier
    /// '.red'"), so the `.cta` stands inside the opcode, and a spelling holds it first.
    #[test]
    fn an_infix_stands_inside_the_opcode() {
        let t = Template::parse("bar{.cta}.red.popc.u32 d, a{, b}, {!}c;").unwrap();
        assert_eq!(t.mnemonic, Mnemonic::BarRed);
        assert_eq!(t.slots, vec![fixed(Qualifier::Cta, true), fixed(Qualifier::Popc, false), fixed(Qualifier::U32, false)]);
        assert!(t.operands[2].optional && t.operands[3].negatable);
        let t = Template::parse("barrier{.cta}.red.op{.aligned}.pred p, a{, b}, {!}c;").unwrap();
        assert_eq!(t.mnemonic, Mnemonic::BarrierRed);
        let words = |s: &str| s.split('.').map(str::to_owned).collect::<Vec<_>>();
        assert_eq!(Mnemonic::BarRed.opcode_in(&words("bar.red.popc.u32")), Some(2));
        assert_eq!(Mnemonic::BarRed.opcode_in(&words("bar.cta.red.popc.u32")), Some(3));
        assert_eq!(Mnemonic::BarRed.opcode_in(&words("bar.popc.red.u32")), None);
        assert_eq!(Mnemonic::BarRed.opcode_in(&words("bar.sync")), None);
        assert_eq!(Mnemonic::BarRed.opcode_in(&words("barrier.red.popc")), None);
        assert_eq!(Mnemonic::BarrierRed.opcode_in(&words("barrier.cta.red.and")), Some(3));
        // redux.sync's opcode is `redux`: its `.sync` may stand anywhere.
        assert_eq!(Mnemonic::ReduxSync.opcode_in(&words("redux.sync.add")), Some(1));
        assert_eq!(Mnemonic::BarRed.chain(&[Qualifier::Cta, Qualifier::Popc, Qualifier::U32]), "bar.cta.red.popc.u32");
        assert_eq!(Mnemonic::BarRed.chain(&[Qualifier::Popc, Qualifier::Cta]), "bar.red.popc.cta");
        assert_eq!(Mnemonic::Red.chain(&[Qualifier::Cta, Qualifier::Add]), "red.cta.add");
    }

    #[test]
    fn fixed_qualifiers_pairs_and_negation() {
        let t = Template::parse("redux.sync.op{.abs}{.NaN}.f32 dst, src, membermask;").unwrap();
        assert_eq!(
            t.slots,
            vec![
                ph("op", false),
                fixed(Qualifier::Abs, true),
                fixed(Qualifier::NaN, true),
                fixed(Qualifier::F32, false)
            ]
        );
        let t = Template::parse("shfl.sync.mode.b32  d[|p], a, b, c, membermask;").unwrap();
        assert_eq!(t.operands[0].pair, Some(("p".into(), true)));
        let t = Template::parse("vote.sync.ballot.b32 d, {!}a, membermask;").unwrap();
        assert!(t.operands[1].negatable);
        let t = Template::parse("activemask.b32 d;").unwrap();
        assert_eq!(t.operand_names(), ["d"]);
    }

    #[test]
    fn a_line_without_semicolon_and_an_optional_operand_without_comma_before_it() {
        let t = Template::parse("cp.reduce.async.bulk.dst.src.completion_mechanism{.level::cache_hint}.redOp.type [dstMem], [srcMem], size{, cache-policy}")
        .unwrap();
        assert_eq!(
            t.operand_names(),
            ["dstMem", "srcMem", "size", "cache-policy"]
        );
        assert_eq!(
            t.placeholders().collect::<Vec<_>>(),
            [
                "dst",
                "src",
                "completion_mechanism",
                "level::cache_hint",
                "redOp",
                "type"
            ]
        );
    }

    #[test]
    fn the_doc_typos_do_not_parse() {
        // seed 000 writes `{.abs.}`; seed 001 writes `. vec_16_bit`.
        for line in [
            "redux.sync.op{.abs.}{.NaN}.f32 dst, src, membermask;",
            "red{.sem}.op.noftz. vec_16_bit.half_word_type [a], b;",
            "red.op [a, b;",
            "reduce.op [a], b;",
        ] {
            assert!(Template::parse(line).is_err(), "{line}");
        }
        assert_eq!(
            Mnemonic::prefix_of("redux.sync.add"),
            Some(Mnemonic::ReduxSync)
        );
        assert_eq!(Mnemonic::prefix_of("red.add"), Some(Mnemonic::Red));
        assert_eq!(Mnemonic::prefix_of("reduce"), None);
        assert_eq!(
            Mnemonic::prefix_of("atom.global.cas.b128"),
            Some(Mnemonic::Atom)
        );
        assert_eq!(Mnemonic::prefix_of("atomic"), None);
        assert_eq!(Mnemonic::ReduxSync.opcode(), "redux");
        assert_eq!(Mnemonic::Match.opcode(), "match");
        assert_eq!(Mnemonic::CpReduceAsyncBulk.opcode(), "cp.reduce.async.bulk");
    }
}
