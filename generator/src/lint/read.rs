//! A whole PTX module read as PTX's lexical grammar allows, one statement at a
//! time, byte by byte and without copying: what `lint` needs is where each
//! instruction statement starts and ends, and its first words.
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
//! .target directive at start of file"). An instruction outside a function body is
//! an error: PTX has none there (PTX ISA 11: module scope holds directives only).

/// Directives that end at the end of their line: they take no `;` (PTX ISA 11.1,
/// 11.5: `.version 9.5`, `.target sm_90`, `.address_size 64`, `.file 1 "a.cu"`,
/// `.loc 1 2 3`).
pub const LINE_DIRECTIVES: &[&str] = &[".version", ".target", ".address_size", ".loc", ".file"];

/// One statement of a module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Statement<'t> {
    /// A directive: its name (`.reg`) and what follows it up to its end (its `;`,
    /// its line's end, or its body's `{`), untrimmed of nothing but whitespace.
    Directive {
        /// The byte offset of the `.`.
        at: usize,
        /// `.reg`, `.version`, `.visible`, ...
        name: &'t str,
        /// The rest of the statement, trimmed.
        args: &'t str,
    },
    /// An instruction statement, from its label or guard to its `;` included.
    Instruction {
        /// The byte offset of its first character (label, guard or opcode).
        at: usize,
        /// The statement as written, comments inside it included.
        text: &'t str,
        /// The byte offset of its opcode, after label and guard.
        opcode_at: usize,
    },
}

/// Where the text stops being PTX, and what was expected there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ReadError {
    /// The byte offset the message is about.
    pub offset: usize,
    /// What was expected.
    pub message: String,
}

fn error<T>(offset: usize, message: impl Into<String>) -> Result<T, ReadError> {
    Err(ReadError {
        offset,
        message: message.into(),
    })
}

/// The module's `.version` and `.target` words, as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header<'t> {
    /// `9.5` and its byte offset.
    pub version: (&'t str, usize),
    /// `sm_90a, debug` and its byte offset.
    pub target: (&'t str, usize),
}

/// An open `{`.
#[derive(Debug, Clone, Copy)]
enum Block {
    /// A function's body, opened at this offset.
    Body(usize),
    /// A block inside a body.
    Scope(usize),
}

impl Block {
    fn at(self) -> usize {
        match self {
            Block::Body(at) | Block::Scope(at) => at,
        }
    }
}

/// Reads a module's statements in order.
pub struct Reader<'t> {
    text: &'t str,
    bytes: &'t [u8],
    pos: usize,
    blocks: Vec<Block>,
}

/// Bytes an identifier may hold after its first (PTX ISA 4.4: `[a-zA-Z0-9_$]`).
fn ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

impl<'t> Reader<'t> {
    /// A reader at the start of `text`.
    pub fn new(text: &'t str) -> Reader<'t> {
        Reader {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            blocks: Vec::new(),
        }
    }

    /// The module's first two statements, which must be `.version` and `.target`.
    pub fn header(&mut self) -> Result<Header<'t>, ReadError> {
        let mut take = |name: &str, after: &str| -> Result<(&'t str, usize), ReadError> {
            self.skip_space()?;
            let at = self.pos;
            let rest = &self.bytes[at..];
            let named = rest.starts_with(name.as_bytes())
                && !rest.get(name.len()).is_some_and(|&b| ident_byte(b));
            // Only the directive asked for is read: anything else is named as found.
            let statement = if named { self.next()? } else { None };
            match statement {
                Some(Statement::Directive { name: n, args, .. }) if n == name => {
                    let args_at = args.as_ptr() as usize - self.text.as_ptr() as usize;
                    Ok((args, if args.is_empty() { at } else { args_at }))
                }
                _ => error(
                    at,
                    format!("expected `{name}` {after}, found {}", self.found(at)),
                ),
            }
        };
        let version = take(".version", "at the start of the module")?;
        let target = take(".target", "after `.version`")?;
        Ok(Header { version, target })
    }

    /// What stands at `at`, for a message: its first word, quoted, or the end.
    fn found(&self, at: usize) -> String {
        let rest = &self.text[at.min(self.text.len())..];
        let word: String = rest
            .split(|c: char| c.is_whitespace())
            .next()
            .unwrap_or_default()
            .chars()
            .take(24)
            .collect();
        if word.is_empty() {
            "the end of the file".to_owned()
        } else {
            format!("`{}`", word.escape_debug())
        }
    }

    /// The next statement, or `None` at the end of the module.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Result<Option<Statement<'t>>, ReadError> {
        // A label stands before the statement it names, its `:` read here.
        let mut label: Option<usize> = None;
        loop {
            self.skip_space()?;
            let at = self.pos;
            let Some(&b) = self.bytes.get(at) else {
                if let Some(l) = label {
                    return error(l, "expected a statement after this label; the file ends first");
                }
                if let Some(open) = self.blocks.last() {
                    return error(open.at(), "expected `}` to close this block; the file ends first");
                }
                return Ok(None);
            };
            match b {
                b'{' => {
                    if self.blocks.is_empty() {
                        return error(at, "expected a directive: a `{` block stands only in a function's body");
                    }
                    self.blocks.push(Block::Scope(at));
                    self.pos += 1;
                    label = None;
                }
                b'}' => {
                    if self.blocks.pop().is_none() {
                        return error(at, "this `}` closes no block");
                    }
                    self.pos += 1;
                    label = None;
                }
                b'.' => return self.directive(at).map(Some),
                _ => {
                    if let Some(end) = self.label_end(at) {
                        label.get_or_insert(at);
                        self.pos = end;
                        continue;
                    }
                    if self.blocks.is_empty() {
                        return error(
                            at,
                            format!("expected a directive, found {}: instructions stand only in the body of an `.entry` or `.func`", self.found(at)),
                        );
                    }
                    return self.instruction(label.unwrap_or(at), at).map(Some);
                }
            }
        }
    }

    /// Skips whitespace and comments.
    fn skip_space(&mut self) -> Result<(), ReadError> {
        loop {
            while self.bytes.get(self.pos).is_some_and(u8::is_ascii_whitespace) {
                self.pos += 1;
            }
            match self.comment_end(self.pos)? {
                Some(end) => self.pos = end,
                None => return Ok(()),
            }
        }
    }

    /// Where the comment starting at `i` ends, if one starts there.
    fn comment_end(&self, i: usize) -> Result<Option<usize>, ReadError> {
        if self.bytes.get(i) != Some(&b'/') {
            return Ok(None);
        }
        match self.bytes.get(i + 1) {
            Some(b'/') => Ok(Some(
                memchr::memchr(b'\n', &self.bytes[i..]).map_or(self.bytes.len(), |n| i + n),
            )),
            Some(b'*') => match memchr::memmem::find(&self.bytes[i + 2..], b"*/") {
                Some(n) => Ok(Some(i + 2 + n + 2)),
                None => error(i, "expected `*/` to close this comment; the file ends first"),
            },
            _ => Ok(None),
        }
    }

    /// Where the string literal or the comment starting at `i` ends, if one starts
    /// there: what a statement's end is sought past.
    fn quoted_or_comment_end(&self, i: usize) -> Result<Option<usize>, ReadError> {
        match self.bytes.get(i) {
            Some(b'"') => self.string_end(i).map(Some),
            _ => self.comment_end(i),
        }
    }

    /// Where the string literal whose `"` is at `i` ends (after its closing `"`).
    fn string_end(&self, i: usize) -> Result<usize, ReadError> {
        let mut j = i + 1;
        while let Some(&b) = self.bytes.get(j) {
            match b {
                b'\\' => j += 2,
                b'"' => return Ok(j + 1),
                b'\n' => break,
                _ => j += 1,
            }
        }
        error(i, "expected `\"` to close this string before the line ends")
    }

    /// The end of a label (after its `:`) starting at `at`, if one does: an
    /// identifier, then `:` but not `::`.
    fn label_end(&self, at: usize) -> Option<usize> {
        let first = *self.bytes.get(at)?;
        if !(first.is_ascii_alphabetic() || matches!(first, b'_' | b'$' | b'%')) {
            return None;
        }
        let mut i = at + 1;
        while self.bytes.get(i).is_some_and(|&b| ident_byte(b)) {
            i += 1;
        }
        while self.bytes.get(i).is_some_and(|&b| b == b' ' || b == b'\t') {
            i += 1;
        }
        (self.bytes.get(i) == Some(&b':') && self.bytes.get(i + 1) != Some(&b':')).then_some(i + 1)
    }

    /// An instruction statement starting at `at` (its label, if any), its guard
    /// or opcode at `head`.
    fn instruction(&mut self, at: usize, head: usize) -> Result<Statement<'t>, ReadError> {
        let mut opcode_at = head;
        if self.bytes[head] == b'@' {
            while self.bytes.get(opcode_at).is_some_and(|b| !b.is_ascii_whitespace()) {
                opcode_at += 1;
            }
            while self.bytes.get(opcode_at).is_some_and(u8::is_ascii_whitespace) {
                opcode_at += 1;
            }
        }
        // Brace vectors (`{%r1, %r2}`) nest inside the statement.
        let mut depth = 0usize;
        let mut i = opcode_at;
        while let Some(&b) = self.bytes.get(i) {
            match b {
                b';' if depth == 0 => {
                    self.pos = i + 1;
                    return Ok(Statement::Instruction {
                        at,
                        text: &self.text[at..=i],
                        opcode_at,
                    });
                }
                b'{' => depth += 1,
                b'}' if depth == 0 => {
                    return error(at, "expected `;` to end this instruction before the `}`")
                }
                b'}' => depth -= 1,
                b'"' | b'/' => {
                    if let Some(end) = self.quoted_or_comment_end(i)? {
                        i = end;
                        continue;
                    }
                }
                _ => {}
            }
            i += 1;
        }
        error(at, "expected `;` to end this instruction; the file ends first")
    }

    /// A directive whose `.` is at `at`.
    fn directive(&mut self, at: usize) -> Result<Statement<'t>, ReadError> {
        let mut name_end = at + 1;
        while self.bytes.get(name_end).is_some_and(|&b| ident_byte(b)) {
            name_end += 1;
        }
        let name = &self.text[at..name_end];
        if name.len() == 1 {
            return error(at, format!("expected a directive name after `.`, found {}", self.found(at + 1)));
        }
        let args_end = if LINE_DIRECTIVES.contains(&name) {
            self.line_end(name_end)?
        } else if name == ".section" {
            return self.section(at, name, name_end);
        } else {
            return self.statement_directive(at, name, name_end);
        };
        self.pos = args_end;
        Ok(Statement::Directive {
            at,
            name,
            args: self.text[name_end..args_end].trim(),
        })
    }

    /// The end of a line directive's words: its line's end or a comment.
    fn line_end(&self, from: usize) -> Result<usize, ReadError> {
        let mut i = from;
        while let Some(&b) = self.bytes.get(i) {
            match b {
                b'\n' => return Ok(i),
                b'"' => {
                    i = self.string_end(i)?;
                    continue;
                }
                b'/' if self.comment_end(i)?.is_some() => return Ok(i),
                _ => i += 1,
            }
        }
        Ok(i)
    }

    /// `.section .debug_info { ... }`: its data lines are skipped whole.
    fn section(&mut self, at: usize, name: &'t str, name_end: usize) -> Result<Statement<'t>, ReadError> {
        self.pos = name_end;
        self.skip_space()?;
        let section_at = self.pos;
        while self.bytes.get(self.pos).is_some_and(|&b| !b.is_ascii_whitespace() && b != b'{') {
            self.pos += 1;
        }
        let section = &self.text[section_at..self.pos];
        self.skip_space()?;
        if self.bytes.get(self.pos) != Some(&b'{') {
            return error(at, format!("expected `{{` to open the section's data, found {}", self.found(self.pos)));
        }
        let open = self.pos;
        let mut i = open + 1;
        while let Some(&b) = self.bytes.get(i) {
            match b {
                b'}' => {
                    self.pos = i + 1;
                    return Ok(Statement::Directive { at, name, args: section });
                }
                b'"' | b'/' => {
                    if let Some(end) = self.quoted_or_comment_end(i)? {
                        i = end;
                        continue;
                    }
                }
                _ => {}
            }
            i += 1;
        }
        error(open, "expected `}` to close this section; the file ends first")
    }

    /// A directive that ends at its `;`, or at the `{` of a function's body.
    fn statement_directive(&mut self, at: usize, name: &'t str, name_end: usize) -> Result<Statement<'t>, ReadError> {
        let (mut parens, mut initializer) = (0usize, 0usize);
        // The last byte before `i` that is not whitespace: a `{` after `=` (or
        // inside an initializer, after `,` or `{`) is an initializer's.
        let mut last = b'.';
        let mut i = name_end;
        while let Some(&b) = self.bytes.get(i) {
            match b {
                b'"' => {
                    i = self.string_end(i)?;
                    last = b'"';
                    continue;
                }
                b'/' => {
                    if let Some(end) = self.comment_end(i)? {
                        i = end;
                        continue;
                    }
                }
                b'(' => parens += 1,
                b')' => parens = parens.saturating_sub(1),
                b';' if parens == 0 && initializer == 0 => {
                    self.pos = i + 1;
                    return Ok(Statement::Directive { at, name, args: self.text[name_end..i].trim() });
                }
                b'{' if last == b'=' || (initializer > 0 && matches!(last, b',' | b'{')) => initializer += 1,
                b'{' if parens == 0 && initializer == 0 => {
                    let header = &self.text[at..i];
                    if !(has_word(header, ".entry") || has_word(header, ".func")) {
                        return error(at, "expected `;` to end this directive: a `{` opens a body only after an `.entry` or `.func` header");
                    }
                    if !self.blocks.is_empty() {
                        return error(at, "a function's header inside a body: expected `}` to close the body first");
                    }
                    self.blocks.push(Block::Body(i));
                    self.pos = i + 1;
                    return Ok(Statement::Directive { at, name, args: self.text[name_end..i].trim() });
                }
                b'}' if initializer > 0 => initializer -= 1,
                b'}' => return error(at, "expected `;` to end this directive before the `}`"),
                _ => {}
            }
            if !b.is_ascii_whitespace() {
                last = b;
            }
            i += 1;
        }
        error(at, "expected `;` (or a body's `{`) to end this directive; the file ends first")
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

    /// Every statement of `text`, as `(kind, what)`: directives by name, and
    /// instructions by text.
    fn statements(text: &str) -> Result<Vec<String>, ReadError> {
        let mut r = Reader::new(text);
        let mut out = Vec::new();
        while let Some(s) = r.next()? {
            out.push(match s {
                Statement::Directive { name, args, .. } => format!("{name} [{args}]"),
                Statement::Instruction { text, opcode_at, at } => {
                    format!("i {text} @{}", opcode_at - at)
                }
            });
        }
        Ok(out)
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
        let h = Reader::new(text).header().unwrap();
        assert_eq!(h.version.0, "9.5");
        assert_eq!(&text[h.version.1..h.version.1 + 3], "9.5");
        assert_eq!(h.target.0, "sm_90a, debug");
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
            let mut r = Reader::new(text);
            let got = r.header().and_then(|_| loop {
                if r.next()?.is_none() {
                    break Ok(());
                }
            });
            let e = got.expect_err(text);
            assert!(e.message.starts_with(message) && e.offset == offset, "{text:?}: got {e:?}, want {offset}: {message}");
        }
    }
}
