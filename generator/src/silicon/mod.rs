//! Silicon: runs the vectors on a GPU and records what it did, as evidence files
//! that a machine without a GPU replays against the oracle. Nothing here computes
//! an expected value.
//!
//! - [`vectors`]: `ptxvec silicon`, every semantic variant's self-checking module.
//! - [`sweep`]: `ptxvec silicon-sweep`, every pair of the 16-bit memory reductions.
//! - [`wide`]: `ptxvec silicon-sweep-wide`, the f32 and f64 adds over structured sets
//!   of 2^36 and 2^32 pairs.
//! - [`probe`]: `ptxvec silicon-probe`, targeted runs behind findings of the errata
//!   ledger (E025's cluster dimensions, E026's NaN bits).
//! - [`device`]: the CUDA driver (cudarc), and every `unsafe` of the crate's GPU code.
//! - [`evidence`]: `vectors.json`, what `ptxvec silicon` wrote, typed.
//! - [`header`]: the device header every evidence file opens with, and the reader
//!   that keeps it beside a file's body.
//! - [`sweeps`]: the loop and arguments the two sweep subcommands share.
//! - [`args`]: the arguments every runner takes (`--out`, `--emit-ptx`).
//! - [`child`]: each run in a child process of its own, with a time limit.

pub mod args;
pub mod child;
pub mod device;
pub mod evidence;
pub mod header;
pub mod probe;
pub mod sweep;
pub mod sweeps;
pub mod vectors;
pub mod wide;
