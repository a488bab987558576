//! Where the loader reads the spec's files: a folder on disk (`--spec DIR`), or
//! the copy of the repository's `spec/` built into the crate (spec/build.rs).
//! [`crate::Spec::load_from`] reads both through these two calls, so that an
//! embedded file is held to the same caps and checks as a file on disk, and its
//! errors read the same, naming it by its repository path
//! (`spec/instructions/red.yaml`).

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::error::SpecError;
use crate::limits;
use crate::yaml;

include!(concat!(env!("OUT_DIR"), "/embedded.rs"));

/// The folder the embedded files are named under: the repository's own.
pub const EMBEDDED_ROOT: &str = "spec";

/// Where a spec's files are read from.
#[derive(Debug, Clone, Copy)]
pub enum Files<'a> {
    /// A spec folder on disk.
    Folder(&'a Path),
    /// The repository's spec folder as it was when the crate was built.
    Embedded,
}

impl Files<'_> {
    /// The spec folder: the one given, or [`EMBEDDED_ROOT`].
    pub fn root(&self) -> &Path {
        match self {
            Files::Folder(root) => root,
            Files::Embedded => Path::new(EMBEDDED_ROOT),
        }
    }

    /// The entries of the folder `dir` (under [`Files::root`]), in no particular
    /// order.
    pub(crate) fn entries(&self, dir: &Path) -> Result<Vec<PathBuf>, SpecError> {
        let io = |source| SpecError::Io {
            path: dir.to_owned(),
            source,
        };
        match self {
            Files::Folder(_) => fs::read_dir(dir)
                .map_err(io)?
                .map(|entry| entry.map(|e| e.path()).map_err(io))
                .collect(),
            Files::Embedded => {
                let entries: Vec<PathBuf> = embedded()
                    .filter(|(path, _)| path.parent() == Some(dir))
                    .map(|(path, _)| path)
                    .collect();
                if entries.is_empty() {
                    return Err(io(std::io::ErrorKind::NotFound.into()));
                }
                Ok(entries)
            }
        }
    }

    /// Whether the spec holds a file at `path` (anything there: reading it says
    /// what is wrong with it).
    pub(crate) fn exists(&self, path: &Path) -> bool {
        match self {
            Files::Folder(_) => fs::symlink_metadata(path).is_ok(),
            Files::Embedded => embedded().any(|(p, _)| p == path),
        }
    }

    /// Reads a spec file as text, within the caps: a regular file, no larger than
    /// [`limits::MAX_FILE_BYTES`], UTF-8, and no line longer than
    /// [`limits::MAX_LINE_BYTES`].
    pub(crate) fn read_text(&self, path: &Path) -> Result<String, SpecError> {
        let bytes = match self {
            Files::Folder(_) => read_file(path)?,
            Files::Embedded => match embedded().find(|(p, _)| p == path) {
                Some((_, bytes)) => bytes.to_vec(),
                None => {
                    return Err(SpecError::Io {
                        path: path.to_owned(),
                        source: std::io::ErrorKind::NotFound.into(),
                    })
                }
            },
        };
        if bytes.len() as u64 > limits::MAX_FILE_BYTES {
            return Err(too_large(path, bytes.len() as u64));
        }
        yaml::text(path, bytes)
    }
}

/// The embedded files, each by its repository path (`spec/seeds/001_….txt`) and
/// with its bytes, ordered by path.
pub fn embedded() -> impl Iterator<Item = (PathBuf, &'static [u8])> {
    EMBEDDED
        .iter()
        .map(|(relative, bytes)| (Path::new(EMBEDDED_ROOT).join(relative), *bytes))
}

fn too_large(path: &Path, size: u64) -> SpecError {
    SpecError::TooLarge {
        path: path.to_owned(),
        size,
        cap: limits::MAX_FILE_BYTES,
    }
}

/// A file's bytes: a regular file (asked of its metadata before it is opened, since
/// opening a FIFO blocks until someone writes to it), read no further than one byte
/// past [`limits::MAX_FILE_BYTES`] even if it grows.
fn read_file(path: &Path) -> Result<Vec<u8>, SpecError> {
    let io = |source| SpecError::Io {
        path: path.to_owned(),
        source,
    };
    let meta = fs::metadata(path).map_err(io)?;
    if !meta.is_file() {
        return Err(SpecError::NotAFile {
            path: path.to_owned(),
            what: file_kind(&meta.file_type()),
        });
    }
    if meta.len() > limits::MAX_FILE_BYTES {
        return Err(too_large(path, meta.len()));
    }
    let mut bytes = Vec::new();
    fs::File::open(path)
        .map_err(io)?
        .take(limits::MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    Ok(bytes)
}

/// What a path that is not a regular file is, in words.
fn file_kind(t: &fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
    }
    if t.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}
