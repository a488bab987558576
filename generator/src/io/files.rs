//! Writing files so that a reader never sees half of one.

use std::fs;
use std::io::Write;
use std::path::Path;

/// Writes `path` through a temporary name in the same folder (`.NAME.tmpPID`),
/// then renames it over `path`; the folder is created if missing. On an error the
/// temporary file is removed and `path` is left as it was.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir)?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("out");
    let tmp = dir.join(format!(".{name}.tmp{}", std::process::id()));
    let result = (|| {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_write_leaves_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.jsonl");
        write_atomic(&path, b"old\n").unwrap();
        // A folder where the temporary file would go makes the write fail.
        let tmp = dir
            .path()
            .join(format!(".x.jsonl.tmp{}", std::process::id()));
        fs::create_dir(&tmp).unwrap();
        assert!(write_atomic(&path, b"new\n").is_err());
        assert_eq!(fs::read(&path).unwrap(), b"old\n");
        fs::remove_dir(&tmp).unwrap();
        write_atomic(&path, b"new\n").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new\n");
        let left: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "a temporary file is left");
    }
}
