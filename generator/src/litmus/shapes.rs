//! The generated litmus tests: the classic shapes × `.sem` × `.scope` × placement.
//!
//! # The selection rule
//!
//! Each of the twelve shapes ([`Shape::ALL`]: MP, SB, LB, IRIW, WRC, CoRR, 2+2W, S,
//! then the single-location CoWR, CoWW, CoRW and Atomicity) is a template of
//! writes, reads and read-modify-writes; a *flavour* ([`Flavour::ALL`]) spells every
//! write and every read of it the same way:
//!
//! - `weak`: `st` and `ld` with no `.sem` (no scope either: a weak operation takes
//!   none, 8.5);
//! - `relaxed`: `st.relaxed.S` and `ld.relaxed.S`;
//! - `rel_acq`: `st.release.S` and `ld.acquire.S`;
//! - `fence_acq_rel`, `fence_sc`: the `relaxed` accesses with `fence.acq_rel.S`
//!   (`fence.sc.S`) between every two consecutive accesses of a thread;
//! - `rmw_acq_rel`: each write an `atom.acq_rel.S.exch` of its value, each read an
//!   `atom.acq_rel.S.add` of 0;
//! - `red_rel_acq`: each write a `red.release.S.add` of its value, each read an
//!   `ld.acquire.S` (two writers to one location then sum, as 2+2W's and S's do).
//!
//! Atomicity's two threads each add 1 to `x` and keep the old value: a `relaxed`
//! test spells the add `atom.relaxed.S.add`, `rmw_acq_rel` `atom.acq_rel.S.add`,
//! and `red_rel_acq` `red.release.S.add` (which keeps nothing).
//!
//! # Which flavours a shape takes ([`Shape::flavours`])
//!
//! - The eight classic shapes, CoWR and CoRW: all seven. With `red_rel_acq` a write
//!   adds its value, and a location written by two threads ends with the sum, as
//!   2+2W's and S's always did; CoWR's and CoRW's reads still tell the orders apart
//!   (CoWR's read sees 1 or 3, never 0 or 2, which would miss its own add; CoRW's
//!   sees 0 or 2, never 1 or 3, which would hold its own later add).
//! - CoWW: all but `red_rel_acq`, whose three adds end at 6 in every order: the
//!   final value, all CoWW observes, would tell nothing.
//! - Atomicity: `relaxed`, `rmw_acq_rel`, `red_rel_acq`, the flavours with an atomic
//!   add. `weak` has none (`atom` without `.sem` is strong: "If the `.sem` qualifier
//!   is absent, `.relaxed` is assumed by default", 9.7.13.5), `rel_acq`
//!   spells writes with `st`, and each thread has one access, so the fence flavours
//!   would be `relaxed` again.
//!
//! Every flavour but `weak` is taken at each scope S of `.cta`, `.cluster`, `.gpu`,
//! `.sys`, and every flavour at each [`Placement`]: 4 placements × (10 shapes ×
//! (6 × 4 + 1) plus CoWW's 5 × 4 + 1 plus Atomicity's 3 × 4) = 1,132 tests. Each test names one scope for all its operations: a
//! test that mixed scopes would multiply the count without a shape that needs it. A
//! test is spelled at the least `.version` and `.target` its operations and
//! placement need ([`Requires`]). The largest candidate space is IRIW's with
//! `rmw_acq_rel` (six `atom`s: every read three sources, two locations of three
//! writes each), far under the oracle's cap; a unit test holds every test under it.

use ptxvec_oracle::model::{Event, Litmus, Loc, Place, Reg, Rmw, Scope, Sem, Thread, Val};

use super::spelling::{opcode, requires, Requires};

/// A classic shape: its threads' writes and reads before a flavour spells them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Shape {
    /// Message passing: `W x; W y || R y; R x`.
    Mp,
    /// Store buffering: `W x; R y || W y; R x`.
    Sb,
    /// Load buffering: `R x; W y || R y; W x`.
    Lb,
    /// Independent reads of independent writes: `W x || W y || R x; R y || R y; R x`.
    Iriw,
    /// Write-to-read causality: `W x || R x; W y || R y; R x`.
    Wrc,
    /// Coherence of read-read: `W x || R x; R x`.
    Corr,
    /// Two writes each: `W x=1; W y=2 || W y=1; W x=2`.
    TwoPlusTwoW,
    /// `W x=2; W y || R y; W x=1`.
    S,
    /// Coherence of write-read: `W x=1; R x || W x=2`. The read cannot miss its
    /// own thread's earlier write, nor see the other write and leave `x` at 1.
    CoWR,
    /// Coherence of write-write: `W x=1; W x=2 || W x=3`. `x` never ends at 1: the
    /// second write of a thread follows its first in coherence order. The other
    /// thread's write makes the placement matter; alone, a thread's two writes
    /// would run the same at every placement.
    CoWW,
    /// Coherence of read-write: `R x; W x=1 || W x=2`. The read cannot see its own
    /// thread's later write, nor see 2 and leave `x` at 2.
    CoRW,
    /// Two atomic adds of 1 to `x` (8.10.3 Atomicity): `x` never ends at 1.
    Atomicity,
}

/// One access of a shape's template.
#[derive(Debug, Clone, Copy)]
enum Access {
    /// A write of a constant.
    W(Loc, u32),
    /// A read into a register.
    R(Loc, Reg),
    /// An atomic add of a constant, the old value into a register.
    Add(Loc, u32, Reg),
}

const X: Loc = Loc(0);
const Y: Loc = Loc(1);
const R0: Reg = Reg(0);
const R1: Reg = Reg(1);

impl Shape {
    /// Every shape.
    pub const ALL: [Shape; 12] = [
        Shape::Mp,
        Shape::Sb,
        Shape::Lb,
        Shape::Iriw,
        Shape::Wrc,
        Shape::Corr,
        Shape::TwoPlusTwoW,
        Shape::S,
        Shape::CoWR,
        Shape::CoWW,
        Shape::CoRW,
        Shape::Atomicity,
    ];

    /// Its name in the literature: `MP`, `2+2W`.
    pub fn name(self) -> &'static str {
        match self {
            Shape::Mp => "MP",
            Shape::Sb => "SB",
            Shape::Lb => "LB",
            Shape::Iriw => "IRIW",
            Shape::Wrc => "WRC",
            Shape::Corr => "CoRR",
            Shape::TwoPlusTwoW => "2+2W",
            Shape::S => "S",
            Shape::CoWR => "CoWR",
            Shape::CoWW => "CoWW",
            Shape::CoRW => "CoRW",
            Shape::Atomicity => "Atomicity",
        }
    }

    /// The flavours it is taken in (see the module's doc), in [`Flavour::ALL`]'s
    /// order.
    pub fn flavours(self) -> &'static [Flavour] {
        match self {
            Shape::CoWW => &Flavour::ALL[..6],
            Shape::Atomicity => &[Flavour::Relaxed, Flavour::RmwAcqRel, Flavour::RedReleaseAcquire],
            _ => &Flavour::ALL,
        }
    }

    fn template(self) -> Vec<Vec<Access>> {
        use Access::{Add, R, W};
        match self {
            Shape::Mp => vec![vec![W(X, 1), W(Y, 1)], vec![R(Y, R0), R(X, R1)]],
            Shape::Sb => vec![vec![W(X, 1), R(Y, R0)], vec![W(Y, 1), R(X, R0)]],
            Shape::Lb => vec![vec![R(X, R0), W(Y, 1)], vec![R(Y, R0), W(X, 1)]],
            Shape::Iriw => vec![vec![W(X, 1)], vec![W(Y, 1)], vec![R(X, R0), R(Y, R1)], vec![R(Y, R0), R(X, R1)]],
            Shape::Wrc => vec![vec![W(X, 1)], vec![R(X, R0), W(Y, 1)], vec![R(Y, R0), R(X, R1)]],
            Shape::Corr => vec![vec![W(X, 1)], vec![R(X, R0), R(X, R1)]],
            Shape::TwoPlusTwoW => vec![vec![W(X, 1), W(Y, 2)], vec![W(Y, 1), W(X, 2)]],
            Shape::S => vec![vec![W(X, 2), W(Y, 1)], vec![R(Y, R0), W(X, 1)]],
            Shape::CoWR => vec![vec![W(X, 1), R(X, R0)], vec![W(X, 2)]],
            Shape::CoWW => vec![vec![W(X, 1), W(X, 2)], vec![W(X, 3)]],
            Shape::CoRW => vec![vec![R(X, R0), W(X, 1)], vec![W(X, 2)]],
            Shape::Atomicity => vec![vec![Add(X, 1, R0)], vec![Add(X, 1, R0)]],
        }
    }
}

/// How a test spells its shape's accesses (see the module's doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Flavour {
    /// `st`, `ld`.
    Weak,
    /// `st.relaxed`, `ld.relaxed`.
    Relaxed,
    /// `st.release`, `ld.acquire`.
    ReleaseAcquire,
    /// Relaxed accesses, `fence.acq_rel` between.
    FenceAcqRel,
    /// Relaxed accesses, `fence.sc` between.
    FenceSc,
    /// `atom.acq_rel.exch` writes, `atom.acq_rel.add` 0 reads.
    RmwAcqRel,
    /// `red.release.add` writes (each adds its value to the location, which holds
    /// 0 before the test, so a lone writer writes it), `ld.acquire` reads: what
    /// `red`'s `.sem` and `.scope` mean, which its semantic vectors cannot say.
    RedReleaseAcquire,
}

impl Flavour {
    /// Every flavour.
    pub const ALL: [Flavour; 7] = [
        Flavour::Weak,
        Flavour::Relaxed,
        Flavour::ReleaseAcquire,
        Flavour::FenceAcqRel,
        Flavour::FenceSc,
        Flavour::RmwAcqRel,
        Flavour::RedReleaseAcquire,
    ];

    /// Its name in a test's id.
    pub fn name(self) -> &'static str {
        match self {
            Flavour::Weak => "weak",
            Flavour::Relaxed => "relaxed",
            Flavour::ReleaseAcquire => "rel_acq",
            Flavour::FenceAcqRel => "fence_acq_rel",
            Flavour::FenceSc => "fence_sc",
            Flavour::RmwAcqRel => "rmw_acq_rel",
            Flavour::RedReleaseAcquire => "red_rel_acq",
        }
    }

    /// The register an `atom` spelling a write receives its old value in: past
    /// every register a shape's reads use, so that no read's register is reused.
    const WRITE_REG: Reg = Reg(4);

    fn write(self, scope: Scope, loc: Loc, v: u32) -> Event {
        match self {
            Flavour::Weak => Event::st_weak(loc, Val::Const(v)),
            Flavour::ReleaseAcquire => Event::st(Sem::Release, scope, loc, Val::Const(v)),
            Flavour::RmwAcqRel => Event::atom(Sem::AcqRel, scope, loc, Flavour::WRITE_REG, Rmw::Exch(v)),
            Flavour::RedReleaseAcquire => Event::red(Sem::Release, scope, loc, Rmw::Add(v)),
            Flavour::Relaxed | Flavour::FenceAcqRel | Flavour::FenceSc => Event::st(Sem::Relaxed, scope, loc, Val::Const(v)),
        }
    }

    fn read(self, scope: Scope, loc: Loc, reg: Reg) -> Event {
        match self {
            Flavour::Weak => Event::ld_weak(loc, reg),
            Flavour::ReleaseAcquire | Flavour::RedReleaseAcquire => Event::ld(Sem::Acquire, scope, loc, reg),
            Flavour::RmwAcqRel => Event::atom(Sem::AcqRel, scope, loc, reg, Rmw::Add(0)),
            Flavour::Relaxed | Flavour::FenceAcqRel | Flavour::FenceSc => Event::ld(Sem::Relaxed, scope, loc, reg),
        }
    }

    /// The atomic add of `k` to `loc`, old value into `reg`, where the flavour has
    /// one (see the module's doc).
    fn add(self, scope: Scope, loc: Loc, k: u32, reg: Reg) -> Option<Event> {
        match self {
            Flavour::Relaxed => Some(Event::atom(Sem::Relaxed, scope, loc, reg, Rmw::Add(k))),
            Flavour::RmwAcqRel => Some(Event::atom(Sem::AcqRel, scope, loc, reg, Rmw::Add(k))),
            Flavour::RedReleaseAcquire => Some(Event::red(Sem::Release, scope, loc, Rmw::Add(k))),
            Flavour::Weak | Flavour::ReleaseAcquire | Flavour::FenceAcqRel | Flavour::FenceSc => None,
        }
    }

    fn fence(self, scope: Scope) -> Option<Event> {
        match self {
            Flavour::FenceAcqRel => Some(Event::fence(Sem::AcqRel, scope)),
            Flavour::FenceSc => Some(Event::fence(Sem::Sc, scope)),
            _ => None,
        }
    }
}

/// Where a test's threads run. The model knows CTAs, clusters and devices (Table
/// 21's scopes), not warps: to it threads of one warp are threads of one CTA, which
/// `.cta` holds all of. The same-warp placement is there for silicon, where threads
/// of one warp share an instruction stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Placement {
    /// Thread `i` runs in lane `i` of warp 0 of one CTA (a runner deals the lanes
    /// at random: the record's `lane` names the thread's slot, not a fixed lane).
    SameWarp,
    /// Thread `i` runs in warp `i` of one CTA.
    SameCta,
    /// Thread `i` runs in CTA `i` of one cluster (a cluster launch of as many CTAs
    /// as threads: `sm_90`).
    OtherCtas,
    /// Thread `i` runs in CTA 0 of cluster `i`, all on one device (a launch
    /// without clusters, where each CTA is a cluster of its own, places them so).
    OtherClusters,
}

impl Placement {
    /// Every placement, narrowest first.
    pub const ALL: [Placement; 4] = [Placement::SameWarp, Placement::SameCta, Placement::OtherCtas, Placement::OtherClusters];

    /// Its name in a test's id and record.
    pub fn name(self) -> &'static str {
        match self {
            Placement::SameWarp => "same_warp",
            Placement::SameCta => "same_cta",
            Placement::OtherCtas => "other_ctas",
            Placement::OtherClusters => "other_clusters",
        }
    }

    /// The place of thread `i`, as the oracle sees it (one warp is one CTA).
    pub fn place(self, i: usize) -> Place {
        let i = u8::try_from(i).unwrap_or(u8::MAX);
        match self {
            Placement::SameWarp | Placement::SameCta => Place::cta(0, 0),
            Placement::OtherCtas => Place::cta(0, i),
            Placement::OtherClusters => Place::cta(i, 0),
        }
    }

    /// The warp of thread `i` in its CTA: `i` in the same CTA, 0 elsewhere.
    pub fn warp(self, i: usize) -> u8 {
        match self {
            Placement::SameCta => u8::try_from(i).unwrap_or(u8::MAX),
            Placement::SameWarp | Placement::OtherCtas | Placement::OtherClusters => 0,
        }
    }

    /// The lane of thread `i` in its warp where the placement shares a warp
    /// (`i`), `None` elsewhere.
    pub fn lane(self, i: usize) -> Option<u8> {
        (self == Placement::SameWarp).then(|| u8::try_from(i).unwrap_or(u8::MAX))
    }

    fn requires(self) -> Requires {
        match self {
            Placement::OtherCtas => Requires::CLUSTER,
            Placement::SameWarp | Placement::SameCta | Placement::OtherClusters => Requires::BASE,
        }
    }
}

/// One generated test: the interface between the generator and a runner (see
/// [`super`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Generated {
    /// `MP/rel_acq/gpu/other_ctas`, `SB/weak/same_cta`: shape, flavour, scope
    /// (none for `weak`) and placement.
    pub id: String,
    /// The shape.
    pub shape: Shape,
    /// The flavour.
    pub flavour: Flavour,
    /// The scope of every strong operation; `None` for `weak`.
    pub scope: Option<Scope>,
    /// The placement.
    pub placement: Placement,
    /// The test, for the oracle.
    pub litmus: Litmus,
    /// For each thread, for each event of it, its opcode with qualifiers and
    /// without operands: `ld.acquire.gpu.global.u32`, `fence.sc.cta`.
    pub opcodes: Vec<Vec<String>>,
    /// The least `.version` and `.target` of the spellings and the placement.
    pub requires: Requires,
}

/// One test of `shape` in `flavour` at `scope` (ignored by `weak`) and
/// `placement`; `None` where the shape is not taken in the flavour
/// ([`Shape::flavours`]).
pub fn test(shape: Shape, flavour: Flavour, scope: Scope, placement: Placement) -> Option<Generated> {
    if !shape.flavours().contains(&flavour) {
        return None;
    }
    let mut threads: Vec<Thread> = Vec::new();
    for (i, accesses) in shape.template().iter().enumerate() {
        let mut events = Vec::new();
        for (k, a) in accesses.iter().enumerate() {
            if k > 0 {
                events.extend(flavour.fence(scope));
            }
            events.push(match *a {
                Access::W(loc, v) => flavour.write(scope, loc, v),
                Access::R(loc, reg) => flavour.read(scope, loc, reg),
                Access::Add(loc, k, reg) => flavour.add(scope, loc, k, reg)?,
            });
        }
        threads.push(Thread { place: placement.place(i), events });
    }
    let opcodes = threads
        .iter()
        .map(|t| t.events.iter().map(|e| opcode(e).unwrap_or_else(|| unreachable_spelling(e))).collect())
        .collect();
    let need = threads.iter().flat_map(|t| &t.events).map(requires).fold(placement.requires(), Requires::max);
    let scope = (flavour != Flavour::Weak).then_some(scope);
    let id = match scope {
        Some(s) => format!("{}/{}/{}/{}", shape.name(), flavour.name(), &super::spelling::scope_word(s)[1..], placement.name()),
        None => format!("{}/{}/{}", shape.name(), flavour.name(), placement.name()),
    };
    Some(Generated { id, shape, flavour, scope, placement, litmus: Litmus { threads }, opcodes, requires: need })
}

/// Every flavour spells only operations PTX has (a unit test holds it), so this is
/// never reached; it names the event if a new flavour breaks that.
fn unreachable_spelling(e: &Event) -> String {
    format!("<no spelling for {e:?}>")
}

/// Every generated test, in a fixed order: shape, flavour, scope, placement.
pub fn generated() -> Vec<Generated> {
    let mut out = Vec::new();
    for shape in Shape::ALL {
        for &flavour in shape.flavours() {
            let scopes: &[Scope] = if flavour == Flavour::Weak { &[Scope::Gpu] } else { &Scope::ALL };
            for &scope in scopes {
                for placement in Placement::ALL {
                    out.extend(test(shape, flavour, scope, placement));
                }
            }
        }
    }
    out
}
