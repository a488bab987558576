//! A batch line's JSON object read without serde where it has the plain form most
//! lines have: one object of keys without escapes, each value a string without
//! escapes or control characters, an integer (`-?(0|[1-9][0-9]*)`), `true` or
//! `false`. Within that form serde_json reads the same keys and values (JSON's
//! grammar, RFC 8259); anything else is serde's to read, and to name its error.

use super::json;

/// A value of the plain form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value<'a> {
    /// A string: its contents (between the quotes, no escape in them).
    Str(&'a str),
    /// An integer, `true` or `false`, as written.
    Bare(&'a str),
}

impl<'a> Value<'a> {
    /// The value as written, quotes included: what serde_json's `RawValue` holds.
    pub fn raw(self, line: &'a str) -> &'a str {
        match self {
            // The contents are a slice of `line`, between its quotes.
            Value::Str(s) => {
                let start = s.as_ptr() as usize - line.as_ptr() as usize;
                &line[start - 1..start + s.len() + 1]
            }
            Value::Bare(s) => s,
        }
    }
}

/// JSON's whitespace (RFC 8259: space, tab, line feed, carriage return).
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// Hands each field of the object `line` to `field` (the index of its key in
/// `keys`, and its value), in order, if the line has the plain form, each key is
/// one of `keys` and `field` takes each (returns true); false as soon as any
/// fails. A key is matched as written, so a key of `keys` written with an
/// escape is no match (serde reads it).
pub fn object<'a>(line: &'a str, keys: &[&str], mut field: impl FnMut(usize, Value<'a>) -> bool) -> bool {
    let b = line.as_bytes();
    let mut at = skip_space(b, 0);
    if b.get(at) != Some(&b'{') {
        return false;
    }
    at = skip_space(b, at + 1);
    if b.get(at) == Some(&b'}') {
        return skip_space(b, at + 1) == b.len();
    }
    loop {
        // A key compared with each of `keys` as written (a few bytes each), not
        // scanned for escapes first: every request line has three or four.
        let Some((key, next)) = known_key(b, at, keys) else {
            return false;
        };
        at = skip_space(b, next);
        if b.get(at) != Some(&b':') {
            return false;
        }
        at = skip_space(b, at + 1);
        let (value, next) = match b.get(at) {
            Some(b'"') => match string(line, at) {
                Some((s, next)) => (Value::Str(s), next),
                None => return false,
            },
            Some(_) => match bare(line, at) {
                Some((s, next)) => (Value::Bare(s), next),
                None => return false,
            },
            None => return false,
        };
        if !field(key, value) {
            return false;
        }
        at = skip_space(b, next);
        match b.get(at) {
            Some(b',') => at = skip_space(b, at + 1),
            Some(b'}') => return skip_space(b, at + 1) == b.len(),
            _ => return false,
        }
    }
}

/// The index in `keys` of the key written at `at` (quotes included), and where
/// it ends.
fn known_key(b: &[u8], at: usize, keys: &[&str]) -> Option<(usize, usize)> {
    let rest = b.get(at + 1..)?;
    if b[at] != b'"' {
        return None;
    }
    let k = keys
        .iter()
        .position(|k| rest.len() > k.len() && rest[k.len()] == b'"' && rest.starts_with(k.as_bytes()))?;
    Some((k, at + keys[k].len() + 2))
}

fn skip_space(b: &[u8], mut at: usize) -> usize {
    while at < b.len() && is_space(b[at]) {
        at += 1;
    }
    at
}

/// The string starting at `at` (its contents, and where it ends), if it has no
/// escape and no control character.
fn string(line: &str, at: usize) -> Option<(&str, usize)> {
    let b = line.as_bytes();
    if b.get(at) != Some(&b'"') {
        return None;
    }
    let len = first_quote_escape_or_control(&b[at + 1..])?;
    let end = at + 1 + len;
    (b[end] == b'"').then(|| (&line[at + 1..end], end + 1))
}

/// Where the first `"`, `\\` or control character of `b` stands
/// ([`json::is_escaped`]): eight bytes at a time (a line's text runs to a hundred
/// bytes, and every line is read so).
fn first_quote_escape_or_control(b: &[u8]) -> Option<usize> {
    let mut chunks = b.chunks_exact(8);
    let mut at = 0;
    for c in &mut chunks {
        let hits = json::escaped_bytes(u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]));
        if hits != 0 {
            return Some(at + hits.trailing_zeros() as usize / 8);
        }
        at += 8;
    }
    chunks.remainder().iter().position(|&c| json::is_escaped(c)).map(|k| at + k)
}

/// An integer, `true` or `false` starting at `at`, and where it ends.
fn bare(line: &str, at: usize) -> Option<(&str, usize)> {
    let b = line.as_bytes();
    let len = b[at..]
        .iter()
        .position(|&c| is_space(c) || c == b',' || c == b'}')
        .unwrap_or(b.len() - at);
    let s = &line[at..at + len];
    let digits = s.strip_prefix('-').unwrap_or(s).as_bytes();
    let integer = match digits {
        [b'0'] => true,
        [b'1'..=b'9', rest @ ..] => rest.iter().all(u8::is_ascii_digit),
        _ => false,
    };
    (integer || s == "true" || s == "false").then_some((s, at + len))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The keys the tests' lines write.
    const KEYS: &[&str] = &["id", "text", "x", "y", "a", "b", "ptx", "target"];

    /// The fields of a line, or `None` where it has no plain form.
    fn read(line: &str) -> Option<Vec<(String, String)>> {
        let mut got = Vec::new();
        object(line, KEYS, |k, v| {
            got.push((KEYS[k].to_owned(), v.raw(line).to_owned()));
            true
        })
        .then_some(got)
    }

    /// The first `"`, `\\` or control character, against a plain scan, at every
    /// position of strings longer than a word, with UTF-8 bytes around it.
    #[test]
    fn the_first_special_byte_is_found_at_any_position() {
        for special in [b'"', b'\\', 0x00, 0x1f, b'\n'] {
            for len in 0..40 {
                for at in 0..=len {
                    let mut b: Vec<u8> = (0..len).map(|i| if i % 3 == 0 { 0xc3 } else { b'a' + (i % 26) as u8 }).collect();
                    b.extend_from_slice(b" \x7f\xff");
                    if at < len {
                        b[at] = special;
                    }
                    let want = b.iter().position(|&c| c == b'"' || c == b'\\' || c < 0x20);
                    assert_eq!(first_quote_escape_or_control(&b), want, "{b:?}");
                }
            }
        }
    }

    #[test]
    fn plain_objects_read_as_serde_json_reads_them() {
        // (line, whether it has the plain form)
        let rows = [
            (r#"{"text":"red.add.u32 [%rd1], %r1;","ptx":"8.6","target":"sm_90"}"#, true),
            (" {\t\"id\" : -12 , \"text\" : \"é\" , \"x\":true,\"y\":false}\r ", true),
            (r#"{"id":0,"a":"","b":"-0"}"#, true),
            (r#"{}"#, true),
            (r#"{"id":007}"#, false),
            (r#"{"id":1.5}"#, false),
            (r#"{"id":1e3}"#, false),
            (r#"{"id":null}"#, false),
            (r#"{"id":[1]}"#, false),
            (r#"{"id":-}"#, false),
            (r#"{"a\u0041":"b"}"#, false),
            (r#"{"\u0061":"b"}"#, false),
            (r#"{"unknown":"b"}"#, false),
            (r#"{"a":"b","ab":"c"}"#, false),
            (r#"{"ptx":"8.6","target":"sm_90","text":"a"}"#, true),
            (r#"{"ptx"#, false),
            (r#"{"#, false),
            (r#"{"a":"b\"c"}"#, false),
            ("{\"a\":\"b\tc\"}", false),
            (r#"{"a":"b",}"#, false),
            (r#"{"a":"b"} x"#, false),
            (r#"{"a":"b""#, false),
            (r#"{"a" "b"}"#, false),
            (r#"["a"]"#, false),
            ("", false),
        ];
        for (line, plain) in rows {
            let got = read(line);
            assert_eq!(got.is_some(), plain, "{line}");
            if let Some(fields) = got {
                let want: serde_json::Map<String, serde_json::Value> = serde_json::from_str(line).unwrap();
                let raw: std::collections::BTreeMap<String, Box<serde_json::value::RawValue>> = serde_json::from_str(line).unwrap();
                assert_eq!(fields.len(), want.len(), "{line}");
                for (k, v) in fields {
                    assert_eq!(raw[&k].get(), v, "{line}: {k}");
                }
            }
        }
    }
}
