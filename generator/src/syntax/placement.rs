//! Placing written qualifiers onto a syntax line's positions: the reading that
//! `check-syntax` judges, and the distance to the nearest line when none reads
//! exactly.

use std::collections::BTreeSet;

use ptxvec_spec::model::{Form, SyntaxGroup};
use ptxvec_spec::template::SlotToken;
use ptxvec_spec::Qualifier;

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
        self.unplaced.len() + self.missing(form).len()
    }
}

/// Whether a position takes a qualifier. `widen` holds the columns of a
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

/// The placement of written qualifiers onto positions that places the most, and
/// among those keeps the written order where it can.
pub fn fit(
    group: &SyntaxGroup,
    form: &Form,
    quals: &[Qualifier],
    widen: &[BTreeSet<Qualifier>],
) -> Fit {
    let slots = &form.syntax.slots;
    let mut search = Search {
        quals,
        group,
        form,
        widen,
        placed: vec![None; slots.len()],
        best: None,
    };
    search.from(0, 0);
    let placed = search.best.map_or_else(|| vec![None; slots.len()], |b| b.2);
    let unplaced = (0..quals.len())
        .filter(|i| !placed.contains(&Some(*i)))
        .collect();
    Fit { placed, unplaced }
}

/// A depth-first search over placements: each written qualifier goes to a free
/// position that takes it, or stays unplaced.
struct Search<'a> {
    quals: &'a [Qualifier],
    group: &'a SyntaxGroup,
    form: &'a Form,
    widen: &'a [BTreeSet<Qualifier>],
    placed: Vec<Option<usize>>,
    /// (qualifiers placed, in written order, placement)
    best: Option<(usize, bool, Vec<Option<usize>>)>,
}

impl Search<'_> {
    fn from(&mut self, i: usize, count: usize) {
        if i == self.quals.len() {
            // Two qualifiers of one kind (cp.reduce.async.bulk's `.dst` and `.src`
            // spaces) are told apart by their order alone: the first written fills
            // the earlier position, as ptxas reads them (ptxas 13.5 refuses
            // `.shared::cta.shared::cluster`: "State space incorrect").
            if !same_kinds_in_order(self.quals, &self.placed) {
                return;
            }
            let ordered = in_order(&self.placed);
            let better = match &self.best {
                None => true,
                Some((c, o, _)) => count > *c || (count == *c && ordered && !*o),
            };
            if better {
                self.best = Some((count, ordered, self.placed.clone()));
            }
            return;
        }
        for k in 0..self.form.syntax.slots.len() {
            if self.placed[k].is_none()
                && admits(
                    self.group,
                    &self.form.syntax.slots[k].token,
                    self.quals[i],
                    self.widen,
                )
            {
                self.placed[k] = Some(i);
                self.from(i + 1, count + 1);
                self.placed[k] = None;
            }
        }
        self.from(i + 1, count);
    }
}

/// Whether the positions hold the written qualifiers in written order.
pub fn in_order(placed: &[Option<usize>]) -> bool {
    let seq: Vec<usize> = placed.iter().flatten().copied().collect();
    seq.windows(2).all(|w| w[0] < w[1])
}

/// Whether qualifiers of one kind lie on the positions in the order they are written.
fn same_kinds_in_order(quals: &[Qualifier], placed: &[Option<usize>]) -> bool {
    let seq: Vec<usize> = placed.iter().flatten().copied().collect();
    seq.iter().enumerate().all(|(a, &i)| {
        seq[a + 1..]
            .iter()
            .all(|&j| quals[i].kind() != quals[j].kind() || i < j)
    })
}
