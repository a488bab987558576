//! The two profiles an expected value is given under.
//!
//! `ptx-isa` is what the document promises: where it leaves bits open ("canonical
//! NaN" without the bits, no word on NaN for a 16-bit `min`), the expectation is a
//! class. `sm_90` is what an H100 does, bit for bit: every choice below is measured,
//! and the evidence under vectors/silicon/sm_90/ is replayed against it by the tests.

/// Which promise an expected value keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Profile {
    /// What the PTX ISA document defines; open choices become classes.
    PtxIsa,
    /// What sm_90 silicon (H100) was measured to produce.
    Sm90,
}

impl Profile {
    /// Both profiles.
    pub const ALL: &'static [Profile] = &[Profile::PtxIsa, Profile::Sm90];

    /// The name used in files: `ptx-isa`, `sm_90`.
    pub fn name(self) -> &'static str {
        match self {
            Profile::PtxIsa => "ptx-isa",
            Profile::Sm90 => "sm_90",
        }
    }
}
