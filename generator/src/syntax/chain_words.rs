//! A chain's words summed up for the ledger's departures: which qualifiers they
//! spell, which twice, and the first word. Its own module, below both the judge,
//! which makes it from the lookups it has made anyway, and the departures, which
//! read it.

use ptxvec_spec::qualifier::QualMask;
use ptxvec_spec::Qualifier;

/// What the ledger's departures ask of a chain's words (`red`, `add`, `add`,
/// `u32`): the qualifiers they spell, those spelled twice or more, and the first
/// word. Made once per chain: by `judge::head_of`, from the lookups it makes of
/// the words anyway, or by [`ChainWords::of`].
#[derive(Debug, Clone, Copy, Default)]
pub struct ChainWords<'w> {
    /// Each qualifier some word spells.
    pub spelled: QualMask,
    /// Each qualifier two or more words spell.
    pub repeated: QualMask,
    /// The first word (`""` for none).
    pub first: &'w str,
}

impl<'w> ChainWords<'w> {
    /// The summary of `words`, each looked up as a qualifier's word.
    pub fn of<S: AsRef<str>>(words: &'w [S]) -> ChainWords<'w> {
        let mut w = ChainWords {
            first: words.first().map_or("", AsRef::as_ref),
            ..ChainWords::default()
        };
        for q in words.iter().filter_map(|x| Qualifier::from_word(x.as_ref())) {
            w.add(q);
        }
        w
    }

    /// Counts one more word that spells `q`.
    pub fn add(&mut self, q: Qualifier) {
        if self.spelled.has(q) {
            self.repeated = self.repeated.with(q);
        }
        self.spelled = self.spelled.with(q);
    }
}
