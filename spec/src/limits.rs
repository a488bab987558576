//! The loader's caps. A spec file is small, hand-written YAML (the largest, red.yaml,
//! is about 20 KiB and 300 lines); the caps sit far above that and bound the work a
//! hostile file can cause: every check is linear in the file's size, and a file over
//! a cap is refused with an error that names the cap.

/// The largest spec file read, in bytes. Checked before the file is read.
pub const MAX_FILE_BYTES: u64 = 4 << 20;

/// The longest line of a spec file, in bytes (the longest in spec/ is under 700).
pub const MAX_LINE_BYTES: usize = 64 << 10;

/// The deepest nesting of mappings and sequences (spec/ nests at most 8 deep).
/// yaml-rust2's scanner is quadratic in flow nesting, and serde recurses per level.
pub const MAX_DEPTH: usize = 64;

/// The most YAML nodes a file may hold once its aliases are expanded, each alias
/// counting as the size of its anchored node. spec/ uses anchors to share operand
/// lists, so aliases are allowed; without this cap a few kilobytes of nested aliases
/// ("billion laughs") expand to gigabytes in serde_yaml.
pub const MAX_NODES: u64 = 1_000_000;

/// The most errors reported for one file, and the most parses of it: each error
/// after the first costs a further parse of the file.
pub const MAX_ERRORS_PER_FILE: usize = 32;

/// The most qualifier positions one syntax line may have (spec/'s longest has
/// 11): the judge places a chain's qualifiers with a set of free positions held in
/// one 64-bit word.
pub const MAX_SLOTS: usize = 64;
