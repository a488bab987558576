//! Placing written qualifiers onto a syntax line's positions: the reading that
//! `check-syntax` judges, and the distance to the nearest line when none reads
//! exactly.

use std::collections::BTreeSet;

use ptxvec_spec::model::{Form, SyntaxGroup};
use ptxvec_spec::template::SlotToken;
use ptxvec_spec::limits::MAX_SLOTS;
use ptxvec_spec::{QualKind, Qualifier};

/// How a list of qualifiers maps onto one form's positions.
pub struct Fit {
    /// Per position, the index of the written qualifier placed there.
    pub placed: Vec<Option<usize>>,
    /// Written qualifiers no position takes.
    pub unplaced: Vec<usize>,
}

impl Fit {
    /// The required positions nothing is placed on.
    pub fn missing<'f>(&self, form: &'f Form) -> Vec<&'f SlotToken> {
        form.syntax
            .slots
            .iter()
            .zip(&self.placed)
            .filter(|(slot, p)| !slot.optional && p.is_none())
            .map(|(slot, _)| &slot.token)
            .collect()
    }

    /// Defects of the placement: qualifiers left over plus positions left empty.
    pub fn cost(&self, form: &Form) -> usize {
        // `missing`'s count, without collecting it: the batch judge asks it of every
        // line of every chain it reads.
        let missing = form
            .syntax
            .slots
            .iter()
            .zip(&self.placed)
            .filter(|(slot, p)| !slot.optional && p.is_none())
            .count();
        self.unplaced.len() + missing
    }
}

/// The placement of written qualifiers onto positions that places the most, and
/// among those keeps the written order where it can.
pub fn fit(
    group: &SyntaxGroup,
    form: &Form,
    quals: &[Qualifier],
    widen: &[BTreeSet<Qualifier>],
) -> Fit {
    let slots = &form.syntax.slots;
    fit_admitting(quals, slots.len(), |k, q| {
        let takes = |q: Qualifier| group.takes(&slots[k], q);
        takes(q) || widen.iter().any(|col| col.contains(&q) && col.iter().any(|&c| takes(c)))
    })
}

/// Written qualifiers a placement search keeps on the stack. A chain reaches the
/// search only once its qualifiers are distinct (a repeat is refused before), and
/// the longest syntax line has 11 positions (`limits::MAX_SLOTS`); a longer list
/// (an explorer's walk may add qualifiers) takes the heap. Not 64 (every
/// qualifier once): the buffers are zeroed for every placement, a few hundred
/// thousand on the explorer's stream, and 772 bytes each were a tenth of the
/// placement's work.
const STACK_QUALS: usize = 16;

/// No written qualifier on a position (a [`Search`]'s placements hold indices).
const EMPTY: u32 = u32::MAX;

/// [`fit`] onto `positions` positions, of which position `k` takes qualifier `q`
/// when `admits(k, q)`.
pub fn fit_admitting(quals: &[Qualifier], positions: usize, admits: impl Fn(usize, Qualifier) -> bool) -> Fit {
    // The loader refuses a line of more positions than a word holds
    // (`limits::MAX_SLOTS`); past it a position would take nothing.
    let held = positions.min(MAX_SLOTS);
    fit_taking(quals, positions, |q| (0..held).filter(|&k| admits(k, q)).fold(0, |m, k| m | 1 << k))
}

/// [`fit`] onto `positions` positions, of which those that take qualifier `q`
/// are the bits of `taking(q)` (the lowest bit the first position; none at
/// [`MAX_SLOTS`] or past it): the batch judge's readings look them up in masks
/// made once per syntax line.
pub fn fit_taking(quals: &[Qualifier], positions: usize, taking: impl Fn(Qualifier) -> u64) -> Fit {
    // The search's buffers live on the stack: the batch judge places every chain
    // it reads on every syntax line of its instruction (a few hundred thousand
    // placements on the explorer's stream), and four allocations each were a
    // tenth of a reading.
    let n = quals.len();
    if n <= STACK_QUALS {
        let (mut takes, mut placeable) = ([0u64; STACK_QUALS], [0u32; STACK_QUALS + 1]);
        search(quals, positions, &taking, &mut takes[..n], &mut placeable[..=n])
    } else {
        search(quals, positions, &taking, &mut vec![0; n], &mut vec![0; n + 1])
    }
}

/// [`fit_taking`] with its buffers: `takes` and `placeable_from` hold one
/// entry per written qualifier (and one more).
fn search(
    quals: &[Qualifier],
    positions: usize,
    taking: &impl Fn(Qualifier) -> u64,
    takes: &mut [u64],
    placeable_from: &mut [u32],
) -> Fit {
    // Per written qualifier, the positions that take it, a bit each: asked once per
    // qualifier rather than at every step of the search.
    let held = positions.min(MAX_SLOTS);
    let within = if held == MAX_SLOTS { u64::MAX } else { (1 << held) - 1 };
    for (t, &q) in takes.iter_mut().zip(quals) {
        *t = taking(q) & within;
    }
    // How many of the qualifiers from the i-th on some position takes: no branch
    // places more of them, whatever it does with the ones before.
    placeable_from[quals.len()] = 0;
    for i in (0..quals.len()).rev() {
        placeable_from[i] = placeable_from[i + 1] + u32::from(takes[i] != 0);
    }
    if let Some(fit) = forced(quals, positions, takes) {
        return fit;
    }
    let mut search = Search {
        quals,
        takes,
        placeable_from,
        placed: [EMPTY; MAX_SLOTS],
        best: None,
        best_placed: [EMPTY; MAX_SLOTS],
        within,
    };
    search.from(0, 0, within, true);
    let best = &search.best_placed[..held];
    let placed: Vec<Option<usize>> = (0..positions)
        .map(|k| best.get(k).filter(|&&i| i != EMPTY).map(|&i| i as usize))
        .collect();
    let mut unplaced = Vec::new();
    for i in 0..quals.len() {
        if !best.contains(&(i as u32)) {
            unplaced.push(i);
        }
    }
    Fit { placed, unplaced }
}

/// The search's answer where each written qualifier has at most one position that
/// takes it (nearly every line and chain), found without the search, or `None`
/// where the search must decide.
///
/// The search's first placement then puts each qualifier on its position unless
/// one written earlier holds it: it fills every position some qualifier wants,
/// so none places more. It is the answer when it is in written order (no later
/// placement replaces a best in order), or when no two qualifiers want one
/// position (it is the only placement of as many), provided the state spaces
/// stand in their order.
fn forced(quals: &[Qualifier], positions: usize, takes: &[u64]) -> Option<Fit> {
    if takes.iter().any(|t| t.count_ones() > 1) {
        return None;
    }
    let mut placed = vec![None; positions];
    let mut unplaced = Vec::new();
    let mut contested = false;
    for (i, &t) in takes.iter().enumerate() {
        let k = t.trailing_zeros() as usize;
        match t {
            0 => unplaced.push(i),
            _ if placed[k].is_some() => {
                contested = true;
                unplaced.push(i);
            }
            _ => placed[k] = Some(i),
        }
    }
    let answer = (!contested || in_order(&placed)) && spaces_in_order(quals, placed.iter().flatten().copied());
    answer.then_some(Fit { placed, unplaced })
}

/// A depth-first search over placements: each written qualifier goes to a free
/// position that takes it (the lowest first), or stays unplaced.
struct Search<'a> {
    quals: &'a [Qualifier],
    /// Per written qualifier, the positions that take it, a bit each.
    takes: &'a [u64],
    /// Per `i`, how many of the qualifiers from the i-th on some position takes.
    placeable_from: &'a [u32],
    /// Per position, the index of the written qualifier on it, or [`EMPTY`].
    placed: [u32; MAX_SLOTS],
    /// The best placement so far: how many it places and whether in written
    /// order; the placement itself is `best_placed` (none placed until a first is
    /// found, which every search does).
    best: Option<(usize, bool)>,
    best_placed: [u32; MAX_SLOTS],
    /// The positions there are, a bit each.
    within: u64,
}

impl Search<'_> {
    /// Places the qualifiers from the `i`-th on, `count` placed before, onto the
    /// positions of `free`.
    fn from(&mut self, i: usize, count: usize, free: u64, ordered: bool) {
        // A branch that cannot place more than the best so far, nor as many in
        // written order where the best is not, cannot replace it: skipped. It
        // places at most the qualifiers left that some position takes, and at most
        // as many as positions are left free (most explorer chains hold a
        // qualifier that no position of the line takes); once out of order, it
        // stays so.
        if let Some((c, o)) = self.best {
            let most = count + (self.placeable_from[i] as usize).min(free.count_ones() as usize);
            if most < c || (most == c && (o || !ordered)) {
                return;
            }
        }
        if i == self.quals.len() {
            // Two state spaces (cp.reduce.async.bulk's `.dst` and `.src`) are told
            // apart by their order alone: the first written fills the earlier
            // position, as ptxas reads them (ptxas 13.5 refuses
            // `.shared::cta.shared::cluster`: "State space incorrect"). Every other
            // pair may stand in either order: ptxas 13.5 accepts every permutation
            // of every legal chain tried (`redux.sync.min.NaN.abs.f32`), the two
            // spaces' order aside.
            let held = self.within.count_ones() as usize;
            let placed = self.placed[..held].iter().filter(|&&p| p != EMPTY).map(|&p| p as usize);
            if !spaces_in_order(self.quals, placed) {
                return;
            }
            let better = match self.best {
                None => true,
                Some((c, o)) => count > c || (count == c && ordered && !o),
            };
            if better {
                self.best = Some((count, ordered));
                self.best_placed = self.placed;
            }
            return;
        }
        let mut options = self.takes[i] & free;
        while options != 0 {
            let k = options.trailing_zeros() as usize;
            options &= options - 1;
            // The qualifiers are placed in written order, so the placement stays
            // in order while each goes above every position taken before.
            let taken_above = !free & !((2u64 << k).wrapping_sub(1)) & self.within;
            self.placed[k] = i as u32;
            self.from(i + 1, count + 1, free & !(1 << k), ordered && taken_above == 0);
            self.placed[k] = EMPTY;
        }
        self.from(i + 1, count, free, ordered);
    }
}

/// Whether the positions hold the written qualifiers in written order.
pub fn in_order(placed: &[Option<usize>]) -> bool {
    ascending(placed.iter().flatten().copied())
}

/// Whether the indices rise, each above the one before.
fn ascending(mut seq: impl Iterator<Item = usize>) -> bool {
    let mut prev = seq.next();
    seq.all(|x| {
        let ok = prev.is_none_or(|p| p < x);
        prev = Some(x);
        ok
    })
}

/// Whether the state spaces lie on the positions (their written qualifiers'
/// indices, position by position) in the order they are written.
fn spaces_in_order(quals: &[Qualifier], placed: impl Iterator<Item = usize>) -> bool {
    // Asked at every end of the search: without collecting the spaces.
    ascending(placed.filter(|&i| quals[i].kind() == QualKind::Space))
}

#[cfg(test)]
mod tests {
    use super::*;

/// Whether a position takes a qualifier, as `fit` first asked it (the reference
        /// search asks it at every step). `widen` holds the columns of a
    /// combinations table: a position that takes any qualifier of a column takes every
    /// qualifier of it, so that a combination the table leaves out (`.v8` with `.f32`)
    /// still reads as the form and is refused by the table, not by the syntax line.
    fn admits(
        group: &SyntaxGroup,
        token: &SlotToken,
        q: Qualifier,
        widen: &[BTreeSet<Qualifier>],
    ) -> bool {
        let takes = |q: Qualifier| match token {
            SlotToken::Fixed(f) => *f == q,
            SlotToken::Placeholder(p) => group.sets.get(p).is_some_and(|s| s.values.contains(&q)),
        };
        takes(q)
            || widen
                .iter()
                .any(|col| col.contains(&q) && col.iter().any(|&c| takes(c)))
    }

    /// The search as first written: `admits` asked at every step, every branch
    /// followed to its end. `fit` must place as it does.
    fn reference(
        group: &SyntaxGroup,
        form: &Form,
        quals: &[Qualifier],
        widen: &[BTreeSet<Qualifier>],
    ) -> Vec<Option<usize>> {
        /// The placement being built, and the best one so far: how many it places,
        /// whether in order, and where.
        type Search = (Vec<Option<usize>>, Option<(usize, bool, Vec<Option<usize>>)>);
        fn from(
            s: &mut Search,
            args: (&SyntaxGroup, &Form, &[Qualifier], &[BTreeSet<Qualifier>]),
            i: usize,
            count: usize,
        ) {
            let (group, form, quals, widen) = args;
            if i == quals.len() {
                let seq: Vec<usize> = s.0.iter().flatten().copied().collect();
                let space = |x: usize| quals[x].kind() == ptxvec_spec::QualKind::Space;
                let kinds_ok = seq.iter().enumerate().all(|(a, &x)| {
                    seq[a + 1..]
                        .iter()
                        .all(|&y| !space(x) || !space(y) || x < y)
                });
                if !kinds_ok {
                    return;
                }
                let ordered = seq.windows(2).all(|w| w[0] < w[1]);
                let better = match &s.1 {
                    None => true,
                    Some((c, o, _)) => count > *c || (count == *c && ordered && !*o),
                };
                if better {
                    s.1 = Some((count, ordered, s.0.clone()));
                }
                return;
            }
            for k in 0..form.syntax.slots.len() {
                if s.0[k].is_none() && admits(group, &form.syntax.slots[k].token, quals[i], widen) {
                    s.0[k] = Some(i);
                    from(s, args, i + 1, count + 1);
                    s.0[k] = None;
                }
            }
            from(s, args, i + 1, count);
        }
        let n = form.syntax.slots.len();
        let mut s = (vec![None; n], None);
        from(&mut s, (group, form, quals, widen), 0, 0);
        s.1.map_or_else(|| vec![None; n], |b| b.2)
    }

    #[test]
    fn fit_places_as_the_exhaustive_search() {
        let spec = crate::repo_spec();
        let var = "PTXVEC_SHARD";
        let shard = ptxvec_oracle::shard::Shard::from_var(var, std::env::var(var).ok().as_deref(), 16)
            .unwrap_or_else(|e| panic!("{e}"));
        let mut checked = 0;
        for f in &spec.instructions {
            let instruction = &f.instruction;
            let skip = instruction.mnemonic.spelling().split('.').count();
            // The qualifier lists of every case of the instruction (legal, and each
            // single-defect mutation), read against every syntax line, plain and
            // with its table columns widened as `across` reads them.
            let mut lists: Vec<Vec<Qualifier>> = crate::syntax::vectors::cases(&spec, instruction)
                .iter()
                .filter_map(|c| crate::syntax::text::tokenize(&c.text).ok())
                .filter_map(|t| crate::syntax::text::chain_qualifiers(instruction.mnemonic, &t.words, skip))
                .collect();
            // And seeded random lists over the instruction's vocabulary, repeats and
            // any order included: ties between placements arise there.
            let vocabulary: Vec<Qualifier> = instruction
                .forms()
                .flat_map(|(g, f)| f.possible_qualifiers(g))
                .collect();
            let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(16);
            // An instruction of no qualifier (elect.sync) has no vocabulary to draw.
            for _ in 0..if vocabulary.is_empty() { 0 } else { 1500 } {
                let len = rand::Rng::random_range(&mut rng, 1..=6);
                lists.push(
                    (0..len)
                        .map(|_| vocabulary[rand::Rng::random_range(&mut rng, 0..vocabulary.len())])
                        .collect(),
                );
            }
            lists.sort();
            lists.dedup();
            let widen: Vec<BTreeSet<Qualifier>> = instruction
                .tables
                .iter()
                .flat_map(|t| t.rows.iter().flat_map(|r| &r.entries))
                .flat_map(|e| e.iter().map(|g| g.0.iter().copied().collect()))
                .collect();
            // CI's rotation (`.ci/run`, docs/testing.md): the day's share of the
            // lists under PTXVEC_SHARD, every list over its days; all when unset.
            for quals in lists.iter().enumerate().filter(|(i, _)| shard.contains(*i as u64)).map(|(_, q)| q) {
                for (g, form) in instruction.forms() {
                    for w in [&[][..], &widen[..]] {
                        let got = fit(g, form, quals, w).placed;
                        assert_eq!(got, reference(g, form, quals, w), "{quals:?} on {}", form.id);
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked * shard.n > 1000, "{checked} in share {shard}");
    }
}
