//! Silicon: runs the vectors on a GPU and records what it did, as evidence files
//! that a machine without a GPU replays against the oracle. Nothing here computes
//! an expected value. The sweeps' runs are the sweep stage's (`crate::sweep::gpu`).
//!
//! - [`vectors`]: `ptxvec silicon`, every semantic variant's self-checking module.
//! - [`probe`]: `ptxvec silicon-probe`, targeted runs behind findings of the errata
//!   ledger (E025's cluster dimensions, E026's NaN bits).
//! - [`litmus`]: `ptxvec silicon-litmus`, litmus tests of the memory model, their
//!   outcome histograms (issue 42).
//! - [`device`]: the CUDA driver (cudarc), and every `unsafe` of the crate's GPU code.
//! - [`evidence`]: `vectors.json`, what `ptxvec silicon` wrote, typed.
//! - [`header`]: the device header every evidence file opens with, and the reader
//!   that keeps it beside a file's body.
//! - [`args`]: the arguments every runner takes (`--out`, `--emit-ptx`).
//! - [`child`]: each run in a child process of its own, with a time limit.

pub mod args;
pub mod child;
pub mod device;
pub mod evidence;
pub mod header;
pub mod litmus;
pub mod probe;
pub mod vectors;
