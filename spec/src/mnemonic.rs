//! The mnemonics: what a syntax line starts with, one per instruction file.
//!
//! A mnemonic is data: an instruction file names it (`mnemonic:`), with the words
//! ptxas reads as its opcode (`opcode:`, where that is not the spelling) and a
//! qualifier ptxas reads inside the opcode (`infix:`), and the loader interns it
//! ([`Mnemonic::declare`]). A [`Mnemonic`] is a small number into that table, in
//! load order (files in name order). No code names an instruction to have it read,
//! judged or generated.
//!
//! A row is its spelling with its opcode and infix: two specs loaded in one process
//! (a test's fixture beside the repository's) that read one spelling differently
//! get a row each, and each spec holds its own ([`crate::Spec`]'s instructions).

use std::collections::HashMap;
use std::fmt;
use std::sync::{OnceLock, RwLock};

use crate::qualifier::Qualifier;

/// How many mnemonics the table holds at most (the PTX ISA 9.x has about 250).
pub const CAPACITY: usize = 4096;

/// One row of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MnemonicInfo {
    /// The PTX spelling: `redux.sync`, `bar.red`, `cp.reduce.async.bulk`.
    pub spelling: &'static str,
    /// The words ptxas reads as the opcode: the spelling up to the words that may
    /// stand anywhere among the qualifiers (`redux` for `redux.sync`).
    pub opcode: &'static str,
    /// A qualifier ptxas reads inside the opcode, after its first word, where the
    /// document writes it in braces: `bar{.cta}.red` is `bar.red` or `bar.cta.red`.
    pub infix: Option<Qualifier>,
}

/// A mnemonic: its number in the table.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Mnemonic(u16);

thread_local! {
    /// The mnemonic of the instruction file being read, if any: its syntax lines
    /// start with it ([`reading_for`]).
    static OWN: std::cell::Cell<Option<Mnemonic>> = const { std::cell::Cell::new(None) };
}

/// Runs `read` with the syntax lines it parses held to the mnemonic `own` (the
/// instruction file's): a line that starts otherwise is an error that names it.
/// `None`: a line may start with any declared mnemonic.
pub(crate) fn reading_for<T>(own: Option<Mnemonic>, read: impl FnOnce() -> T) -> T {
    let before = OWN.with(|o| o.replace(own));
    let out = read();
    OWN.with(|o| o.set(before));
    out
}

/// The mnemonic of the instruction file being read, if any.
pub(crate) fn own() -> Option<Mnemonic> {
    OWN.with(std::cell::Cell::get)
}

static ROWS: [OnceLock<MnemonicInfo>; CAPACITY] = [const { OnceLock::new() }; CAPACITY];

/// The empty row a number no declaration made would read (none is handed out).
const NONE: MnemonicInfo = MnemonicInfo { spelling: "", opcode: "", infix: None };

/// Spelling → its rows, the latest last; and how many rows there are.
type Table = (HashMap<&'static str, Vec<Mnemonic>>, usize);

fn by_spelling() -> &'static RwLock<Table> {
    static MAP: OnceLock<RwLock<Table>> = OnceLock::new();
    MAP.get_or_init(|| RwLock::new((HashMap::new(), 0)))
}

/// A mnemonic row that is malformed, conflicts with the table, or is one too many.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MnemonicError {
    /// Not spelled as a mnemonic.
    #[error("`{0}` is not a mnemonic (expected lower-case words of letters and digits joined by `.`)")]
    Spelling(String),
    /// The opcode is not the spelling or a leading part of it.
    #[error("opcode `{opcode}` is not `{spelling}` or its first words")]
    Opcode {
        /// The mnemonic.
        spelling: String,
        /// The opcode given.
        opcode: String,
    },
    /// The table is full.
    #[error("the table holds at most {CAPACITY} mnemonics")]
    Full,
}

fn is_word_list(s: &str) -> bool {
    s.len() <= 64
        && s.split('.').all(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'))
        && s.starts_with(|c: char| c.is_ascii_lowercase())
}

impl Mnemonic {
    /// Interns a mnemonic with its opcode (`None`: the spelling) and infix: the
    /// row already so declared, else a new one.
    pub fn declare(spelling: &str, opcode: Option<&str>, infix: Option<Qualifier>) -> Result<Mnemonic, MnemonicError> {
        if !is_word_list(spelling) {
            return Err(MnemonicError::Spelling(spelling.to_owned()));
        }
        let opcode = opcode.unwrap_or(spelling);
        let leading = spelling == opcode || spelling.strip_prefix(opcode).is_some_and(|r| r.starts_with('.'));
        if !is_word_list(opcode) || !leading {
            return Err(MnemonicError::Opcode { spelling: spelling.to_owned(), opcode: opcode.to_owned() });
        }
        let same = |rows: &[Mnemonic]| rows.iter().copied().find(|m| (m.opcode(), m.infix()) == (opcode, infix));
        if let Some(m) = by_spelling().read().unwrap_or_else(std::sync::PoisonError::into_inner).0.get(spelling).and_then(|r| same(r)) {
            return Ok(m);
        }
        let mut w = by_spelling().write().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(m) = w.0.get(spelling).and_then(|r| same(r)) {
            return Ok(m);
        }
        let n = w.1;
        if n >= CAPACITY {
            return Err(MnemonicError::Full);
        }
        let spelling: &'static str = Box::leak(spelling.to_owned().into_boxed_str());
        let opcode = &spelling[..opcode.len()];
        // Only this writer, under the lock, sets row `n`: it is empty.
        let _ = ROWS[n].set(MnemonicInfo { spelling, opcode, infix });
        let m = Mnemonic(n as u16);
        w.0.entry(spelling).or_default().push(m);
        w.1 = n + 1;
        Ok(m)
    }

    /// The mnemonic spelled `spelling`, if declared: the latest row of that spelling.
    pub fn lookup(spelling: &str) -> Option<Mnemonic> {
        by_spelling().read().unwrap_or_else(std::sync::PoisonError::into_inner).0.get(spelling).and_then(|r| r.last().copied())
    }

    /// How many mnemonics are declared: a cache of anything made from them is
    /// stale when this has grown.
    pub fn count() -> usize {
        by_spelling().read().unwrap_or_else(std::sync::PoisonError::into_inner).1
    }

    /// Every declared mnemonic, in declaration order.
    pub fn all() -> Vec<Mnemonic> {
        let n = by_spelling().read().unwrap_or_else(std::sync::PoisonError::into_inner).1;
        (0..n as u16).map(Mnemonic).collect()
    }

    /// This mnemonic's row.
    pub fn info(self) -> &'static MnemonicInfo {
        ROWS[usize::from(self.0)].get().unwrap_or(&NONE)
    }

    /// The PTX spelling.
    pub fn spelling(self) -> &'static str {
        self.info().spelling
    }

    /// The words ptxas reads as the opcode ([`MnemonicInfo::opcode`]).
    pub fn opcode(self) -> &'static str {
        self.info().opcode
    }

    /// A qualifier ptxas reads inside the opcode ([`MnemonicInfo::infix`]). A
    /// spelling holds it as its first qualifier.
    pub fn infix(self) -> Option<Qualifier> {
        self.info().infix
    }

    /// How many of a chain's words (`bar`, `cta`, `red`, `popc`) its opcode takes
    /// as written, the infix included; `None` when the chain does not open with it.
    pub fn opcode_in<S: AsRef<str>>(self, words: &[S]) -> Option<usize> {
        let infix_written = self
            .infix()
            .is_some_and(|q| words.get(1).map(AsRef::as_ref) == Some(&q.spelling()[1..]));
        let mut at = 0;
        for (k, w) in self.opcode().split('.').enumerate() {
            if k == 1 && infix_written {
                at += 1;
            }
            if words.get(at).map(AsRef::as_ref) != Some(w) {
                return None;
            }
            at += 1;
        }
        Some(at)
    }

    /// The chain of the qualifiers spelled `quals` (`.cta`, `.popc`, in canonical
    /// order; a mutant's may be no qualifier) after the mnemonic: its infix, if the
    /// first of them, in its place (`bar.cta.red.popc.u32`).
    pub fn chain<S: AsRef<str>>(self, quals: &[S]) -> String {
        let mut s = String::with_capacity(32);
        let rest = match (self.infix(), quals.first()) {
            (Some(i), Some(q)) if q.as_ref() == i.spelling() => {
                let (first, after) = self.spelling().split_once('.').unwrap_or((self.spelling(), ""));
                s.push_str(first);
                s.push_str(i.spelling());
                s.push('.');
                s.push_str(after);
                &quals[1..]
            }
            _ => {
                s.push_str(self.spelling());
                quals
            }
        };
        for q in rest {
            s.push_str(q.as_ref());
        }
        s
    }

    /// The declared mnemonic that `text` starts with: the longest one that ends at
    /// a `.`, `{`, whitespace or the end (so `redux.sync.add` is not `red`).
    pub fn prefix_of(text: &str) -> Option<Mnemonic> {
        // Each `.`-boundary prefix of the first word, longest first: one probe each.
        let end = text.find(|c: char| c == '{' || c.is_whitespace()).unwrap_or(text.len());
        let word = &text[..end];
        let mut cut = word.len();
        loop {
            if let Some(m) = Mnemonic::lookup(&word[..cut]) {
                return Some(m);
            }
            cut = word[..cut].rfind('.')?;
        }
    }
}

impl fmt::Debug for Mnemonic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Mnemonic({})", self.spelling())
    }
}

impl fmt::Display for Mnemonic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.spelling())
    }
}

impl<'de> serde::Deserialize<'de> for Mnemonic {
    /// A declared mnemonic: the loader declares a file's own before it reads the
    /// file ([`crate::Spec::load`]), and this is that row.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        own()
            .filter(|m| m.spelling() == s)
            .or_else(|| Mnemonic::lookup(&s)).ok_or_else(|| serde::de::Error::custom(format_args!("unknown mnemonic `{s}` (expected lower-case words of letters and digits joined by `.`)")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<&str> {
        s.split('.').collect()
    }

    #[test]
    fn an_opcode_and_an_infix_are_read_from_the_row() {
        let bar = Mnemonic::declare("testonly.red", None, Some(Qualifier::Cta)).unwrap();
        assert_eq!(bar.opcode_in(&words("testonly.red.popc.u32")), Some(2));
        assert_eq!(bar.opcode_in(&words("testonly.cta.red.popc.u32")), Some(3));
        assert_eq!(bar.opcode_in(&words("testonly.popc.red.u32")), None);
        assert_eq!(bar.chain(&[Qualifier::Cta, Qualifier::Popc, Qualifier::U32]), "testonly.cta.red.popc.u32");
        assert_eq!(bar.chain(&[Qualifier::Popc, Qualifier::Cta]), "testonly.red.popc.cta");
        let sync = Mnemonic::declare("testonly2.sync", Some("testonly2"), None).unwrap();
        assert_eq!(sync.opcode_in(&words("testonly2.add.sync")), Some(1));
        assert_eq!(Mnemonic::prefix_of("testonly2.sync.add"), Some(sync));
        assert_eq!(Mnemonic::prefix_of("testonly2.add"), None);
        assert_eq!(Mnemonic::prefix_of("testonly.red{.x}"), Some(bar));
        assert_eq!(Mnemonic::declare("testonly.red", None, Some(Qualifier::Cta)), Ok(bar));
        // Another reading of the spelling is another row, and the latest is looked up.
        let plain = Mnemonic::declare("testonly.red", None, None).unwrap();
        assert_ne!(plain, bar);
        assert_eq!(Mnemonic::lookup("testonly.red"), Some(plain));
        assert_eq!(bar.infix(), Some(Qualifier::Cta));
        assert!(matches!(Mnemonic::declare("Bad", None, None), Err(MnemonicError::Spelling(_))));
        assert!(matches!(Mnemonic::declare("x.sync", Some("sync"), None), Err(MnemonicError::Opcode { .. })));
    }
}
