//! A litmus test as `silicon-litmus` runs it: an id, the oracle's test, and the PTX
//! opcode of every event. The opcodes come with the test because the syntax tables
//! decide how an operation is spelled (`crate::litmus::spelling`).

use ptxvec_oracle::model::Litmus;

/// One test to run: `opcodes[t][e]` is the PTX opcode, with its qualifiers, of
/// event `e` of thread `t` (`ld.relaxed.gpu.global.u32`, `fence.sc.gpu`); the
/// emitter appends the operands ([`super::emit`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Case {
    /// The test's id in the evidence (`MP/rel_acq/gpu/other_ctas`).
    pub id: String,
    /// The test.
    pub test: Litmus,
    /// Each event's opcode, by thread then event.
    pub opcodes: Vec<Vec<String>>,
    /// The test's threads share one warp (the `same_warp` placement), which the
    /// oracle's places cannot say: to the model they share a CTA.
    pub same_warp: bool,
}

impl Case {
    /// Where its threads run, for [`super::plan`].
    pub fn placement(&self) -> Result<super::plan::Placement, String> {
        super::plan::Placement::of(&self.test, self.same_warp)
    }
}
