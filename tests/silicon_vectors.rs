//! The self-checking modules of the semantic vectors, and the sm_90 silicon
//! evidence of `ptxvec silicon` (vectors/silicon/sm_90/vectors.json) replayed
//! without a GPU: the current sm_90 expectations must rebuild the digest of what
//! silicon wrote, and each profile must match as many records as it did.

use std::collections::{BTreeMap, BTreeSet};

use ptxvec_generator::record::{Bits, Expectation, Inputs, Out};
use ptxvec_generator::device::selfcheck::emit::{module, Entries};
use ptxvec_generator::device::selfcheck::{self, raw, Suite, Window};
use ptxvec_generator::device::silicon::{evidence, vectors};
use ptxvec_oracle::profile::Profile;
use rayon::prelude::*;

use crate::spec_root;
use crate::support::{assert_exit, file_names, ptxvec, repo_root, spec, stderr, stdout, vectors_root};

fn suites() -> Vec<Suite> {
    let spec = spec();
    selfcheck::index(&vectors_root())
        .unwrap()
        .iter()
        .map(|e| selfcheck::load(&spec, e, &vectors_root()).unwrap())
        .collect()
}

#[test]
#[cfg_attr(
    not(ptxas),
    ignore = "needs ptxas: set PTXVEC_PTXAS (bash .ci/run does)"
)]
fn every_sm_90_variant_module_assembles_with_ptxas() {
    let ptxas = ptxvec_generator::ptxas::from_env("PTXVEC_PTXAS").unwrap_or_else(|e| panic!("{e}"));
    let dir = tempfile::tempdir().unwrap();
    let suites: Vec<Suite> = suites().iter().flat_map(Suite::runs).collect();
    let mut jobs = Vec::new();
    for s in &suites {
        let Some((ptx, target)) = s.module_for((9, 0)) else {
            continue;
        };
        // Assembled for the device it runs on: a module of an older target (the
        // non-sync forms' `.target sm_70`) is compiled for sm_90 by the driver.
        let arch = if target.ends_with('a') { target.clone() } else { "sm_90".to_owned() };
        for entries in [Entries::Both, Entries::Raw] {
            jobs.push((s, ptx.clone(), target.clone(), arch.clone(), entries));
        }
    }
    assert!(jobs.len() >= 180, "only {} modules", jobs.len());
    // On rayon's pool: some 900 ptxas runs, the longest of this binary's tests, which
    // otherwise runs last on one core. PTXVEC_SHARD=K/N (.ci/run's daily share) takes
    // the modules n % N == K; unset, every module.
    let shard = crate::support::shard(jobs.len() as u64);
    let failures: Vec<String> = jobs
        .par_iter()
        .enumerate()
        .filter(|(n, _)| shard.contains(*n as u64))
        .filter_map(|(n, (s, ptx, target, arch, entries))| {
            let text = module(s, ptx, target, *entries);
            ptxvec_generator::ptxas::assemble_module(&ptxas, arch, &text, dir.path(), &n.to_string())
                .err()
                .map(|e| format!("{} ({entries:?}): {e}", s.id))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Outputs that keep the sm_90 expectation: exact bits where it pins them, for
/// classes a value the class accepts, and the poison in a lane that does not
/// execute (it writes nothing); an atom contention record's threads after its own
/// `d`, thread t finding the permutation's entry t.
fn sm_90_outputs(s: &Suite) -> Vec<Option<raw::Values>> {
    let contended = s.contention_records();
    s.records
        .iter()
        .enumerate()
        .map(|(i, r)| {
            (!selfcheck::skipped(r)).then(|| {
                s.outputs()
                    .iter()
                    .map(|(o, _)| {
                        let slots = s.slots(r, Profile::Sm90, *o);
                        let value = |x: &Expectation, t: usize| match x {
                            Expectation::Exact(b) => b.value,
                            Expectation::OneOf { bits, .. } => bits[0].value,
                            Expectation::Permutation(bits) => bits[t].value,
                            Expectation::NotExecuted => raw::poison_word(raw::slot_bytes(s, *o)),
                            _ => 0x7fc0_0000,
                        };
                        let mut v: Vec<u64> = slots.iter().map(|x| value(x, 0)).collect();
                        if *o == Out::D && contended.contains(&i) && s.threads_d_offset().is_some() {
                            v.extend((0..32).flat_map(|t| slots.iter().map(move |x| (x, t))).map(|(x, t)| value(x, t)));
                        }
                        v
                    })
                    .collect()
            })
        })
        .collect()
}

/// The first pinned sm_90 slot of a suite: (record, output, slot).
fn first_pinned(s: &Suite) -> (usize, usize, usize) {
    for (r, rec) in s.records.iter().enumerate() {
        for (oi, (o, _)) in s.outputs().iter().enumerate() {
            if let Some(k) = s
                .slots(rec, Profile::Sm90, *o)
                .iter()
                .position(|x| x.exact().is_some())
            {
                if !selfcheck::skipped(rec) {
                    return (r, oi, k);
                }
            }
        }
    }
    panic!("{}: no pinned slot", s.id)
}

/// The CPU's judgement of raw buffers: outputs that keep every expectation match
/// every record run; one flipped bit in a pinned slot is exactly one sm_90
/// mismatch, named by record and slot; and the evidence of the clean buffer
/// replays, while an oracle that changes one pinned bit no longer rebuilds it.
#[test]
fn raw_buffers_are_judged_and_replayed_slot_by_slot() {
    for (id, window) in [
        ("red.global.add.f32", Window::Global),
        ("shfl.sync.up.b32", Window::Global),
        ("match.all.sync.b64", Window::Global),
        ("red.add.noftz.v4.bf16", Window::Global),
        ("red.add.f64", Window::Shared),
        (
            "cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u32",
            Window::Global,
        ),
        ("atom.add.u32", Window::Shared),
        ("atom.cas.b128", Window::Global),
    ] {
        let s = suites().into_iter().find(|s| s.id == id).unwrap();
        let mut s = s.in_window(window).unwrap();
        let (p, t) = s.module_for((9, 0)).unwrap();
        let vals = sm_90_outputs(&s);
        let bytes = raw::encode(&s, &vals);
        assert_eq!(
            raw::decode(&s, &bytes),
            vals,
            "{id}: decode(encode(x)) != x"
        );
        let e = vectors::evaluate(&s, &p, &t, &bytes, &[]);
        assert_eq!(e.matched("sm_90"), s.run_count(), "{id}: {e:?}");
        assert!(
            vectors::replay(&e, &s).is_empty(),
            "{id}: {:?}",
            vectors::replay(&e, &s)
        );
        // One flipped bit of silicon's output: one mismatch, at that slot.
        let (r, oi, k) = first_pinned(&s);
        let mut flipped = vals.clone();
        flipped[r].as_mut().unwrap()[oi][k] ^= 1;
        let bad = vectors::evaluate(&s, &p, &t, &raw::encode(&s, &flipped), &[]);
        assert_eq!(bad.mismatched("sm_90"), 1, "{id}: {bad:?}");
        let named = &bad.sm_90_mismatches.as_ref().unwrap()[0];
        assert_eq!(named.id, s.records[r].id, "{id}: {bad:?}");
        assert_eq!(
            named.out,
            format!("{}[{k}]", s.outputs()[oi].0.name()),
            "{id}: {bad:?}"
        );
        // An oracle that changes one pinned sm_90 bit no longer rebuilds the digest.
        let out = s.outputs()[oi].0;
        let rec = &mut s.records[r];
        let mut changed = rec.expected(Profile::Sm90).unwrap().clone();
        let slots = match out {
            Out::Mem => changed.mem.as_mut(),
            Out::D => changed.d.as_mut(),
            Out::P => changed.p.as_mut(),
        }
        .unwrap();
        if let Expectation::Exact(b) = &mut slots[k] {
            b.value ^= 1;
        }
        rec.expect.insert(Profile::Sm90, changed);
        let problems = vectors::replay(&e, &s);
        assert!(
            problems.iter().any(|p| p.contains("no longer rebuild")),
            "{id}: {problems:?}"
        );
    }
}

/// An atom contention record's threads judged together: the values in any other
/// order of the threads keep the record and its digest; one thread finding what
/// another found (the list no longer taken once each) fails the record at that
/// `d` slot, and its replay keeps every thread's value.
#[test]
fn contending_threads_are_judged_as_a_permutation() {
    for id in ["atom.add.u32", "atom.cas.b32", "atom.exch.b128"] {
        let s = suites().into_iter().find(|s| s.id == id).unwrap();
        let s = s.in_window(Window::Global).unwrap_or(s);
        let (p, t) = s.module_for((9, 0)).unwrap();
        let vals = sm_90_outputs(&s);
        let contended = s.contention_records();
        assert_eq!(contended.len(), 2, "{id}");
        let r = contended[0];
        let d = s.outputs().iter().position(|(o, _)| *o == Out::D).unwrap();
        let elements = s.slots(&s.records[r], Profile::Sm90, Out::D).len();
        let clean = vectors::evaluate(&s, &p, &t, &raw::encode(&s, &vals), &[]);
        assert_eq!(clean.matched("sm_90"), s.run_count(), "{id}: {clean:?}");
        // The threads in reverse order: the same multiset.
        let mut reversed = vals.clone();
        let v = &mut reversed[r].as_mut().unwrap()[d];
        let threads: Vec<Vec<u64>> = v[elements..].chunks(elements).map(<[u64]>::to_vec).collect();
        v.truncate(elements);
        v.extend(threads.iter().rev().flatten());
        assert_ne!(reversed, vals, "{id}: the threads found one value alone");
        let again = vectors::evaluate(&s, &p, &t, &raw::encode(&s, &reversed), &[]);
        assert_eq!(again.matched("sm_90"), s.run_count(), "{id}: {again:?}");
        assert_eq!(again.raw_sha256, clean.raw_sha256, "{id}");
        // Thread 1 finds what thread 0 found, where the list has them differ.
        let mut doubled = vals.clone();
        let v = &mut doubled[r].as_mut().unwrap()[d];
        let k = (0..elements).find(|&k| v[elements + k] != v[2 * elements + k]).unwrap();
        v[2 * elements + k] = v[elements + k];
        let bad = vectors::evaluate(&s, &p, &t, &raw::encode(&s, &doubled), &[]);
        assert_eq!(bad.mismatched("sm_90"), 1, "{id}: {bad:?}");
        let named = &bad.sm_90_mismatches.as_ref().unwrap()[0];
        assert_eq!((named.id.as_str(), named.out.clone()), (s.records[r].id.as_str(), format!("d[{k}]")), "{id}");
        assert!(vectors::replay(&bad, &s).is_empty(), "{id}: {:?}", vectors::replay(&bad, &s));
        assert_ne!(bad.raw_sha256, clean.raw_sha256, "{id}");
    }
}

#[test]
fn sm_90_silicon_evidence_replays() {
    let path = vectors_root().join("silicon/sm_90").join(vectors::FILE);
    let text = std::fs::read_to_string(&path).unwrap();
    let ev = evidence::parse(&text).unwrap();
    assert_eq!(ev.header.format, vectors::FORMAT);
    let all = suites();
    let mut problems = Vec::new();
    let (mut ran, mut records, mut sm90_mismatches) = (0, 0, 0);
    for e in &ev.variants {
        let id = e.variant.as_str();
        let s = all
            .iter()
            .find(|s| s.id == id)
            .unwrap_or_else(|| panic!("{id}: not among the vectors"));
        let window = match e.window.as_deref() {
            None => Window::Global,
            Some(w) => *Window::ALL
                .iter()
                .find(|x| x.name() == w)
                .unwrap_or_else(|| panic!("{id}: unknown window {w}")),
        };
        let s = &s.in_window(window).unwrap();
        assert_eq!(e.window.as_deref(), s.window(), "{id}: window");
        if e.not_run.is_some() {
            assert!(
                s.module_for((9, 0)).is_none(),
                "{id}: runs on sm_90 but was not run"
            );
            continue;
        }
        assert!(e.error.is_none(), "{id}: {:?}", e.error);
        assert_eq!(
            e.selfcheck.as_deref(),
            Some(vectors::AGREES),
            "{id}: the device's self-check disagrees with the raw outputs"
        );
        problems.extend(vectors::replay(e, s));
        ran += 1;
        records += e.run.unwrap();
        sm90_mismatches += e.mismatched("sm_90");
    }
    // Every variant that sm_90 can execute has evidence, a generic one in each of
    // its windows.
    for s in all.iter().flat_map(Suite::runs) {
        if s.module_for((9, 0)).is_some() {
            assert!(
                ev.variants
                    .iter()
                    .any(|e| e.variant == s.id && e.window.as_deref() == s.window()),
                "{} ({:?}): no evidence",
                s.id,
                s.window()
            );
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // Where silicon differs from the document (the ptx-isa profile), the errata
    // ledger says so, as for the probe evidence.
    let spec = spec();
    let ledgered: Vec<String> = spec
        .errata
        .errata
        .iter()
        .flat_map(|e| e.disagreements.iter().cloned())
        .collect();
    for e in &ev.variants {
        if e.mismatched("ptx-isa") > 0 {
            let key = format!("silicon:sm_90:{}", e.variant);
            assert!(
                ledgered.contains(&key),
                "{key}: silicon differs from the document outside the ledger: {:?}",
                e.ptx_isa_examples
            );
        }
    }
    println!("silicon vectors: {ran} variants, {records} records replayed, {sm90_mismatches} sm_90 mismatches recorded");
}

/// The sm_90 profile lets a scalar generic f32/f64 add be either window's result;
/// silicon must have written, in each window, exactly what the named state space
/// computes (`red.global` in the global windows, `red.shared` in the shared ones;
/// the `-space` windows are those spellings themselves).
#[test]
fn generic_adds_compute_as_the_space_their_window_points_into() {
    use ptxvec_oracle::float::Format;
    use ptxvec_oracle::memory::{Element, Engine, Op, Reduction, Space};
    use ptxvec_oracle::memory::sm90;
    let path = vectors_root().join("silicon/sm_90").join(vectors::FILE);
    let ev = evidence::parse(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let all = suites();
    let mut checked = 0;
    for (id, fmt) in [("red.add.f32", Format::F32), ("red.add.f64", Format::F64)] {
        let s = all.iter().find(|s| s.id == id).unwrap();
        for (window, space) in [
            (Window::Global, Space::Global),
            (Window::Shared, Space::SharedCta),
            (Window::GlobalSpace, Space::Global),
            (Window::SharedSpace, Space::SharedCta),
        ] {
            let s = s.in_window(window).unwrap();
            let e = ev
                .variants
                .iter()
                .find(|e| e.variant == id && e.window.as_deref() == s.window())
                .unwrap_or_else(|| panic!("{id} {window:?}: no evidence"));
            let r = Reduction {
                engine: Engine::RED,
                space,
                op: Op::Add,
                element: Element::Float(fmt),
                lanes: 1,
                packed: false,
                noftz: false,
            };
            let pinned_or_kept = |rec: usize| -> u64 {
                let id = &s.records[rec].id;
                let kept = e.unpinned.iter().flatten().find(|u| u.0 == *id);
                match (kept, &s.slots(&s.records[rec], Profile::Sm90, Out::Mem)[0]) {
                    (Some(u), _) => Bits::parse(&u.2).unwrap().value,
                    (None, Expectation::Exact(b)) => b.value,
                    (None, x) => panic!("{id}: {x:?} is neither pinned nor kept"),
                }
            };
            for (i, rec) in s.records.iter().enumerate() {
                let Inputs::Memory { mem, slots } = &rec.inputs else {
                    continue;
                };
                let want = sm90::add(&r, fmt, mem[0].value, slots.get("operand").unwrap()[0].value);
                assert_eq!(
                    pinned_or_kept(i),
                    want,
                    "{} {window:?}: silicon differs from {space:?}",
                    rec.id
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 3000, "only {checked} records");
}

/// The launch shapes of vectors/silicon/README.md ("Self-checking modules"):
/// ceil(records / 128) blocks of one thread per record, rounded up to whole
/// clusters of two for the `.shared::cluster` bulk form, then one block per
/// contention record; `out` covers the record blocks only.
#[test]
fn launch_shapes_add_contention_blocks_and_whole_clusters() {
    use ptxvec_generator::device::selfcheck::emit::Launch;
    let all = suites();
    let shape = |id: &str| {
        let s = all.iter().find(|s| s.id == id).unwrap();
        (s.launch(), s.contention_records().len())
    };
    // 34 records, the last 2 contention: 1 + 2 blocks, 128 × 4 bytes.
    let (l, c) = shape("red.add.u32");
    assert_eq!(c, 2);
    assert_eq!(
        l,
        Launch {
            grid: 3,
            block: 128,
            out_bytes: 512,
            result_bytes: 144
        }
    );
    // 694 f64 records (2 contention): 6 + 2 blocks, 6 × 128 × 8 bytes.
    let (l, _) = shape("red.shared.add.f64");
    assert_eq!((l.grid, l.out_bytes), (8, 6144));
    // 32 records fit one block; a cluster needs two.
    let (l, c) = shape(
        "cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u32",
    );
    assert_eq!(c, 0);
    assert_eq!((l.grid, l.out_bytes), (2, 1024));
    // Windows keep the shape; a scalar generic variant has all four, a generic
    // vector the global two (the document's rule), a named space none.
    let s = all.iter().find(|s| s.id == "red.add.u32").unwrap();
    assert_eq!(s.windows(), Window::ALL);
    for w in Window::ALL {
        assert_eq!(s.in_window(w).unwrap().launch(), s.launch(), "{w:?}");
    }
    assert_eq!(
        s.in_window(Window::SharedSpace).unwrap().opcode,
        "red.shared.add.u32"
    );
    assert_eq!(
        s.in_window(Window::GlobalSpace).unwrap().opcode,
        "red.global.add.u32"
    );
    let v = all.iter().find(|s| s.id == "red.add.noftz.v2.f16").unwrap();
    assert_eq!(v.windows(), [Window::Global, Window::GlobalSpace]);
    assert_eq!(
        v.in_window(Window::GlobalSpace).unwrap().opcode,
        "red.global.add.noftz.v2.f16"
    );
    for id in [
        "red.global.add.f32",
        "red.shared.add.f32",
        "shfl.sync.idx.b32",
    ] {
        let s = all.iter().find(|s| s.id == id).unwrap();
        assert!(s.windows().is_empty(), "{id}");
        assert!(s.in_window(Window::Shared).is_err(), "{id}");
        assert!(s.in_window(Window::Global).is_ok(), "{id}");
    }
    assert!(v.in_window(Window::Shared).is_err());
}

/// The poison a runner fills the raw buffer with is no value any record expects
/// exactly, in either profile, at its slot's width: a slot that still holds it was
/// never written, whatever the record (`grade --raw` says so).
#[test]
fn no_expectation_is_the_poison() {
    let mut slots = 0;
    for s in suites() {
        for r in &s.records {
            for p in Profile::ALL {
                for (o, _) in s.outputs() {
                    let poison = raw::poison_word(raw::slot_bytes(&s, o));
                    for (k, x) in s.slots(r, *p, o).iter().enumerate() {
                        let values: Vec<u64> = match x {
                            Expectation::Exact(b) => vec![b.value],
                            Expectation::OneOf { bits, .. } => bits.iter().map(|b| b.value).collect(),
                            _ => continue,
                        };
                        slots += 1;
                        assert!(
                            !values.contains(&poison),
                            "{} {}[{k}] ({}) expects the poison {poison:#x}",
                            r.id,
                            o.name(),
                            p.name()
                        );
                    }
                }
            }
        }
    }
    assert!(slots > 100_000, "only {slots} slots");
}

/// `grade --raw` against the poison: an executing lane's slot that still holds it
/// is "not written", a lane that does not execute and wrote is "written by a lane
/// that does not execute"; neither is reported as a value not accepted.
#[test]
fn raw_grading_reads_the_poison() {
    let s = suites().into_iter().find(|s| s.id == "vote.sync.ballot.b32").unwrap();
    let vals = sm_90_outputs(&s);
    // A record with a lane that does not execute, and one that executes.
    let (r, idle, busy) = s
        .records
        .iter()
        .enumerate()
        .filter(|(_, rec)| !selfcheck::skipped(rec))
        .find_map(|(r, rec)| {
            let slots = s.slots(rec, Profile::Sm90, Out::D);
            let idle = slots.iter().position(|x| *x == Expectation::NotExecuted)?;
            let busy = slots.iter().position(|x| x.exact().is_some())?;
            Some((r, idle, busy))
        })
        .unwrap();
    let mut bytes = raw::encode(&s, &vals);
    let lane = |l: usize| (r * 32 + l) * 8;
    bytes[lane(busy)..lane(busy) + 4].copy_from_slice(&[raw::POISON; 4]);
    bytes[lane(idle)..lane(idle) + 4].copy_from_slice(&[0; 4]);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("vote.sync.ballot.b32.bin"), &bytes).unwrap();
    let out = ptxvec()
        .args(["grade", "--profile", "sm_90", "--raw"])
        .arg(dir.path())
        .arg("--vectors")
        .arg(vectors_root())
        .arg("--spec")
        .arg(spec_root())
        .output()
        .unwrap();
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let id = &s.records[r].id;
    assert!(
        text.contains(&format!("d[{busy}]: not written (the slot still holds the poison byte 0xa5")),
        "{text}"
    );
    assert!(text.contains(&format!("d[{idle}]: written by a lane that does not execute")), "{text}");
    assert!(text.contains(id.as_str()), "{text}");
    assert!(!text.contains("value not accepted"), "{text}");
}

/// `emit-ptx --variant --ptx --target` lowers a module as far as its records'
/// requirement and no further: every variant's module (each window, both
/// entries) assembles at each requirement a ptxas here takes (sm_50 and up: CUDA
/// 12.9 below sm_75, 13.5 from it), and a module below it is refused.
#[test]
#[cfg_attr(
    not(ptxas),
    ignore = "needs ptxas: set PTXVEC_PTXAS and PTXVEC_PTXAS_CU12 (bash .ci/run does)"
)]
fn modules_lower_to_their_records_requirement() {
    let new = ptxvec_generator::ptxas::from_env("PTXVEC_PTXAS").unwrap_or_else(|e| panic!("{e}"));
    let old = ptxvec_generator::ptxas::from_env("PTXVEC_PTXAS_CU12").unwrap_or_else(|e| panic!("{e}"));
    let model = spec().targets;
    let dir = tempfile::tempdir().unwrap();
    let suites: Vec<Suite> = suites().iter().flat_map(Suite::runs).collect();
    let mut jobs = Vec::new();
    for s in &suites {
        for (p, t) in &s.requires {
            let arch: u32 = t[3..].trim_end_matches(['a', 'f']).parse().unwrap();
            if arch < 50 {
                continue;
            }
            assert!(s.allows(&model, p, t), "{}: its own requirement {t} {p}", s.id);
            jobs.push((s, p, t, if arch >= 75 { &new } else { &old }));
        }
    }
    assert!(jobs.len() >= 140, "only {} modules", jobs.len());
    // PTXVEC_SHARD=K/N takes the modules n % N == K, as above.
    let shard = crate::support::shard(jobs.len() as u64);
    let failures: Vec<String> = jobs
        .par_iter()
        .enumerate()
        .filter(|(n, _)| shard.contains(*n as u64))
        .filter_map(|(n, (s, p, t, ptxas))| {
            let m = module(s, p, t, Entries::Both);
            ptxvec_generator::ptxas::assemble_module(ptxas, t, &m, dir.path(), &n.to_string())
                .err()
                .map(|e| format!("{} {:?} at {t} PTX {p}: {e}", s.id, s.window()))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// That `suite` allows a module of `.version ptx` and `.target target` exactly when
/// `ok` says.
fn assert_allows(suite: &Suite, model: &ptxvec_spec::TargetModel, ptx: &str, target: &str, ok: bool) {
    assert_eq!(suite.allows(model, ptx, target), ok, "{} at {target} {ptx}", suite.id);
}

/// What a lowered module must meet (PTX ISA, "Target ISA notes" of each
/// instruction): redux.sync's integer forms need sm_80 and PTX 7.0; its `.f32`
/// forms sm_100a with PTX 8.6 or the sm_100f family with PTX 8.8.
#[test]
fn lowering_stops_at_the_requirement() {
    let model = spec().targets;
    let all = suites();
    let int = all.iter().find(|s| s.id == "redux.sync.add.u32").unwrap();
    for (ptx, target, ok) in [
        ("7.0", "sm_80", true),
        ("8.0", "sm_90a", true),
        ("6.5", "sm_80", false),
        ("7.0", "sm_75", false),
        ("x", "sm_80", false),
        ("7.0", "gfx90", false),
    ] {
        assert_allows(int, &model, ptx, target, ok);
    }
    let f32 = all.iter().find(|s| s.id == "redux.sync.min.f32").unwrap();
    for (ptx, target, ok) in [
        ("8.6", "sm_100a", true),
        ("8.8", "sm_100f", true),
        ("8.8", "sm_103f", true),
        ("8.8", "sm_103a", true),
        ("8.6", "sm_100", false),
        ("8.8", "sm_103", false),
        ("8.6", "sm_100f", false),
        ("8.8", "sm_120f", false),
    ] {
        assert_allows(f32, &model, ptx, target, ok);
    }
    let o = ptxvec()
        .current_dir(repo_root())
        .args(["emit-ptx", "--variant", "redux.sync.add.u32", "--raw", "--target", "sm_75", "--ptx", "7.0"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("is below what its records require (sm_80 with PTX 7.0)"));
    // The non-sync vote: PTX ISA 1.2 with sm_12, until "removed in PTX ISA version
    // 6.4 for `.target` `sm_70` or higher" (PTX ISA 9.1, 9.7.13.8).
    let vote = all.iter().find(|s| s.id == "vote.all.pred").unwrap();
    for (ptx, target, ok) in [
        ("6.3", "sm_70", true),
        ("6.3", "sm_75", true),
        ("9.5", "sm_60", true),
        ("1.2", "sm_12", true),
        ("1.1", "sm_12", false),
        ("6.4", "sm_70", false),
        ("7.8", "sm_90", false),
        ("8.0", "sm_90a", false),
    ] {
        assert_allows(vote, &model, ptx, target, ok);
    }
    assert_eq!(vote.module_for((9, 0)), Some(("6.3".to_owned(), "sm_70".to_owned())));
    let o = ptxvec()
        .current_dir(repo_root())
        .args(["emit-ptx", "--variant", "vote.all.pred", "--raw", "--target", "sm_90", "--ptx", "7.8"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("is past its withdrawal (PTX ISA 6.4 on .target sm_70 and later)"));
}

/// Every run's module is ASCII, comments included: the CUDA 13.0 driver's JIT refuses
/// a module with any other byte ("a PTX JIT compilation failed"), as ptxas 12.9 does
/// ("Unexpected non-ASCII character"), though ptxas 13.5 takes it. A `×` in a
/// comment once kept `bar.red`'s modules off the H200. Each run's first records stand
/// for all of them: the text around the data does not depend on the count.
#[test]
fn every_module_is_ascii() {
    let runs: Vec<Suite> = suites().iter().flat_map(Suite::runs).collect();
    let bad: Vec<String> = runs
        .par_iter()
        .flat_map(|s| {
            let mut s = s.clone();
            s.records.truncate(3);
            let (ptx, target) = s.requires[0].clone();
            [Entries::Both, Entries::Raw].map(|entries| {
                let text = module(&s, &ptx, &target, entries);
                let line = text.lines().position(|l| !l.is_ascii()).map(|n| n + 1);
                line.map(|n| format!("{} ({entries:?}): line {n}: {}", s.id, text.lines().nth(n - 1).unwrap()))
            })
        })
        .flatten()
        .collect();
    assert!(runs.len() >= 180, "only {} runs", runs.len());
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// `silicon --emit-ptx` writes each run's module without a GPU: one file for a
/// variant without windows, one per window for a generic `red`, each the module
/// `emit-ptx --variant` writes.
#[test]
fn silicon_emits_every_run_module_without_a_gpu() {
    let dir = tempfile::tempdir().unwrap();
    let out = ptxvec()
        .args(["silicon", "--out", "unused", "--variant", "red.add.u32", "--variant", "vote.sync.ballot.b32", "--emit-ptx"])
        .arg(dir.path())
        .current_dir(repo_root())
        .output()
        .unwrap();
    assert_exit(&out, 0);
    let names = file_names(dir.path());
    let spec = spec();
    let windows: Vec<&str> = Window::ALL.iter().map(|w| w.name()).collect();
    let mut want: Vec<String> = windows.iter().map(|w| format!("red.add.u32.{w}.ptx")).collect();
    want.push("vote.sync.ballot.b32.ptx".into());
    want.sort();
    assert_eq!(names, want);
    let cases = [
        ("red.add.u32.shared.ptx", "red.add.u32", Window::Shared),
        ("vote.sync.ballot.b32.ptx", "vote.sync.ballot.b32", Window::Global),
    ];
    for (file, id, window) in cases {
        let req = vectors::VariantModule {
            vectors: &vectors_root(),
            id,
            raw_only: false,
            window,
            ptx: None,
            target: None,
            records: None,
        };
        let text = std::fs::read_to_string(dir.path().join(file)).unwrap();
        assert_eq!(text, vectors::emit(&spec, req).unwrap(), "{file}");
    }
}

/// The runners' command lines as README.md and vectors/silicon/README.md give
/// them: each parses, and the shared arguments (`silicon::args`) land where the
/// subcommand reads them.
#[test]
fn the_documented_runner_command_lines_parse() {
    use clap::Parser;
    use ptxvec_generator::cmd::cli::{Cli, Command};
    let documented = [
        "ptxvec silicon --out DIR --raw-out DIR2",
        "ptxvec silicon --out /tmp/x --variant red.add.f32",
        "ptxvec silicon --out /tmp/x --emit-ptx /tmp/modules",
        "ptxvec silicon-sweep --out DIR --sweep red.global.add.noftz.f16 --emit-ptx DIR",
        "ptxvec silicon-sweep-wide --out DIR --sweep red.global.add.f32 --emit-ptx DIR",
        "ptxvec silicon-probe --out DIR --probe cluster --probe nan --emit-ptx DIR",
        "ptxvec run-engine --runner PROGRAM --runner-arg=--api --runner-arg runtime --engine NAME --out DIR --variant ID --cc 9.0 --timeout 60",
        "ptxvec merge-runs DIR1 DIR2 --out DIR --engine NAME",
    ];
    for line in documented {
        let cli = Cli::try_parse_from(line.split(' ')).unwrap_or_else(|e| panic!("{line}: {e}"));
        let out = match &cli.command {
            Command::Silicon(a) => &a.runner.out,
            Command::SiliconSweep(a) | Command::SiliconSweepWide(a) => &a.runner.out,
            Command::SiliconProbe(a) => &a.runner.out,
            Command::RunEngine(a) => &a.out,
            Command::MergeRuns(a) => &a.out,
            other => panic!("{line}: parsed as {other:?}"),
        };
        assert!(line.contains(&format!("--out {}", out.display())), "{line}: --out read as {}", out.display());
    }
    // The hidden child flags stay as the runners start their children.
    let probe = Cli::try_parse_from(["ptxvec", "silicon-probe", "--out", "o", "--child", "v", "--shape", "nan-relaid"]).unwrap();
    assert!(matches!(probe.command, Command::SiliconProbe(a) if a.runner.child.as_deref() == Some("v")));
    assert!(Cli::try_parse_from(["ptxvec", "silicon-probe", "--out", "o", "--shape", "nan-relaid"]).is_err(), "--shape without --child");
}

/// A window that spells a state space runs the text of the variant stated in that
/// space (`atom.add.f32` in `global-space` runs `atom.global.add.f32`), so it is
/// graded as that variant is: every record whose inputs a record of the spelled
/// variant also has expects what that record expects. For `atom.add.f32` and
/// `red.add.f32` that changes something: the document flushes a subnormal f32 add
/// on global memory and leaves it open for a generic address (PTX ISA 9.7.13.5,
/// 9.7.13.6).
#[test]
fn a_window_that_spells_a_space_is_graded_as_that_spelling() {
    let all = suites();
    let by_id: BTreeMap<&str, &Suite> = all.iter().map(|s| (s.id.as_str(), s)).collect();
    let mut compared = 0;
    let mut changed = BTreeSet::new();
    for s in &all {
        for w in [Window::GlobalSpace, Window::SharedSpace] {
            let Ok(spelled) = s.in_window(w) else { continue };
            let Some(own) = by_id.get(spelled.opcode.as_str()) else { continue };
            let inputs: BTreeMap<String, &ptxvec_generator::record::Record> =
                own.records.iter().map(|r| (serde_json::to_string(&r.inputs).unwrap(), r)).collect();
            for (generic, r) in s.records.iter().zip(&spelled.records) {
                let Some(o) = inputs.get(&serde_json::to_string(&r.inputs).unwrap()) else { continue };
                assert_eq!(r.expect, o.expect, "{} in {} against {}", r.id, w.name(), o.id);
                compared += 1;
                if generic.expect != r.expect {
                    changed.insert(s.id.clone());
                }
            }
        }
    }
    assert!(compared > 1000, "{compared} records compared");
    for id in ["atom.add.f32", "red.add.f32"] {
        assert!(changed.contains(id), "{id}'s global-space window expects as the generic variant: {changed:?}");
    }
}
