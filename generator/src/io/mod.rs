//! Input and output every stage shares: files written through a temporary name and
//! a rename (`files`), the vectors folder replaced as one (`staging`), gzip read
//! with a cap (`gz`), the longest line a batch command reads (`lines`), the batch
//! commands' loop (`batch`), stdout that reports write errors (`output`),
//! progress bars on stderr (`progress`), and where the vectors are when no
//! `--vectors` names them (`vectors_dir`).

pub mod batch;
pub mod files;
pub mod gz;
pub mod lines;
pub mod output;
pub mod progress;
pub mod staging;
pub mod vectors_dir;
