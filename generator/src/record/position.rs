//! Where in one line of JSON something is, as the project's messages give it: a
//! 1-based column that counts characters. serde_json counts bytes, and for an error
//! about a value it points at different places (the value's last character, the
//! character after it, or the one before a value it only peeked at), so a message
//! that names a value names the column where that value starts instead.

/// The 1-based column, in characters, of the character at byte `byte` of `line`;
/// one past the last character where `byte` is at or past the end.
pub fn char_column(line: &str, byte: usize) -> usize {
    let before = line.char_indices().take_while(|(i, _)| *i < byte).count();
    // A byte inside a character counts as that character.
    if byte < line.len() && !line.is_char_boundary(byte) {
        before
    } else {
        before + 1
    }
}

/// The column of serde_json's error `e` in `line`, the whole text it read.
///
/// A syntax error (not JSON, cut short) is where the reader stopped: serde_json's
/// column, counted in characters. An error about a value (a wrong type, an unknown
/// or missing key, a value a type refuses) is the column where that value starts:
/// the key of an unknown or doubled key, the object of a missing key, the line's
/// value for an error about the line as a whole (which serde_json gives no position).
pub fn error_column(line: &str, e: &serde_json::Error) -> usize {
    match e.classify() {
        serde_json::error::Category::Data => char_column(line, value_start(line, e.column())),
        // serde_json's column is that of the last byte it read (0 when it read none).
        _ => char_column(line, e.column().saturating_sub(1)),
    }
}

/// A value, key or container of a line, as a byte range.
#[derive(Debug, Clone, Copy)]
struct Node {
    start: usize,
    end: usize,
    parent: Option<usize>,
    container: bool,
}

/// Every value and key of `line`, outermost first: containers before what they hold,
/// siblings in order. Text that is not JSON is scanned as far as it goes (a Data
/// error can come before a later syntax error); an unclosed container or string
/// ends at the end of the line.
fn scan(line: &str) -> Vec<Node> {
    let b = line.as_bytes();
    let mut nodes: Vec<Node> = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let parent = open.last().copied();
        match b[i] {
            b' ' | b'\t' | b'\r' | b'\n' | b',' | b':' => i += 1,
            b'{' | b'[' => {
                open.push(nodes.len());
                nodes.push(Node {
                    start: i,
                    end: b.len(),
                    parent,
                    container: true,
                });
                i += 1;
            }
            b'}' | b']' => {
                if let Some(n) = open.pop() {
                    nodes[n].end = i + 1;
                }
                i += 1;
            }
            b'"' => {
                let start = i;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    // An escape takes the next byte with it (`\"` does not close).
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(b.len());
                nodes.push(Node {
                    start,
                    end: i,
                    parent,
                    container: false,
                });
            }
            _ => {
                let start = i;
                while i < b.len() && !b" \t\r\n,:{}[]\"".contains(&b[i]) {
                    i += 1;
                }
                nodes.push(Node {
                    start,
                    end: i,
                    parent,
                    container: false,
                });
            }
        }
    }
    nodes
}

/// The byte where the value serde_json's Data error at `column` is about starts.
fn value_start(line: &str, column: usize) -> usize {
    let nodes = scan(line);
    let root = nodes.first().map_or(0, |n| n.start);
    // Column 0: an error about the whole value read (a `try_from` of the line).
    let Some(p) = column.checked_sub(1) else {
        return root;
    };
    // Nested nodes come after their container: the last node holding `p` is the
    // innermost one.
    let Some((k, n)) = nodes
        .iter()
        .enumerate()
        .rev()
        .find(|(_, n)| n.start <= p && p < n.end)
    else {
        return root;
    };
    if !n.container || p == n.start || p + 1 == n.end {
        // Inside a key or scalar; or on a bracket: the container itself (a missing
        // key is reported at the closing brace).
        return n.start;
    }
    // Between a container's entries (a comma, a colon, spaces): serde_json peeked at
    // the next value and refused its kind.
    nodes
        .iter()
        .find(|c| c.parent == Some(k) && c.start > p)
        .map_or(n.start, |c| c.start)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[test]
    fn columns_count_characters_from_1() {
        // (line, byte, column): "é" is two bytes, one character.
        for (line, byte, want) in [
            ("abc", 0, 1),
            ("abc", 2, 3),
            ("abc", 3, 4),
            ("é!", 0, 1),
            ("é!", 1, 1), // inside the é
            ("é!", 2, 2),
            ("é!", 3, 3),
            ("", 0, 1),
        ] {
            assert_eq!(char_column(line, byte), want, "case: {line:?} byte {byte}");
        }
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Line {
        id: String,
        n: Option<u32>,
        list: Option<Vec<String>>,
    }

    /// Each error's column, worked out by hand from the line: `^` marks the
    /// character it must name.
    #[test]
    fn every_kind_of_error_names_its_column() {
        let rows: &[(&str, &str, &str)] = &[
            // A syntax error: the character where the reader stopped.
            ("not json", " ^", "expected ident"),
            (r#"{"id":"a",}"#, "          ^", "trailing comma"),
            (r#"{"id":"é",}"#, "          ^", "trailing comma"),
            // A wrong scalar: its first character.
            (r#"{"id":7}"#, "      ^", "invalid type: integer"),
            (
                r#"{"id":"a","n":"x"}"#,
                "              ^",
                "invalid type: string",
            ),
            (
                r#"{"id":"é","n":true}"#,
                "              ^",
                "invalid type: boolean",
            ),
            (
                r#"{"id":"a","n":-7.5e3 }"#,
                "              ^",
                "invalid type: floating",
            ),
            // A container where a scalar goes: serde_json only peeked at it.
            (
                r#"{"id":"a","n": {"x":1}}"#,
                "               ^",
                "invalid type: map",
            ),
            (
                r#"{"id":"a","list":["x",[1]]}"#,
                "                      ^",
                "invalid type: sequence",
            ),
            // An unknown or doubled key: the key.
            (r#"{"id":"a","q":1}"#, "          ^", "unknown field `q`"),
            (r#"{"id":"é","q":1}"#, "          ^", "unknown field `q`"),
            (
                r#"{"id":"a","id":"b"}"#,
                "          ^",
                "duplicate field `id`",
            ),
            // A missing key: the object that lacks it.
            (r#" {"n":1}"#, " ^", "missing field `id`"),
        ];
        for (line, caret, what) in rows {
            let e = serde_json::from_str::<Line>(line).expect_err(line);
            assert!(e.to_string().contains(what), "case: {line}: {e}");
            assert_eq!(
                error_column(line, &e),
                caret.chars().count(),
                "case: {line}\n       {caret}  ({e})"
            );
        }
    }

    #[test]
    fn an_error_about_the_whole_line_names_its_first_character() {
        #[derive(Debug, Deserialize)]
        #[serde(try_from = "Line")]
        #[allow(dead_code)]
        struct Checked(String);
        impl TryFrom<Line> for Checked {
            type Error = &'static str;
            fn try_from(_: Line) -> Result<Checked, &'static str> {
                Err("refused")
            }
        }
        let line = r#"  {"id":"a"}"#;
        let e = serde_json::from_str::<Checked>(line).expect_err(line);
        // serde_json gives such an error no position at all.
        assert_eq!(e.column(), 0);
        assert_eq!(error_column(line, &e), 3);
    }
}
