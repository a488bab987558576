//! A syntax line in the PTX ISA's own notation, parsed.
//!
//! `red{.sem}{.scope}{.space}.op{.level::cache_hint}.type [a], b{, cache-policy};`
//! reads as: the mnemonic `red`; then qualifier positions in canonical order, each
//! either a placeholder (`.op`, named by a set such as `.op = {.add, ...}`) or a fixed
//! qualifier (`.noftz`), optional when written in braces; then the operands.
//! A `.name` is a placeholder exactly when `name` is not a qualifier of the
//! vocabulary ([`crate::qualifier`]); the mnemonic is one the loader declared.

use std::fmt;

use crate::qualifier::{QualMask, Qualifier};

pub use crate::mnemonic::Mnemonic;
use crate::mnemonic::own;

/// Whether `text` starts with `m`, ending at a `.`, `{`, `;`, whitespace or the end.
fn starts_with_mnemonic(text: &str, m: Mnemonic) -> bool {
    text.strip_prefix(m.spelling())
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '{', ';']) || rest.starts_with(char::is_whitespace))
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
        let own = own();
        let candidates = own.map_or_else(Mnemonic::all, |m| vec![m]);
        let braced = candidates.iter().copied().find_map(|m| {
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
                let m = match own {
                    Some(m) if starts_with_mnemonic(text, m) => m,
                    Some(m) => return Err(err(format!("expected the file's mnemonic `{m}`"), 0)),
                    None => Mnemonic::prefix_of(text).ok_or_else(|| {
                        let known: Vec<&str> = Mnemonic::all().into_iter().map(|m| m.spelling()).collect();
                        err(format!("expected one of the declared mnemonics ({})", known.join(", ")), 0)
                    })?,
                };
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
        // `ret{.uni};`: a line of no operand may end right after its chain.
        if !p.rest().is_empty() && !p.rest().starts_with(char::is_whitespace) && !p.rest().starts_with(';') {
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

    /// The spec's mnemonic spelled `s`, the embedded spec loaded (which declares
    /// every one).
    fn m(s: &str) -> Mnemonic {
        loaded();
        Mnemonic::lookup(s).unwrap()
    }

    fn loaded() {
        static SPEC: std::sync::OnceLock<()> = std::sync::OnceLock::new();
        SPEC.get_or_init(|| {
            crate::Spec::embedded().unwrap();
        });
    }

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
        loaded();
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
        loaded();
        let line = |n: usize| format!("red{}.u32 [a], b;", ".op".repeat(n - 1));
        assert_eq!(Template::parse(&line(crate::limits::MAX_SLOTS)).unwrap().slots.len(), crate::limits::MAX_SLOTS);
        let e = Template::parse(&line(crate::limits::MAX_SLOTS + 1)).unwrap_err();
        assert!(e.to_string().contains("expected at most 64 qualifier positions"), "{e}");
    }

    /// A line of no covered instruction names every one the spec knows.
    #[test]
    fn an_unknown_mnemonic_lists_the_known_ones() {
        loaded();
        let e = Template::parse("add.s32 d, a, b;").unwrap_err();
        assert_eq!(e.offset, 0);
        for m in Mnemonic::all() {
            assert!(e.message.contains(m.spelling()), "{m:?} not in {}", e.message);
        }
    }

    /// PTX ISA 9.1, 9.7.13.1 writes `bar{.cta}.red`: ptxas reads `bar`, `bar.cta`,
    /// `barrier` and `barrier.cta` as opcodes with `.red` right after them
    /// ("Illegal modifier '.cta' for instruction 'bar.red'", "Unknown modifier
    /// '.red'"), so the `.cta` stands inside the opcode, and a spelling holds it first.
    #[test]
    fn an_infix_stands_inside_the_opcode() {
        loaded();
        let t = Template::parse("bar{.cta}.red.popc.u32 d, a{, b}, {!}c;").unwrap();
        assert_eq!(t.mnemonic, m("bar.red"));
        assert_eq!(t.slots, vec![fixed(Qualifier::Cta, true), fixed(Qualifier::Popc, false), fixed(Qualifier::U32, false)]);
        assert!(t.operands[2].optional && t.operands[3].negatable);
        let t = Template::parse("barrier{.cta}.red.op{.aligned}.pred p, a{, b}, {!}c;").unwrap();
        assert_eq!(t.mnemonic, m("barrier.red"));
        let words = |s: &str| s.split('.').map(str::to_owned).collect::<Vec<_>>();
        assert_eq!(m("bar.red").opcode_in(&words("bar.red.popc.u32")), Some(2));
        assert_eq!(m("bar.red").opcode_in(&words("bar.cta.red.popc.u32")), Some(3));
        assert_eq!(m("bar.red").opcode_in(&words("bar.popc.red.u32")), None);
        assert_eq!(m("bar.red").opcode_in(&words("bar.sync")), None);
        assert_eq!(m("bar.red").opcode_in(&words("barrier.red.popc")), None);
        assert_eq!(m("barrier.red").opcode_in(&words("barrier.cta.red.and")), Some(3));
        // redux.sync's opcode is `redux`: its `.sync` may stand anywhere.
        assert_eq!(m("redux.sync").opcode_in(&words("redux.sync.add")), Some(1));
        assert_eq!(m("bar.red").chain(&[Qualifier::Cta, Qualifier::Popc, Qualifier::U32]), "bar.cta.red.popc.u32");
        assert_eq!(m("bar.red").chain(&[Qualifier::Popc, Qualifier::Cta]), "bar.red.popc.cta");
        assert_eq!(m("red").chain(&[Qualifier::Cta, Qualifier::Add]), "red.cta.add");
    }

    #[test]
    fn fixed_qualifiers_pairs_and_negation() {
        loaded();
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
        loaded();
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
        loaded();
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
            Some(m("redux.sync"))
        );
        assert_eq!(Mnemonic::prefix_of("red.add"), Some(m("red")));
        assert_eq!(Mnemonic::prefix_of("reduce"), None);
        assert_eq!(
            Mnemonic::prefix_of("atom.global.cas.b128"),
            Some(m("atom"))
        );
        assert_eq!(Mnemonic::prefix_of("atomic"), None);
        assert_eq!(m("redux.sync").opcode(), "redux");
        assert_eq!(m("match").opcode(), "match");
        assert_eq!(m("cp.reduce.async.bulk").opcode(), "cp.reduce.async.bulk");
    }
}
