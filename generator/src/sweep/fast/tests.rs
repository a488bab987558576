use rayon::prelude::*;

use super::*;
use crate::sweep::{Sweep, ROW_PAIRS};
use ptxvec_oracle::memory::Space;

/// Every sweep's kernel at every level this CPU has (each checked on the boundary
/// pairs by `Kernel::new`).
fn kernels(s: &'static Sweep) -> Vec<Kernel> {
    Level::available_all()
        .into_iter()
        .map(|l| Kernel::new(s, l).unwrap_or_else(|e| panic!("{e}")))
        .collect()
}

#[test]
fn every_level_matches_the_oracle_on_whole_boundary_rows() {
    // Each boundary value as the memory against all 65536 operands (and, swapped,
    // as the operand against all memories): zeros, subnormals, the largest
    // subnormal and its carry into the smallest normal, one and its neighbours, the
    // ties of one and of the largest normal, overflow, infinity, quiet, signalling
    // and canonical NaNs, both signs. Results bit for bit, and the row digests.
    let jobs: Vec<(&'static Sweep, Vec<Kernel>, u16)> = Sweep::ALL
        .iter()
        .flat_map(|s| {
            let k = kernels(s);
            boundary_values(s.format())
                .into_iter()
                .map(move |m| (s, k.clone(), m))
        })
        .collect();
    let failures: Vec<String> = jobs
        .par_iter()
        .flat_map_iter(|(s, kernels, mem)| {
            let (s, mem) = (*s, *mem);
            let want: Vec<u32> = (0..ROW_PAIRS as u32)
                .map(|o| s.result(u32::from(mem) << 16 | o).unwrap())
                .collect();
            let want_digest = want.iter().enumerate().fold(0u64, |a, (o, &r)| {
                a.wrapping_add(term(u32::from(mem) << 16 | o as u32, r))
            });
            let mut out = Vec::new();
            let mut got = vec![0u32; ROW];
            for k in kernels {
                let digest = k.row_results(mem, &mut got);
                let wrong: Vec<usize> = (0..ROW).filter(|&o| got[o] != want[o]).collect();
                for &o in wrong.iter().take(4) {
                    out.push(format!(
                        "{} at {}: mem {mem:#06x} operand {o:#06x}: {:#010x}, oracle {:#010x} ({} wrong in the row)",
                        s.name,
                        k.level(),
                        got[o],
                        want[o],
                        wrong.len()
                    ));
                }
                for (what, d) in [("row_results", digest), ("row_digest", k.row_digest(mem))] {
                    if d != want_digest {
                        out.push(format!(
                            "{} at {}: mem {mem:#06x}: {what} digest {d:016x}, oracle {want_digest:016x}",
                            s.name,
                            k.level()
                        ));
                    }
                }
            }
            out
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_level_digests_rows_as_the_scalar_digest_does() {
    // Two ordinary rows per sweep (the boundary test has the special ones), through
    // row_digests (rayon) against the oracle's own row digests.
    for s in Sweep::ALL {
        let want = s.row_digests(0x3c0f..0x3c11).unwrap();
        for k in kernels(s) {
            assert_eq!(
                k.row_digests(0x3c0f..0x3c11),
                want,
                "{} at {}",
                s.name,
                k.level()
            );
        }
    }
}

#[test]
fn every_level_has_the_scalar_floor() {
    for level in Level::available_all() {
        for mem in [0u16, 1, 0x3c00, 0x8000, 0xffff] {
            assert_eq!(
                floor_row_digest(level, mem),
                Some(floor_row_reference(mem)),
                "{level} row {mem:#06x}"
            );
        }
    }
}

#[test]
fn a_kernel_that_disagrees_with_the_oracle_is_refused() {
    // The boundary check names the first pair where the two differ.
    let s = Sweep::find("red.global.v2.bf16.max.noftz").unwrap();
    let k = Kernel::new(s, Level::Portable).unwrap();
    let one = 0x3f80u32;
    let flipped = |p: u32| {
        s.result(p)
            .map(|r| if p == one << 16 | one { r ^ 1 } else { r })
    };
    match k.check_boundary(flipped) {
        Err(FastError::Disagrees {
            pair, fast, oracle, ..
        }) => {
            assert_eq!((pair, fast, oracle ^ 1), (one << 16 | one, fast, fast));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn plans_follow_the_oracle_and_refuse_what_they_cannot_compute() {
    use ptxvec_oracle::memory::Reduction;
    for s in Sweep::ALL {
        let plan = Plan::of(s).unwrap();
        assert_eq!(plan.bf16, s.format() == Format::BF16, "{}", s.name);
        assert_eq!(plan.layout, s.layout, "{}", s.name);
    }
    let base = Sweep::find("red.global.add.noftz.f16").unwrap();
    let with = |reduction: Reduction| Sweep { reduction, ..*base };
    let f32_add = with(Reduction {
        element: Element::Float(Format::F32),
        ..base.reduction
    });
    let generic = with(Reduction {
        space: Space::Generic,
        ..base.reduction
    });
    for (s, why) in [
        (f32_add, "not a 16-bit float"),
        (generic, "a generic address may be either window"),
    ] {
        assert_eq!(
            Plan::of(&s),
            Err(FastError::Unsupported {
                sweep: base.name,
                why
            })
        );
    }
}
