//! JSON written straight into an answer buffer, byte for byte as serde_json writes
//! it (compact, its escapes), for the answers that the batch commands build field
//! by field rather than through a serialized struct.

/// Appends `s` as a JSON string: quoted, with serde_json's escapes.
pub fn string(buf: &mut Vec<u8>, s: &str) {
    // Nearly every string an answer holds (rule ids, messages, form ids) needs no
    // escape: copied whole. The rest are serde_json's own writing.
    if !needs_escape(s.as_bytes()) {
        buf.reserve(s.len() + 2);
        buf.push(b'"');
        buf.extend_from_slice(s.as_bytes());
        buf.push(b'"');
    } else {
        // Writing a string into a Vec cannot fail.
        let _ = serde_json::to_writer(&mut *buf, s);
    }
}

/// Whether a byte of `b` is one serde_json escapes ([`is_escaped`]). Eight bytes
/// at a time: the answers' messages run to a hundred bytes.
fn needs_escape(b: &[u8]) -> bool {
    let mut chunks = b.chunks_exact(8);
    // Every word asked, the answers joined: one branch per word, not three.
    let mut hits = 0;
    for c in &mut chunks {
        hits |= escaped_bytes(u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]));
    }
    hits != 0 || chunks.remainder().iter().any(|&c| is_escaped(c))
}

/// Whether a JSON string escapes `c`: a control character, `"` or `\\`.
pub(super) fn is_escaped(c: u8) -> bool {
    c < 0x20 || c == b'"' || c == b'\\'
}

/// [`is_escaped`] on the eight bytes of `x` (read little-endian): the high bit of
/// each such byte, and perhaps of bytes after the first (a borrow). Zero exactly
/// where `x` has none, and its lowest bit set is the first one's, exactly.
pub(super) fn escaped_bytes(x: u64) -> u64 {
    const ONES: u64 = u64::from_le_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);
    let zeros = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
    // A byte below 0x20 has none of the bits 0xe0; a byte of 0x80 and up
    // (UTF-8's) has one, so it never counts as a control character here.
    zeros(x & u64::from_le_bytes([0xe0; 8]))
        | zeros(x ^ u64::from_le_bytes([b'"'; 8]))
        | zeros(x ^ u64::from_le_bytes([b'\\'; 8]))
}

/// Appends `key`, the field's opening as written (`,"form":`, a literal the caller
/// spells whole: one copy rather than three), and `value` as a JSON string.
pub fn field(buf: &mut Vec<u8>, key: &[u8], value: &str) {
    buf.extend_from_slice(key);
    string(buf, value);
}

/// Appends `key` (as [`field`]'s) and the string `head` then `tail` (one JSON
/// string, as `field` would write their concatenation).
pub fn field_parts(buf: &mut Vec<u8>, key: &[u8], head: &str, tail: &str) {
    if needs_escape(head.as_bytes()) || needs_escape(tail.as_bytes()) {
        return field(buf, key, &format!("{head}{tail}"));
    }
    buf.reserve(key.len() + head.len() + tail.len() + 2);
    buf.extend_from_slice(key);
    buf.push(b'"');
    buf.extend_from_slice(head.as_bytes());
    buf.extend_from_slice(tail.as_bytes());
    buf.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_written_as_serde_json_writes_them() {
        for s in [
            "",
            "plain `text` of a message",
            "quote \" and backslash \\",
            "controls \u{0} \u{1f} \t \n \r \u{8} \u{c} and \u{7f}",
            "non-ASCII é ∑ 𝄞",
            "a long message of more than eight bytes, \"quoted\" late",
            "a long message of more than eight bytes, then a tab\t",
            "ÿÿÿÿÿÿÿÿ\u{1}",
            "\u{80}\u{a0}\u{e0}\u{ff}\u{1f}\u{20}abcdef",
        ] {
            let mut buf = Vec::new();
            string(&mut buf, s);
            assert_eq!(String::from_utf8(buf).unwrap(), serde_json::to_string(s).unwrap(), "{s:?}");
            // In two parts, split anywhere, as one string.
            for at in (0..=s.len()).filter(|&k| s.is_char_boundary(k)) {
                let (mut whole, mut parts) = (Vec::new(), Vec::new());
                field(&mut whole, b",\"k\":", s);
                field_parts(&mut parts, b",\"k\":", &s[..at], &s[at..]);
                assert_eq!(parts, whole, "{s:?} at {at}");
            }
        }
        // Every byte value, at every place of an eight-byte word.
        for byte in 0..=255u8 {
            for at in 0..16 {
                let mut b = vec![b'a'; 16];
                b[at] = byte;
                let want = b.iter().any(|&c| c < 0x20 || c == b'"' || c == b'\\');
                assert_eq!(needs_escape(&b), want, "{byte:#x} at {at}");
            }
        }
    }
}
