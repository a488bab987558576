//! Byte offsets made `line:column` (1-based, columns in characters) for a reader
//! that streams its text: a cursor moves forward over the bytes before the reader
//! lets them go, so that locating every statement of a module costs one pass over
//! it, and no byte need be kept to locate a later one.

/// A place in a text, as diagnostics name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Position {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
}

impl Position {
    /// The position `chars` characters further along the same line.
    pub fn right(self, chars: usize) -> Position {
        Position {
            line: self.line,
            column: self.column + chars,
        }
    }
}

/// Where a forward-only cursor stands in a text, and what it knows there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cursor {
    /// The byte offset it stands at.
    offset: usize,
    line: usize,
    column: usize,
}

impl Default for Cursor {
    fn default() -> Cursor {
        Cursor {
            offset: 0,
            line: 1,
            column: 1,
        }
    }
}

impl Cursor {
    /// The byte offset the cursor stands at.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The position the cursor stands at.
    pub fn position(&self) -> Position {
        Position {
            line: self.line,
            column: self.column,
        }
    }

    /// Moves the cursor over `bytes`, the text's next bytes from where it stands.
    pub fn advance(&mut self, bytes: &[u8]) {
        match memchr::memrchr(b'\n', bytes) {
            Some(last) => {
                self.line += memchr::memchr_iter(b'\n', bytes).count();
                self.column = 1 + chars(&bytes[last + 1..]);
            }
            None => self.column += chars(bytes),
        }
        self.offset += bytes.len();
    }
}

/// The characters of UTF-8 bytes: every byte that is not a continuation byte
/// (`10xxxxxx`) starts one.
pub fn chars(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b & 0xC0 != 0x80).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_character_columns() {
        let text = "ab\nçé x\n\ny";
        // (byte offset, line, column)
        let rows = [(0, 1, 1), (1, 1, 2), (3, 2, 1), (8, 2, 4), (10, 3, 1), (11, 4, 1), (12, 4, 2)];
        let mut c = Cursor::default();
        for (offset, line, column) in rows {
            c.advance(&text.as_bytes()[c.offset()..offset]);
            assert_eq!(c.position(), Position { line, column }, "offset {offset} of {text:?}");
        }
        // `x` after two two-byte characters and a space: column 4, in one step or
        // byte by byte (a character split between two steps).
        let mut c = Cursor::default();
        for b in &text.as_bytes()[..8] {
            c.advance(std::slice::from_ref(b));
        }
        assert_eq!(c.position(), Position { line: 2, column: 4 });
    }
}
