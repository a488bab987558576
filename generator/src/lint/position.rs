//! Byte offsets made `line:column` (1-based, columns in characters), for a reader
//! that asks in order: a cursor moves forward over the text, so that locating every
//! diagnostic of a module costs one pass over it, however many there are.

/// A place in a text, as diagnostics name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Position {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
}

/// Locates byte offsets of one text.
pub struct Positions<'t> {
    bytes: &'t [u8],
    /// Where the cursor stands, and what it knows there.
    offset: usize,
    line: usize,
    column: usize,
}

impl<'t> Positions<'t> {
    /// A cursor at the start of `text`.
    pub fn new(text: &'t str) -> Positions<'t> {
        Positions {
            bytes: text.as_bytes(),
            offset: 0,
            line: 1,
            column: 1,
        }
    }

    /// The position of byte `offset` (clamped to the end). An offset before the
    /// last one asked about starts the count over from the top.
    pub fn at(&mut self, offset: usize) -> Position {
        let offset = offset.min(self.bytes.len());
        if offset < self.offset {
            *self = Positions::new(self.text());
        }
        let between = &self.bytes[self.offset..offset];
        match memchr::memrchr(b'\n', between) {
            Some(last) => {
                self.line += memchr::memchr_iter(b'\n', between).count();
                self.column = 1 + chars(&between[last + 1..]);
            }
            None => self.column += chars(between),
        }
        self.offset = offset;
        Position {
            line: self.line,
            column: self.column,
        }
    }

    fn text(&self) -> &'t str {
        // Made from a &str, and the bytes are never changed.
        std::str::from_utf8(self.bytes).unwrap_or_default()
    }
}

/// The characters of UTF-8 bytes: every byte that is not a continuation byte
/// (`10xxxxxx`) starts one.
fn chars(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b & 0xC0 != 0x80).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_character_columns() {
        let text = "ab\nçé x\n\ny";
        // (byte offset, line, column)
        let rows = [
            (0, 1, 1),
            (1, 1, 2),
            (3, 2, 1),
            // `x` after two two-byte characters and a space: column 4.
            (8, 2, 4),
            (10, 3, 1),
            (11, 4, 1),
            (12, 4, 2),
            // Backwards: counted again from the top.
            (1, 1, 2),
        ];
        let mut p = Positions::new(text);
        for (offset, line, column) in rows {
            assert_eq!(p.at(offset), Position { line, column }, "offset {offset} of {text:?}");
        }
    }
}
