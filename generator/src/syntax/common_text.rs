//! The texts most batch lines hold, tokenized in one pass: [`text::tokenize`]'s
//! tokens (comments made whitespace) for a text of a common shape, borrowed from
//! it, or why not, and the caller tokenizes it with the definition.
//!
//! The shape: printable ASCII (spaces and tabs the only whitespace), an optional
//! guard, a chain of dotted words (a `:` only within a `::`), operands that are
//! registers, names, sinks, unsigned numbers (integers, decimal floats, floats
//! written as their bits), `[base]` or `[base+offset]` addresses, brace vectors,
//! `d|p` pairs and `!p` negations, and one `;` at the end; comments between
//! tokens, outside brackets and braces. Anything else (a label, a signed number
//! or an integer expression, whitespace or a comment inside the chain, every text
//! that does not tokenize) goes to the definition, which names its defects.
//! Within the shape each step below is the definition's, so the tokens are its
//! tokens; a test holds the two to that on every vector and explorer text.
//!
//! One cursor reads the text once, left to right: each byte is looked at where it
//! stands in the grammar, and the first that has no place there ends the fast
//! path. (Split first and parsed piece by piece, as the definition reads, every
//! operand's bytes were scanned four or five times, and this was a quarter of the
//! batch judge's instructions on the explorer's stream.)

use super::text::{self, Atom, InstrText, Literal, Operand, RegClass};

/// What a byte may be within the shape, by byte: a bit per class.
const CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        let mut k = 0;
        if b == b' ' || b == b'\t' {
            k |= SPACE;
        }
        // A byte of a chain's word other than `:` (`split_chain`: alphanumerics,
        // `_` and `:`).
        if b.is_ascii_alphanumeric() || b == b'_' {
            k |= WORD;
        }
        // A byte of an identifier after its first (PTX ISA 4.4).
        if b.is_ascii_alphanumeric() || b == b'_' || b == b'$' {
            k |= NAME;
        }
        if b.is_ascii_alphanumeric() {
            k |= ALNUM;
        }
        if b.is_ascii_alphanumeric() || b == b'.' {
            k |= NUMBER;
        }
        t[c] = k;
        c += 1;
    }
    t
};
const SPACE: u8 = 1;
const WORD: u8 = 2;
const NAME: u8 = 4;
const ALNUM: u8 = 8;
const NUMBER: u8 = 16;

fn is(b: u8, class: u8) -> bool {
    CLASS[usize::from(b)] & class != 0
}

/// [`text::tokenize`]'s tokens of `text`, borrowed from it, if it has the common
/// shape; else why not.
pub fn tokenize(text: &str) -> Result<InstrText<&str>, Uncommon> {
    let mut spaced = false;
    read(text, &mut spaced).ok_or(if spaced { Uncommon::SpacedChain } else { Uncommon::Other })
}

/// Why a text is not read here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Uncommon {
    /// A chain, whitespace, then a dot (`shfl .sync.up.b32`): the definition reads
    /// the chain on past the whitespace, so its words are no one slice of the text
    /// (the batch judge reads such a text as its plain form).
    SpacedChain,
    /// Anything else outside the shape.
    Other,
}

/// [`tokenize`]'s reading; `spaced` is set where it stops at a spaced chain.
fn read<'t>(text: &'t str, spaced: &mut bool) -> Option<InstrText<&'t str>> {
    let mut c = Cursor { text, at: 0 };
    c.gap()?;
    let guard = if c.peek() == Some(b'@') { Some(c.guard()?) } else { None };
    let words = c.chain()?;
    match c.peek()? {
        b';' => {}
        b' ' | b'\t' | b'/' => {
            c.gap()?;
            // A dot after whitespace: a chain written with whitespace inside.
            if c.peek()? == b'.' {
                *spaced = true;
                return None;
            }
        }
        _ => return None,
    }
    let mut operands = Vec::new();
    if c.peek()? != b';' {
        // Room for the most operands a syntax line has (`shfl.sync`'s five), so
        // that no line grows it: made at that size (`reserve` on an empty vector
        // takes the growing path, half a percent of the batch judge's work).
        operands = Vec::with_capacity(6);
        loop {
            operands.push(c.operand()?);
            c.gap()?;
            match c.peek()? {
                b',' => {
                    c.at += 1;
                    c.gap()?;
                }
                b';' => break,
                _ => return None,
            }
        }
    }
    // The one `;`, then whitespace and comments only.
    c.at += 1;
    c.gap()?;
    (c.at == text.len()).then_some(InstrText {
        label: None,
        guard,
        words,
        operands,
    })
}

/// Where the reading of a text stands.
struct Cursor<'t> {
    text: &'t str,
    /// A byte offset; every token ends at an ASCII byte, so it is a character
    /// boundary wherever a slice is taken.
    at: usize,
}

impl<'t> Cursor<'t> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    /// Moves past the bytes of `class`.
    fn skip(&mut self, class: u8) {
        let b = self.text.as_bytes();
        while self.at < b.len() && is(b[self.at], class) {
            self.at += 1;
        }
    }

    fn skip_space(&mut self) {
        self.skip(SPACE);
    }

    /// Moves past whitespace and comments between tokens: to the definition a
    /// comment is whitespace (`uncommented`: a `/* … */`, or a `//` up to the
    /// next newline). `None` for a `/*` never closed, or a `//` that a newline
    /// ends (the rest is the definition's). Never inside brackets or braces: an
    /// address's text would hold the comment where the definition's holds a space.
    #[inline(always)]
    fn gap(&mut self) -> Option<()> {
        self.skip(SPACE);
        // Nearly every gap is a space or none: no call for it.
        if self.peek() != Some(b'/') {
            return Some(());
        }
        self.comments()
    }

    /// [`Cursor::gap`] from a `/`.
    #[inline(never)]
    fn comments(&mut self) -> Option<()> {
        let b = self.text.as_bytes();
        loop {
            self.skip(SPACE);
            if self.peek() != Some(b'/') {
                return Some(());
            }
            match b.get(self.at + 1) {
                Some(b'*') => {
                    let close = memchr::memmem::find(&b[self.at + 2..], b"*/")?;
                    self.at += 2 + close + 2;
                }
                Some(b'/') => {
                    if memchr::memchr(b'\n', &b[self.at..]).is_some() {
                        return None;
                    }
                    self.at = b.len();
                }
                // A `/` of no comment: the caller meets it.
                _ => return Some(()),
            }
        }
    }

    /// The guard at `@`: up to the first whitespace, `@` or `@!` before an
    /// identifier, and the whitespace after it.
    fn guard(&mut self) -> Option<&'t str> {
        let start = self.at;
        let b = self.text.as_bytes();
        while self.at < b.len() && !is(b[self.at], SPACE) {
            self.at += 1;
        }
        if self.at == b.len() {
            return None;
        }
        let g = &self.text[start..self.at];
        let name = g[1..].strip_prefix('!').unwrap_or(&g[1..]);
        if !text::is_identifier(name) {
            return None;
        }
        self.gap()?;
        Some(g)
    }

    /// The chain's words. A `:` stands only within a `::` (one `:` alone may be a
    /// label's, which the definition reads).
    fn chain(&mut self) -> Option<Vec<&'t str>> {
        let b = self.text.as_bytes();
        let mut words = Vec::with_capacity(8);
        loop {
            let start = self.at;
            loop {
                self.skip(WORD);
                if self.peek() != Some(b':') {
                    break;
                }
                if b.get(self.at + 1) != Some(&b':') || b.get(self.at + 2) == Some(&b':') {
                    return None;
                }
                self.at += 2;
            }
            if self.at == start {
                return None;
            }
            words.push(&self.text[start..self.at]);
            if self.peek() != Some(b'.') {
                return Some(words);
            }
            self.at += 1;
        }
    }

    /// One operand (`parse_operand`), the cursor on its first byte.
    fn operand(&mut self) -> Option<Operand<&'t str>> {
        match self.peek()? {
            b'[' => {
                self.at += 1;
                self.skip_space();
                let inner = self.at;
                let base = self.atom()?;
                if base == Atom::Sink {
                    return None;
                }
                let mut end = self.at;
                self.skip_space();
                if self.peek() == Some(b'+') {
                    self.at += 1;
                    self.skip_space();
                    let offset = self.at;
                    self.skip(ALNUM);
                    if text::literal(&self.text[offset..self.at]) != Some(Literal::Int) {
                        return None;
                    }
                    end = self.at;
                    self.skip_space();
                }
                if self.peek()? != b']' {
                    return None;
                }
                self.at += 1;
                Some(Operand::Address(base, &self.text[inner..end]))
            }
            b'{' => {
                self.at += 1;
                // Room for the widest vector (`.v8`).
                let mut atoms = Vec::with_capacity(8);
                loop {
                    self.skip_space();
                    atoms.push(self.atom()?);
                    self.skip_space();
                    match self.peek()? {
                        b',' => self.at += 1,
                        b'}' => break,
                        _ => return None,
                    }
                }
                self.at += 1;
                Some(Operand::Vector(atoms))
            }
            // `!` before a name, a register or a sink (no expression starts so):
            // nothing may follow it but the operand's end (`!a|b` is no operand).
            b'!' => {
                self.at += 1;
                self.skip_space();
                let named = self.peek()?;
                if !(named.is_ascii_alphabetic() || matches!(named, b'_' | b'$' | b'%')) {
                    return None;
                }
                Some(Operand::Not(self.atom()?))
            }
            // A number: never a pair's first half (`1|2` may be an expression,
            // which the definition reads).
            b'0'..=b'9' => Some(Operand::Scalar(self.atom()?)),
            _ => {
                let first = self.atom()?;
                let end = self.at;
                self.skip_space();
                if self.peek() != Some(b'|') {
                    self.at = end;
                    return Some(Operand::Scalar(first));
                }
                self.at += 1;
                self.skip_space();
                Some(Operand::Pair(first, self.atom()?))
            }
        }
    }

    /// `Atom::parse` on the atom at the cursor: the sink, a number (its
    /// alphanumerics and points, as `literal` reads them), or an identifier (a register
    /// where its prefix shows a class). What follows is the caller's to check.
    fn atom(&mut self) -> Option<Atom<&'t str>> {
        let start = self.at;
        let first = self.peek()?;
        let b = self.text.as_bytes();
        if first.is_ascii_digit() || (first == b'.' && b.get(start + 1).is_some_and(u8::is_ascii_digit)) {
            // A number's alphanumerics and points (`0x1F`, `0f3F800000`, `1.5`,
            // `.5`, `1e3`), as `literal` reads them; a sign or an operator
            // within it is an expression's, the definition's to read.
            self.skip(NUMBER);
            let s = &self.text[start..self.at];
            return text::literal(s).map(|lit| Atom::Imm(lit, s));
        }
        // An identifier: a letter then name bytes, or `_`, `$` or `%` then at
        // least one name byte. No literal starts so.
        if !(first.is_ascii_alphabetic() || matches!(first, b'_' | b'$' | b'%')) {
            return None;
        }
        self.at += 1;
        self.skip(NAME);
        let s = &self.text[start..self.at];
        if s == "_" {
            return Some(Atom::Sink);
        }
        if s.len() == 1 && !first.is_ascii_alphabetic() {
            return None;
        }
        Some(match RegClass::of_name(s) {
            Some(c) => Atom::Reg(c, s),
            None => Atom::Symbol(s),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repo_spec as spec;

    /// Texts of the shape, near it and outside it.
    const TEXTS: &[&str] = &[
        "activemask.b32 %r1;",
        "  @!%p1 red.shared::cta.add.u32 [%rd1+4], %r1 ;  ",
        "@%p1\tvote.sync.ballot.b32 %r1 ,\t!%p2 , 0xffffffff;",
        "shfl.sync.up.b32 %r1|%p1, %r2, 1, 0x1f, 0xffffffff;",
        "shfl.sync.up.b32 %r1 | _, %r2, 1, 0x1F, 0XFF;",
        "red.add.v4.f32 [a], {%f1, %f2 , _,x};",
        "red.add.u32 [ %rd1 + 0x10 ], ! %p1;",
        "red.add.u32 [%rd1+-4], %r1;",
        "red.add.u32 [_], %r1;",
        "red.add.u32 [-1], %r1;",
        "red.add.u32 [%rd1], -1;",
        "red.add.u32 [%rd1], !1;",
        "red.add.u32 [%rd1], 1|2;",
        "red.add.u32 [%rd1], 1.5;",
        "red.add.u32 [%rd1], .5;",
        "red.add.u32 [%rd1], 0f3F800000;",
        "red.add.f64 [%rd1], 0D3FF0000000000000;",
        "red.add.f32 [%rd1], 0f3F80000;",
        "red.add.f32 [%rd1], 0f3F8000000;",
        "red.add.v2.f32 [%rd1], {0F3F800000, %f1};",
        "red.add.f32 [%rd1+0f3F800000], %f1;",
        "red.add.f32 [%rd1], 0fxyzw1234;",
        "red.add.u32 [%rd1], 1U;",
        "red.add.u32 [%rd1], 0x;",
        "red.add.u32 [%rd1], %r;",
        "red.add.u32 [%rd1], $x, _y, %;",
        "red.add.u32 [%rd1], !_, !mask, !e5;",
        "red.add.u32 [%rd1], !%p1|%p2;",
        "red.add.u32 [%rd1], [%rd2]|%p1;",
        "red.add.u32 {%r1|%p1}, {}, {,};",
        "red.add.u32 [{%r1}], [[%r1]];",
        "red.add.u32 [%rd1],, %r1;",
        "red.add.u32 [%rd1], %r1,;",
        "red.add.u32 [%rd1], %r1",
        "red.add.u32 [%rd1], %r1;;",
        "red.add.u32;",
        "red;",
        ";",
        "   ",
        "",
        "red..add.u32 [%rd1], %r1;",
        "red.add. u32 [%rd1], %r1;",
        "red.add .u32 [%rd1], %r1;",
        "red.add.u32[%rd1], %r1;",
        "L1: red.add.u32 [%rd1], %r1;",
        "red:x.add.u32 [%rd1], %r1;",
        "L::x red.add.u32 [%rd1], %r1;",
        "@ red.add.u32 [%rd1], %r1;",
        "@%p1;",
        "@%p1, red.add.u32 [%rd1], %r1;",
        "@!!%p1 red.add.u32 [%rd1], %r1;",
        "red.add.u32 [%rd1], %r1; // x",
        "red.add.u32 /* x */ [%rd1], %r1;",
        "red.add.u32 [%rd1],\u{b}%r1;",
        "red.add.u32 [%rd1],\r%r1;",
        "red.add.u32 [%rd1], é;",
        "red.add.u32 [%rd1], %r1]];",
        "red.add.u32 [%rd1, %r1;",
        "red.add.u32 (1), ~1, +1, -(1);",
        "red.add.u32 [%rd1], ! 1;",
        "red.add.u32 [%rd1], !(1), !~1, !!%p1, !x+1;",
        "red.add.u32 [%rd1], a|1, 1|%p1;",
        "red.add.u32 [%rd1], 007, 99999999999999999999;",
        "red.shared::cta.add.u32 [ %rd1 + 4 ], %r1 ;",
        "red.shared:::cta.add.u32 [%rd1], %r1;",
        "red.shared:cta.add.u32 [%rd1], %r1;",
        "red::.add.u32 [%rd1], %r1;",
        "@%p1 red.add.u32 [%rd1+0x10], %r1 |%p2, _| %p3, {1, 0x2, 0f3F800000};",
        "red.add.u32 [%rd1] |%p1, %r1;",
        "red.add.u32 {%r1} x, %r1;",
        "red.add.u32 %r1 %r2;",
        "red.add.u32 %r1|1.5;",
        "red.add.u32 {1_2}, [1$];",
        "red.add.u32 [1], [0x10+0x4], [x+4 ];",
        "red.add.u32 %5, %rd, %r1x, __, $;",
        "@%p1",
        "@%p1 ;",
        "red.add.u32 ;",
        "red.add.u32;  \t",
        "shfl .sync.up.b32 %r1, %r2, 1, 0x1f, 0xffffffff;",
        "shfl.sync .up.b32 %r1, %r2;",
        "red.add.u32 .5;",
        "red.add.u32 \t.v2.f32 [%rd1], {%f1, %f2};",
        "vote.any.sync.pred %p1, %p2, %r1; // 4.",
        "vote.any.sync.pred %p1, %p2, %r1;// 4.\n",
        "vote.any.sync.pred /* operands */ %p1,/**/%p2/* x */, %r1; /* done */",
        "/* lead */ @%p1 /* g */ vote.any.sync.pred %p1, %p2, %r1;",
        "vote.any.sync.pred %p1, %p2, %r1 // ;",
        "vote.any.sync.pred %p1, %p2, %r1; /* open",
        "vote.any.sync.pred %p1, %p2, %r1; /*/",
        "vote.any.sync.pred %p1, %p2, %r1; /**/",
        "activemask/* c */.b32 %r1;",
        "activemask.b32/* c */%r1;",
        "activemask.b32/* c */.x %r1;",
        "red.add.u32 [%rd1/* c */+4], {%r1/* c */, %r2};",
        "red.add.u32 [%rd1], 4/2;",
        "red.add.u32 [%rd1], %r/* c */1;",
    ];

    fn owned(o: &Operand<&str>) -> Operand<String> {
        let a = |a: &Atom<&str>| match a {
            Atom::Reg(c, s) => Atom::Reg(*c, (*s).to_owned()),
            Atom::Symbol(s) => Atom::Symbol((*s).to_owned()),
            Atom::Imm(l, s) => Atom::Imm(*l, (*s).to_owned()),
            Atom::Sink => Atom::Sink,
        };
        match o {
            Operand::Address(b, i) => Operand::Address(a(b), (*i).to_owned()),
            Operand::Vector(v) => Operand::Vector(v.iter().map(a).collect()),
            Operand::Pair(x, y) => Operand::Pair(a(x), a(y)),
            Operand::Not(x) => Operand::Not(a(x)),
            Operand::Scalar(x) => Operand::Scalar(a(x)),
        }
    }

    fn agrees(text: &str) -> bool {
        match tokenize(text) {
            Ok(t) => {
                // The definition's tokens of the text with its comments made
                // whitespace, spelled alike (a token never holds a comment).
                let want = text::tokenize(text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
                let got = InstrText::<String> {
                    label: t.label.map(str::to_owned),
                    guard: t.guard.map(str::to_owned),
                    words: t.words.iter().map(|w| (*w).to_owned()).collect(),
                    operands: t.operands.iter().map(owned).collect(),
                };
                assert_eq!(got, want, "{text:?}");
                if !text.contains('/') {
                    assert_eq!(Ok(t), text::tokenize_borrowed(text), "{text:?}");
                }
                true
            }
            // The definition's words of a spaced chain are no one slice of the
            // text, where it reads them at all.
            Err(Uncommon::SpacedChain) => {
                if let Ok(t) = text::tokenize_borrowed(text) {
                    let joined: usize = t.words.iter().map(|w| w.len() + 1).sum();
                    let (first, last) = (t.words[0], t.words[t.words.len() - 1]);
                    let span = last.as_ptr() as usize + last.len() - first.as_ptr() as usize;
                    assert_ne!(span + 1, joined, "{text:?}");
                }
                false
            }
            Err(Uncommon::Other) => false,
        }
    }

    #[test]
    fn the_tokens_are_the_definitions() {
        let taken = TEXTS.iter().filter(|t| agrees(t)).count();
        assert!(taken >= 10, "{taken}");
        let spec = spec();
        let mut texts: Vec<String> = spec
            .instructions
            .iter()
            .flat_map(|f| crate::syntax::vectors::cases(&spec, &f.instruction))
            .map(|c| c.text)
            .collect();
        let tools = crate::ptxas::offline_tools(&spec).unwrap();
        texts.extend(crate::ptxas::explore::texts(&spec, &tools, (20_000, 7, None)).into_iter().map(|(w, _, _)| w.text));
        let taken = texts.iter().filter(|t| agrees(t)).count();
        // Most texts have the shape; the rest are the definition's.
        assert!(taken * 2 > texts.len(), "{taken} of {}", texts.len());
    }
}

