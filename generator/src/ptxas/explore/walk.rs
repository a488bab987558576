//! Seeded random walks from legal spellings: the texts the explorer puts to ptxas
//! and to the judge. Each walk starts at a legal syntax case and takes one to three
//! steps, each a change a compiler, a hand or a fuzzer makes: the qualifiers
//! permuted, swapped, reversed, repeated, dropped or borrowed, `.sync` moved; an
//! operand's register class, immediate, brackets, braces or sink changed, an
//! operand added or dropped; comments, whitespace and guards.
//!
//! The stream is ChaCha8 from the seed, so `--seed S` gives the same texts on every
//! machine: a rerun finds its ptxas verdicts in the committed cache.

use rand::seq::{IndexedRandom, SliceRandom};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use ptxvec_spec::{Instruction, Mnemonic, Qualifier, Spec};

use crate::syntax::case::{Case, Verdict};
use crate::syntax::text;

/// One kind of step. The report groups disagreements by the steps a text took.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Step {
    /// Every qualifier word shuffled.
    Permute,
    /// Two qualifier positions swapped.
    Swap,
    /// The qualifier words reversed.
    Reverse,
    /// The mnemonic's `.sync` moved to another position.
    MoveSync,
    /// A qualifier written a second time.
    Duplicate,
    /// A qualifier dropped.
    Drop,
    /// A qualifier of the same instruction added or put in another's place.
    BorrowOwn,
    /// A qualifier of any instruction added or put in another's place.
    BorrowForeign,
    /// A register of another class in an operand.
    RegisterClass,
    /// An immediate in an operand.
    Immediate,
    /// Brackets added to an operand or taken off an address.
    Brackets,
    /// Braces added to an operand, or a vector's length changed.
    Braces,
    /// The sink `_` in an operand.
    Sink,
    /// `!` before an operand, or a `|p` added or dropped.
    Negation,
    /// An operand added.
    AddOperand,
    /// An operand dropped.
    DropOperand,
    /// A comment, trailing or inside the statement.
    Comment,
    /// Whitespace before a qualifier's dot, or around the operands' commas.
    Whitespace,
    /// A guard predicate (or a register that is none) before the instruction.
    Guard,
}

impl Step {
    /// Every step.
    pub const ALL: &'static [Step] = &[
        Step::Permute,
        Step::Swap,
        Step::Reverse,
        Step::MoveSync,
        Step::Duplicate,
        Step::Drop,
        Step::BorrowOwn,
        Step::BorrowForeign,
        Step::RegisterClass,
        Step::Immediate,
        Step::Brackets,
        Step::Braces,
        Step::Sink,
        Step::Negation,
        Step::AddOperand,
        Step::DropOperand,
        Step::Comment,
        Step::Whitespace,
        Step::Guard,
    ];

    /// The step's name in reports.
    pub const fn name(self) -> &'static str {
        match self {
            Step::Permute => "permute",
            Step::Swap => "swap",
            Step::Reverse => "reverse",
            Step::MoveSync => "move_sync",
            Step::Duplicate => "duplicate",
            Step::Drop => "drop",
            Step::BorrowOwn => "borrow_own",
            Step::BorrowForeign => "borrow_foreign",
            Step::RegisterClass => "register_class",
            Step::Immediate => "immediate",
            Step::Brackets => "brackets",
            Step::Braces => "braces",
            Step::Sink => "sink",
            Step::Negation => "negation",
            Step::AddOperand => "add_operand",
            Step::DropOperand => "drop_operand",
            Step::Comment => "comment",
            Step::Whitespace => "whitespace",
            Step::Guard => "guard",
        }
    }
}

/// One explored text and the walk that made it.
#[derive(Debug, Clone)]
pub struct Walked {
    /// The text.
    pub text: String,
    /// The legal case it started from.
    pub origin: usize,
    /// The steps it took, in order.
    pub steps: Vec<Step>,
}

/// A text in pieces, as the steps change it.
#[derive(Debug, Clone)]
struct Draft {
    guard: Option<String>,
    /// The opcode as the case writes it (`bar.cta.red`: the infix is the opcode's).
    opcode: String,
    /// The words after the opcode, `.sync` among them.
    words: Vec<String>,
    operands: Vec<String>,
    /// Whitespace before the dot of this word.
    spaced: Option<usize>,
    /// A block comment before the dot of this word.
    chain_comment: Option<usize>,
    /// A block comment before the operands.
    operands_comment: bool,
    /// The separator between operands.
    comma: &'static str,
    /// A comment after the `;`.
    trailing: Option<&'static str>,
}

impl Draft {
    fn of(case: &Case, instruction: &Instruction) -> Option<Draft> {
        let t = text::tokenize(&case.text).ok()?;
        let skip = instruction.mnemonic.opcode_in(&t.words)?;
        let opcode = t.words[..skip].join(".");
        Some(Draft {
            guard: None,
            opcode,
            words: t.words.get(skip..)?.to_vec(),
            operands: t.operands.iter().map(ToString::to_string).collect(),
            spaced: None,
            chain_comment: None,
            operands_comment: false,
            comma: ", ",
            trailing: None,
        })
    }

    fn render(&self) -> String {
        let mut s = String::new();
        if let Some(g) = &self.guard {
            s.push_str(g);
            s.push(' ');
        }
        s.push_str(&self.opcode);
        for (k, w) in self.words.iter().enumerate() {
            if self.spaced == Some(k) {
                s.push(' ');
            }
            if self.chain_comment == Some(k) {
                s.push_str("/* c */");
            }
            s.push('.');
            s.push_str(w);
        }
        if !self.operands.is_empty() {
            s.push(' ');
            if self.operands_comment {
                s.push_str("/* operands */ ");
            }
            s.push_str(&self.operands.join(self.comma));
        }
        s.push(';');
        if let Some(c) = self.trailing {
            s.push_str(c);
        }
        s
    }
}

/// Registers of every class the emitted module declares (`device::wrap`).
const REGISTER_PREFIXES: &[&str] = &["%r", "%rd", "%f", "%fd", "%h", "%p"];

/// Immediates of every literal syntax, at the edges of the widths.
const IMMEDIATES: &[&str] = &[
    "0",
    "1",
    "-1",
    "16",
    "0xffffffff",
    "4294967296",
    "0f3F800000",
    "0d3FF0000000000000",
    "1.5",
    "-0f3F800000",
    ".5",
];

fn register(rng: &mut ChaCha8Rng) -> String {
    let p = REGISTER_PREFIXES.choose(rng).copied().unwrap_or("%r");
    format!("{p}{}", rng.random_range(1..=8))
}

fn scalar(rng: &mut ChaCha8Rng) -> String {
    if rng.random_bool(0.5) {
        register(rng)
    } else {
        IMMEDIATES.choose(rng).copied().unwrap_or("1").to_owned()
    }
}

/// The pieces of an operand a step may change one of: a vector's elements, a
/// pair's sides, an address's base, or the operand itself.
fn replace_piece(op: &str, rng: &mut ChaCha8Rng, with: impl FnOnce(&mut ChaCha8Rng) -> String) -> String {
    if let Some(inner) = op.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
        let mut elems: Vec<String> = inner.split(',').map(|e| e.trim().to_owned()).collect();
        let k = rng.random_range(0..elems.len());
        elems[k] = with(rng);
        return format!("{{{}}}", elems.join(", "));
    }
    if let Some((d, p)) = op.split_once('|') {
        return if rng.random_bool(0.5) {
            format!("{}|{p}", with(rng))
        } else {
            format!("{d}|{}", with(rng))
        };
    }
    if let Some(inner) = op.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        let rest = inner.find('+').map_or("", |i| &inner[i..]);
        return format!("[{}{rest}]", with(rng));
    }
    with(rng)
}

/// Takes one step of `kind` on `d`; `false` when it does not apply.
fn step(d: &mut Draft, kind: Step, (own, foreign): (&[Qualifier], &[Qualifier]), rng: &mut ChaCha8Rng) -> bool {
    let n = d.words.len();
    let pick_operand = |d: &Draft, rng: &mut ChaCha8Rng| (!d.operands.is_empty()).then(|| rng.random_range(0..d.operands.len()));
    match kind {
        Step::Permute if n >= 2 => d.words.shuffle(rng),
        Step::Swap if n >= 2 => {
            let i = rng.random_range(0..n);
            let j = (i + rng.random_range(1..n)) % n;
            d.words.swap(i, j);
        }
        Step::Reverse if n >= 2 => d.words.reverse(),
        Step::MoveSync => {
            let Some(at) = d.words.iter().position(|w| w == "sync") else {
                return false;
            };
            if n < 2 {
                return false;
            }
            let w = d.words.remove(at);
            let to = (at + rng.random_range(1..n)) % n;
            d.words.insert(to, w);
        }
        Step::Duplicate if n >= 1 => {
            let w = d.words[rng.random_range(0..n)].clone();
            d.words.insert(rng.random_range(0..=n), w);
        }
        // The `.sync` of vote and shfl stays: without it they are the non-sync
        // forms, which the spec does not cover yet (issue 24), and ptxas takes them
        // at .version 6.3 and below.
        Step::Drop if n >= 1 => {
            let at = rng.random_range(0..n);
            if d.words[at] == "sync" && matches!(d.opcode.as_str(), "vote" | "shfl") {
                return false;
            }
            d.words.remove(at);
        }
        Step::BorrowOwn | Step::BorrowForeign => {
            let pool: &[Qualifier] = if kind == Step::BorrowOwn { own } else { foreign };
            let Some(q) = pool.choose(rng) else {
                return false;
            };
            let w = q.spelling()[1..].to_owned();
            if n >= 1 && rng.random_bool(0.5) {
                let at = rng.random_range(0..n);
                if d.words[at] == "sync" && matches!(d.opcode.as_str(), "vote" | "shfl") {
                    return false;
                }
                d.words[at] = w;
            } else {
                d.words.insert(rng.random_range(0..=n), w);
            }
        }
        Step::RegisterClass => {
            let Some(i) = pick_operand(d, rng) else { return false };
            d.operands[i] = replace_piece(&d.operands[i], rng, register);
        }
        Step::Immediate => {
            let Some(i) = pick_operand(d, rng) else { return false };
            d.operands[i] = replace_piece(&d.operands[i], rng, |r| {
                IMMEDIATES.choose(r).copied().unwrap_or("1").to_owned()
            });
        }
        Step::Brackets => {
            let Some(i) = pick_operand(d, rng) else { return false };
            let op = &d.operands[i];
            d.operands[i] = match op.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
                Some(inner) => inner.to_owned(),
                None => format!("[{op}]"),
            };
        }
        Step::Braces => {
            let Some(i) = pick_operand(d, rng) else { return false };
            let op = d.operands[i].clone();
            d.operands[i] = match op.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
                Some(inner) => {
                    let mut elems: Vec<String> = inner.split(',').map(|e| e.trim().to_owned()).collect();
                    match rng.random_range(0..3) {
                        0 if elems.len() > 1 => {
                            elems.pop();
                            format!("{{{}}}", elems.join(", "))
                        }
                        1 => {
                            let e = elems.last().cloned().unwrap_or_default();
                            elems.push(e);
                            format!("{{{}}}", elems.join(", "))
                        }
                        _ => elems.swap_remove(0),
                    }
                }
                None if rng.random_bool(0.5) => format!("{{{op}}}"),
                None => format!("{{{op}, {op}}}"),
            };
        }
        Step::Sink => {
            let Some(i) = pick_operand(d, rng) else { return false };
            d.operands[i] = replace_piece(&d.operands[i], rng, |_| "_".to_owned());
        }
        Step::Negation => {
            let Some(i) = pick_operand(d, rng) else { return false };
            let op = d.operands[i].clone();
            d.operands[i] = if let Some((dst, _)) = op.split_once('|') {
                dst.to_owned()
            } else if let Some(rest) = op.strip_prefix('!') {
                rest.to_owned()
            } else if rng.random_bool(0.5) {
                format!("!{op}")
            } else {
                format!("{op}|%p{}", rng.random_range(1..=3))
            };
        }
        Step::AddOperand => {
            let at = rng.random_range(0..=d.operands.len());
            let op = scalar(rng);
            d.operands.insert(at, op);
        }
        Step::DropOperand => {
            let Some(i) = pick_operand(d, rng) else { return false };
            d.operands.remove(i);
        }
        Step::Comment => match rng.random_range(0..3) {
            0 => d.trailing = Some(if rng.random_bool(0.5) { " // 4." } else { " /* done */" }),
            1 if n >= 1 => d.chain_comment = Some(rng.random_range(0..n)),
            _ => d.operands_comment = true,
        },
        Step::Whitespace => match rng.random_range(0..3) {
            0 if n >= 1 => d.spaced = Some(rng.random_range(0..n)),
            1 => d.comma = ",",
            _ => d.comma = " ,\t",
        },
        Step::Guard => {
            d.guard = Some(
                ["@%p1", "@!%p2", "@%r1"]
                    .choose(rng)
                    .copied()
                    .unwrap_or("@%p1")
                    .to_owned(),
            );
        }
        _ => return false,
    }
    true
}

/// The legal cases walks start from, each with its instruction: every legal case
/// of every instruction, canonical or not.
pub fn starts<'s>(spec: &'s Spec, cases: &'s [(usize, Case)], walked: impl Fn(&Instruction) -> bool) -> Vec<(&'s Instruction, &'s Case)> {
    cases
        .iter()
        .filter(|(_, c)| c.verdict == Verdict::Legal)
        .filter_map(|(i, c)| Some((&spec.instructions.get(*i)?.instruction, c)))
        .filter(|(i, _)| walked(i))
        .collect()
}

/// `n` walks from `starts`, seeded: each picks an instruction uniformly (so that
/// `red`'s thousands of spellings do not drown the others), a start of it, and one
/// to three steps; a borrowed foreign qualifier comes from `foreign`.
pub fn walks(starts: &[(&Instruction, &Case)], n: usize, seed: u64, foreign: &[Qualifier]) -> Vec<Walked> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut by_instruction: Vec<(Mnemonic, Vec<usize>)> = Vec::new();
    for (k, (ins, _)) in starts.iter().enumerate() {
        match by_instruction.iter_mut().find(|(m, _)| *m == ins.mnemonic) {
            Some((_, v)) => v.push(k),
            None => by_instruction.push((ins.mnemonic, vec![k])),
        }
    }
    let vocabulary = |ins: &Instruction| -> Vec<Qualifier> {
        let mut v: Vec<Qualifier> = ins
            .forms()
            .flat_map(|(g, f)| f.possible_qualifiers(g))
            .collect();
        v.sort();
        v.dedup();
        v
    };
    let mut out = Vec::with_capacity(n);
    while out.len() < n && !by_instruction.is_empty() {
        let (_, members) = &by_instruction[rng.random_range(0..by_instruction.len())];
        let origin = members[rng.random_range(0..members.len())];
        let (ins, case) = starts[origin];
        let Some(mut draft) = Draft::of(case, ins) else {
            continue;
        };
        let own = vocabulary(ins);
        let count = match rng.random_range(0..10) {
            0..=4 => 1,
            5..=7 => 2,
            _ => 3,
        };
        let mut steps = Vec::with_capacity(count);
        while steps.len() < count {
            let kind = Step::ALL[rng.random_range(0..Step::ALL.len())];
            if step(&mut draft, kind, (&own, foreign), &mut rng) {
                steps.push(kind);
            }
        }
        out.push(Walked {
            text: draft.render(),
            origin,
            steps,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_texts_and_every_step_is_taken() {
        let spec = crate::repo_spec();
        let cases: Vec<(usize, Case)> = spec
            .instructions
            .iter()
            .enumerate()
            .flat_map(|(i, f)| crate::syntax::vectors::cases(&spec, &f.instruction).into_iter().map(move |c| (i, c)))
            .collect();
        let s = starts(&spec, &cases, |_| true);
        let a = walks(&s, 3000, 7, &Qualifier::all());
        let b = walks(&s, 3000, 7, &Qualifier::all());
        assert_eq!(a.len(), 3000);
        assert!(a.iter().zip(&b).all(|(x, y)| x.text == y.text && x.steps == y.steps));
        assert_ne!(walks(&s, 50, 8, &Qualifier::all()).iter().map(|w| &w.text).collect::<Vec<_>>(), a[..50].iter().map(|w| &w.text).collect::<Vec<_>>());
        for k in Step::ALL {
            assert!(a.iter().any(|w| w.steps.contains(k)), "{k:?} never taken");
        }
        // Every instruction is a start.
        for f in &spec.instructions {
            assert!(a.iter().any(|w| s[w.origin].0.mnemonic == f.instruction.mnemonic), "{}", f.instruction.instruction);
        }
    }
}
