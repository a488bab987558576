//! The texts most batch lines hold, tokenized in one pass: [`text::tokenize_borrowed`]'s
//! tokens for a text of a common shape, or `None`, and the caller tokenizes it
//! with the definition.
//!
//! The shape: printable ASCII (spaces and tabs the only whitespace), an optional
//! guard, a chain of dotted words, operands that are registers, names, sinks,
//! decimal or hex integers, floats written as their bits (`0f…`, `0d…`), `[base]`
//! or `[base+offset]` addresses, brace vectors, `d|p` pairs and `!p` negations, and
//! one `;` at the end. Anything else (a label, a comment, a decimal float or an
//! integer expression, whitespace inside the chain,
//! every text that does not tokenize) goes to the definition, which names its
//! defects. Within the shape each step below is the definition's, so the tokens
//! are its tokens; a test holds the two to that on every vector and explorer text.

use super::text::{self, Atom, InstrText, Literal, Operand, RegClass};

/// What a byte may be within the shape, by byte: a bit per class.
const CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        let mut k = 0;
        // Printable ASCII or a tab, no comment, no `;` (the one at the end is cut
        // off before).
        if (b == b'\t' || (b >= 0x20 && b < 0x7f)) && b != b'/' && b != b';' {
            k |= SHAPE;
        }
        if b == b' ' || b == b'\t' {
            k |= SPACE;
        }
        // A byte of a chain's word (`split_chain`: alphanumerics, `_` and `:`).
        if b.is_ascii_alphanumeric() || b == b'_' || b == b':' {
            k |= WORD;
        }
        // A byte of an identifier after its first (PTX ISA 4.4).
        if b.is_ascii_alphanumeric() || b == b'_' || b == b'$' {
            k |= NAME;
        }
        t[c] = k;
        c += 1;
    }
    t
};
const SHAPE: u8 = 1;
const SPACE: u8 = 2;
const WORD: u8 = 4;
const NAME: u8 = 8;

fn is(b: u8, class: u8) -> bool {
    CLASS[usize::from(b)] & class != 0
}

/// `s` without the spaces and tabs at either end (`str::trim` within the shape).
fn trimmed(s: &str) -> &str {
    let b = s.as_bytes();
    let mut start = 0;
    let mut end = b.len();
    while start < end && is(b[start], SPACE) {
        start += 1;
    }
    while end > start && is(b[end - 1], SPACE) {
        end -= 1;
    }
    &s[start..end]
}

/// Where `byte` first stands in `s`.
fn find(s: &str, byte: u8) -> Option<usize> {
    // The pieces searched are a few bytes long: a plain loop beats a searcher.
    s.bytes().position(|c| c == byte)
}

/// Whether every byte of `b` is of the shape (`SHAPE`), and if so where its first
/// `:` stands: eight bytes at a time, then byte by byte (every batch line is
/// checked so, and this loop was a tenth of the batch judge's time).
fn shape_and_first_colon(b: &[u8]) -> Option<Option<usize>> {
    const LOWS: u64 = u64::from_le_bytes([0x7f; 8]);
    // The high bit of each zero byte of `x`, exactly (no borrow crosses a byte).
    let zeros = |x: u64| !(((x & LOWS).wrapping_add(LOWS)) | x | LOWS);
    let splat = |c: u8| u64::from_le_bytes([c; 8]);
    let mut chunks = b.chunks_exact(8);
    let mut at = 0;
    let mut colon = None;
    for c in &mut chunks {
        let x = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        // Out of the shape: a control character other than a tab, DEL, a byte of
        // 0x80 and up, `/` or `;`.
        let outside = (zeros(x & splat(0xe0)) & !zeros(x ^ splat(b'\t')))
            | zeros(x ^ splat(0x7f))
            | (x & splat(0x80))
            | zeros(x ^ splat(b'/'))
            | zeros(x ^ splat(b';'));
        if outside != 0 {
            return None;
        }
        let colons = zeros(x ^ splat(b':'));
        if colon.is_none() && colons != 0 {
            colon = Some(at + colons.trailing_zeros() as usize / 8);
        }
        at += 8;
    }
    for (i, &c) in chunks.remainder().iter().enumerate() {
        if !is(c, SHAPE) {
            return None;
        }
        if c == b':' && colon.is_none() {
            colon = Some(at + i);
        }
    }
    Some(colon)
}

/// [`text::tokenize_borrowed`]'s tokens of `text`, if `text` has the common shape.
pub fn tokenize(text: &str) -> Option<InstrText<&str>> {
    let b = text.as_bytes();
    // `head`: the text trimmed, one `;` cut off its end and the text trimmed again;
    // no other `;`.
    let whole = trimmed(text);
    let body = trimmed(whole.strip_suffix(';')?);
    let bb = body.as_bytes();
    let colon = shape_and_first_colon(bb)?;
    if bb.is_empty() || b.is_empty() {
        return None;
    }
    // A label (an identifier and one `:` before the first `:` of the body).
    if let Some(colon) = colon {
        if text::is_identifier(&body[..colon]) && bb.get(colon + 1) != Some(&b':') {
            return None;
        }
    }
    let mut at = 0;
    let mut guard = None;
    if bb[0] == b'@' {
        // Up to the first whitespace, `@` or `@!` before an identifier.
        let g_end = bb.iter().position(|&c| is(c, SPACE))?;
        let g = &body[..g_end];
        let name = g[1..].strip_prefix('!').unwrap_or(&g[1..]);
        if !text::is_identifier(name) {
            return None;
        }
        guard = Some(g);
        at = g_end;
        while at < bb.len() && is(bb[at], SPACE) {
            at += 1;
        }
    }
    // The chain: dotted words up to whitespace that no `.` follows.
    let mut words = Vec::with_capacity(8);
    let mut word_start = at;
    while at < bb.len() {
        let c = bb[at];
        if c == b'.' {
            if at == word_start {
                return None;
            }
            words.push(&body[word_start..at]);
            word_start = at + 1;
        } else if !is(c, WORD) {
            break;
        }
        at += 1;
    }
    if at == word_start {
        return None;
    }
    words.push(&body[word_start..at]);
    let mut rest_start = at;
    if at < bb.len() {
        if !is(bb[at], SPACE) {
            return None;
        }
        while rest_start < bb.len() && is(bb[rest_start], SPACE) {
            rest_start += 1;
        }
        if bb.get(rest_start) == Some(&b'.') {
            return None;
        }
    }
    let rest = &body[rest_start..];
    let operands = if rest.is_empty() { Vec::new() } else { operands(rest)? };
    Some(InstrText {
        label: None,
        guard,
        words,
        operands,
    })
}

/// `operands`: split at top-level commas, each piece trimmed and parsed.
fn operands(s: &str) -> Option<Vec<Operand<&str>>> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(4);
    // Within the shape brackets do not nest: one level at most.
    let mut open: Option<u8> = None;
    let mut piece_start = 0;
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'[' | b'{' if open.is_none() => open = Some(c),
            b'[' | b'{' => return None,
            b']' if open == Some(b'[') => open = None,
            b'}' if open == Some(b'{') => open = None,
            b']' | b'}' => return None,
            b',' if open.is_none() => {
                out.push(operand(trimmed(&s[piece_start..i]))?);
                piece_start = i + 1;
            }
            _ => {}
        }
    }
    if open.is_some() {
        return None;
    }
    out.push(operand(trimmed(&s[piece_start..]))?);
    Some(out)
}

/// `parse_operand` on a trimmed piece of the shape.
fn operand(s: &str) -> Option<Operand<&str>> {
    let b = s.as_bytes();
    let (&first, &last) = (b.first()?, b.last()?);
    if first == b'[' && last == b']' && b.len() >= 2 {
        let inner = trimmed(&s[1..s.len() - 1]);
        let (base, offset) = match find(inner, b'+') {
            Some(plus) => (trimmed(&inner[..plus]), Some(trimmed(&inner[plus + 1..]))),
            None => (inner, None),
        };
        if offset.is_some_and(|o| integer(o).is_none()) {
            return None;
        }
        return match atom(base)? {
            Atom::Sink => None,
            base => Some(Operand::Address(base, inner)),
        };
    }
    if first == b'{' && last == b'}' && b.len() >= 2 {
        let atoms = s[1..s.len() - 1]
            .split(',')
            .map(|a| atom(trimmed(a)))
            .collect::<Option<Vec<_>>>()?;
        return Some(Operand::Vector(atoms));
    }
    // `int_expression`: a piece that starts with a digit, a parenthesis or a
    // unary operator, and holds an operator, may be one (`! 1`, `1|2`): outside
    // the shape, but for digits only (no operator) and `!` before a name, a
    // register or a sink (no expression starts so).
    match first {
        b'0'..=b'9' if !b.iter().all(u8::is_ascii_alphanumeric) => return None,
        b'!' => {
            let named = trimmed(&s[1..]).bytes().next();
            if !named.is_some_and(|c| c.is_ascii_alphabetic() || matches!(c, b'_' | b'$' | b'%')) {
                return None;
            }
        }
        b'(' | b'~' | b'-' | b'+' => return None,
        _ => {}
    }
    if let Some(bar) = find(s, b'|') {
        return Some(Operand::Pair(atom(trimmed(&s[..bar]))?, atom(trimmed(&s[bar + 1..]))?));
    }
    if first == b'!' {
        return Some(Operand::Not(atom(trimmed(&s[1..]))?));
    }
    Some(Operand::Scalar(atom(s)?))
}

/// An integer of the shape (`literal`'s `Int`): decimal digits, or `0x` and hex
/// digits.
fn integer(s: &str) -> Option<Literal> {
    let b = s.as_bytes();
    let hex = b.len() > 2 && (b.starts_with(b"0x") || b.starts_with(b"0X")) && b[2..].iter().all(u8::is_ascii_hexdigit);
    let decimal = !b.is_empty() && b.iter().all(u8::is_ascii_digit);
    (hex || decimal).then_some(Literal::Int)
}

/// A float written as its bits (`literal`'s `HexF32`, `HexF64`): `0f` and 8 hex
/// digits, `0d` and 16 (either case of the letter); a minus before it is outside
/// the shape.
fn float_bits(s: &str) -> Option<Literal> {
    let b = s.as_bytes();
    let hex = |n: usize| b.len() == 2 + n && b[2..].iter().all(u8::is_ascii_hexdigit);
    match b.get(..2)? {
        b"0f" | b"0F" if hex(8) => Some(Literal::HexF32),
        b"0d" | b"0D" if hex(16) => Some(Literal::HexF64),
        _ => None,
    }
}

/// `Atom::parse` on an atom of the shape: the sink, an integer, or an identifier
/// (a register where its prefix shows a class).
fn atom(s: &str) -> Option<Atom<&str>> {
    let b = s.as_bytes();
    let first = *b.first()?;
    if b == b"_" {
        return Some(Atom::Sink);
    }
    if first.is_ascii_digit() {
        return integer(s).or_else(|| float_bits(s)).map(|lit| Atom::Imm(lit, s));
    }
    // An identifier: a letter then name bytes, or `_`, `$` or `%` then at least
    // one name byte. No literal starts so.
    let rest_named = b[1..].iter().all(|&c| is(c, NAME));
    let named = if first.is_ascii_alphabetic() {
        rest_named
    } else {
        matches!(first, b'_' | b'$' | b'%') && b.len() > 1 && rest_named
    };
    if !named {
        return None;
    }
    Some(match register_class(b) {
        Some(c) => Atom::Reg(c, s),
        None => Atom::Symbol(s),
    })
}

/// `RegClass::of_name`: `%`, the letters of a class's prefix, then digits only.
fn register_class(b: &[u8]) -> Option<RegClass> {
    let rest = b.strip_prefix(b"%")?;
    let letters = rest.iter().take_while(|c| c.is_ascii_alphabetic()).count();
    let (prefix, digits) = rest.split_at(letters);
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    RegClass::of_letters(prefix)
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
    ];

    /// The word-at-a-time check against the byte table, on every byte at every
    /// position of a line longer than a word.
    #[test]
    fn the_shape_is_checked_word_by_word_as_byte_by_byte() {
        for special in 0..=255u8 {
            for len in [7usize, 8, 9, 16, 23] {
                for at in 0..len {
                    let mut b: Vec<u8> = (0..len).map(|i| b"red.add u32 [%rd1], x"[i % 21]).collect();
                    b[at] = special;
                    let bytewise = b.iter().all(|&c| is(c, SHAPE)).then(|| b.iter().position(|&c| c == b':'));
                    assert_eq!(shape_and_first_colon(&b), bytewise, "{special:#x} at {at} of {len}");
                }
            }
        }
    }

    fn agrees(text: &str) -> bool {
        match tokenize(text) {
            Some(t) => {
                assert_eq!(Ok(t), text::tokenize_borrowed(text), "{text:?}");
                true
            }
            None => false,
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
        texts.extend(crate::ptxas::explore::texts(&spec, &tools, 20_000, 7).into_iter().map(|(w, _, _)| w.text));
        let taken = texts.iter().filter(|t| agrees(t)).count();
        // Most texts have the shape; the rest are the definition's.
        assert!(taken * 2 > texts.len(), "{taken} of {}", texts.len());
    }
}

