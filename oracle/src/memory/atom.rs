//! `atom`: a memory operation that returns the value it found. The reductions it
//! shares with `red` (`.and` … `.max`, the float adds and min/max) store what red
//! would store; `.exch` stores `b`; `.cas` stores `c` where the memory equals `b`
//! and leaves it otherwise. PTX ISA 9.7.13.5, Semantics: "d = *a;", then the
//! operation stored at `a`, with "exch(r, s) =  s;" and "cas(r,s,t) = (r == s) ?
//! t : r;".
//!
//! An access is its elements side by side, as red's; a `.b128` value is two 64-bit
//! elements, low half first, which `.cas` compares as one value.

use super::{Engine, Flush, Generic, KeptNan, Reduction};
use crate::float::Expect;
use crate::profile::Profile;

impl Engine {
    /// `atom`.
    pub const ATOM: Engine = Engine {
        name: "atom",
        // PTX ISA 9.7.13.5: "atom.add.f32 on global memory flushes subnormal inputs
        // and results to sign-preserving zero; whereas atom.add.f32 on shared
        // memory supports subnormal inputs and results".
        doc_f32_flush: Flush::InGlobal,
        // Measured as red's (vectors/silicon/sm_90/, the atom .add.f32 windows).
        sm90_f32_flush: Flush::InGlobal,
        // Measured as red's: atom.shared.add.f64 keeps the memory's NaN, quieted.
        sm90_f64_shared_nan: KeptNan::Memory,
        // 9.7.13.5: "atom with vector type may be used only with .global space and
        // with generic addressing where the address points to .global space".
        generic: Generic::Window,
    };
}

/// One executable `atom` variant: everything that decides its values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Atom {
    /// An operation `red` also performs; its engine is [`super::Engine::ATOM`].
    Reduce(Reduction),
    /// `.exch` at this width in bits (16, 32, 64 or 128).
    Exch(u32),
    /// `.cas` at this width in bits (16, 32, 64 or 128).
    Cas(u32),
}

/// What one access does: the value returned in `d` and the memory left behind,
/// element by element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Access {
    /// `d`: the memory as the access found it.
    pub old: Vec<Expect>,
    /// The memory after the access.
    pub new: Vec<Expect>,
}

impl Atom {
    /// Element width in bits: a 128-bit value is two 64-bit elements.
    pub fn element_bits(self) -> u32 {
        match self {
            Atom::Reduce(r) => r.element.bits(),
            Atom::Exch(bits) | Atom::Cas(bits) => bits.min(64),
        }
    }

    /// Elements per access.
    pub fn elements(self) -> usize {
        match self {
            Atom::Reduce(r) => usize::from(r.lanes.max(1)),
            Atom::Exch(bits) | Atom::Cas(bits) => (bits as usize).div_ceil(64),
        }
    }

    /// Whether the instruction takes a third source `c` (`.cas`).
    pub fn takes_c(self) -> bool {
        matches!(self, Atom::Cas(_))
    }

    /// One access of operand `b` (and `c` for `.cas`; ignored otherwise) to memory
    /// `mem`, each given per element as raw bits in the low bits.
    pub fn access(self, profile: Profile, mem: &[u64], b: &[u64], c: &[u64]) -> Access {
        let mask = mask(self.element_bits());
        let old = mem.iter().map(|&m| Expect::Bits(m & mask)).collect();
        let new = match self {
            Atom::Reduce(r) => mem
                .iter()
                .zip(b)
                .map(|(&m, &s)| r.element(profile, m, s))
                .collect(),
            Atom::Exch(_) => b.iter().map(|&s| Expect::Bits(s & mask)).collect(),
            Atom::Cas(_) => {
                // "cas(r,s,t) = (r == s) ? t : r": the whole value is compared, both
                // halves of a .b128 at once.
                let equal = mem.iter().zip(b).all(|(&m, &s)| (m ^ s) & mask == 0);
                let stored = if equal { c } else { mem };
                stored.iter().map(|&x| Expect::Bits(x & mask)).collect()
            }
        };
        Access { old, new }
    }

    /// The memory after one access, where every earlier value is known: the
    /// function each contending thread applies when all hold the same operands.
    /// `None` where the access leaves the memory open (a NaN's bits, a choice).
    pub fn step(self, profile: Profile, mem: &[u64], b: &[u64], c: &[u64]) -> Option<Vec<u64>> {
        self.access(profile, mem, b, c)
            .new
            .into_iter()
            .map(|e| match e {
                Expect::Bits(x) => Some(x),
                _ => None,
            })
            .collect()
    }
}

/// What `threads` threads holding the same operands find and leave when each
/// accesses one address once: per element, the values found in the order the
/// accesses land (the first thread's finds `mem`, each later one what the one
/// before left), and the memory after the last. Whatever that order, thread by
/// thread, is the same function applied again, so the values found are these
/// in some order. `None` where some access leaves the memory open.
pub fn contention(a: Atom, profile: Profile, mem: &[u64], b: &[u64], c: &[u64], threads: usize) -> Option<(Vec<Vec<u64>>, Vec<u64>)> {
    let mask = mask(a.element_bits());
    let mut now: Vec<u64> = mem.iter().map(|&m| m & mask).collect();
    let mut found = vec![Vec::with_capacity(threads); now.len()];
    for _ in 0..threads {
        for (list, &x) in found.iter_mut().zip(&now) {
            list.push(x);
        }
        now = a.step(profile, &now, b, c)?;
    }
    Some((found, now))
}

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::float::{Format, MinMax};
    use crate::int::{IntOp, IntType};
    use crate::memory::{Element, Engine, Op, Space};

    fn reduce(op: Op, element: Element, space: Space) -> Atom {
        Atom::Reduce(Reduction {
            engine: Engine::ATOM,
            space,
            op,
            element,
            lanes: 1,
            packed: false,
            noftz: false,
        })
    }

    fn bits(v: &[u64]) -> Vec<Expect> {
        v.iter().map(|&x| Expect::Bits(x)).collect()
    }

    /// Thread after thread on one address, from the document's functions: add
    /// counts up from the memory, `.cas` with the memory as its compare value
    /// swaps once (the first thread finds the memory, every later one the swapped
    /// value, which no longer compares equal), exch leaves every later thread the
    /// operand, inc wraps to 0 past its bound.
    #[test]
    fn contending_threads_find_the_function_applied_again() {
        let u32t = Element::Int(IntType { bits: 32, signed: false });
        let add = reduce(Op::Int(IntOp::Add), u32t, Space::Generic);
        let (found, after) = contention(add, Profile::Sm90, &[5], &[3], &[], 32).unwrap();
        assert_eq!(found, vec![(0..32).map(|k| 5 + 3 * k).collect::<Vec<u64>>()]);
        assert_eq!(after, vec![5 + 3 * 32]);
        let (found, after) = contention(Atom::Cas(32), Profile::PtxIsa, &[7], &[7], &[9], 32).unwrap();
        let mut want = vec![9u64; 32];
        want[0] = 7;
        assert_eq!((found, after), (vec![want], vec![9]));
        let (found, after) = contention(Atom::Exch(128), Profile::PtxIsa, &[1, 2], &[3, 4], &[], 3).unwrap();
        assert_eq!((found, after), (vec![vec![1, 3, 3], vec![2, 4, 4]], vec![3, 4]));
        let inc = reduce(Op::Int(IntOp::Inc), u32t, Space::Generic);
        let (found, after) = contention(inc, Profile::Sm90, &[1], &[2], &[], 4).unwrap();
        assert_eq!((found, after), (vec![vec![1, 2, 0, 1]], vec![2]));
        // A NaN's bits are a choice under ptx-isa: nothing to list.
        let fadd = reduce(Op::Add, Element::Float(Format::F32), Space::Global);
        assert_eq!(contention(fadd, Profile::PtxIsa, &[0x7fc0_0001], &[0x3f80_0000], &[], 2), None);
    }

    /// (variant, mem, b, c, returned, stored, where the expectation comes from)
    type Case = (Atom, Vec<u64>, Vec<u64>, Vec<u64>, Vec<u64>, Vec<u64>, &'static str);

    #[rustfmt::skip]
    fn cases() -> Vec<Case> {
        let u32t = Element::Int(IntType { bits: 32, signed: false });
        let s32t = Element::Int(IntType { bits: 32, signed: true });
        vec![
            // "d = *a; *a = operation(*a, b)": add returns the old value.
            (reduce(Op::Int(IntOp::Add), u32t, Space::Generic), vec![5], vec![7], vec![], vec![5], vec![12], "doc: atom.add"),
            (reduce(Op::Int(IntOp::Add), u32t, Space::Generic), vec![0xffff_ffff], vec![2], vec![], vec![0xffff_ffff], vec![1], "doc: add wraps"),
            // "inc(r, s) = (r >= s) ? 0 : r+1;"
            (reduce(Op::Int(IntOp::Inc), u32t, Space::Generic), vec![9], vec![9], vec![], vec![9], vec![0], "doc: inc at the bound"),
            // "dec(r, s) = (r==0 || r > s) ? s : r-1;"
            (reduce(Op::Int(IntOp::Dec), u32t, Space::Generic), vec![0], vec![4], vec![], vec![0], vec![4], "doc: dec from zero"),
            // signed min: -1 < 3.
            (reduce(Op::Int(IntOp::Min), s32t, Space::Generic), vec![3], vec![0xffff_ffff], vec![], vec![3], vec![0xffff_ffff], "doc: min.s32"),
            // "exch(r, s) = s"
            (Atom::Exch(32), vec![0xdead_beef], vec![0x1234_5678], vec![], vec![0xdead_beef], vec![0x1234_5678], "doc: exch"),
            // "cas(r,s,t) = (r == s) ? t : r"
            (Atom::Cas(32), vec![10], vec![10], vec![99], vec![10], vec![99], "doc: cas swaps on equal"),
            (Atom::Cas(32), vec![10], vec![11], vec![99], vec![10], vec![10], "doc: cas keeps on unequal"),
            (Atom::Cas(16), vec![0xffff], vec![0xffff], vec![0x0001], vec![0xffff], vec![0x0001], "doc: cas.b16"),
            // A .b128 is compared whole: equal low halves alone do not swap.
            (Atom::Cas(128), vec![1, 2], vec![1, 3], vec![7, 8], vec![1, 2], vec![1, 2], "doc: cas.b128 compares 128 bits"),
            (Atom::Cas(128), vec![1, 2], vec![1, 2], vec![7, 8], vec![1, 2], vec![7, 8], "doc: cas.b128 swaps both halves"),
            (Atom::Exch(128), vec![1, 2], vec![3, 4], vec![], vec![1, 2], vec![3, 4], "doc: exch.b128"),
        ]
    }

    #[test]
    fn hand_worked_cases_from_the_doc() {
        for (atom, mem, b, c, old, new, why) in cases() {
            for p in Profile::ALL.iter().copied() {
                let got = atom.access(p, &mem, &b, &c);
                assert_eq!(got, Access { old: bits(&old), new: bits(&new) }, "{atom:?} {p:?} ({why})");
            }
        }
    }

    #[test]
    fn the_reductions_store_what_red_stores() {
        let f32add = Reduction {
            engine: Engine::ATOM,
            space: Space::Global,
            op: Op::Add,
            element: Element::Float(Format::F32),
            lanes: 1,
            packed: false,
            noftz: false,
        };
        let red = Reduction { engine: Engine::RED, ..f32add };
        let f16min = Reduction {
            op: Op::MinMax(MinMax::Min),
            element: Element::Float(Format::F16),
            space: Space::Generic,
            noftz: true,
            ..f32add
        };
        let samples = [0u64, 1, 0x8000_0001, 0x7f80_0000, 0xff80_0000, 0x3f80_0000, 0x7e00, 0x8000, 0x3c00];
        for p in Profile::ALL.iter().copied() {
            for &m in &samples {
                for &s in &samples {
                    let got = Atom::Reduce(f32add).access(p, &[m], &[s], &[]);
                    assert_eq!(got.new, vec![red.element(p, m, s)], "{p:?} {m:#x} {s:#x}");
                    assert_eq!(got.old, vec![Expect::Bits(m & 0xffff_ffff)]);
                    let got = Atom::Reduce(f16min).access(p, &[m], &[s], &[]);
                    let red16 = Reduction { engine: Engine::RED, ..f16min };
                    assert_eq!(got.new, vec![red16.element(p, m, s)]);
                }
            }
        }
    }

    #[test]
    fn shapes() {
        assert_eq!((Atom::Cas(128).elements(), Atom::Cas(128).element_bits()), (2, 64));
        assert_eq!((Atom::Exch(16).elements(), Atom::Exch(16).element_bits()), (1, 16));
        assert!(Atom::Cas(32).takes_c() && !Atom::Exch(32).takes_c());
    }
}
