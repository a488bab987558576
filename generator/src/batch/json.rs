//! JSON written straight into an answer buffer, byte for byte as serde_json writes
//! it (compact, its escapes), for the answers that the batch commands build field
//! by field rather than through a serialized struct.

/// Appends `s` as a JSON string: quoted, with serde_json's escapes.
pub fn string(buf: &mut Vec<u8>, s: &str) {
    // Nearly every string an answer holds (rule ids, messages, form ids) needs no
    // escape: copied whole. The rest are serde_json's own writing.
    if s.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
        buf.reserve(s.len() + 2);
        buf.push(b'"');
        buf.extend_from_slice(s.as_bytes());
        buf.push(b'"');
    } else {
        // Writing a string into a Vec cannot fail.
        let _ = serde_json::to_writer(&mut *buf, s);
    }
}

/// Appends `,"key":` and `value` as a JSON string (`key` needs no escape).
pub fn field(buf: &mut Vec<u8>, key: &str, value: &str) {
    buf.extend_from_slice(b",\"");
    buf.extend_from_slice(key.as_bytes());
    buf.extend_from_slice(b"\":");
    string(buf, value);
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
        ] {
            let mut buf = Vec::new();
            string(&mut buf, s);
            assert_eq!(String::from_utf8(buf).unwrap(), serde_json::to_string(s).unwrap(), "{s:?}");
        }
    }
}
