//! The index's tables of readings, each kept with its chain's text inline: a
//! lookup that finds a chain compares it where the reading is, and reads one
//! allocation, not the key's and then the reading's (a cache miss each, for every
//! batch line, in a table of tens of thousands of chains).

use std::borrow::Borrow;
use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// Chains of at most this many bytes are kept inline (nearly all: the explorer's
/// run to about 60); longer ones in an allocation of their own.
const INLINE: usize = 62;

/// A chain's text as the table keeps it.
enum Text {
    Inline { len: u8, bytes: [u8; INLINE] },
    Long(Box<[u8]>),
}

/// A value kept with the text of its chain.
pub struct Kept<T> {
    text: Text,
    /// What is kept.
    pub value: T,
}

impl<T> Kept<T> {
    /// `value`, kept under `chain`.
    pub fn new(chain: &str, value: T) -> Kept<T> {
        let b = chain.as_bytes();
        let text = match u8::try_from(b.len()) {
            Ok(len) if b.len() <= INLINE => {
                let mut bytes = [0; INLINE];
                bytes[..b.len()].copy_from_slice(b);
                Text::Inline { len, bytes }
            }
            _ => Text::Long(b.into()),
        };
        Kept { text, value }
    }

    /// The chain's bytes.
    pub fn chain(&self) -> &[u8] {
        match &self.text {
            Text::Inline { len, bytes } => &bytes[..usize::from(*len)],
            Text::Long(b) => b,
        }
    }
}

/// A kept value in a [`Table`], found by its chain's bytes (hashed and compared
/// as the bytes are, so that `Table::get(chain.as_bytes())` finds it).
pub struct Entry<T>(pub Arc<Kept<T>>);

impl<T> Borrow<[u8]> for Entry<T> {
    fn borrow(&self) -> &[u8] {
        self.0.chain()
    }
}

impl<T> Hash for Entry<T> {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.0.chain().hash(h);
    }
}

impl<T> PartialEq for Entry<T> {
    fn eq(&self, other: &Entry<T>) -> bool {
        self.0.chain() == other.0.chain()
    }
}

impl<T> Eq for Entry<T> {}

/// Kept values by their chains: a fast hasher, randomly seeded (no input can
/// choose its collisions); nothing iterates it into an answer unsorted.
pub type Table<T> = HashSet<Entry<T>, foldhash::fast::RandomState>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chains_are_found_by_their_bytes_inline_or_not() {
        let chains: Vec<String> = [0, 1, INLINE - 1, INLINE, INLINE + 1, 255, 300]
            .iter()
            .map(|&n| "r".repeat(n))
            .chain(["red.global.add.u32".to_owned(), "red.global.add.u32\0".to_owned()])
            .collect();
        let mut table: Table<usize> = Table::default();
        for (i, c) in chains.iter().enumerate() {
            assert!(table.insert(Entry(Arc::new(Kept::new(c, i)))), "{c:?}");
        }
        for (i, c) in chains.iter().enumerate() {
            let e = table.get(c.as_bytes()).unwrap_or_else(|| panic!("{c:?}"));
            assert_eq!((e.0.chain(), e.0.value), (c.as_bytes(), i));
        }
        assert!(!table.contains(b"red.global.add.u3".as_slice()));
        assert!(!table.contains("r".repeat(INLINE + 2).as_bytes()));
    }
}
