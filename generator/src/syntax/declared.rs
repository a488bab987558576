//! A cache of what is made from the declared mnemonics or qualifiers, made again
//! when a spec declares more: the vocabulary is data, interned as specs load
//! (`ptxvec_spec::Qualifier::declare`), and only grows.

use std::sync::{Arc, RwLock};

/// The value made from the first `n` declarations, with that `n`.
pub struct Declared<T> {
    made: RwLock<Option<(usize, Arc<T>)>>,
}

impl<T> Declared<T> {
    /// Nothing made yet.
    pub const fn new() -> Declared<T> {
        Declared { made: RwLock::new(None) }
    }

    /// The value for `count` declarations: the cached one if it was made from as
    /// many, else `make()`'s, kept.
    pub fn get(&self, count: usize, make: impl FnOnce() -> T) -> Arc<T> {
        if let Some((n, v)) = &*self.made.read().unwrap_or_else(std::sync::PoisonError::into_inner) {
            if *n == count {
                return Arc::clone(v);
            }
        }
        let v = Arc::new(make());
        *self.made.write().unwrap_or_else(std::sync::PoisonError::into_inner) = Some((count, Arc::clone(&v)));
        v
    }
}

impl<T> Default for Declared<T> {
    fn default() -> Declared<T> {
        Declared::new()
    }
}
