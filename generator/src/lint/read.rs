//! A PTX module read as PTX's lexical grammar allows, one statement at a time, as
//! its bytes arrive: what `lint` needs is where each instruction statement starts
//! and ends, and its first words, so the reader holds one statement, never the
//! module ([`MAX_STATEMENT_BYTES`]; comments and `.section` data are skipped as they
//! are read, whatever their length).
//!
//! What it reads (PTX ISA 4, "Syntax"):
//! - comments, which are whitespace (PTX ISA 4.2: "non-nested /* and */ ... and
//!   using // to begin a comment that extends up to the next newline"); a `/*`
//!   never closed is an error;
//! - string literals (`.file 1 "a;b.cu"`, `.pragma "nounroll";`), whose `;`, braces
//!   and slashes are text;
//! - directives: those that end at their line's end (`.version`, `.target`,
//!   `.address_size`, `.loc`, `.file`, [`LINE_DIRECTIVES`]), `.section` with its
//!   `{ ... }` of data lines (LLVM's debug sections, no `;` in them), and the rest,
//!   which end at a `;`, or at the `{` that opens a function's body after an
//!   `.entry` or `.func` header (performance directives such as `.maxntid 1, 1, 1`
//!   between the `)` and the `{` are part of the header); a `{` after `=` starts an
//!   initializer (`.b8 a[4] = {1,2,3,4};`);
//! - labels (`$L__BB0_1:`; PTX ISA 4.3: "Statements begin with an optional label"),
//!   guards (`@%p1`, `@!%p1`), several statements on one line, and `{ }` blocks in
//!   a body (nvcc's `{ .reg .b32 t; ... }` scoping and call sequences);
//! - an instruction statement ends at its `;`, outside comments and its own brace
//!   vectors (`{%r1, %r2}`).
//!
//! The module must open with `.version`, then `.target` ([`Reader::header`]; ptxas
//! 13.5 without them: "Missing .version directive at start of file", "Missing
//! .target directive at start of file"), so the context every instruction is judged
//! in is known before the first one. An instruction outside a function body is an
//! error: PTX has none there (PTX ISA 11: module scope holds directives only).
//!
//! The text is checked as UTF-8 as it arrives; an invalid byte is an error when the
//! reader comes to it, so an earlier error in the text is reported first.

use std::io::Read;

use super::position::{chars, Cursor, Position};

/// Directives that end at the end of their line: they take no `;` (PTX ISA 11.1,
/// 11.5: `.version 9.5`, `.target sm_90`, `.address_size 64`, `.file 1 "a.cu"`,
/// `.loc 1 2 3`).
pub const LINE_DIRECTIVES: &[&str] = &[".version", ".target", ".address_size", ".loc", ".file"];

/// The longest statement the reader holds (labels, comments and strings inside
/// it included): a longer one is an error at its start. 8 MiB is thousands of
/// times the longest statement of the recorded compilers' modules (under 1 KB),
/// and keeps lint well under 64 MB however long the module. Comments between
/// statements and `.section` data have no cap: they are not held.
pub const MAX_STATEMENT_BYTES: usize = 8 << 20;

/// The deepest nesting of `{ }` blocks in a function's body: deeper is an error
/// (nvcc nests a few levels; the bound keeps a stream of `{` from growing memory).
pub const MAX_BLOCK_DEPTH: usize = 1024;

/// Bytes asked of the input at a time.
const READ_BYTES: usize = 64 << 10;

/// The most text a reader takes from its input, and how the message says so.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cap {
    /// Bytes of text.
    pub bytes: u64,
    /// What follows `more than N GiB of text` in the message.
    pub of: &'static str,
}

impl Cap {
    /// No cap: the reader takes what the input gives.
    pub const NONE: Cap = Cap { bytes: u64::MAX, of: "" };
}

/// One statement of a module, borrowed from the reader until the next is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Statement<'t> {
    /// A directive: its name (`.reg`) and what follows it up to its end (its `;`,
    /// its line's end, or its body's `{`), trimmed of whitespace; a `.section`'s
    /// args are its name.
    Directive {
        /// Where its `.` is.
        at: Position,
        /// `.reg`, `.version`, `.visible`, ...
        name: &'t str,
        /// The rest of the statement, trimmed.
        args: &'t str,
    },
    /// An instruction statement, from its label or guard to its `;` included.
    Instruction {
        /// Where its first character (label, guard or opcode) is.
        at: Position,
        /// The statement as written, comments inside it included.
        text: &'t str,
        /// The byte offset of its opcode in `text`, after label and guard.
        opcode: usize,
    },
}

/// Where the text stops being PTX, and what was expected there; or why the input
/// could not be read (no position: an I/O error, a gzip stream that breaks off, a
/// module over the reader's cap).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ReadError {
    /// The place the message is about, when it is about a place in the text.
    pub at: Option<Position>,
    /// What was expected.
    pub message: String,
}

/// The module's `.version` and `.target` words, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// `9.5` and where it is.
    pub version: (String, Position),
    /// `sm_90a, debug` and where it is.
    pub target: (String, Position),
}

/// Why no more bytes come.
#[derive(Debug)]
enum End {
    /// The input ended.
    Eof,
    /// The byte at this offset is not UTF-8: said when the reader comes to it.
    NotUtf8(usize),
    /// An error, said again to every later read.
    Failed(ReadError),
}

/// Reads a module's statements in order from `R`, holding a window of its bytes:
/// from the start of the statement being read to as far as it has read.
pub struct Reader<R> {
    input: R,
    /// The text's bytes from offset `base` on.
    buf: Vec<u8>,
    base: usize,
    /// `buf[..valid]` is UTF-8 (whole characters).
    valid: usize,
    /// Why no more bytes come, once they do not.
    end: Option<End>,
    /// Bytes read from the input, and the most it may give.
    read: u64,
    cap: Cap,
    /// The offset before which no byte is needed again.
    keep: usize,
    /// Lines and columns at the last place asked about (never before `base`: the
    /// cursor is moved over bytes before they are let go).
    cursor: Cursor,
    /// Where the statement being read starts, for an error about its length.
    start: Position,
    /// Where reading goes on.
    pos: usize,
    /// Where each open `{` is.
    blocks: Vec<Position>,
    /// The last `.section`'s name (its data is not kept).
    section: String,
}

/// Bytes an identifier may hold after its first (PTX ISA 4.4: `[a-zA-Z0-9_$]`).
fn ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

fn fail<T>(at: Position, message: impl Into<String>) -> Result<T, ReadError> {
    Err(ReadError {
        at: Some(at),
        message: message.into(),
    })
}

impl<R: Read> Reader<R> {
    /// A reader at the start of `input`, which may give at most `cap`.
    pub fn new(input: R, cap: Cap) -> Reader<R> {
        Reader {
            input,
            buf: Vec::new(),
            base: 0,
            valid: 0,
            end: None,
            read: 0,
            cap,
            keep: 0,
            cursor: Cursor::default(),
            start: Position { line: 1, column: 1 },
            pos: 0,
            blocks: Vec::new(),
            section: String::new(),
        }
    }

    // ---- The window over the input.

    /// The byte at offset `i` (at or after `keep`), reading on as needed; `None`
    /// past the end of the text.
    #[inline]
    fn byte(&mut self, i: usize) -> Result<Option<u8>, ReadError> {
        match i.checked_sub(self.base) {
            Some(r) if r < self.valid => Ok(Some(self.buf[r])),
            _ => self.byte_after_reading(i),
        }
    }

    #[cold]
    fn byte_after_reading(&mut self, i: usize) -> Result<Option<u8>, ReadError> {
        debug_assert!(i >= self.base, "byte {i} let go (window from {})", self.base);
        while i >= self.base + self.valid {
            if !self.fill()? {
                return Ok(None);
            }
        }
        Ok(i.checked_sub(self.base).map(|r| self.buf[r]))
    }

    /// Reads more of the input, first letting go of the bytes before `keep`:
    /// false at the end of the text.
    fn fill(&mut self) -> Result<bool, ReadError> {
        match &self.end {
            Some(End::Eof) => return Ok(false),
            Some(End::NotUtf8(at)) => {
                let e = self.not_utf8(*at);
                return self.failed(e);
            }
            Some(End::Failed(e)) => return Err(e.clone()),
            None => {}
        }
        if self.base + self.buf.len() - self.keep > MAX_STATEMENT_BYTES {
            return self.failed(ReadError {
                at: Some(self.start),
                message: format!(
                    "expected this statement to end within {} (lint holds one statement at a time, and no longer one)",
                    bytes(MAX_STATEMENT_BYTES as u64)
                ),
            });
        }
        self.let_go();
        // Never more than one byte past the cap, so that the cap is exact.
        let want = READ_BYTES.min(MAX_STATEMENT_BYTES + 1 - (self.base + self.buf.len() - self.keep));
        let old = self.buf.len();
        self.buf.resize(old + want, 0);
        let n = loop {
            match self.input.read(&mut self.buf[old..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.buf.truncate(old);
                    return self.failed(ReadError { at: None, message: e.to_string() });
                }
            }
        };
        self.buf.truncate(old + n);
        self.read += n as u64;
        if self.read > self.cap.bytes {
            return self.failed(ReadError {
                at: None,
                message: over(self.cap),
            });
        }
        if n == 0 {
            if self.valid < self.buf.len() {
                // A character the end cuts off.
                let e = self.not_utf8(self.base + self.valid);
                return self.failed(e);
            }
            self.end = Some(End::Eof);
            return Ok(false);
        }
        match std::str::from_utf8(&self.buf[self.valid..]) {
            Ok(_) => self.valid = self.buf.len(),
            Err(e) => {
                self.valid += e.valid_up_to();
                // Said when the reader comes to it; a character the read cut off
                // is completed by the next.
                if e.error_len().is_some() {
                    self.end = Some(End::NotUtf8(self.base + self.valid));
                }
            }
        }
        Ok(true)
    }

    /// Drops the bytes before `keep` once they are half the window, the cursor
    /// moved over them first.
    fn let_go(&mut self) {
        let gone = self.keep.saturating_sub(self.base);
        if gone == 0 || gone < self.buf.len() / 2 {
            return;
        }
        self.move_cursor(self.keep);
        self.buf.drain(..gone);
        self.base += gone;
        self.valid -= gone;
    }

    fn failed<T>(&mut self, e: ReadError) -> Result<T, ReadError> {
        self.end = Some(End::Failed(e.clone()));
        Err(e)
    }

    /// The error for the byte at `at`, which is not UTF-8.
    fn not_utf8(&mut self, at: usize) -> ReadError {
        let byte = self.buf.get(at - self.base).copied().unwrap_or_default();
        ReadError {
            at: Some(self.position(at)),
            message: format!("not UTF-8 (byte 0x{byte:02x}): expected a PTX module, which is text"),
        }
    }

    fn move_cursor(&mut self, to: usize) {
        let from = self.cursor.offset();
        if to > from {
            let end = (to - self.base).min(self.buf.len());
            self.cursor.advance(&self.buf[from - self.base..end]);
        }
    }

    /// The position of byte `i`: asked in order, never before one asked already.
    fn position(&mut self, i: usize) -> Position {
        debug_assert!(i >= self.cursor.offset(), "position {i} asked after {}", self.cursor.offset());
        self.move_cursor(i);
        self.cursor.position()
    }

    /// The text of bytes `from..to`, which the window holds and has checked.
    fn slice(&self, from: usize, to: usize) -> Result<&str, ReadError> {
        std::str::from_utf8(&self.buf[from - self.base..to - self.base]).map_err(|e| ReadError {
            at: None,
            message: format!("internal error: a statement cut inside a character: {e}"),
        })
    }

    // ---- Statements.

    /// The module's first two statements, which must be `.version` and `.target`.
    pub fn header(&mut self) -> Result<Header, ReadError> {
        let version = self.header_directive(".version", "at the start of the module")?;
        let target = self.header_directive(".target", "after `.version`")?;
        Ok(Header { version, target })
    }

    /// The words of the line directive `name`, which must stand next, and where
    /// they are (where the directive is, when they are none).
    fn header_directive(&mut self, name: &str, after: &str) -> Result<(String, Position), ReadError> {
        self.skip_space(true)?;
        let at = self.pos;
        self.keep = at;
        let here = self.position(at);
        self.start = here;
        let mut named = true;
        for (k, &c) in name.as_bytes().iter().enumerate() {
            if self.byte(at + k)? != Some(c) {
                named = false;
                break;
            }
        }
        // Only the directive asked for is read: anything else is named as found.
        if !named || self.byte(at + name.len())?.is_some_and(ident_byte) {
            let found = self.found(at)?;
            return fail(here, format!("expected `{name}` {after}, found {found}"));
        }
        let name_end = at + name.len();
        let args_end = self.line_end(name_end)?;
        self.pos = args_end;
        let raw = self.slice(name_end, args_end)?;
        let args = raw.trim();
        let lead = raw.len() - raw.trim_start().len();
        let args_at = if args.is_empty() {
            here
        } else {
            here.right(chars(&self.buf[at - self.base..name_end + lead - self.base]))
        };
        Ok((args.to_owned(), args_at))
    }

    /// What stands at `at`, for a message: its first word, quoted, or the end. A
    /// word the text's bytes stop being UTF-8 in is that error.
    fn found(&mut self, at: usize) -> Result<String, ReadError> {
        const LOOK: usize = 100;
        let mut broke = None;
        while self.base + self.valid < at + LOOK {
            match self.fill() {
                Ok(true) => {}
                Ok(false) => break,
                Err(e) => {
                    broke = Some(e);
                    break;
                }
            }
        }
        let end = (at + LOOK).min(self.base + self.valid) - self.base;
        let bytes = &self.buf[(at - self.base).min(end)..end];
        // A character cut at LOOK bytes is left out: 24 whole ones come before.
        let text = std::str::from_utf8(bytes)
            .unwrap_or_else(|e| std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default());
        let first = text.split(char::is_whitespace).next().unwrap_or_default();
        let word: String = first.chars().take(24).collect();
        if let Some(e) = broke {
            if first.len() == text.len() && word.len() == first.len() {
                return Err(e);
            }
        }
        Ok(if word.is_empty() {
            "the end of the file".to_owned()
        } else {
            format!("`{}`", word.escape_debug())
        })
    }

    /// The next statement, or `None` at the end of the module.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Result<Option<Statement<'_>>, ReadError> {
        // A label stands before the statement it names, its `:` read here; its
        // bytes are kept, as the statement's.
        let mut label: Option<(usize, Position)> = None;
        loop {
            self.skip_space(label.is_none())?;
            let at = self.pos;
            if label.is_none() {
                self.keep = at;
            }
            let here = self.position(at);
            if label.is_none() {
                self.start = here;
            }
            let Some(b) = self.byte(at)? else {
                if let Some((_, l)) = label {
                    return fail(l, "expected a statement after this label; the file ends first");
                }
                if let Some(&open) = self.blocks.last() {
                    return fail(open, "expected `}` to close this block; the file ends first");
                }
                return Ok(None);
            };
            match b {
                b'{' => {
                    if self.blocks.is_empty() {
                        return fail(here, "expected a directive: a `{` block stands only in a function's body");
                    }
                    if self.blocks.len() >= MAX_BLOCK_DEPTH {
                        return fail(here, format!("expected `}}`: blocks nest at most {MAX_BLOCK_DEPTH} deep here"));
                    }
                    self.blocks.push(here);
                    self.pos += 1;
                    label = None;
                }
                b'}' => {
                    if self.blocks.pop().is_none() {
                        return fail(here, "this `}` closes no block");
                    }
                    self.pos += 1;
                    label = None;
                }
                b'.' => return self.directive(at, here).map(Some),
                _ => {
                    if let Some(end) = self.label_end(at)? {
                        if label.is_none() {
                            label = Some((at, here));
                        }
                        self.pos = end;
                        continue;
                    }
                    if self.blocks.is_empty() {
                        let found = self.found(at)?;
                        return fail(
                            here,
                            format!("expected a directive, found {found}: instructions stand only in the body of an `.entry` or `.func`"),
                        );
                    }
                    let (start, start_at) = label.unwrap_or((at, here));
                    return self.instruction(start, start_at, at).map(Some);
                }
            }
        }
    }

    /// Skips whitespace and comments; with `drop`, lets their bytes go.
    fn skip_space(&mut self, drop: bool) -> Result<(), ReadError> {
        loop {
            // Whitespace, a window at a time.
            loop {
                let rest = self.buf.get(self.pos - self.base..self.valid).unwrap_or_default();
                match rest.iter().position(|b| !b.is_ascii_whitespace()) {
                    Some(n) => {
                        self.pos += n;
                        break;
                    }
                    None => self.pos += rest.len(),
                }
                if drop {
                    self.keep = self.pos;
                }
                if !self.fill()? {
                    break;
                }
            }
            if drop {
                self.keep = self.pos;
            }
            match self.comment_end(self.pos, drop)? {
                Some(end) => self.pos = end,
                None => return Ok(()),
            }
        }
    }

    /// Where the comment starting at `i` ends, if one starts there; with `drop`,
    /// its bytes are let go as they are read.
    fn comment_end(&mut self, i: usize, drop: bool) -> Result<Option<usize>, ReadError> {
        if self.byte(i)? != Some(b'/') {
            return Ok(None);
        }
        match self.byte(i + 1)? {
            Some(b'/') => {
                let mut j = i + 2;
                loop {
                    let r = j - self.base;
                    if let Some(n) = self.buf.get(r..self.valid).and_then(|rest| memchr::memchr(b'\n', rest)) {
                        return Ok(Some(j + n));
                    }
                    j = j.max(self.base + self.valid);
                    if drop {
                        self.keep = j;
                    }
                    if !self.fill()? {
                        return Ok(Some(j));
                    }
                }
            }
            Some(b'*') => {
                let here = self.position(i);
                let mut j = i + 2;
                loop {
                    let r = j - self.base;
                    if let Some(n) = self.buf.get(r..self.valid).and_then(|rest| memchr::memchr(b'*', rest)) {
                        j += n;
                        if self.byte(j + 1)? == Some(b'/') {
                            return Ok(Some(j + 2));
                        }
                        j += 1;
                        continue;
                    }
                    j = j.max(self.base + self.valid);
                    if drop {
                        self.keep = j;
                    }
                    if !self.fill()? {
                        return fail(here, "expected `*/` to close this comment; the file ends first");
                    }
                }
            }
            _ => Ok(None),
        }
    }

    /// Where the string literal or the comment starting at `i` ends, if one starts
    /// there: what a statement's end is sought past.
    fn quoted_or_comment_end(&mut self, i: usize, drop: bool) -> Result<Option<usize>, ReadError> {
        match self.byte(i)? {
            Some(b'"') => self.string_end(i).map(Some),
            _ => self.comment_end(i, drop),
        }
    }

    /// Where the string literal whose `"` is at `i` ends (after its closing `"`).
    fn string_end(&mut self, i: usize) -> Result<usize, ReadError> {
        let mut j = i + 1;
        loop {
            match self.byte(j)? {
                Some(b'\\') => j += 2,
                Some(b'"') => return Ok(j + 1),
                Some(b'\n') | None => break,
                Some(_) => j += 1,
            }
        }
        let here = self.position(i);
        fail(here, "expected `\"` to close this string before the line ends")
    }

    /// The end of a label (after its `:`) starting at `at`, if one does: an
    /// identifier, then `:` but not `::`.
    fn label_end(&mut self, at: usize) -> Result<Option<usize>, ReadError> {
        let Some(first) = self.byte(at)? else { return Ok(None) };
        if !(first.is_ascii_alphabetic() || matches!(first, b'_' | b'$' | b'%')) {
            return Ok(None);
        }
        let mut i = at + 1;
        while self.byte(i)?.is_some_and(ident_byte) {
            i += 1;
        }
        while matches!(self.byte(i)?, Some(b' ' | b'\t')) {
            i += 1;
        }
        Ok((self.byte(i)? == Some(b':') && self.byte(i + 1)? != Some(b':')).then_some(i + 1))
    }

    /// An instruction statement starting at `at` (its label, if any), which is
    /// `here`, its guard or opcode at `head`.
    fn instruction(&mut self, at: usize, here: Position, head: usize) -> Result<Statement<'_>, ReadError> {
        let mut opcode_at = head;
        if self.byte(head)? == Some(b'@') {
            while self.byte(opcode_at)?.is_some_and(|b| !b.is_ascii_whitespace()) {
                opcode_at += 1;
            }
            while self.byte(opcode_at)?.is_some_and(|b| b.is_ascii_whitespace()) {
                opcode_at += 1;
            }
        }
        // Brace vectors (`{%r1, %r2}`) nest inside the statement.
        let mut depth = 0usize;
        let mut i = opcode_at;
        while let Some(b) = self.byte(i)? {
            match b {
                b';' if depth == 0 => {
                    self.pos = i + 1;
                    return Ok(Statement::Instruction {
                        at: here,
                        text: self.slice(at, i + 1)?,
                        opcode: opcode_at - at,
                    });
                }
                b'{' => depth += 1,
                b'}' if depth == 0 => return fail(here, "expected `;` to end this instruction before the `}`"),
                b'}' => depth -= 1,
                b'"' | b'/' => {
                    if let Some(end) = self.quoted_or_comment_end(i, false)? {
                        i = end;
                        continue;
                    }
                }
                _ => {}
            }
            i += 1;
        }
        fail(here, "expected `;` to end this instruction; the file ends first")
    }

    /// A directive whose `.` is at `at`, which is `here`.
    fn directive(&mut self, at: usize, here: Position) -> Result<Statement<'_>, ReadError> {
        let mut name_end = at + 1;
        while self.byte(name_end)?.is_some_and(ident_byte) {
            name_end += 1;
        }
        if name_end == at + 1 {
            let found = self.found(at + 1)?;
            return fail(here, format!("expected a directive name after `.`, found {found}"));
        }
        let (line, section) = {
            let name = self.slice(at, name_end)?;
            (LINE_DIRECTIVES.contains(&name), name == ".section")
        };
        if section {
            return self.section(here, name_end);
        }
        if !line {
            return self.statement_directive(at, here, name_end);
        }
        let args_end = self.line_end(name_end)?;
        self.pos = args_end;
        Ok(Statement::Directive {
            at: here,
            name: self.slice(at, name_end)?,
            args: self.slice(name_end, args_end)?.trim(),
        })
    }

    /// The end of a line directive's words: its line's end or a comment.
    fn line_end(&mut self, from: usize) -> Result<usize, ReadError> {
        let mut i = from;
        while let Some(b) = self.byte(i)? {
            match b {
                b'\n' => return Ok(i),
                b'"' => {
                    i = self.string_end(i)?;
                    continue;
                }
                b'/' if self.comment_end(i, false)?.is_some() => return Ok(i),
                _ => i += 1,
            }
        }
        Ok(i)
    }

    /// `.section .debug_info { ... }` at `here`: its data lines are skipped whole,
    /// and let go as they are read.
    fn section(&mut self, here: Position, name_end: usize) -> Result<Statement<'_>, ReadError> {
        self.pos = name_end;
        self.skip_space(false)?;
        let section_at = self.pos;
        while self.byte(self.pos)?.is_some_and(|b| !b.is_ascii_whitespace() && b != b'{') {
            self.pos += 1;
        }
        self.section = self.slice(section_at, self.pos)?.to_owned();
        self.skip_space(false)?;
        if self.byte(self.pos)? != Some(b'{') {
            let found = self.found(self.pos)?;
            return fail(here, format!("expected `{{` to open the section's data, found {found}"));
        }
        let open = self.position(self.pos);
        let mut i = self.pos + 1;
        loop {
            self.keep = i;
            let Some(b) = self.byte(i)? else { break };
            match b {
                b'}' => {
                    self.pos = i + 1;
                    return Ok(Statement::Directive {
                        at: here,
                        name: ".section",
                        args: &self.section,
                    });
                }
                b'"' | b'/' => {
                    if let Some(end) = self.quoted_or_comment_end(i, true)? {
                        i = end;
                        continue;
                    }
                }
                _ => {}
            }
            i += 1;
        }
        fail(open, "expected `}` to close this section; the file ends first")
    }

    /// A directive at `at` (`here`) that ends at its `;`, or at the `{` of a
    /// function's body.
    fn statement_directive(&mut self, at: usize, here: Position, name_end: usize) -> Result<Statement<'_>, ReadError> {
        let (mut parens, mut initializer) = (0usize, 0usize);
        // The last byte before `i` that is not whitespace: a `{` after `=` (or
        // inside an initializer, after `,` or `{`) is an initializer's.
        let mut last = b'.';
        let mut i = name_end;
        while let Some(b) = self.byte(i)? {
            match b {
                b'"' => {
                    i = self.string_end(i)?;
                    last = b'"';
                    continue;
                }
                b'/' => {
                    if let Some(end) = self.comment_end(i, false)? {
                        i = end;
                        continue;
                    }
                }
                b'(' => parens += 1,
                b')' => parens = parens.saturating_sub(1),
                b';' if parens == 0 && initializer == 0 => {
                    self.pos = i + 1;
                    return Ok(Statement::Directive {
                        at: here,
                        name: self.slice(at, name_end)?,
                        args: self.slice(name_end, i)?.trim(),
                    });
                }
                b'{' if last == b'=' || (initializer > 0 && matches!(last, b',' | b'{')) => initializer += 1,
                b'{' if parens == 0 && initializer == 0 => {
                    let header = self.slice(at, i)?;
                    if !(has_word(header, ".entry") || has_word(header, ".func")) {
                        return fail(here, "expected `;` to end this directive: a `{` opens a body only after an `.entry` or `.func` header");
                    }
                    if !self.blocks.is_empty() {
                        return fail(here, "a function's header inside a body: expected `}` to close the body first");
                    }
                    let open = self.position(i);
                    self.blocks.push(open);
                    self.pos = i + 1;
                    return Ok(Statement::Directive {
                        at: here,
                        name: self.slice(at, name_end)?,
                        args: self.slice(name_end, i)?.trim(),
                    });
                }
                b'}' if initializer > 0 => initializer -= 1,
                b'}' => return fail(here, "expected `;` to end this directive before the `}`"),
                _ => {}
            }
            if !b.is_ascii_whitespace() {
                last = b;
            }
            i += 1;
        }
        fail(here, "expected `;` (or a body's `{`) to end this directive; the file ends first")
    }
}

/// What is said of an input over `cap`.
pub fn over(cap: Cap) -> String {
    format!("more than {} of text {}", bytes(cap.bytes), cap.of)
}

/// `n` bytes for a message: in GiB or MiB where it is a whole number of them.
fn bytes(n: u64) -> String {
    match n {
        n if n > 0 && n % (1 << 30) == 0 => format!("{} GiB", n >> 30),
        n if n > 0 && n % (1 << 20) == 0 => format!("{} MiB", n >> 20),
        n => format!("{n} bytes"),
    }
}

/// Whether `text` holds the directive word `word` (`.func`, not `.funcx`).
fn has_word(text: &str, word: &str) -> bool {
    memchr::memmem::find_iter(text.as_bytes(), word.as_bytes())
        .any(|i| !text.as_bytes().get(i + word.len()).is_some_and(|&b| ident_byte(b)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Gives its bytes `step` at a time, as a pipe or a decoder may.
    struct Trickle<'b> {
        bytes: &'b [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            let n = self.step.min(out.len()).min(self.bytes.len());
            out[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    /// Every statement of `text`, as `(kind, what)`: directives by name, and
    /// instructions by text; read whole, and read a byte at a time, which must
    /// agree.
    fn statements(text: &str) -> Result<Vec<String>, ReadError> {
        let whole = statements_of(Reader::new(text.as_bytes(), Cap::NONE));
        let trickled = statements_of(Reader::new(Trickle { bytes: text.as_bytes(), step: 1 }, Cap::NONE));
        assert_eq!(whole, trickled, "{text:?} read whole and a byte at a time");
        whole
    }

    fn statements_of<R: Read>(mut r: Reader<R>) -> Result<Vec<String>, ReadError> {
        let mut out = Vec::new();
        while let Some(s) = r.next()? {
            out.push(match s {
                Statement::Directive { name, args, .. } => format!("{name} [{args}]"),
                Statement::Instruction { text, opcode, .. } => format!("i {text} @{opcode}"),
            });
        }
        Ok(out)
    }

    /// The position of byte `offset` of `text`.
    fn position_of(text: &str, offset: usize) -> Position {
        let mut c = Cursor::default();
        c.advance(&text.as_bytes()[..offset]);
        c.position()
    }

    const HEAD: &str = ".version 8.6\n.target sm_90\n";
    #[test]
    fn each_lexical_feature_reads_as_its_statements() {
        // (module after HEAD, statements after the header's two)
        let rows: &[(&str, &[&str])] = &[
            // Comments of both kinds, a `;` inside them no end.
            (".entry f() { // a; b\n /* c; } */ ret; }", &[".entry [f()]", "i ret; @0"]),
            // A multi-line comment inside an instruction stays in its text.
            (".entry f() { red.add.u32 /* ; */ [a], b; }", &[".entry [f()]", "i red.add.u32 /* ; */ [a], b; @0"]),
            // Strings: a `;` in a file name, a pragma.
            (".file 1 \"a;b.cu\"\n.entry f() { .pragma \"nounroll\"; ret; }", &[".file [1 \"a;b.cu\"]", ".entry [f()]", ".pragma [\"nounroll\"]", "i ret; @0"]),
            // Several target words, a line directive's comment.
            (".address_size 64 // bits\n", &[".address_size [64]"]),
            // A header with parameters and performance directives on its own lines.
            (".visible .entry f(.param .u64 p)\n.maxntid 1, 1, 1\n{\n ret;\n}", &[".visible [.entry f(.param .u64 p)\n.maxntid 1, 1, 1]", "i ret; @0"]),
            // A declaration ends at its `;`.
            (".extern .func (.param .b32 r) g (.param .b32 a);", &[".extern [.func (.param .b32 r) g (.param .b32 a)]"]),
            // An initializer's braces, nested.
            (".global .align 4 .b8 a[4] = {1,2,3,4};\n.global .u32 b[2][2] = {{1,2},{3,4}};", &[".global [.align 4 .b8 a[4] = {1,2,3,4}]", ".global [.u32 b[2][2] = {{1,2},{3,4}}]"]),
            // LLVM's debug section: data lines without `;`.
            (".section .debug_info\n{\n.b8 1 // x\n.b32 .debug_abbrev\n}\n.section .debug_loc { }", &[".section [.debug_info]", ".section [.debug_loc]"]),
            // Labels, guards, several statements on a line, register declarations.
            (".func g() { .reg .b32 %r<10>; $L__BB0_1: @%p1 bra $L__BB0_1; @!%p1 mov.u32 %r1, 1; mov.u32 %r2, 2;\n$L__BB0_2:\n ret; }",
             &[".func [g()]", ".reg [.b32 %r<10>]", "i $L__BB0_1: @%p1 bra $L__BB0_1; @16", "i @!%p1 mov.u32 %r1, 1; @6", "i mov.u32 %r2, 2; @0", "i $L__BB0_2:\n ret; @12"]),
            // Scoping blocks and a call sequence with a prototype label.
            (".entry f() { { .reg .b32 t; mov.b32 t, 1; } { prototype_0 : .callprototype ()_ (); call g, (); } }",
             &[".entry [f()]", ".reg [.b32 t]", "i mov.b32 t, 1; @0", ".callprototype [()_ ()]", "i call g, (); @0"]),
            // Brace vectors inside an instruction.
            (".entry f() { ld.v2.u32 {%r1, %r2}, [a]; }", &[".entry [f()]", "i ld.v2.u32 {%r1, %r2}, [a]; @0"]),
            // A label before a `}` or a `{` (ptxas 13.5 accepts both).
            (".entry f() { $L1: { ret; }\n$L2:\n}", &[".entry [f()]", "i ret; @0"]),
            // `::` is no label.
            (".entry f() { red.shared::cta.add.u32 [a], 1; }", &[".entry [f()]", "i red.shared::cta.add.u32 [a], 1; @0"]),
        ];
        for (body, want) in rows {
            let text = format!("{HEAD}{body}");
            let got = statements(&text).unwrap_or_else(|e| panic!("{body:?}: {e:?}"));
            assert_eq!(&got[2..], *want, "{body:?}");
        }
    }

    #[test]
    fn header_reads_version_and_target_words() {
        let text = "// made by hand\n.version 9.5 // x\n.target sm_90a, debug\n.address_size 64\n";
        let h = Reader::new(text.as_bytes(), Cap::NONE).header().unwrap();
        assert_eq!(h.version, ("9.5".to_owned(), Position { line: 2, column: 10 }));
        assert_eq!(h.target, ("sm_90a, debug".to_owned(), Position { line: 3, column: 9 }));
    }

    #[test]
    fn errors_name_where_and_what_was_expected() {
        // (module, offset of the error, message start)
        let rows: &[(&str, usize, &str)] = &[
            ("", 0, "expected `.version` at the start of the module, found the end of the file"),
            ("hello world;", 0, "expected `.version` at the start of the module, found `hello`"),
            ("\0\0\0", 0, "expected `.version` at the start of the module, found `\\0\\0\\0`"),
            (".target sm_90\n.version 8.6\n", 0, "expected `.version` at the start"),
            (".version 8.6\n.address_size 64\n.target sm_90\n", 13, "expected `.target` after `.version`, found `.address_size`"),
            (".version 8.6\n/* open", 13, "expected `*/` to close this comment"),
            (".version 8.6\n.target sm_90\n.entry f() { ret; /* never closed", 45, "expected `*/` to close this comment"),
            (".version 8.6\n.target sm_90\nret;", 27, "expected a directive, found `ret;`"),
            (".version 8.6\n.target sm_90\n.entry f() { ret; ", 38, "expected `}` to close this block"),
            (".version 8.6\n.target sm_90\n.entry f() { ret }", 40, "expected `;` to end this instruction before the `}`"),
            (".version 8.6\n.target sm_90\n.entry f() { ret", 40, "expected `;` to end this instruction; the file ends first"),
            (".version 8.6\n.target sm_90\n}", 27, "this `}` closes no block"),
            (".version 8.6\n.target sm_90\n{ }", 27, "expected a directive: a `{` block"),
            (".version 8.6\n.target sm_90\n.global .u32 x {", 27, "expected `;` to end this directive: a `{` opens a body only"),
            (".version 8.6\n.target sm_90\n.file 1 \"a.cu\n", 35, "expected `\"` to close this string"),
            (".version 8.6\n.target sm_90\n.entry f() { .entry g() { } }", 40, "a function's header inside a body"),
        ];
        for &(text, offset, message) in rows {
            for step in [1, 3, READ_BYTES] {
                let mut r = Reader::new(Trickle { bytes: text.as_bytes(), step }, Cap::NONE);
                let got = r.header().and_then(|_| loop {
                    if r.next()?.is_none() {
                        break Ok(());
                    }
                });
                let e = got.expect_err(text);
                let want = position_of(text, offset);
                assert!(
                    e.message.starts_with(message) && e.at == Some(want),
                    "{text:?} by {step}: got {e:?}, want {want:?}: {message}"
                );
            }
        }
    }

    /// Reads every statement of `r`, and how many bytes its window held at most.
    fn drain<R: Read>(r: &mut Reader<R>) -> Result<(usize, usize), ReadError> {
        r.header()?;
        let (mut n, mut held) = (0, 0);
        while r.next()?.is_some() {
            n += 1;
            held = held.max(r.buf.len());
        }
        Ok((n, held))
    }

    #[test]
    fn comments_and_sections_are_let_go_as_they_are_read() {
        let big = 20 * MAX_STATEMENT_BYTES / 8;
        let mut text = String::from(HEAD);
        text.push_str("// ");
        text.push_str(&"x".repeat(big));
        text.push_str("\n/* ");
        text.push_str(&"y".repeat(big));
        text.push_str(" */\n.section .debug_str {\n");
        text.push_str(&".b8 1 // z\n".repeat(big / 11));
        text.push_str("}\n");
        text.push_str(&" \n".repeat(big / 2));
        text.push_str(".entry f() { ret; }\n");
        let mut r = Reader::new(text.as_bytes(), Cap::NONE);
        let (n, held) = drain(&mut r).unwrap();
        // .section, .entry, ret.
        assert_eq!(n, 3);
        assert!(held <= 4 * READ_BYTES, "the window held {held} bytes");
    }

    #[test]
    fn a_statement_over_the_cap_is_an_error_at_its_start() {
        let text = format!("{HEAD}.entry f() {{\n  mov.u32 %r1, {};\n}}\n", "1".repeat(MAX_STATEMENT_BYTES + 1));
        let e = drain(&mut Reader::new(text.as_bytes(), Cap::NONE)).unwrap_err();
        assert_eq!(e.at, Some(Position { line: 4, column: 3 }), "{e:?}");
        assert!(e.message.starts_with("expected this statement to end within 8 MiB"), "{e:?}");
        // One of the cap's length is read.
        let statement = format!("mov.u32 %r1, {};", "1".repeat(MAX_STATEMENT_BYTES - 14));
        assert_eq!(statement.len(), MAX_STATEMENT_BYTES);
        let text = format!("{HEAD}.entry f() {{\n  {statement}\n}}\n");
        assert_eq!(drain(&mut Reader::new(text.as_bytes(), Cap::NONE)).unwrap().0, 2);
    }

    #[test]
    fn the_input_cap_and_nesting_bound_hold() {
        let text = format!("{HEAD}{}", " ".repeat(1000));
        let e = drain(&mut Reader::new(text.as_bytes(), Cap { bytes: 500, of: "in the test" })).unwrap_err();
        assert_eq!((e.at, e.message.as_str()), (None, "more than 500 bytes of text in the test"));
        assert!(drain(&mut Reader::new(text.as_bytes(), Cap { bytes: text.len() as u64, of: "" })).is_ok());
        let text = format!("{HEAD}.entry f() {{ {} }}", "{".repeat(MAX_BLOCK_DEPTH + 1));
        let e = drain(&mut Reader::new(text.as_bytes(), Cap::NONE)).unwrap_err();
        assert!(e.message.starts_with("expected `}`: blocks nest at most 1024 deep"), "{e:?}");
        assert_eq!(e.at, Some(position_of(&text, HEAD.len() + 13 + MAX_BLOCK_DEPTH - 1)));
    }

    #[test]
    fn utf8_is_checked_where_the_reader_comes_to_it() {
        // A character split between two reads is whole; one cut by the end is not.
        let text = format!("{HEAD}// é\n");
        for step in 1..4 {
            let r = Reader::new(Trickle { bytes: text.as_bytes(), step }, Cap::NONE);
            assert_eq!(statements_of(r).unwrap().len(), 2);
        }
        let cut = &text.as_bytes()[..text.len() - 2];
        let e = statements_of(Reader::new(cut, Cap::NONE)).unwrap_err();
        assert_eq!(e.at, Some(Position { line: 3, column: 4 }), "{e:?}");
        assert!(e.message.starts_with("not UTF-8 (byte 0xc3)"), "{e:?}");
        // An error before the invalid byte is said first.
        let e = statements_of(Reader::new(&b".version 8.6\n.target sm_90\nret;\n\xff"[..], Cap::NONE)).unwrap_err();
        assert!(e.message.starts_with("expected a directive, found `ret;`"), "{e:?}");
        // A word that runs into it is that error.
        let e = Reader::new(&b"hello\xff world"[..], Cap::NONE).header().unwrap_err();
        assert_eq!(e.at, Some(Position { line: 1, column: 6 }), "{e:?}");
    }
}
