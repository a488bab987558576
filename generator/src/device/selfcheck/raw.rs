//! The raw outputs of `ptxvec_raw`: decoding the buffer, judging it against each
//! profile, and the digest the silicon evidence records.
//!
//! The digest is SHA-256 over, for every record that ran (file order), every output
//! (`mem`, or `d` then `p`), every slot the sm_90 profile defines (not `null`, not
//! `undefined`): the value's bits little-endian in 1, 2, 4 or 8 bytes (predicates
//! one byte); for a `permutation` slot, every contending thread's value instead,
//! in ascending order (the order the threads landed in is no result). A replay
//! rebuilds the same bytes from the sm_90 expectations and the silicon bits the
//! evidence keeps for the slots they do not pin.
//!
//! A contention record of atom has, after its `d` slots (the value thread 0
//! found), each contending thread's: thread `t`'s element `k` at slot
//! `elements × (1 + t) + k` of `d`.

use sha2::{Digest, Sha256};

use ptxvec_oracle::profile::Profile;

use super::emit::LANE_BYTES;
use super::{skipped, Execution, Suite, WARP};
use crate::record::accept::{self, accepts, accepts_threads};
use crate::record::{Expectation, Out, Outputs};

/// The byte a runner fills `ptxvec_raw`'s buffer with before the launch, so that a
/// slot the engine never wrote is told apart from one it wrote: a zeroed buffer
/// passes most `vote.sync.all` records of an engine that writes nothing. No
/// expectation of the vectors is exactly this byte repeated at its width
/// (`tests/grade.rs` holds them to it), and it is no NaN at any float width.
pub const POISON: u8 = 0xa5;

/// [`POISON`] repeated over `bytes` bytes.
pub const fn poison_word(bytes: usize) -> u64 {
    u64::from_le_bytes([POISON; 8]) >> (64 - 8 * bytes as u32)
}

/// The bytes one slot of output `o` takes in the buffer: an element for a memory
/// variant, a 32-bit word per lane (a predicate as 0 or 1) for a warp one.
pub fn slot_bytes(s: &Suite, o: Out) -> usize {
    match (s.exec, o) {
        (Execution::Memory { width, .. }, _) => (width / 8) as usize,
        (Execution::Warp, _) => 4,
    }
}

/// How a slot was left against the poison: what `grade --raw` reports in place of
/// a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Left {
    /// A slot that must be written still holds the poison.
    NotWritten,
    /// A lane that does not execute wrote its slot.
    Stray,
}

/// The slots left wrong against the poison: an executing lane's slot the profile
/// defines (not `undefined`) that still holds [`POISON`], and a slot of a lane that
/// does not execute that does not.
pub fn left(s: &Suite, vals: &[Option<Values>], p: Profile) -> Vec<(SlotBits, Left)> {
    let mut out = Vec::new();
    for (r, (rec, got)) in s.records.iter().zip(vals).enumerate() {
        let Some(got) = got else { continue };
        for (oi, (o, _)) in s.outputs().iter().enumerate() {
            let poison = poison_word(slot_bytes(s, *o));
            for (k, slot) in s.slots(rec, p, *o).iter().enumerate() {
                let g = got[oi][k];
                let kind = match slot {
                    Expectation::NotExecuted if g != poison => Left::Stray,
                    Expectation::NotExecuted | Expectation::Undefined => continue,
                    _ if g == poison => Left::NotWritten,
                    _ => continue,
                };
                out.push((SlotBits { record: r, out: *o, slot: k, got: g }, kind));
            }
        }
    }
    out
}

/// Per output (in [`Suite::outputs`] order), per slot: the bits (for a contention
/// record's `d`, the threads' after the record's own: module doc).
pub type Values = Vec<Vec<u64>>;

/// The values the contending threads found for element `k` of an output of
/// `elements` slots, where `got` holds them (module doc).
fn threads(got: &[u64], elements: usize, k: usize) -> Option<Vec<u64>> {
    (got.len() == elements * (1 + WARP)).then(|| (0..WARP).map(|t| got[elements * (1 + t) + k]).collect())
}

/// Whether a slot's value `g` (and, for a contention record, the threads' values
/// `all` of its element) keep `slot`.
fn keeps(slot: &Expectation, g: u64, all: Option<&[u64]>, float: Option<ptxvec_oracle::float::Format>) -> bool {
    accepts(slot, Some(g), float) && all.is_none_or(|all| accepts_threads(slot, all, float))
}

/// The index of `p` in [`Profile::ALL`].
pub fn profile_index(p: Profile) -> usize {
    Profile::ALL.iter().position(|x| *x == p).unwrap_or(0)
}

fn le(buf: &[u8], at: usize, bytes: usize) -> u64 {
    let mut w = [0u8; 8];
    if let Some(src) = buf.get(at..at + bytes) {
        w[..bytes].copy_from_slice(src);
    }
    u64::from_le_bytes(w)
}

/// Where, in `ptxvec_raw`'s buffer, a memory variant's record `r` keeps slot `k`
/// of output `o` (elements of `wb` bytes, `lanes` a record): memory from the
/// buffer's start, the thread output (atom's `d`) from `d_offset`, and past the
/// record's own the
/// threads' of the `block`-th contention record from `threads_d_offset`. `None`
/// for a slot the layout has not.
fn memory_slot_at(s: &Suite, r: usize, block: Option<usize>, o: Out, k: usize, (wb, lanes): (usize, usize)) -> Option<usize> {
    let stride = s.stride();
    let thread_output = s.thread_output() == Some(o);
    let base = if thread_output { s.d_offset()? } else { 0 };
    match k.checked_sub(lanes) {
        None => Some(base + r * stride + k * wb),
        Some(i) if thread_output => Some(s.threads_d_offset()? + (block? * WARP + i / lanes) * stride + i % lanes * wb),
        Some(_) => None,
    }
}

/// The slots a memory variant's record keeps of output `o`: its elements, and for
/// a contention record's `d` each thread's after them.
fn memory_slots(s: &Suite, block: Option<usize>, o: Out, lanes: usize) -> usize {
    match (s.thread_output() == Some(o), block, s.threads_d_offset()) {
        (true, Some(_), Some(_)) => lanes * (1 + WARP),
        _ => lanes,
    }
}

/// Reads `ptxvec_raw`'s buffer: per record, `None` when skipped.
pub fn decode(s: &Suite, out: &[u8]) -> Vec<Option<Values>> {
    let contended = s.contention_records();
    s.records
        .iter()
        .enumerate()
        .map(|(r, rec)| {
            if skipped(rec) {
                return None;
            }
            Some(match s.exec {
                Execution::Memory { width, lanes, .. } => {
                    let (wb, lanes) = ((width / 8) as usize, lanes as usize);
                    let block = contended.iter().position(|&x| x == r);
                    s.outputs()
                        .iter()
                        .map(|&(o, _)| {
                            (0..memory_slots(s, block, o, lanes))
                                .map(|k| memory_slot_at(s, r, block, o, k, (wb, lanes)).map_or(0, |at| le(out, at, wb)))
                                .collect()
                        })
                        .collect()
                }
                Execution::Warp => s
                    .outputs()
                    .iter()
                    .map(|(o, _)| {
                        let off = if *o == Out::P { 4 } else { 0 };
                        (0..s.threads())
                            .map(|l| le(out, (r * s.threads() + l) * LANE_BYTES + off, 4))
                            .collect()
                    })
                    .collect(),
            })
        })
        .collect()
}

/// One slot whose bits a profile does not accept (or, for [`unpinned`], does not pin).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlotBits {
    /// Record index.
    pub record: usize,
    /// Which output.
    pub out: Out,
    /// Lane or element.
    pub slot: usize,
    /// Silicon's bits.
    pub got: u64,
}

/// How a profile judged the records that ran: which it accepts, which not, and the
/// slots it does not accept.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    /// Records whose every slot the profile accepts.
    pub matches: usize,
    /// Records with some slot it does not.
    pub mismatched: Vec<usize>,
    /// The slots it does not accept.
    pub slots: Vec<SlotBits>,
}

/// Judges `vals` under profile `p`.
pub fn judge(s: &Suite, vals: &[Option<Values>], p: Profile) -> Tally {
    let outs = s.outputs();
    let mut v = Tally::default();
    for (r, (rec, got)) in s.records.iter().zip(vals).enumerate() {
        let Some(got) = got else { continue };
        let mut ok = true;
        for (oi, (o, _)) in outs.iter().enumerate() {
            let float = s.float(*o);
            let slots = s.slots(rec, p, *o);
            for (k, slot) in slots.iter().enumerate() {
                let g = got[oi][k];
                let all = threads(&got[oi], slots.len(), k);
                // A lane that does not execute writes nothing: the buffer keeps
                // whatever was there.
                if *slot != Expectation::NotExecuted && !keeps(slot, g, all.as_deref(), float) {
                    ok = false;
                    v.slots.push(SlotBits {
                        record: r,
                        out: *o,
                        slot: k,
                        got: g,
                    });
                }
            }
        }
        // An election binds the lanes together (`accept::joint`): a record whose
        // every slot passes alone may still elect two leaders.
        if ok && outs.iter().any(|(o, _)| s.slots(rec, p, *o).iter().any(accept::binds)) {
            let mut expected: Outputs<Expectation> = Outputs { d: None, mem: None, p: None };
            let mut values: Outputs<Option<u64>> = Outputs { d: None, mem: None, p: None };
            for (oi, (o, _)) in outs.iter().enumerate() {
                let slots = s.slots(rec, p, *o);
                expected.set(*o, slots.to_vec());
                // A lane that does not execute wrote nothing.
                values.set(*o, got[oi].iter().zip(slots).map(|(g, e)| (*e != Expectation::NotExecuted).then_some(*g)).collect());
            }
            ok = accept::joint(&expected, &values).is_none();
        }
        if ok {
            v.matches += 1;
        } else {
            v.mismatched.push(r);
        }
    }
    v
}

/// The slots whose bits the sm_90 expectation does not pin (defined, and not exactly
/// these bits): what the evidence must keep for a replay to rebuild the digest.
pub fn unpinned(s: &Suite, vals: &[Option<Values>]) -> Vec<SlotBits> {
    let mut out = Vec::new();
    for (r, (rec, got)) in s.records.iter().zip(vals).enumerate() {
        let Some(got) = got else { continue };
        for (oi, (o, _)) in s.outputs().iter().enumerate() {
            let slots = s.slots(rec, Profile::Sm90, *o);
            let mut keep = |slot: usize| {
                out.push(SlotBits {
                    record: r,
                    out: *o,
                    slot,
                    got: got[oi][slot],
                })
            };
            for (k, slot) in slots.iter().enumerate() {
                match (slot, threads(&got[oi], slots.len(), k)) {
                    // Pinned where the value is among the listed and the threads'
                    // are the list: the replay takes them from it.
                    (Expectation::Permutation(_), all) => {
                        if !accepts(slot, Some(got[oi][k]), None) {
                            keep(k);
                        }
                        if all.is_some_and(|all| !accepts_threads(slot, &all, None)) {
                            (0..WARP).for_each(|t| keep(slots.len() * (1 + t) + k));
                        }
                    }
                    _ if slot.pinned() && slot.exact() != Some(got[oi][k]) => keep(k),
                    _ => {}
                }
            }
        }
    }
    out
}

/// The raw outputs as the sm_90 expectations and the `unpinned` silicon bits say
/// they were. An error names a slot that neither pins.
pub fn rebuild(s: &Suite, unpinned: &[SlotBits]) -> Result<Vec<Option<Values>>, String> {
    let mut out = Vec::new();
    let contended = s.contention_records();
    for (r, rec) in s.records.iter().enumerate() {
        if skipped(rec) {
            out.push(None);
            continue;
        }
        let mut vals = Vec::new();
        for (o, _) in &s.outputs() {
            let mut v = Vec::new();
            let slots = s.slots(rec, Profile::Sm90, *o);
            let kept = |k: usize| unpinned.iter().find(|u| u.record == r && u.out == *o && u.slot == k);
            for (k, slot) in slots.iter().enumerate() {
                v.push(match (kept(k), slot) {
                    (Some(u), _) => u.got,
                    (None, Expectation::Exact(x)) => x.value,
                    (None, Expectation::Permutation(bits)) => bits[0].value,
                    (None, s) if !s.pinned() => 0,
                    (None, s) => {
                        return Err(format!(
                            "{}: {}[{k}]: the sm_90 expectation {} does not pin the bits and the evidence keeps none",
                            rec.id,
                            o.name(),
                            serde_json::to_string(s).unwrap_or_default()
                        ))
                    }
                });
            }
            // A contention record's threads: as silicon left them where the
            // evidence keeps them, else thread t found the list's entry t.
            if s.thread_output() == Some(*o) && contended.contains(&r) && s.threads_d_offset().is_some() {
                for t in 0..WARP {
                    for (k, slot) in slots.iter().enumerate() {
                        let listed = match slot {
                            Expectation::Permutation(bits) => bits[t].value,
                            other => other.exact().unwrap_or(0),
                        };
                        v.push(kept(slots.len() * (1 + t) + k).map_or(listed, |u| u.got));
                    }
                }
            }
            vals.push(v);
        }
        out.push(Some(vals));
    }
    Ok(out)
}

/// The digest of the raw outputs (module doc), as 64 hex digits.
pub fn digest(s: &Suite, vals: &[Option<Values>]) -> String {
    let outs = s.outputs();
    let mut h = Sha256::new();
    for (rec, got) in s.records.iter().zip(vals) {
        let Some(got) = got else { continue };
        for (oi, (o, width)) in outs.iter().enumerate() {
            let bytes = (width.div_ceil(8)) as usize;
            let slots = s.slots(rec, Profile::Sm90, *o);
            for (k, slot) in slots.iter().enumerate() {
                match (slot, threads(&got[oi], slots.len(), k)) {
                    (Expectation::Permutation(_), Some(mut all)) => {
                        all.sort_unstable();
                        all.iter().for_each(|x| h.update(&x.to_le_bytes()[..bytes]));
                    }
                    _ if slot.pinned() => h.update(&got[oi][k].to_le_bytes()[..bytes]),
                    _ => {}
                }
            }
        }
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// The buffer `ptxvec_raw` would write for `vals` over a buffer of [`POISON`] (the
/// inverse of [`decode`]; slots of skipped records and lanes that do not execute
/// keep the poison).
pub fn encode(s: &Suite, vals: &[Option<Values>]) -> Vec<u8> {
    let mut out = vec![POISON; s.launch().out_bytes];
    let contended = s.contention_records();
    for (r, v) in vals.iter().enumerate() {
        let Some(v) = v else { continue };
        // A lane that does not execute writes nothing.
        let writes = |o: Out, l: usize| {
            s.slots(&s.records[r], Profile::Sm90, o).get(l) != Some(&Expectation::NotExecuted)
        };
        match s.exec {
            Execution::Memory { width, lanes, .. } => {
                let (wb, lanes) = ((width / 8) as usize, lanes as usize);
                let block = contended.iter().position(|&x| x == r);
                for (oi, &(o, _)) in s.outputs().iter().enumerate() {
                    for (k, x) in v[oi].iter().enumerate() {
                        if let Some(at) = memory_slot_at(s, r, block, o, k, (wb, lanes)) {
                            out[at..at + wb].copy_from_slice(&x.to_le_bytes()[..wb]);
                        }
                    }
                }
            }
            Execution::Warp => {
                for (oi, (o, _)) in s.outputs().iter().enumerate() {
                    let off = if *o == Out::P { 4 } else { 0 };
                    for (l, x) in v[oi].iter().enumerate().filter(|(l, _)| writes(*o, *l)) {
                        let at = (r * s.threads() + l) * LANE_BYTES + off;
                        out[at..at + 4].copy_from_slice(&x.to_le_bytes()[..4]);
                    }
                }
            }
        }
    }
    out
}
