//! The texts most batch lines hold, tokenized in one pass: [`text::tokenize_borrowed`]'s
//! tokens for a text of a common shape, or `None`, and the caller tokenizes it
//! with the definition.
//!
//! The shape: printable ASCII (spaces and tabs the only whitespace), an optional
//! guard, a chain of dotted words, operands that are registers, names, sinks,
//! decimal or hex integers, `[base]` or `[base+offset]` addresses, brace vectors,
//! `d|p` pairs and `!p` negations, and one `;` at the end. Anything else (a
//! label, a comment, a float or an integer expression, whitespace inside the chain,
//! every text that does not tokenize) goes to the definition, which names its
//! defects. Within the shape each step below is the definition's, so the tokens
//! are its tokens; a test holds the two to that on every vector and explorer text.

use super::text::{self, Atom, InstrText, Literal, Operand, RegClass};

/// Whitespace within the shape.
fn is_space(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// A byte of the shape: printable ASCII or a tab, no comment, no `;` (the one at
/// the end is cut off before).
fn in_shape(b: u8) -> bool {
    (b == b'\t' || (0x20..0x7f).contains(&b)) && b != b'/' && b != b';'
}

/// A byte of a chain's word (`split_chain`: alphanumerics, `_` and `:`).
fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b':'
}

/// A byte of an identifier after its first (PTX ISA 4.4).
fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

/// [`text::tokenize_borrowed`]'s tokens of `text`, if `text` has the common shape.
pub fn tokenize(text: &str) -> Option<InstrText<&str>> {
    let b = text.as_bytes();
    // `head`: the text trimmed, one `;` cut off its end and the text trimmed again;
    // no other `;`.
    let start = b.iter().position(|&c| !is_space(c))?;
    let mut end = b.len();
    while is_space(b[end - 1]) {
        end -= 1;
    }
    if b[end - 1] != b';' {
        return None;
    }
    end -= 1;
    while end > start && is_space(b[end - 1]) {
        end -= 1;
    }
    let body = &text[start..end];
    if body.is_empty() || !body.bytes().all(in_shape) {
        return None;
    }
    // A label (an identifier and one `:` before the first `:` of the body).
    if let Some(colon) = body.find(':') {
        if text::is_identifier(&body[..colon]) && !body[colon + 1..].starts_with(':') {
            return None;
        }
    }
    let mut at = 0;
    let bb = body.as_bytes();
    let mut guard = None;
    if bb[0] == b'@' {
        // Up to the first whitespace, `@` or `@!` before an identifier.
        let g_end = bb.iter().position(|&c| is_space(c))?;
        let g = &body[..g_end];
        let name = g[1..].strip_prefix('!').unwrap_or(&g[1..]);
        if !text::is_identifier(name) {
            return None;
        }
        guard = Some(g);
        at = g_end;
        while at < bb.len() && is_space(bb[at]) {
            at += 1;
        }
    }
    // The chain: dotted words up to whitespace that no `.` follows.
    let chain_start = at;
    while at < bb.len() && (is_word_byte(bb[at]) || bb[at] == b'.') {
        at += 1;
    }
    let chain = &body[chain_start..at];
    let mut rest_start = at;
    if at < bb.len() {
        if !is_space(bb[at]) {
            return None;
        }
        while rest_start < bb.len() && is_space(bb[rest_start]) {
            rest_start += 1;
        }
        if bb.get(rest_start) == Some(&b'.') {
            return None;
        }
    }
    let mut words = Vec::with_capacity(8);
    for w in chain.split('.') {
        if w.is_empty() {
            return None;
        }
        words.push(w);
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
                out.push(operand(s[piece_start..i].trim_matches(is_space_char))?);
                piece_start = i + 1;
            }
            _ => {}
        }
    }
    if open.is_some() {
        return None;
    }
    out.push(operand(s[piece_start..].trim_matches(is_space_char))?);
    Some(out)
}

fn is_space_char(c: char) -> bool {
    c == ' ' || c == '\t'
}

/// `parse_operand` on a trimmed piece of the shape.
fn operand(s: &str) -> Option<Operand<&str>> {
    let first = *s.as_bytes().first()?;
    if let Some(inner) = s.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        let inner = inner.trim_matches(is_space_char);
        let (base, offset) = match inner.split_once('+') {
            Some((b, o)) => (b.trim_matches(is_space_char), Some(o.trim_matches(is_space_char))),
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
    if let Some(inner) = s.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
        let atoms = inner
            .split(',')
            .map(|a| atom(a.trim_matches(is_space_char)))
            .collect::<Option<Vec<_>>>()?;
        return Some(Operand::Vector(atoms));
    }
    // `int_expression`: a piece that starts with a digit, a parenthesis or a
    // unary operator, and holds an operator, may be one (`! 1`, `1|2`): outside
    // the shape, but for digits only (no operator) and `!` before a name, a
    // register or a sink (no expression starts so).
    match first {
        b'0'..=b'9' if !s.bytes().all(|c| c.is_ascii_alphanumeric()) => return None,
        b'!' => {
            let named = s[1..].trim_start_matches(is_space_char).bytes().next();
            if !named.is_some_and(|c| c.is_ascii_alphabetic() || b"_$%".contains(&c)) {
                return None;
            }
        }
        b'(' | b'~' | b'-' | b'+' => return None,
        _ => {}
    }
    if let Some((d, p)) = s.split_once('|') {
        return Some(Operand::Pair(
            atom(d.trim_matches(is_space_char))?,
            atom(p.trim_matches(is_space_char))?,
        ));
    }
    if let Some(a) = s.strip_prefix('!') {
        return Some(Operand::Not(atom(a.trim_matches(is_space_char))?));
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

/// `Atom::parse` on an atom of the shape: the sink, an integer, or an identifier
/// (a register where its prefix shows a class).
fn atom(s: &str) -> Option<Atom<&str>> {
    let b = s.as_bytes();
    let first = *b.first()?;
    if s == "_" {
        return Some(Atom::Sink);
    }
    if first.is_ascii_digit() {
        return integer(s).map(|lit| Atom::Imm(lit, s));
    }
    // An identifier: a letter then name bytes, or `_`, `$` or `%` then at least
    // one name byte. No literal starts so.
    let named = if first.is_ascii_alphabetic() {
        b[1..].iter().all(|&c| is_name_byte(c))
    } else {
        b"_$%".contains(&first) && b.len() > 1 && b[1..].iter().all(|&c| is_name_byte(c))
    };
    if !named {
        return None;
    }
    Some(match RegClass::of_name(s) {
        Some(c) => Atom::Reg(c, s),
        None => Atom::Symbol(s),
    })
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
        let tools = crate::audit::offline_tools(&spec).unwrap();
        texts.extend(crate::explore::texts(&spec, &tools, 20_000, 7).into_iter().map(|(w, _, _)| w.text));
        let taken = texts.iter().filter(|t| agrees(t)).count();
        // Most texts have the shape; the rest are the definition's.
        assert!(taken * 2 > texts.len(), "{taken} of {}", texts.len());
    }
}
