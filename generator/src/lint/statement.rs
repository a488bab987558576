//! Whether a text is one instruction statement of PTX's lexical shape, whatever
//! its instruction: what check-syntax asks of a text that no covered instruction
//! reads, before it answers "not covered" rather than "malformed". The judge's own
//! grammar (`syntax::text`) is that of the covered instructions' operands, and
//! refuses operands that other instructions take (`%tid.x`, `(%r1)`, `0f3F800000`).
//!
//! PTX ISA 4.3 (Statements): "Statements begin with an optional label and end with
//! a semicolon"; an instruction statement is an optional guard `@p` or `@!p`, an
//! opcode and its dotted words, and operands separated by commas. The operands are
//! read as PTX ISA 4.4-4.6 writes them: names and registers (`%r1`, `%tid.x`,
//! `$L1`, `_`), literals (`1`, `0x10U`, `0f3F800000`, `1.5`), addresses `[...]`,
//! brace vectors `{...}`, parenthesized lists (`call`'s `(%r1)`), and the
//! operators of constant expressions and of `d|p`, `!p`, `-x`. Two names or
//! literals side by side with no operator or comma between them are no operand.

/// Where the opcode of `code` starts (after its label and guard), if `code` is
/// one instruction statement of PTX's lexical shape; `None` if it is not. `code`
/// holds no comment (`syntax::text::uncommented` makes them whitespace, as PTX
/// ISA 4.2 reads them).
pub fn opcode_at(code: &str) -> Option<usize> {
    use crate::syntax::text::is_identifier;
    let body = code.trim_end().strip_suffix(';')?;
    let offset = |part: &str| part.as_ptr() as usize - code.as_ptr() as usize;
    let mut rest = body.trim_start();
    // A label: an identifier and one `:` (two are a qualifier's `::`).
    if let Some((name, after)) = rest.split_once(':') {
        if is_identifier(name.trim_end()) && !after.starts_with(':') {
            rest = after.trim_start();
        }
    }
    if let Some(guarded) = rest.strip_prefix('@') {
        let end = guarded.find(char::is_whitespace)?;
        let name = guarded[..end].strip_prefix('!').unwrap_or(&guarded[..end]);
        if !is_identifier(name) {
            return None;
        }
        rest = guarded[end..].trim_start();
    }
    let (chain, operands) = split_chain(rest)?;
    let mut words = chain.split('.').map(str::trim_end);
    let first = words.next()?;
    if !first.starts_with(|c: char| c.is_ascii_alphabetic()) || !first.bytes().all(word_byte) {
        return None;
    }
    if !words.all(|w| !w.is_empty() && w.bytes().all(|b| word_byte(b) || b == b':')) {
        return None;
    }
    (operands.trim().is_empty() || operand_list(operands)).then(|| offset(rest))
}

/// The chain and what follows it: the chain ends at the first whitespace that no
/// `.` follows (ptxas reads `redux.sync .add.u32` as one chain), or at the first
/// byte that no opcode word holds.
fn split_chain(s: &str) -> Option<(&str, &str)> {
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b.is_ascii_whitespace() {
            let next = i + bytes[i..].iter().take_while(|b| b.is_ascii_whitespace()).count();
            if bytes.get(next) != Some(&b'.') {
                break;
            }
            i = next + 1;
            // A dot starts its word: no whitespace after it.
            if bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
                return None;
            }
        } else if b == b'.' {
            i += 1;
            if bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
                return None;
            }
        } else if word_byte(b) || b == b':' {
            i += 1;
        } else {
            break;
        }
    }
    let (chain, rest) = s.split_at(i);
    // An operand list is set off from the chain by whitespace.
    if !rest.is_empty() && !rest.starts_with(|c: char| c.is_ascii_whitespace()) {
        return None;
    }
    Some((chain, rest))
}

/// Whether `s` is operands separated by commas: brackets balanced and nested,
/// no operand empty, and no two atoms (names, registers, literals) side by side.
fn operand_list(s: &str) -> bool {
    let mut open: Vec<u8> = Vec::new();
    // What the last token was: nothing yet (start of an operand), an atom, or an
    // operator or opening bracket.
    #[derive(PartialEq)]
    enum Last {
        Start,
        Atom,
        Operator,
        Close,
    }
    let mut last = Last::Start;
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            _ if b.is_ascii_whitespace() => {}
            b',' => {
                if last == Last::Start || last == Last::Operator {
                    return false;
                }
                last = Last::Start;
            }
            b'[' | b'{' | b'(' => {
                if last == Last::Atom || last == Last::Close {
                    return false;
                }
                open.push(b);
                last = Last::Start;
            }
            b']' | b'}' | b')' => {
                let want = match b {
                    b']' => b'[',
                    b'}' => b'{',
                    _ => b'(',
                };
                if open.pop() != Some(want) || last == Last::Operator {
                    return false;
                }
                last = Last::Close;
            }
            b'|' | b'!' | b'+' | b'-' | b'~' | b'*' | b'/' | b'%' if b != b'%' || !atom_start(bytes.get(i + 1)) => {
                last = Last::Operator;
            }
            b'<' | b'>' | b'&' | b'^' => last = Last::Operator,
            _ if atom_byte(b) || b == b'%' => {
                if last == Last::Atom || last == Last::Close {
                    return false;
                }
                while bytes.get(i + 1).is_some_and(|&n| atom_byte(n)) {
                    i += 1;
                }
                last = Last::Atom;
            }
            _ => return false,
        }
        i += 1;
    }
    open.is_empty() && last != Last::Start && last != Last::Operator
}

/// Whether the byte after a `%` starts a register name (`%r1`), rather than the
/// `%` being the remainder operator.
fn atom_start(b: Option<&u8>) -> bool {
    b.is_some_and(|&b| b.is_ascii_alphabetic() || b == b'_' || b == b'$')
}

/// Bytes of a name, register or literal after its first: `[a-zA-Z0-9_$]`, and `.`
/// for `%tid.x` and `1.5`.
fn atom_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b == b'.'
}

/// Bytes of an opcode's words: `[a-zA-Z0-9_]`.
fn word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}


#[cfg(test)]
mod tests {
    use super::*;

    /// Statements of other instructions, as nvcc and the PTX ISA write them, read
    /// with their opcode's offset; and texts that are no statement.
    #[test]
    fn statements_of_any_instruction_and_texts_that_are_none() {
        // (text, offset of its opcode)
        let statements = [
            ("add.s32 %r1, %r2, %r3;", 0),
            ("mov.u32 %r1, %tid.x;", 0),
            ("ld.global.u32 %r1, [%rd1];", 0),
            ("bar.sync 0;", 0),
            ("ret;", 0),
            ("  exit ;", 2),
            ("@%p1 bra $L__BB0_2;", 5),
            ("@!%p1 bra.uni $L__BB0_2;", 6),
            ("$L__BB0_1: add.s32 %r1, %r1, 1;", 11),
            ("L1:@%p1 ret;", 8),
            ("mov.f32 %f1, 0f3F800000;", 0),
            ("ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1+16];", 0),
            ("st.global.u32 [%rd1+-4], %r1;", 0),
            ("setp.ne.s32 %p1|%p2, %r1, 0;", 0),
            ("call.uni (retval0), _Z3fooi, (param0);", 0),
            ("mov.b64 %rd1, {%r1, %r2};", 0),
            ("add.s32 %r1, %r2, (4*2)<<1;", 0),
            ("tex.2d.v4.s32.f32 {%r1, %r2, %r3, %r4}, [tex, {%f1, %f2}];", 0),
            ("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r2], [%rd1], 16, [%r1];", 0),
            ("add .s32 %r1, %r2, %r3;", 0),
        ];
        for (t, at) in statements {
            assert_eq!(opcode_at(t), Some(at), "{t}");
        }
        let none = [
            "add.s32 %r1, %r2, %r3",
            "add.s32 %r1 %r2;",
            "add.s32 %r1,, %r2;",
            "add.s32 %r1, %r2,;",
            "add.s32 %r1, [%r2;",
            "add.s32 %r1, [%r2};",
            "add.s32 %r1, %r2; add.s32 %r1, %r2, %r3;",
            "add. s32 %r1;",
            "add.s32%r1;",
            "%%% garbage;",
            "foo bar baz;",
            "1add %r1;",
            "@ add %r1;",
            "add.s32 %r1, \"x\";",
            ";",
            "",
            "add.s32 %r1, %r2, %r3; // a comment",
        ];
        for t in none {
            assert_eq!(opcode_at(t), None, "{t}");
        }
    }
}
