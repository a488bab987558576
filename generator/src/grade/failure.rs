//! One defect of a result, and the output slot it is at: what the results reader
//! finds (a duplicate id, no result) and the graders add, and the reports show.

use serde::Serialize;

use crate::record::Out;

/// One defect of a result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Failure {
    /// Where and what: `mem[0]: value not accepted`, `no result`, `duplicate id`.
    pub what: String,
    /// What the vectors expect there (an expectation as the files write it, a verdict).
    pub expected: String,
    /// What the result holds there.
    pub got: String,
    /// The output slot it is at, where it is one slot's (`d[3]` is lane 3 of a
    /// warp).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slot: Option<Slot>,
}

/// One slot of a record's outputs: element `index` of `mem`, or lane `index` of `d`
/// or `p`. Written `{"output": "d", "index": 3}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot {
    /// The output.
    pub output: Out,
    /// The element or lane.
    pub index: usize,
}

impl Serialize for Slot {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut m = s.serialize_struct("Slot", 2)?;
        m.serialize_field("output", self.output.name())?;
        m.serialize_field("index", &self.index)?;
        m.end()
    }
}

