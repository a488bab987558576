//! `activemask`: PTX ISA 9.7.13.11, seed 004 (condensed, PTX ISA 9.1).
//!
//! ```text
//! activemask.b32  d;
//! ```

use super::{bit, Lane, PerLane};

/// `activemask.b32 d`: every executing lane gets the mask of executing lanes.
///
/// Seed 004: "Active, predicated-on threads contribute 1; exited, inactive, or
/// predicated-off threads contribute 0." There is no `membermask`, so no lane is
/// undefined.
///
/// The doc also says it is "Not a synchronization point; merely reads current
/// execution mask": which lanes run an `activemask` together is up to the scheduler
/// on sm_70 and later (after a divergent branch they need not have reconverged).
/// `executing` is that set as it happened; a vector must not assume a set of lanes
/// runs together unless the program forces it.
pub fn activemask(executing: u32) -> PerLane<u32> {
    std::array::from_fn(|lane| {
        if bit(executing, lane) {
            Lane::Value(executing)
        } else {
            Lane::NotExecuted
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_worked_masks() {
        // (executing, lane, expected)
        let cases: &[(u32, usize, Lane<u32>)] = &[
            (u32::MAX, 0, Lane::Value(u32::MAX)),
            (u32::MAX, 31, Lane::Value(u32::MAX)),
            // "exited, inactive, or predicated-off threads contribute 0"
            (0x0000_00f0, 4, Lane::Value(0xf0)),
            (0x0000_00f0, 3, Lane::NotExecuted),
            (0x8000_0001, 31, Lane::Value(0x8000_0001)),
            (0x8000_0001, 30, Lane::NotExecuted),
            (0, 0, Lane::NotExecuted),
        ];
        for &(executing, lane, want) in cases {
            assert_eq!(
                activemask(executing)[lane],
                want,
                "executing {executing:#x} lane {lane}"
            );
        }
    }

    #[test]
    fn every_executing_lane_sees_its_own_bit() {
        for executing in [1u32, 0xdead_beef, 0x5555_5555, u32::MAX] {
            let out = activemask(executing);
            for (lane, got) in out.iter().enumerate() {
                match *got {
                    Lane::Value(d) => {
                        assert!(bit(d, lane) && d == executing, "{executing:#x} lane {lane}")
                    }
                    _ => assert!(!bit(executing, lane), "{executing:#x} lane {lane}"),
                }
            }
        }
    }
}
