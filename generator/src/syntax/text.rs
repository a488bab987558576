//! Instruction text, tokenized: `@!%p1 red.global.add.u32 [%rd1+4], %r1;`.
//!
//! This is PTX's general statement grammar, the one every instruction shares
//! (docs/formats.md, "Malformed and invalid"): a label, a guard, a dotted
//! mnemonic-and-qualifier chain, and comma-separated operands with their shapes
//! (address, brace vector, `d|p` pair, `!` negation, sink, register, immediate,
//! symbol). A text it refuses is malformed. Which qualifiers and operands an
//! instruction takes is the judge's business.
//!
//! The tokens hold their spellings as `S`: owned `String`s ([`tokenize`]), or
//! slices of the text ([`tokenize_borrowed`], for the batch judge, which tokenizes
//! a line and drops the tokens a microsecond later). One tokenizer makes both.

use std::fmt;

use ptxvec_spec::{PtxVersion, Qualifier};

/// What a register's prefix says about its declared type, under the naming that
/// `emit-ptx` declares: `%r` .b32, `%rd` .b64, `%f` .f32, `%fd` .f64, `%h` .b16, `%p` .pred.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RegClass {
    /// `%r<n>`: .b32.
    B32,
    /// `%rd<n>`: .b64.
    B64,
    /// `%f<n>`: .f32.
    F32,
    /// `%fd<n>`: .f64.
    F64,
    /// `%h<n>`: .b16.
    B16,
    /// `%p<n>`: .pred.
    Pred,
    /// `%q<n>`: .b128 (atom's `.cas.b128` and `.exch.b128`; PTX ISA 8.3 on).
    B128,
}

/// One register class as every reader asks it: the text (its prefix), the module
/// wrappers and the self-check (the type it is declared with), and the operand fit
/// (which types' operands take it). A new class is a row here.
#[derive(Debug, Clone, Copy)]
pub struct ClassRow {
    /// The class.
    pub class: RegClass,
    /// The register-name prefix, `%` included.
    pub prefix: &'static str,
    /// The type `emit-ptx` declares its registers with.
    pub declared: Qualifier,
    /// A register of it, for a text the generator writes (`%r9`).
    pub example: &'static str,
    /// The types whose operands take it (ptxas 13.5).
    pub fits: &'static [Qualifier],
    /// The bit types whose operands take it where float registers are allowed (not
    /// where the operand takes integer registers only, `int_registers`).
    pub fits_as_bits: &'static [Qualifier],
    /// The first PTX ISA version that declares it, where that is later than every
    /// version the target model knows: ptxas refuses the `.reg` line below it
    /// (`tests/ptxas_targets.rs` holds each to ptxas 13.5).
    pub since: Option<PtxVersion>,
}

/// Every register class, prefix order (ptxas 13.5 for the fits: a `.b` type takes
/// the float register of its width, `.f32`/`.f64` the bit one, the packed types a
/// `.b32` register, any 16-bit type a `.b16` one).
pub const CLASSES: [ClassRow; 7] = {
    use Qualifier as Q;
    [
        ClassRow { class: RegClass::B32, prefix: "%r", example: "%r9", declared: Q::B32, fits: &[Q::B32, Q::U32, Q::S32, Q::F32, Q::F16x2, Q::Bf16x2], fits_as_bits: &[], since: None },
        ClassRow { class: RegClass::B64, prefix: "%rd", example: "%rd9", declared: Q::B64, fits: &[Q::B64, Q::U64, Q::S64, Q::F64], fits_as_bits: &[], since: None },
        ClassRow { class: RegClass::F32, prefix: "%f", example: "%f9", declared: Q::F32, fits: &[Q::F32], fits_as_bits: &[Q::B32], since: None },
        ClassRow { class: RegClass::F64, prefix: "%fd", example: "%fd9", declared: Q::F64, fits: &[Q::F64], fits_as_bits: &[Q::B64], since: None },
        ClassRow { class: RegClass::B16, prefix: "%h", example: "%h9", declared: Q::B16, fits: &[Q::B16, Q::U16, Q::S16, Q::F16, Q::Bf16], fits_as_bits: &[], since: None },
        ClassRow { class: RegClass::Pred, prefix: "%p", example: "%p9", declared: Q::Pred, fits: &[Q::Pred], fits_as_bits: &[], since: None },
        // `.b128`: atom's `.cas.b128` and `.exch.b128`. PTX ISA 9.1, 9.7.13.5 (PTX
        // ISA Notes): "Support for `.b128` type introduced in PTX ISA version 8.3";
        // ptxas 13.5 refuses the declaration below it.
        ClassRow { class: RegClass::B128, prefix: "%q", example: "%q9", declared: Q::B128, fits: &[Q::B128], fits_as_bits: &[], since: Some(PtxVersion::new(8, 3)) },
    ]
};

impl RegClass {
    /// Every class, prefix order.
    pub const ALL: [RegClass; CLASSES.len()] = {
        let mut all = [RegClass::B32; CLASSES.len()];
        let mut i = 0;
        while i < CLASSES.len() {
            all[i] = CLASSES[i].class;
            i += 1;
        }
        all
    };

    /// Its row of [`CLASSES`].
    pub const fn row(self) -> &'static ClassRow {
        let mut i = 0;
        while i < CLASSES.len() {
            if CLASSES[i].class as u8 == self as u8 {
                return &CLASSES[i];
            }
            i += 1;
        }
        // Every class has a row (`every_class_has_one_row` holds it).
        &CLASSES[0]
    }

    /// The register-name prefix, `%` included.
    pub const fn prefix(self) -> &'static str {
        self.row().prefix
    }

    /// The PTX type `emit-ptx` declares registers of this class with.
    pub fn declared_type(self) -> &'static str {
        self.row().declared.spelling()
    }

    /// The class `emit-ptx` declares with type `ty` (`".b128"`), if any.
    pub fn of_declared(ty: &str) -> Option<RegClass> {
        CLASSES.iter().find(|r| r.declared.spelling() == ty).map(|r| r.class)
    }

    /// Whether a module of `.version ptx` may declare it.
    pub fn declared_at(self, ptx: PtxVersion) -> bool {
        self.row().since.is_none_or(|v| ptx >= v)
    }

    /// Whether a register of this class may stand where type `t` is expected;
    /// `int_only`: the operand takes integer registers only.
    pub fn fits(self, t: Qualifier, int_only: bool) -> bool {
        let row = self.row();
        row.fits.contains(&t) || (!int_only && row.fits_as_bits.contains(&t))
    }

    /// The class a register name shows: the longest prefix followed by digits only.
    pub fn of_name(name: &str) -> Option<RegClass> {
        // Every prefix is `%` and one or two letters, so the one followed by
        // digits only is all the letters after `%`: told apart by the two bytes
        // after it (a second letter other than `d` is no prefix's, and then no
        // digit either). Every register operand of every batch line asks this.
        let b = name.as_bytes();
        let (class, letters) = match b {
            [b'%', b'r', b'd', ..] => (RegClass::B64, 2),
            [b'%', b'f', b'd', ..] => (RegClass::F64, 2),
            [b'%', first, ..] => (RegClass::of_letters(&[*first])?, 1),
            _ => return None,
        };
        let digits = &b[1 + letters..];
        (!digits.is_empty() && digits.iter().all(u8::is_ascii_digit)).then_some(class)
    }

    /// The class whose prefix is `%` and `letters` (`rd`: `.b64`). A match, not a
    /// search of [`CLASSES`]: every register operand of every batch line asks it
    /// (`the_fast_reader_of_prefixes_is_the_table` holds it to the table).
    pub fn of_letters(letters: &[u8]) -> Option<RegClass> {
        Some(match letters {
            b"r" => RegClass::B32,
            b"rd" => RegClass::B64,
            b"f" => RegClass::F32,
            b"fd" => RegClass::F64,
            b"h" => RegClass::B16,
            b"p" => RegClass::Pred,
            b"q" => RegClass::B128,
            _ => return None,
        })
    }
}

/// An immediate's spelling: which literal syntax of PTX ISA 4.5 ("Constants") it uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Literal {
    /// Decimal, hex (`0x`), octal or binary integer, optionally negative, optional `U`.
    Int,
    /// `0f` followed by 8 hex digits: a .f32 bit pattern.
    HexF32,
    /// `0d` followed by 16 hex digits: a .f64 bit pattern.
    HexF64,
    /// A decimal floating-point literal such as `1.0` or `1e3` (a .f64 value).
    Decimal,
}

/// One scalar operand: a register, an immediate, a sink or another name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Atom<S = String> {
    /// A register whose prefix shows its class.
    Reg(RegClass, S),
    /// Any other identifier: a symbolic name such as `dst` or `mask`.
    Symbol(S),
    /// An immediate.
    Imm(Literal, S),
    /// `_`.
    Sink,
}

impl<'t, S: From<&'t str>> Atom<S> {
    fn parse(s: &'t str) -> Option<Atom<S>> {
        if s == "_" {
            return Some(Atom::Sink);
        }
        if let Some(lit) = literal(s) {
            return Some(Atom::Imm(lit, s.into()));
        }
        if !is_identifier(s) {
            return None;
        }
        Some(match RegClass::of_name(s) {
            Some(c) => Atom::Reg(c, s.into()),
            None => Atom::Symbol(s.into()),
        })
    }
}

impl<S: AsRef<str>> fmt::Display for Atom<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Atom::Reg(_, s) | Atom::Symbol(s) | Atom::Imm(_, s) => f.write_str(s.as_ref()),
            Atom::Sink => f.write_str("_"),
        }
    }
}

/// One operand as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Operand<S = String> {
    /// `[base]` or `[base+offset]`: the base, and the text inside the brackets.
    Address(Atom<S>, S),
    /// `{a, b, ...}`.
    Vector(Vec<Atom<S>>),
    /// `d|p`.
    Pair(Atom<S>, Atom<S>),
    /// `!a`.
    Not(Atom<S>),
    /// A plain scalar.
    Scalar(Atom<S>),
}

impl<S> Operand<S> {
    /// The scalars the operand names, in order: what `emit-ptx` must declare.
    pub fn atoms(&self) -> Vec<&Atom<S>> {
        match self {
            Operand::Address(a, _) | Operand::Not(a) | Operand::Scalar(a) => vec![a],
            Operand::Vector(v) => v.iter().collect(),
            Operand::Pair(a, b) => vec![a, b],
        }
    }

    /// A word for the shape, for messages.
    pub fn shape(&self) -> &'static str {
        match self {
            Operand::Address(..) => "an address",
            Operand::Vector(_) => "a brace vector",
            Operand::Pair(..) => "a `d|p` pair",
            Operand::Not(_) => "a negated predicate",
            Operand::Scalar(Atom::Imm(..)) => "an immediate",
            Operand::Scalar(Atom::Sink) => "the sink `_`",
            Operand::Scalar(_) => "a register",
        }
    }
}

/// The operand as the enumerator writes it: `[%rd1]`, `{%f1, %f2}`, `%r1|%p1`, `!%p1`.
impl<S: AsRef<str>> fmt::Display for Operand<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Operand::Address(_, inside) => write!(f, "[{}]", inside.as_ref()),
            Operand::Vector(v) => {
                let items: Vec<String> = v.iter().map(ToString::to_string).collect();
                write!(f, "{{{}}}", items.join(", "))
            }
            Operand::Pair(a, b) => write!(f, "{a}|{b}"),
            Operand::Not(a) => write!(f, "!{a}"),
            Operand::Scalar(a) => write!(f, "{a}"),
        }
    }
}

/// A tokenized instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstrText<S = String> {
    /// `L1` of `L1: red...`, as written.
    pub label: Option<S>,
    /// `@p` or `@!p`, as written.
    pub guard: Option<S>,
    /// The dotted chain before the operands, split at dots outside `::`:
    /// `red.global.add.u32` → `["red", "global", "add", "u32"]`.
    pub words: Vec<S>,
    /// The operands, in order.
    pub operands: Vec<Operand<S>>,
}

/// Text that does not tokenize, with the character offset where it stops making sense.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} (at character {offset})")]
pub struct LexError {
    /// What was expected.
    pub message: String,
    /// Zero-based character offset.
    pub offset: usize,
}

/// Splits an instruction into guard, dotted words and operands.
/// Comments are whitespace ([`uncommented`]).
pub fn tokenize(text: &str) -> Result<InstrText, LexError> {
    tokenize_as(&uncommented(text)?)
}

/// [`tokenize`], the tokens borrowing their spellings from `text`, which must hold
/// no comment (a `/` is no token of the general grammar: such a text does not
/// tokenize).
pub fn tokenize_borrowed(text: &str) -> Result<InstrText<&str>, LexError> {
    tokenize_as(text)
}

/// A text up to its operands: the guard, the chain, and the rest, with the
/// character offsets of the chain and the rest.
struct Head<'t> {
    label: Option<&'t str>,
    guard: Option<&'t str>,
    chain: &'t str,
    chain_at: usize,
    rest: &'t str,
    rest_at: usize,
}

fn lex_error(message: &str, offset: usize) -> LexError {
    LexError {
        message: message.to_owned(),
        offset,
    }
}

fn head(text: &str) -> Result<Head<'_>, LexError> {
    let err = lex_error;
    let trimmed_start = text.len() - text.trim_start().len();
    let mut body = text.trim();
    if let Some(stripped) = body.strip_suffix(';') {
        body = stripped.trim_end();
    }
    if body.contains(';') {
        return Err(err(
            "expected one instruction: `;` only at the end",
            trimmed_start + body.find(';').unwrap_or(0),
        ));
    }
    let mut at = trimmed_start;
    // PTX ISA 4.3 (Statements): "Statements begin with an optional label": an
    // identifier and one `:` (two are the `::` of a qualifier such as `.shared::cta`).
    let mut label = None;
    if let Some(colon) = body.find(':') {
        let name = &body[..colon];
        if is_identifier(name) && !body[colon + 1..].starts_with(':') {
            label = Some(name);
            let rest = &body[colon + 1..];
            at += colon + 1 + (rest.len() - rest.trim_start().len());
            body = rest.trim_start();
            if body.is_empty() {
                return Err(err("expected an instruction after the label", at));
            }
        }
    }
    let mut guard = None;
    if body.starts_with('@') {
        let end = body
            .find(char::is_whitespace)
            .ok_or_else(|| err("expected an instruction after the guard predicate", at))?;
        let g = &body[..end];
        let name = g[1..].strip_prefix('!').unwrap_or(&g[1..]);
        if !is_identifier(name) {
            return Err(err("expected a predicate name after `@`", at + 1));
        }
        guard = Some(g);
        let rest = &body[end..];
        at += end + (rest.len() - rest.trim_start().len());
        body = rest.trim_start();
    }
    let split = chain_end(body);
    let (chain, rest) = body.split_at(split);
    Ok(Head {
        label,
        guard,
        chain,
        chain_at: at,
        rest_at: at + split + (rest.len() - rest.trim_start().len()),
        rest: rest.trim(),
    })
}

/// Where the chain of `body` ends: at the first whitespace that no `.` follows.
/// ptxas 13.5 reads `redux.sync .add.u32` as `redux.sync.add.u32` (whitespace
/// before a qualifier's dot is whitespace between tokens), and refuses
/// `redux.sync. add.u32` ("Parsing error near '.'"): a dot starts its word.
fn chain_end(body: &str) -> usize {
    let bytes = body.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_whitespace() {
            let next = i + bytes[i..].iter().take_while(|b| b.is_ascii_whitespace()).count();
            if bytes.get(next) != Some(&b'.') {
                return i;
            }
            i = next;
        } else {
            i += 1;
        }
    }
    bytes.len()
}

/// The text with its comments made whitespace, as PTX's lexical grammar reads them
/// (PTX ISA 4.2, "Comments": "Comments in PTX follow C/C++ syntax, using
/// non-nested /* and */ for comments that may span multiple lines, and using // to
/// begin a comment that extends up to the next newline character, which terminates
/// the current line. ... Comments are treated as whitespace."). Borrowed when the
/// text has none; an unclosed `/*` is an error.
pub fn uncommented(text: &str) -> Result<std::borrow::Cow<'_, str>, LexError> {
    if !text.contains('/') {
        return Ok(std::borrow::Cow::Borrowed(text));
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    loop {
        let Some(at) = rest.find('/') else {
            out.push_str(rest);
            break;
        };
        let after = &rest[at + 1..];
        if after.starts_with('/') {
            out.push_str(&rest[..at]);
            out.push(' ');
            rest = after.find('\n').map_or("", |nl| &after[nl..]);
        } else if let Some(body) = after.strip_prefix('*') {
            out.push_str(&rest[..at]);
            out.push(' ');
            let Some(close) = body.find("*/") else {
                let offset = text[..text.len() - rest.len() + at].chars().count();
                return Err(lex_error("expected `*/` to close the comment", offset));
            };
            rest = &body[close + 2..];
        } else {
            out.push_str(&rest[..=at]);
            rest = after;
        }
    }
    Ok(std::borrow::Cow::Owned(out))
}

/// The text in its plain form when it has comments or whitespace inside its chain:
/// comments made whitespace ([`uncommented`]) and the chain's words joined by bare
/// dots, the rest as written. It tokenizes to the same tokens, so every verdict on it
/// is the text's; `None` when the text needs no such form or does not tokenize.
pub fn plain_form(text: &str) -> Option<String> {
    let plain = plain_form_unchecked(text)?;
    tokenize_borrowed(&plain).ok()?;
    Some(plain)
}

/// [`plain_form`] before its tokens are checked: the caller tokenizes it anyway.
pub fn plain_form_unchecked(text: &str) -> Option<String> {
    // A text with no comment (no `/`) and no whitespace before a dot is its own
    // plain form: whitespace inside a chain stands before a dot ([`chain_end`]), and
    // the byte before that dot ends the whitespace (ASCII, or the last byte of a
    // wider character). Seen without reading the text's parts: most batch lines
    // that do not tokenize are asked this.
    let b = text.as_bytes();
    let space_before_a_dot = b.windows(2).any(|w| w[1] == b'.' && (w[0].is_ascii_whitespace() || !w[0].is_ascii()));
    if !space_before_a_dot && !b.contains(&b'/') {
        return None;
    }
    let code = uncommented(text).ok()?;
    let h = head(&code).ok()?;
    let spaced = h.chain.bytes().any(|b| b.is_ascii_whitespace());
    if !spaced && matches!(code, std::borrow::Cow::Borrowed(_)) {
        return None;
    }
    let words: Vec<&str> = split_chain(h.chain).ok()?;
    let start = h.chain.as_ptr() as usize - code.as_ptr() as usize;
    let end = start + h.chain.len();
    Some([&code[..start], &words.join("."), &code[end..]].concat())
}

fn tokenize_as<'t, S: From<&'t str>>(text: &'t str) -> Result<InstrText<S>, LexError> {
    let err = lex_error;
    let Head {
        label,
        guard,
        chain,
        chain_at: at,
        rest,
        rest_at,
    } = head(text)?;
    let label = label.map(S::from);
    let guard = guard.map(S::from);
    let words = split_chain(chain).map_err(|(m, o)| err(&m, at + o))?;
    let operands = if rest.is_empty() {
        Vec::new()
    } else {
        operands(rest).map_err(|(m, o)| err(&m, rest_at + o))?
    };
    Ok(InstrText {
        label,
        guard,
        words,
        operands,
    })
}

/// `red.shared::cta.add.u32` → `red`, `shared::cta`, `add`, `u32`.
fn split_chain<'t, S: From<&'t str>>(chain: &'t str) -> Result<Vec<S>, (String, usize)> {
    // Room for every chain of the spec's syntax lines without growing.
    let mut words = Vec::with_capacity(8);
    let mut start = 0;
    let bytes = chain.as_bytes();
    let mut i = 0;
    while i <= bytes.len() {
        let at_end = i == bytes.len();
        if at_end || bytes[i] == b'.' {
            // Whitespace may stand before a dot, not after it (`chain_end`).
            let word = chain[start..i].trim_end();
            if word.is_empty() {
                return Err(("expected a word between dots".into(), i));
            }
            if !word
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b':')
            {
                return Err((format!("`{word}` is not a qualifier word"), start));
            }
            words.push(word.into());
            start = i + 1;
        }
        i += 1;
    }
    Ok(words)
}

/// The operands of `s`, split at top-level commas (not inside `[]` or `{}`) and
/// parsed, with the offset of an error. Every split error is reported before any
/// operand that does not parse, whatever their order: a text's shape (its
/// brackets and commas) is judged before its pieces.
fn operands<'t, S: From<&'t str>>(s: &'t str) -> Result<Vec<Operand<S>>, (String, usize)> {
    let mut out = Vec::with_capacity(4);
    let mut first_bad: Option<(&str, usize)> = None;
    let mut take = |piece: (&'t str, usize)| match parse_operand(piece.0) {
        Some(op) => out.push(op),
        None => {
            first_bad.get_or_insert(piece);
        }
    };
    let mut open = Brackets::default();
    let mut start = 0;
    for (i, b) in s.bytes().enumerate() {
        match b {
            b'[' | b'{' => open.push(b == b'{'),
            b']' | b'}' if open.pop() != Some(b == b'}') => {
                return Err((format!("unbalanced `{}`", char::from(b)), i));
            }
            b',' if open.is_empty() => {
                take(trim_piece(s, start, i)?);
                start = i + 1;
            }
            _ => {}
        }
    }
    if let Some(curly) = open.last() {
        return Err((format!("unclosed `{}`", if curly { '{' } else { '[' }), s.len()));
    }
    take(trim_piece(s, start, s.len())?);
    match first_bad {
        Some((piece, o)) => Err((format!("`{piece}` is not an operand (expected a register, an immediate, `_`, `[address]`, `{{vector}}`, `d|p` or `!p`)"), o)),
        None => Ok(out),
    }
}

/// The brackets open at a point of an operand list, innermost last: a bit per
/// level (set: `{`), without allocating up to 128 levels.
#[derive(Default)]
struct Brackets {
    bits: u128,
    depth: usize,
    /// The levels past 128, which only hostile input reaches.
    deeper: Vec<bool>,
}

impl Brackets {
    fn push(&mut self, curly: bool) {
        if self.depth < 128 {
            self.bits = (self.bits & !(1 << self.depth)) | (u128::from(curly) << self.depth);
        } else {
            self.deeper.push(curly);
        }
        self.depth += 1;
    }

    fn pop(&mut self) -> Option<bool> {
        let top = self.last()?;
        self.depth -= 1;
        if self.depth >= 128 {
            self.deeper.pop();
        }
        Some(top)
    }

    fn last(&self) -> Option<bool> {
        match self.depth {
            0 => None,
            d if d > 128 => self.deeper.last().copied(),
            d => Some(self.bits >> (d - 1) & 1 == 1),
        }
    }

    fn is_empty(&self) -> bool {
        self.depth == 0
    }
}

fn trim_piece(s: &str, start: usize, end: usize) -> Result<(&str, usize), (String, usize)> {
    let raw = &s[start..end];
    let piece = raw.trim();
    if piece.is_empty() {
        return Err(("expected an operand".into(), start));
    }
    Ok((piece, start + (raw.len() - raw.trim_start().len())))
}

fn parse_operand<'t, S: From<&'t str>>(s: &'t str) -> Option<Operand<S>> {
    if let Some(inner) = s.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        // ptxas 13.5: `[reg]`, `[reg+imm]` (also `+-imm`) and `[sym+imm]`; `[reg-imm]`
        // and `[reg+reg]` are parse errors.
        let inner = inner.trim();
        let (base, offset) = match inner.split_once('+') {
            Some((b, o)) => (b.trim(), Some(o.trim())),
            None => (inner, None),
        };
        if offset.is_some_and(|o| literal(o) != Some(Literal::Int)) {
            return None;
        }
        // The base is a name or a literal; `_` is neither (PTX ISA 4.4: an
        // identifier that starts with `_` has at least one more character).
        let base = Atom::parse(base)?;
        if matches!(base, Atom::Sink) {
            return None;
        }
        return Some(Operand::Address(base, inner.into()));
    }
    if let Some(inner) = s.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
        let atoms = inner
            .split(',')
            .map(|a| Atom::parse(a.trim()))
            .collect::<Option<Vec<_>>>()?;
        return Some(Operand::Vector(atoms));
    }
    // An integer constant expression (`!1`, `~0`, `1+2`, `(4)`, `1|2`) is one
    // immediate, read before `|` and `!` are taken for a pair and a negation.
    if int_expression(s) {
        return Some(Operand::Scalar(Atom::Imm(Literal::Int, s.into())));
    }
    if let Some((d, p)) = s.split_once('|') {
        return Some(Operand::Pair(
            Atom::parse(d.trim())?,
            Atom::parse(p.trim())?,
        ));
    }
    if let Some(a) = s.strip_prefix('!') {
        return Some(Operand::Not(Atom::parse(a.trim())?));
    }
    Some(Operand::Scalar(Atom::parse(s)?))
}

/// Whether a guard (`@%r1`, `@!%rd2`) names a register of a class other than
/// `.pred`: the judge's `operand.guard` defect, and the error ptxas 12.9 reports
/// before it faults on a sink `.bf16` atom (E054).
pub fn guard_is_no_predicate(guard: &str) -> bool {
    let name = guard.trim_start_matches('@').trim_start_matches('!');
    RegClass::of_name(name).is_some_and(|c| c != RegClass::Pred)
}

/// PTX identifiers (PTX ISA 4.4): `[a-zA-Z][a-zA-Z0-9_$]*` or `[_$%][a-zA-Z0-9_$]+`.
pub(crate) fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() => {
            chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
        }
        Some('_' | '$' | '%') => {
            let rest = chars.as_str();
            !rest.is_empty()
                && rest
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
        }
        _ => false,
    }
}

/// Whether `s` is an integer constant expression with at least one operator or
/// parenthesis (PTX ISA 4.6, "Constant Expressions": C's integer operators and
/// parentheses over integer constants; ptxas 13.5 accepts `!1`, `~1`, `1+2` and `(1)`
/// for a .u32 source, and refuses `!0f3F800000` and `!1.5`). A plain literal is
/// [`literal`]'s.
fn int_expression(s: &str) -> bool {
    // ptxas 13.5 refuses a division by zero as it reads the text: "Constant
    // expression has division by zero" (`0/0+16`).
    int_expression_read(s).is_some_and(|v| !v.divided_by_zero)
}

/// The value of an integer constant expression with an operator or parenthesis
/// ([`int_expression`]), by PTX ISA 4.6's rules: 64-bit arithmetic, unsigned
/// where an operand is (a `U` suffix, or a literal past `.s64`), signed otherwise,
/// wrapping, and read back as `.s64` as ptxas 13.5 reports it (`16|0xffffffff` is
/// 4294967295, `0xffffffffffffffff` alone is -1, `(0-1)>>60` is -1, a shift
/// counts modulo 64: `1<<64` is 1). `None` for no such expression, or one without
/// a value (a division by zero, or a literal past 64 bits).
pub fn int_expression_value(s: &str) -> Option<i128> {
    let v = int_expression_read(s)?;
    v.defined.then_some(i128::from(v.bits as i64))
}

fn int_expression_read(s: &str) -> Option<Value> {
    let b = s.as_bytes();
    // An expression starts with a digit, a parenthesis or a unary operator; a
    // register, a name, a sink or a bracket starts none.
    let starts = b.first().is_some_and(|c| c.is_ascii_digit() || b"(!~-+".contains(c));
    if !starts || !b.iter().any(|c| b"()!~+-*/%<>&|^=?".contains(c)) || b.len() > 4096 {
        return None;
    }
    let mut p = Expr { b, at: 0, depth: 0 };
    let v = p.ternary()?;
    p.space();
    (p.at == b.len()).then_some(v)
}

/// A value of a constant expression: its 64 bits, whether it is unsigned,
/// whether it is defined at all, and whether a division by zero made it not.
#[derive(Debug, Clone, Copy)]
struct Value {
    bits: u64,
    unsigned: bool,
    defined: bool,
    divided_by_zero: bool,
}

impl Value {
    fn signed(bits: u64) -> Value {
        Value { bits, unsigned: false, defined: true, divided_by_zero: false }
    }

    fn undefined() -> Value {
        Value { bits: 0, unsigned: false, defined: false, divided_by_zero: false }
    }

    /// `bits` of the given signedness, defined.
    fn of(bits: u64, unsigned: bool) -> Value {
        Value { bits, unsigned, defined: true, divided_by_zero: false }
    }

    fn truth(b: bool) -> Value {
        Value::signed(u64::from(b))
    }

    /// The value of an integer literal (`literal`'s `Int`): `.u64` with a `U`
    /// suffix or past `.s64`'s range, else `.s64`.
    fn of_literal(s: &str) -> Option<Value> {
        let suffixed = s.strip_suffix('U');
        let body = suffixed.unwrap_or(s);
        let v = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
            u64::from_str_radix(h, 16).ok()?
        } else if let Some(b) = body.strip_prefix("0b").or_else(|| body.strip_prefix("0B")) {
            u64::from_str_radix(b, 2).ok()?
        } else {
            body.parse().ok()?
        };
        Some(Value::of(v, suffixed.is_some() || v > i64::MAX as u64))
    }

    /// `self op other` by C's rules on 64 bits: unsigned if either is.
    fn binary(self, op: &[u8], other: Value) -> Value {
        let unsigned = self.unsigned || other.unsigned;
        let (a, b) = (self.bits, other.bits);
        let (sa, sb) = (a as i64, b as i64);
        let cmp = |u: bool, s: bool| Value::truth(if unsigned { u } else { s });
        let mut v = match op {
            b"||" => Value::truth(a != 0 || b != 0),
            b"&&" => Value::truth(a != 0 && b != 0),
            b"|" => Value::of(a | b, unsigned),
            b"^" => Value::of(a ^ b, unsigned),
            b"&" => Value::of(a & b, unsigned),
            b"==" => Value::truth(a == b),
            b"!=" => Value::truth(a != b),
            b"<" => cmp(a < b, sa < sb),
            b">" => cmp(a > b, sa > sb),
            b"<=" => cmp(a <= b, sa <= sb),
            b">=" => cmp(a >= b, sa >= sb),
            // A shift keeps its left operand's type and counts modulo 64 (ptxas
            // 13.5: `1<<64` is 1, `16<<65` is 32).
            b"<<" => Value::of(a.wrapping_shl(b as u32 & 63), self.unsigned),
            b">>" if self.unsigned => Value::of(a.wrapping_shr(b as u32 & 63), true),
            b">>" => Value::of(sa.wrapping_shr(b as u32 & 63) as u64, false),
            b"+" => Value::of(a.wrapping_add(b), unsigned),
            b"-" => Value::of(a.wrapping_sub(b), unsigned),
            b"*" => Value::of(a.wrapping_mul(b), unsigned),
            b"/" | b"%" if b == 0 => Value { divided_by_zero: true, ..Value::undefined() },
            b"/" if unsigned => Value::of(a / b, true),
            b"/" => Value::of(sa.wrapping_div(sb) as u64, false),
            b"%" if unsigned => Value::of(a % b, true),
            _ => Value::of(sa.wrapping_rem(sb) as u64, false),
        };
        v.defined &= self.defined && other.defined;
        v.divided_by_zero |= self.divided_by_zero || other.divided_by_zero;
        v
    }
}

/// A recursive-descent reader of an integer constant expression, by C's
/// precedence, that computes its [`Value`].
struct Expr<'b> {
    b: &'b [u8],
    at: usize,
    depth: usize,
}

impl Expr<'_> {
    fn space(&mut self) {
        while self.b.get(self.at).is_some_and(u8::is_ascii_whitespace) {
            self.at += 1;
        }
    }

    fn eat(&mut self, op: &[u8]) -> bool {
        self.space();
        if self.b[self.at..].starts_with(op) {
            self.at += op.len();
            true
        } else {
            false
        }
    }

    fn ternary(&mut self) -> Option<Value> {
        let cond = self.binary(0)?;
        if self.eat(b"?") {
            let yes = self.ternary()?;
            if !self.eat(b":") {
                return None;
            }
            let no = self.ternary()?;
            let picked = if cond.bits != 0 { yes } else { no };
            return Some(Value {
                bits: picked.bits,
                unsigned: yes.unsigned || no.unsigned,
                defined: cond.defined && yes.defined && no.defined,
                divided_by_zero: cond.divided_by_zero || yes.divided_by_zero || no.divided_by_zero,
            });
        }
        Some(cond)
    }

    /// Binary operators, loosest first; within a level, longer spellings first.
    const LEVELS: &'static [&'static [&'static [u8]]] = &[
        &[b"||"],
        &[b"&&"],
        &[b"|"],
        &[b"^"],
        &[b"&"],
        &[b"==", b"!="],
        &[b"<=", b">=", b"<", b">"],
        &[b"<<", b">>"],
        &[b"+", b"-"],
        &[b"*", b"/", b"%"],
    ];

    /// The operators of levels `level` and up, left to right (precedence
    /// climbing: what a descent through the levels reads, without a call per
    /// level for each operand).
    fn binary(&mut self, level: usize) -> Option<Value> {
        let mut v = self.unary()?;
        while let Some((op, at_level)) = self.operator(level) {
            self.at += op.len();
            let rhs = self.binary(at_level + 1)?;
            v = v.binary(op, rhs);
        }
        Some(v)
    }

    /// The binary operator at the cursor of level `level` or up, and its level:
    /// the tightest level's first, as a descent through the levels meets them.
    fn operator(&mut self, level: usize) -> Option<(&'static [u8], usize)> {
        self.space();
        let rest = &self.b[self.at..];
        // `|` is not the start of `||`, nor `&` of `&&`, nor `<` of `<<`; a `%`
        // before a name's byte starts a name (`%17`: ptxas 13.5, "Parsing error
        // near '%17'"), not the remainder.
        let reads = |op: &[u8]| {
            rest.starts_with(op)
                && !(op.len() == 1
                    && rest.len() > 1
                    && (rest[1] == op[0] || (b"<>!=".contains(&op[0]) && rest[1] == b'=')))
                && !(op == b"%" && rest.get(1).is_some_and(|&c| c.is_ascii_alphanumeric() || c == b'_' || c == b'$'))
        };
        (level..Self::LEVELS.len())
            .rev()
            .find_map(|l| Self::LEVELS[l].iter().find(|op| reads(op)).map(|op| (*op, l)))
    }

    fn unary(&mut self) -> Option<Value> {
        self.depth += 1;
        if self.depth > 256 {
            return None;
        }
        let v = if self.eat(b"!") {
            self.unary().map(|v| Value { defined: v.defined, divided_by_zero: v.divided_by_zero, ..Value::truth(v.bits == 0) })
        } else if self.eat(b"~") {
            self.unary().map(|v| Value { bits: !v.bits, ..v })
        } else if self.eat(b"-") {
            self.unary().map(|v| Value { bits: v.bits.wrapping_neg(), ..v })
        } else if self.eat(b"+") {
            self.unary()
        } else if self.eat(b"(") {
            let v = self.ternary();
            if self.eat(b")") { v } else { None }
        } else {
            self.space();
            let start = self.at;
            while self.b.get(self.at).is_some_and(|c| c.is_ascii_alphanumeric()) {
                self.at += 1;
            }
            let word = std::str::from_utf8(&self.b[start..self.at]).ok()?;
            // A literal of the integer syntax whose value does not fit 64 bits
            // reads, but has no value.
            (literal(word) == Some(Literal::Int)).then(|| {
                Value::of_literal(word).unwrap_or_else(Value::undefined)
            })
        };
        self.depth -= 1;
        v
    }
}

/// The literal syntax a token uses, if it is one (PTX ISA 4.5 "Constants").
pub(super) fn literal(s: &str) -> Option<Literal> {
    let negative = s.starts_with('-');
    let body = s.strip_prefix('-').unwrap_or(s);
    let hex = |t: &str, n: usize| t.len() == n && t.bytes().all(|b| b.is_ascii_hexdigit());
    // ptxas 13.5 takes `-0d3FF0000000000000` and `-1.5` but not `-0f3F800000`
    // ("Parsing error near '0f3F800000'"): a minus before a .f32 bit pattern is no
    // literal.
    if let Some(t) = body.strip_prefix("0f").or_else(|| body.strip_prefix("0F")) {
        return (hex(t, 8) && !negative).then_some(Literal::HexF32);
    }
    if let Some(t) = body.strip_prefix("0d").or_else(|| body.strip_prefix("0D")) {
        return hex(t, 16).then_some(Literal::HexF64);
    }
    let int = body.strip_suffix('U').unwrap_or(body);
    let int_ok = if let Some(t) = int.strip_prefix("0x").or_else(|| int.strip_prefix("0X")) {
        !t.is_empty() && t.bytes().all(|b| b.is_ascii_hexdigit())
    } else if let Some(t) = int.strip_prefix("0b").or_else(|| int.strip_prefix("0B")) {
        !t.is_empty() && t.bytes().all(|b| b == b'0' || b == b'1')
    } else {
        !int.is_empty() && int.bytes().all(|b| b.is_ascii_digit())
    };
    if int_ok {
        return Some(Literal::Int);
    }
    // A decimal float may start with its point (`.5`: ptxas 13.5 takes it).
    let starts = |b: &[u8]| b.first().is_some_and(u8::is_ascii_digit) || (b.first() == Some(&b'.') && b.get(1).is_some_and(u8::is_ascii_digit));
    let dec = starts(body.as_bytes())
        && body.parse::<f64>().is_ok()
        && body
            .bytes()
            .all(|b| b.is_ascii_digit() || b"+-.eE".contains(&b));
    dec.then_some(Literal::Decimal)
}

/// The qualifiers of a chain's `words` after its mnemonic's first `skip` words, as
/// the tests that compare two readers list them: the mnemonic's infix first where
/// the chain writes it inside the opcode (`bar.cta.red.popc`: `.cta`, `.popc`).
/// `None` where a word is no qualifier.
#[cfg(test)]
pub(crate) fn chain_qualifiers(
    mnemonic: ptxvec_spec::Mnemonic,
    words: &[String],
    skip: usize,
) -> Option<Vec<ptxvec_spec::Qualifier>> {
    let opcode = mnemonic.opcode().split('.').count();
    let (infix, skip) = match mnemonic.opcode_in(words) {
        Some(n) if n > opcode => (mnemonic.infix(), n),
        _ => (None, skip),
    };
    let rest = words.get(skip..)?.iter().map(|w| format!(".{w}").parse().ok());
    infix.into_iter().map(Some).chain(rest).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_class_has_one_row() {
        for c in RegClass::ALL {
            assert_eq!(CLASSES.iter().filter(|r| r.class == c).count(), 1, "{c:?}");
            assert_eq!(c.row().class, c);
        }
    }

    #[test]
    fn the_fast_reader_of_prefixes_is_the_table() {
        for row in &CLASSES {
            assert_eq!(RegClass::of_letters(&row.prefix.as_bytes()[1..]), Some(row.class), "{}", row.prefix);
            assert_eq!(RegClass::of_name(&format!("{}12", row.prefix)), Some(row.class), "{}", row.prefix);
        }
        for letters in ["", "x", "rx", "fq", "pd", "qd", "hd"] {
            assert_eq!(RegClass::of_letters(letters.as_bytes()), None, "%{letters}");
        }
    }

    #[test]
    fn splits_guard_chain_and_operands() {
        let t = tokenize("  @!%p1 red.shared::cta.add.u32 [%rd1+4], %r1;").unwrap();
        assert_eq!(t.guard.as_deref(), Some("@!%p1"));
        assert_eq!(t.words, ["red", "shared::cta", "add", "u32"]);
        assert_eq!(
            t.operands,
            [
                Operand::Address(Atom::Reg(RegClass::B64, "%rd1".into()), "%rd1+4".into()),
                Operand::Scalar(Atom::Reg(RegClass::B32, "%r1".into())),
            ]
        );
    }

    #[test]
    fn a_label_goes_before_the_guard() {
        let t = tokenize("L_1: @%p1 red.shared::cta.add.u32 [%rd1], %r1;").unwrap();
        assert_eq!(t.label.as_deref(), Some("L_1"));
        assert_eq!(t.guard.as_deref(), Some("@%p1"));
        assert_eq!(t.words, ["red", "shared::cta", "add", "u32"]);
        assert_eq!(tokenize("red.shared::cta.add.u32 [%rd1], %r1;").unwrap().label, None);
        assert!(tokenize("L1:").is_err());
        assert!(tokenize("1L: red.add.u32 [%rd1], %r1;").is_err());
    }

    #[test]
    fn operand_shapes() {
        let t = tokenize("x.y {%h0, %h1}, d|p, !q, _, 0xffffffff, 0f3F800000, -1, 1.5, [gbl], Ry")
            .unwrap();
        let shapes: Vec<&str> = t.operands.iter().map(Operand::shape).collect();
        assert_eq!(
            shapes,
            [
                "a brace vector",
                "a `d|p` pair",
                "a negated predicate",
                "the sink `_`",
                "an immediate",
                "an immediate",
                "an immediate",
                "an immediate",
                "an address",
                "a register"
            ]
        );
        assert_eq!(
            t.operands[5],
            Operand::Scalar(Atom::Imm(Literal::HexF32, "0f3F800000".into()))
        );
        assert_eq!(
            t.operands[7],
            Operand::Scalar(Atom::Imm(Literal::Decimal, "1.5".into()))
        );
        assert_eq!(t.operands[9], Operand::Scalar(Atom::Symbol("Ry".into())));
    }

    #[test]
    fn integer_constant_expressions_are_one_immediate() {
        // ptxas 13.5 accepts the first five as a .u32 source; the rest are no
        // integer expression (`!0f3F800000`: "Parsing error"; `!1.5`: "Integer
        // constant expression expected").
        for (e, want) in [
            ("!1", true),
            ("~1", true),
            ("1+2", true),
            ("(1)", true),
            ("1|2", true),
            ("(1 << 4) - 1", true),
            ("1 ? 2 : 3", true),
            ("-(0x10 * 2) / 3 % 5", true),
            ("1 && !0 || 0", true),
            ("!0f3F800000", false),
            ("!1.5", false),
            ("1+", false),
            ("(1", false),
            ("1)", false),
            ("%r1+1", false),
            ("1", false),
            ("!%p1", false),
            ("1 2", false),
        ] {
            assert_eq!(int_expression(e), want, "{e}");
        }
        let deep = format!("{}1{}", "(".repeat(300), ")".repeat(300));
        assert!(!int_expression(&deep));
        let t = tokenize("red.add.u32 [%rd1], !1;").unwrap();
        assert_eq!(t.operands[1], Operand::Scalar(Atom::Imm(Literal::Int, "!1".into())));
    }

    /// The values ptxas 13.5 names for `cp.reduce.async.bulk`'s size written as a
    /// constant expression ("unexpected value '4294967295', expected to be multiple
    /// of 16", "value '-16' out of range"), at .version 8.6, .target sm_90.
    #[test]
    fn constant_expressions_have_the_values_ptxas_names() {
        for (e, want) in [
            ("16|0xffffffff", Some(4_294_967_295)),
            ("16+1", Some(17)),
            ("0-16", Some(-16)),
            ("17/1", Some(17)),
            ("~15", Some(-16)),
            ("!0", Some(1)),
            ("16*0x100000000+16", Some(68_719_476_752)),
            ("(0-1)>>60", Some(-1)),
            ("32-16", Some(16)),
            ("1<<4", Some(16)),
            ("(8*2)", Some(16)),
            ("2>1?16:17", Some(16)),
            ("1<<64", Some(1)),
            ("16<<65", Some(32)),
            ("33 % 17", Some(16)),
            ("(33)%(17)", Some(16)),
            // "Constant expression has division by zero": no value, and no
            // expression ptxas reads.
            ("1/0", None),
        ] {
            assert_eq!(int_expression_value(e), want, "{e}");
        }
        assert!(!int_expression("0/0+16") && !int_expression("1%0"));
        // `%17` is a name ("Parsing error near '%17'"): no remainder.
        assert!(!int_expression("32 %17") && !int_expression("1%0"));
        // A plain literal is no expression here.
        assert_eq!(int_expression_value("16"), None);
    }

    #[test]
    fn comments_are_whitespace_and_a_dot_may_follow_whitespace() {
        let t = tokenize("redux.sync /* a */ .add.u32 %r1, /* b */ %r2, 0xffffffff; // 4.").unwrap();
        assert_eq!(t.words, ["redux", "sync", "add", "u32"]);
        assert_eq!(t.operands.len(), 3);
        assert!(tokenize("redux.sync. add.u32 %r1, %r2, 1;").is_err());
        assert!(tokenize("redux.sync.add.u32 %r1, %r2, 1; /* open").is_err());
        assert_eq!(uncommented("a // b\nc").unwrap(), "a  \nc");
        assert_eq!(uncommented("a/**/b").unwrap(), "a b");
        assert!(matches!(uncommented("a/b").unwrap(), std::borrow::Cow::Owned(_)));
        assert!(matches!(uncommented("ab").unwrap(), std::borrow::Cow::Borrowed(_)));
    }

    #[test]
    fn the_plain_form_tokenizes_as_the_text() {
        for (text, want) in [
            ("redux.sync .add.u32 %r1, %r2, 1; // 4.", Some("redux.sync.add.u32 %r1, %r2, 1;  ")),
            ("@%p1 redux/* c */.sync.add.u32 %r1, [%rd1 /* x */ + 4], 1;", Some("@%p1 redux.sync.add.u32 %r1, [%rd1   + 4], 1;")),
            ("redux.sync.add.u32 %r1, %r2, 1;", None),
            ("redux.sync. add.u32 %r1, %r2, 1; // x", None),
            ("redux.sync.add.u32 %r1, %r2, 1; /* open", None),
            // Whitespace before a dot, in the chain or not: tab, a wide character
            // (not ASCII whitespace, so the chain is not taken for a spaced one).
            ("redux.sync\t.add.u32 %r1, %r2, 1;", Some("redux.sync.add.u32 %r1, %r2, 1;")),
            ("redux.sync.add.u32 %r1, %r2, .5;", None),
            ("redux.sync\u{2003}.add.u32 %r1, %r2, 1;", None),
            ("redux.sync .add.u32\u{2003}.u32 %r1, %r2, 1;", Some("redux.sync.add.u32.u32 %r1, %r2, 1;")),
        ] {
            let got = plain_form(text);
            assert_eq!(got.as_deref(), want, "{text}");
            if let Some(p) = got {
                assert_eq!(tokenize(&p).unwrap(), tokenize(text).unwrap(), "{text}");
            }
        }
    }

    #[test]
    fn register_prefixes_take_the_longest_match() {
        let cases = [
            ("%r1", Some(RegClass::B32)),
            ("%rd12", Some(RegClass::B64)),
            ("%f0", Some(RegClass::F32)),
            ("%fd3", Some(RegClass::F64)),
            ("%h7", Some(RegClass::B16)),
            ("%p2", Some(RegClass::Pred)),
            ("%r", None),
            ("%rdx", None),
            ("%bd0", None),
            ("r1", None),
        ];
        for (name, want) in cases {
            assert_eq!(RegClass::of_name(name), want, "{name}");
        }
        // The match names each class by its own prefix, and nothing else.
        for c in RegClass::ALL {
            assert_eq!(RegClass::of_letters(&c.prefix().as_bytes()[1..]), Some(c), "{c:?}");
        }
        assert_eq!(RegClass::of_letters(b"b"), None);
        assert_eq!(RegClass::of_letters(b""), None);
        // Every name of up to four characters over the prefixes' letters, digits
        // and a few others: the class whose prefix is followed by digits only.
        let by_prefix = |name: &str| {
            RegClass::ALL.iter().copied().find(|c| {
                name.strip_prefix(c.prefix())
                    .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
            })
        };
        let alphabet = ["%", "r", "d", "f", "h", "p", "q", "b", "x", "0", "7", "_", "é"];
        let (mut names, mut level) = (vec![String::new()], vec![String::new()]);
        for _ in 0..4 {
            level = level
                .iter()
                .flat_map(|n| alphabet.iter().map(move |a| format!("{n}{a}")))
                .collect();
            names.extend(level.iter().cloned());
        }
        let mut registers = 0;
        for name in &names {
            assert_eq!(RegClass::of_name(name), by_prefix(name), "{name:?}");
            registers += usize::from(by_prefix(name).is_some());
        }
        assert!(names.len() > 20_000 && registers > 30, "{} names, {registers} registers", names.len());
    }

    #[test]
    fn rejects_what_does_not_tokenize() {
        for bad in [
            "red.global..add.u32 [a], b;",
            "red.global.add.u32 [a, b;",
            "red.global.add.u32 [a]], b;",
            "red.global.add.u32 [a],, b;",
            "red.global.add.u32 [a], b; red",
            "red.global.add.u32 [a], #b;",
            "red.global.add.u32 [%rd1-4], %r1;",
            "red.global.add.u32 [%rd1+%rd2], %r1;",
            "red.global.add.u32 [_], %r1;",
            "@ red.global.add.u32 [a], b;",
        ] {
            assert!(tokenize(bad).is_err(), "{bad}");
        }
    }

    /// Which error a text's operands give, as the message and character offset.
    fn error_of(text: &str) -> (String, usize) {
        let e = tokenize(text).unwrap_err();
        (e.message, e.offset)
    }

    #[test]
    fn the_operand_lists_shape_is_judged_before_its_pieces() {
        // A piece that is no operand, then an unclosed bracket: the bracket is named.
        assert_eq!(error_of("x %r1, #b, [a"), ("unclosed `[`".to_owned(), 13));
        assert_eq!(error_of("x %r1, #b, {a]"), ("unbalanced `]`".to_owned(), 13));
        // An empty piece is named where the split meets it, before a later bracket.
        assert_eq!(error_of("x ,[a"), ("expected an operand".to_owned(), 2));
        // With the shape sound, the first piece that is no operand is named.
        let (m, at) = error_of("x %r1, #b, $c$, [a]");
        assert!(m.starts_with("`#b` is not an operand"), "{m}");
        assert_eq!(at, 7);
    }

    #[test]
    fn brackets_nest_past_the_inline_levels() {
        for depth in [127, 128, 129, 300] {
            let open: String = (0..depth).map(|k| if k % 3 == 0 { '{' } else { '[' }).collect();
            let close: String = open.chars().rev().map(|c| if c == '{' { '}' } else { ']' }).collect();
            // Balanced: the split accepts it, and the one piece is no operand.
            let (m, _) = error_of(&format!("x {open}a{close}"));
            assert!(m.ends_with("`d|p` or `!p`)"), "{depth}: {m}");
            // The innermost bracket closed with the wrong kind.
            let wrong = if open.ends_with('{') { ']' } else { '}' };
            let (m, at) = error_of(&format!("x {open}a{wrong}"));
            assert_eq!((m, at), (format!("unbalanced `{wrong}`"), 2 + depth + 1), "{depth}");
            // Left open: the innermost open bracket is named.
            let last = open.chars().last().unwrap();
            assert_eq!(error_of(&format!("x {open}a")).0, format!("unclosed `{last}`"), "{depth}");
        }
    }
}
