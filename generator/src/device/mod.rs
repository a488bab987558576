//! The device side: PTX written (`ptx`, the one writer; `wrap`, a minimal module
//! around one instruction text), the self-checking module of each semantic
//! variant and the reading of its raw buffers (`selfcheck`), the GPU runs that
//! record evidence (`silicon`), and another engine run through its runner
//! (`engine`).

pub mod ptx;
pub mod wrap;
pub mod selfcheck;
pub mod silicon;
pub mod engine;
