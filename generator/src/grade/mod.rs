//! `ptxvec grade`: grades a consumer's results against the vectors, and holds the
//! project's one evaluator of what passes an expectation ([`accept`]).

pub mod accept;
