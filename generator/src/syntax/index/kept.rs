//! The index's tables of readings, each kept with its chain's text inline and its
//! hash: a lookup that finds a chain compares it where the reading is, reading one
//! allocation, not the key's and then the reading's (a cache miss each, for every
//! batch line, in a table of tens of thousands of chains); and a line's chain is
//! hashed once, for every table it is looked up in and the one it is kept in,
//! where moving a chunk's readings into the index hashed each again while both
//! workers waited (8 to 10 ms of a 0.3 s run).

use std::sync::Arc;

use hashbrown::HashTable;

/// Chains of at most this many bytes are kept inline (nearly all: the explorer's
/// run to about 60); longer ones in an allocation of their own.
const INLINE: usize = 62;

/// A chain's text as the table keeps it.
enum Text {
    Inline { len: u8, bytes: [u8; INLINE] },
    Long(Box<[u8]>),
}

/// A value kept with the text of its chain and the chain's hash.
pub struct Kept<T> {
    hash: u64,
    text: Text,
    /// What is kept.
    pub value: T,
}

impl<T> Kept<T> {
    /// `value`, kept under `chain`, whose hash (by the tables' hasher) is `hash`.
    pub fn new(chain: &str, hash: u64, value: T) -> Kept<T> {
        let b = chain.as_bytes();
        let text = match u8::try_from(b.len()) {
            Ok(len) if b.len() <= INLINE => {
                let mut bytes = [0; INLINE];
                bytes[..b.len()].copy_from_slice(b);
                Text::Inline { len, bytes }
            }
            _ => Text::Long(b.into()),
        };
        Kept { hash, text, value }
    }

    /// The chain's bytes.
    pub fn chain(&self) -> &[u8] {
        match &self.text {
            Text::Inline { len, bytes } => &bytes[..usize::from(*len)],
            Text::Long(b) => b,
        }
    }

    /// Whether this is the value kept under `chain`, whose hash is `hash`.
    fn is(&self, hash: u64, chain: &[u8]) -> bool {
        self.hash == hash && self.chain() == chain
    }
}

/// Kept values by their chains, each hashed by the caller's hasher (a fast one,
/// randomly seeded, so that no input can choose its collisions); nothing iterates
/// a table into an answer unsorted.
pub struct Table<T>(HashTable<Arc<Kept<T>>>);

impl<T> Default for Table<T> {
    fn default() -> Table<T> {
        Table(HashTable::new())
    }
}

impl<T> Table<T> {
    /// The value kept under `chain`, whose hash is `hash`.
    pub fn get(&self, hash: u64, chain: &[u8]) -> Option<&Arc<Kept<T>>> {
        self.0.find(hash, |k| k.is(hash, chain))
    }

    /// Keeps `kept`, whose chain the table does not hold.
    pub fn insert(&mut self, kept: Arc<Kept<T>>) {
        self.0.insert_unique(kept.hash, kept, |k| k.hash);
    }

    /// How many values the table keeps.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the table keeps none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How many values it keeps without growing.
    pub fn capacity(&self) -> usize {
        self.0.capacity()
    }

    /// Room for `more` values besides those kept.
    pub fn reserve(&mut self, more: usize) {
        self.0.reserve(more, |k| k.hash);
    }

    /// Drops every value, keeping the room.
    pub fn clear(&mut self) {
        self.0.clear();
    }

    /// Takes every value out, in no order, keeping the room.
    pub fn drain(&mut self) -> impl Iterator<Item = Arc<Kept<T>>> + '_ {
        self.0.drain()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    #[test]
    fn chains_are_found_by_their_bytes_inline_or_not() {
        let hasher = foldhash::fast::RandomState::default();
        let hash = |c: &str| hasher.hash_one(c.as_bytes());
        let chains: Vec<String> = [0, 1, INLINE - 1, INLINE, INLINE + 1, 255, 300]
            .iter()
            .map(|&n| "r".repeat(n))
            .chain(["red.global.add.u32".to_owned(), "red.global.add.u32\0".to_owned()])
            .collect();
        let mut table: Table<usize> = Table::default();
        for (i, c) in chains.iter().enumerate() {
            assert!(table.get(hash(c), c.as_bytes()).is_none(), "{c:?}");
            table.insert(Arc::new(Kept::new(c, hash(c), i)));
        }
        assert_eq!(table.len(), chains.len());
        for (i, c) in chains.iter().enumerate() {
            let k = table.get(hash(c), c.as_bytes()).unwrap_or_else(|| panic!("{c:?}"));
            assert_eq!((k.chain(), k.value), (c.as_bytes(), i));
        }
        for missing in ["red.global.add.u3".to_owned(), "r".repeat(INLINE + 2)] {
            assert!(table.get(hash(&missing), missing.as_bytes()).is_none());
        }
        // A chain is compared, not only its hash: one kept under another's hash
        // is not found as that other.
        let (a, b) = ("red.add.u32", "red.add.s32");
        let mut one: Table<()> = Table::default();
        one.insert(Arc::new(Kept::new(a, hash(b), ())));
        assert!(one.get(hash(b), b.as_bytes()).is_none());
        assert!(one.get(hash(b), a.as_bytes()).is_some());
    }
}
