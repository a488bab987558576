//! The exported vectors: the semantic records of every variant and their index
//! (`semantic`), the tables beside them (`tables`: rules.json, targets.json), and
//! `generate`, which writes the whole folder.

pub mod semantic;
pub mod tables;
pub mod schemas;
pub mod generate;
