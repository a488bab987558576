//! Short words as integers, for the lookups the batch judge makes on every line
//! (a request's `ptx` and `target`, each word of a chain met for the first time):
//! one integer hashed and compared in a few instructions, where a string is
//! hashed byte by byte and compared by a call.

use std::collections::HashMap;

/// Words by [`key`]: a fast hasher, randomly seeded, as the index's own tables.
pub type ByWord<V> = HashMap<u128, V, foldhash::fast::RandomState>;

/// A word of at most 15 bytes as one integer: its bytes, and its length in the
/// last byte, so that no two words share a key (`8.6` and `8.6\0` differ in
/// length). `None` for a longer word, which the caller looks up otherwise.
pub fn key(w: &str) -> Option<u128> {
    let len = u8::try_from(w.len()).ok().filter(|&n| n < 16)?;
    let mut bytes = [0u8; 16];
    bytes[..w.len()].copy_from_slice(w.as_bytes());
    bytes[15] = len;
    Some(u128::from_le_bytes(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_of_up_to_fifteen_bytes_have_keys_of_their_own() {
        let words = ["", "a", "a\0", "\0", "8.6", "8.6\0", "sm_90", "sm_90a", "123456789012345", "é"];
        let keys: Vec<u128> = words.iter().map(|w| key(w).unwrap()).collect();
        for (i, a) in keys.iter().enumerate() {
            for (j, b) in keys.iter().enumerate() {
                assert_eq!(a == b, i == j, "{:?} {:?}", words[i], words[j]);
            }
        }
        assert_eq!(key("1234567890123456"), None);
        assert_eq!(key(&"x".repeat(300)), None);
    }
}
