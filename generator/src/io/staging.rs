//! Replacing a folder of generated files as one step: the transaction behind
//! `ptxvec generate`.
//!
//! The set (`syntax/*.jsonl`, `semantic/*.jsonl.gz`, `index.json` with their SHA-256,
//! `rules.json`, `targets.json`) lives at fixed names, so no rename of single files
//! can switch from one set to the next at once. The folder itself is switched:
//!
//! 1. `DIR/.ptxvec.lock` is opened and locked (`flock`, exclusive, not waiting); it
//!    holds the pid of the run. A second run finds it locked and stops (exit 2). The
//!    kernel drops the lock when its process dies, so a lock file left by a killed
//!    run holds no lock and is taken over.
//! 2. Staging folders of earlier runs that were killed (`.DIR.ptxvec-staging-<pid>`
//!    beside `DIR`; any there is stale, since its run would hold the lock) are
//!    removed: the files ptxvec wrote and the extra names of files that live on
//!    elsewhere (a link count above one); any other file is moved back into `DIR`,
//!    or left there with a warning when `DIR` has one of that name.
//! 3. The new set is built in `.DIR.ptxvec-staging-<pid>`, beside `DIR` (a folder
//!    cannot be exchanged with a folder inside it): every file of `DIR` that stays
//!    (a user's `semantic/mine.jsonl`, `README.md`, the lock, the files a partial
//!    run leaves alone) as a hard link, the new files written and synced.
//! 4. One `renameat2(RENAME_EXCHANGE)` swaps the two folders: at every instant the
//!    path `DIR` names a complete set, the old one or the new one.
//! 5. The old folder, now at the staging name, is removed as in 2, then the lock.
//!
//! A reader that opens `DIR` once (a directory handle, or its working directory)
//! reads one set throughout, until the old one is removed: then a file is missing,
//! an error, never a mismatch. A reader that goes through the path `DIR/...` file by
//! file can straddle a swap, and then finds a SHA-256 that does not match; reading
//! `index.json` again tells that apart from a broken set, since it has changed.
//! Cleanup never works from a pattern: the files ptxvec owns are named by the caller
//! (the instruction list, the variants, the `index.json` of the folder in hand), and
//! a file of any other name survives. Where the exchange is not available (another
//! system, a file system without it) the swap is two renames, and for a moment
//! `DIR` does not exist.

use std::collections::BTreeSet;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The lock file's name inside the folder.
pub const LOCK: &str = ".ptxvec.lock";

/// Says which paths of a tree ptxvec wrote: relative, `/`-separated
/// (`semantic/red.add.u32.jsonl`). It is given the tree's root, whose own
/// `index.json` names its semantic files.
pub type Owned<'a> = &'a dyn Fn(&Path) -> BTreeSet<String>;

/// A run that holds a folder's lock, and will replace the folder's set.
pub struct Transaction<'a> {
    /// The folder, as canonical path.
    dir: PathBuf,
    /// The folder as the user named it, for messages.
    shown: PathBuf,
    owned: Owned<'a>,
    lock: Lock,
}

impl<'a> Transaction<'a> {
    /// Creates `dir` if missing, takes its lock and removes what killed runs left.
    pub fn begin(dir: &Path, owned: Owned<'a>) -> Result<Transaction<'a>> {
        fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        let canonical = fs::canonicalize(dir).map_err(|e| Error::io(dir, e))?;
        if canonical.parent().is_none() {
            return Err(Error::Usage(format!(
                "--out {}: the root folder cannot be replaced",
                dir.display()
            )));
        }
        let lock = Lock::acquire(&canonical, &dir.join(LOCK))?;
        let t = Transaction {
            dir: canonical,
            shown: dir.to_owned(),
            owned,
            lock,
        };
        for stale in t.stale()? {
            t.dispose(&stale);
        }
        Ok(t)
    }

    /// The folder (canonical).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The folder's parent and the prefix of its staging folders' names.
    fn staging_prefix(&self) -> (PathBuf, String) {
        let parent = self.dir.parent().unwrap_or(Path::new("/")).to_owned();
        let name = self.dir.file_name().unwrap_or_default().to_string_lossy();
        (parent, format!(".{name}.ptxvec-staging-"))
    }

    /// The staging folders of earlier runs: under the lock, all of them are stale.
    fn stale(&self) -> Result<Vec<PathBuf>> {
        let (parent, prefix) = self.staging_prefix();
        let rd = fs::read_dir(&parent).map_err(|e| Error::io(&parent, e))?;
        let mut out = Vec::new();
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let ours = name
                .strip_prefix(&prefix)
                .is_some_and(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()));
            if ours && e.file_type().is_ok_and(|t| t.is_dir()) {
                out.push(e.path());
            }
        }
        Ok(out)
    }

    /// Replaces the set: `writes` (relative path, bytes) are the new files; every
    /// other file of the folder stays, except the `obsolete` ones (ptxvec's files of
    /// the old set that the new one does not have) and temporary files of ptxvec's.
    pub fn commit(self, writes: &[(String, Vec<u8>)], obsolete: &BTreeSet<String>) -> Result<()> {
        let (parent, prefix) = self.staging_prefix();
        let staging = parent.join(format!("{prefix}{}", std::process::id()));
        let built = self.build(&staging, writes, obsolete);
        if let Err(e) = built {
            let _ = fs::remove_dir_all(&staging);
            return Err(e);
        }
        let old = swap(&staging, &self.dir, &parent).map_err(|e| {
            let _ = fs::remove_dir_all(&staging);
            Error::io(&self.shown, e)
        })?;
        self.dispose(&old);
        drop(self.lock);
        Ok(())
    }

    /// Builds the new set in `staging`.
    fn build(
        &self,
        staging: &Path,
        writes: &[(String, Vec<u8>)],
        obsolete: &BTreeSet<String>,
    ) -> Result<()> {
        let mut skip: BTreeSet<String> = (self.owned)(&self.dir);
        skip.extend(writes.iter().map(|(rel, _)| rel.clone()));
        let leave = |rel: &str| {
            writes.iter().any(|(w, _)| w == rel) || obsolete.contains(rel) || is_temp_of(rel, &skip)
        };
        fs::create_dir(staging).map_err(|e| Error::io(staging, e))?;
        carry(&self.dir, staging, "", &leave)?;
        for (rel, bytes) in writes {
            let path = staging.join(rel);
            if let Some(dir) = path.parent() {
                fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
            }
            let written = File::create_new(&path).and_then(|mut f| f.write_all(bytes));
            written.map_err(|e| Error::io(&self.shown.join(rel), e))?;
        }
        // On disk before the swap, so that a crash never shows the new names with
        // contents not yet written: one flush of the file system, not one per file.
        sync_fs(staging).map_err(|e| Error::io(&self.shown, e))
    }

    /// Removes a tree that is not the folder (an old set, a killed run's staging):
    /// the files ptxvec owns there and the names of files linked elsewhere go; any
    /// other file is moved into the folder, or left with a warning.
    fn dispose(&self, tree: &Path) {
        let mut owned = (self.owned)(tree);
        owned.insert(LOCK.to_owned());
        let mut left = Vec::new();
        dispose_in(tree, "", &owned, &self.dir, &mut left);
        let _ = fs::remove_dir(tree);
        for rel in left {
            crate::io::output::note(format_args!(
                "warning: {}: kept, since ptxvec did not write it and {} has a file of that name",
                tree.join(&rel).display(),
                self.shown.join(&rel).display()
            ));
        }
    }
}

/// Whether `rel` is a temporary file of one of `names`: `.NAME.tmpPID` beside it, as
/// [`crate::io::files::write_atomic`] writes them.
fn is_temp_of(rel: &str, names: &BTreeSet<String>) -> bool {
    let (dir, file) = rel.rsplit_once('/').map_or(("", rel), |(d, f)| (d, f));
    let Some((stem, pid)) = file.strip_prefix('.').and_then(|f| f.rsplit_once(".tmp")) else {
        return false;
    };
    if pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    let name = if dir.is_empty() {
        stem.to_owned()
    } else {
        format!("{dir}/{stem}")
    };
    names.contains(&name)
}

fn join(rel: &str, name: &str) -> String {
    if rel.is_empty() {
        name.to_owned()
    } else {
        format!("{rel}/{name}")
    }
}

/// Hard-links every file under `from` into `to` (folders recreated with their
/// permissions), except those `leave` names.
fn carry(from: &Path, to: &Path, rel: &str, leave: &dyn Fn(&str) -> bool) -> Result<()> {
    let meta = fs::metadata(from).map_err(|e| Error::io(from, e))?;
    fs::set_permissions(to, meta.permissions()).map_err(|e| Error::io(to, e))?;
    let rd = fs::read_dir(from).map_err(|e| Error::io(from, e))?;
    for e in rd {
        let e = e.map_err(|e| Error::io(from, e))?;
        let name = e.file_name();
        let Some(name_str) = name.to_str() else {
            // A name that is not UTF-8 is no name of ptxvec's: it stays.
            fs::hard_link(e.path(), to.join(&name)).map_err(|err| Error::io(&e.path(), err))?;
            continue;
        };
        let r = join(rel, name_str);
        let kind = e.file_type().map_err(|err| Error::io(&e.path(), err))?;
        if kind.is_dir() {
            let sub = to.join(&name);
            fs::create_dir(&sub).map_err(|err| Error::io(&sub, err))?;
            carry(&e.path(), &sub, &r, leave)?;
        } else if !leave(&r) {
            fs::hard_link(e.path(), to.join(&name)).map_err(|err| Error::io(&e.path(), err))?;
        }
    }
    Ok(())
}

/// [`Transaction::dispose`]'s walk; `left` collects the files kept.
fn dispose_in(
    tree: &Path,
    rel: &str,
    owned: &BTreeSet<String>,
    into: &Path,
    left: &mut Vec<String>,
) {
    let Ok(rd) = fs::read_dir(tree.join(rel)) else {
        return;
    };
    for e in rd.flatten() {
        let r = join(rel, &e.file_name().to_string_lossy());
        let path = e.path();
        let Ok(meta) = fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            dispose_in(tree, &r, owned, into, left);
            let _ = fs::remove_dir(&path);
        } else if meta.nlink() > 1 || owned.contains(&r) || is_temp_of(&r, owned) {
            let _ = fs::remove_file(&path);
        } else {
            let target = into.join(&r);
            let moved = fs::symlink_metadata(&target).is_err()
                && target
                    .parent()
                    .is_some_and(|p| fs::create_dir_all(p).is_ok())
                && fs::rename(&path, &target).is_ok();
            if !moved {
                left.push(r);
            }
        }
    }
}

/// Flushes the file system that holds `path` to disk (`syncfs`).
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn sync_fs(path: &Path) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let dir = File::open(path)?;
    // SAFETY: the descriptor is open for as long as `dir` lives; syncfs takes no
    // pointer.
    if unsafe { libc::syncfs(dir.as_raw_fd()) } == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
#[allow(unsafe_code)]
fn sync_fs(_: &Path) -> io::Result<()> {
    // SAFETY: sync takes no argument and cannot fail.
    unsafe { libc::sync() };
    Ok(())
}

/// Puts `new` in the place of `dir`; returns where the old folder is now.
fn swap(new: &Path, dir: &Path, parent: &Path) -> io::Result<PathBuf> {
    match exchange(new, dir) {
        Ok(()) => Ok(new.to_owned()),
        Err(e) if matches!(e.raw_os_error(), Some(libc::EINVAL) | Some(libc::ENOSYS)) => {
            let name = dir.file_name().unwrap_or_default().to_string_lossy();
            let old = parent.join(format!(".{name}.ptxvec-staging-{}-old", std::process::id()));
            fs::rename(dir, &old)?;
            fs::rename(new, dir)?;
            Ok(old)
        }
        Err(e) => Err(e),
    }
}

/// Exchanges two paths at once (Linux 3.15: `renameat2` with `RENAME_EXCHANGE`).
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn exchange(a: &Path, b: &Path) -> io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let a = CString::new(a.as_os_str().as_bytes())?;
    let b = CString::new(b.as_os_str().as_bytes())?;
    // SAFETY: both pointers are NUL-terminated strings that outlive the call; the
    // syscall reads them and writes nothing into our memory.
    let r = unsafe {
        libc::syscall(
            libc::SYS_renameat2,
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange(_: &Path, _: &Path) -> io::Result<()> {
    Err(io::Error::from_raw_os_error(libc::ENOSYS))
}

/// The folder's lock: the open, `flock`ed lock file, which holds the pid.
struct Lock {
    file: File,
    path: PathBuf,
}

impl Lock {
    /// Takes the lock of the folder `dir` (canonical); `shown` names the lock file
    /// in messages.
    fn acquire(dir: &Path, shown: &Path) -> Result<Lock> {
        let path = dir.join(LOCK);
        loop {
            let mut file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .map_err(|e| Error::io(shown, e))?;
            if let Err(e) = try_lock(&file) {
                if e.kind() != io::ErrorKind::WouldBlock {
                    return Err(Error::io(shown, e));
                }
                let mut pid = String::new();
                let _ = file.read_to_string(&mut pid);
                return Err(Error::Busy {
                    lock: shown.to_owned(),
                    pid: pid.trim().to_owned(),
                });
            }
            // The holder before us may have removed the file between our open and
            // our lock: then the lock is on a name nobody else sees; start again.
            let ours = file.metadata().map_err(|e| Error::io(shown, e))?;
            match fs::symlink_metadata(&path) {
                Ok(m) if m.ino() == ours.ino() && m.dev() == ours.dev() => {}
                _ => continue,
            }
            file.set_len(0)
                .and_then(|()| file.write_all(format!("{}\n", std::process::id()).as_bytes()))
                .map_err(|e| Error::io(shown, e))?;
            return Ok(Lock { file, path });
        }
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        // Only our own file is removed: the lock is held, so nobody has replaced it.
        let same = match (self.file.metadata(), fs::symlink_metadata(&self.path)) {
            (Ok(a), Ok(b)) => a.ino() == b.ino() && a.dev() == b.dev(),
            _ => false,
        };
        if same {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// `flock(LOCK_EX | LOCK_NB)`: an exclusive lock, or `WouldBlock` when another
/// process holds one.
#[allow(unsafe_code)]
fn try_lock(file: &File) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: the descriptor is open for as long as `file` lives; flock takes no
    // pointer.
    let r = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporary_files_of_owned_names_only() {
        let names: BTreeSet<String> = ["index.json", "semantic/a.jsonl"].map(String::from).into();
        for (rel, temp) in [
            (".index.json.tmp123", true),
            ("semantic/.a.jsonl.tmp9", true),
            ("semantic/.b.jsonl.tmp9", false),
            (".index.json.tmp", false),
            (".index.json.tmpx", false),
            ("index.json", false),
            ("semantic/.a.jsonl.tmp9/x", false),
        ] {
            assert_eq!(is_temp_of(rel, &names), temp, "{rel}");
        }
    }

    #[test]
    fn a_second_lock_is_refused_and_a_dead_ones_file_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        let first = Lock::acquire(dir.path(), &dir.path().join(LOCK)).unwrap();
        let again = Lock::acquire(dir.path(), &dir.path().join(LOCK));
        match again {
            Err(Error::Busy { pid, .. }) => assert_eq!(pid, std::process::id().to_string()),
            other => panic!("expected Busy, got {:?}", other.err()),
        }
        drop(first);
        assert!(!dir.path().join(LOCK).exists());
        // A file left by a killed run holds no lock.
        fs::write(dir.path().join(LOCK), "999999999\n").unwrap();
        let taken = Lock::acquire(dir.path(), &dir.path().join(LOCK)).unwrap();
        drop(taken);
        assert!(!dir.path().join(LOCK).exists());
    }
}
