//! The batch commands' bound on a line (`check-syntax -`, `eval`): each line is
//! read as bytes (invalid UTF-8 is the caller's to answer), at most
//! [`MAX_LINE_BYTES`] of it, and the rest of a longer line is skipped without
//! being kept (`/dev/zero` is one endless line; `batch::read` does both).

/// The longest line a batch command reads, in bytes. A longer line is answered with
/// an error record.
pub const MAX_LINE_BYTES: usize = 1 << 20;
