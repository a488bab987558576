//! Where the commands that read the vectors find them when `--vectors` names no
//! folder: `./vectors` where it holds an index, else the vectors of the checkout
//! the binary was built from, while that checkout is still there. An installed
//! binary run from any folder then reads the checkout's vectors; one whose checkout
//! is gone says to name a folder.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The folder the commands read and `generate` writes, relative to the current
/// folder.
pub const HERE: &str = "vectors";

/// The file that makes a folder a vectors folder.
const INDEX: &str = "index.json";

/// The vectors of the checkout this binary was built from (the generator crate's
/// folder is `<checkout>/generator`).
pub fn checkout() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(HERE)
}

/// The vectors folder: `named` when given; else `./vectors` if it holds
/// `index.json`; else the checkout's ([`checkout`]) if it does; else a usage error
/// that says where it looked and to name one with `--vectors DIR`.
pub fn resolve(named: Option<&Path>) -> Result<PathBuf> {
    find(named, Path::new(HERE), &checkout())
}

/// [`resolve`], the two places it looks given.
fn find(named: Option<&Path>, here: &Path, checkout: &Path) -> Result<PathBuf> {
    if let Some(dir) = named {
        return Ok(dir.to_owned());
    }
    for dir in [here, checkout] {
        if dir.join(INDEX).is_file() {
            return Ok(dir.to_owned());
        }
    }
    Err(Error::Usage(format!(
        "no vectors folder: neither ./{HERE} nor the checkout this binary was built from ({}) holds {INDEX}; name one with --vectors DIR (a folder that `ptxvec generate --out DIR` wrote)",
        checkout.display()
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_then_here_then_the_checkout_else_an_error() {
        let tmp = tempfile::tempdir().unwrap();
        let (here, checkout) = (tmp.path().join("here"), tmp.path().join("checkout"));
        let named = Path::new("mine");
        // Nothing holds an index: a name is taken as given, and without one the
        // error says where it looked and what to do.
        assert_eq!(find(Some(named), &here, &checkout).unwrap(), named);
        let e = find(None, &here, &checkout).unwrap_err();
        assert!(matches!(e, Error::Usage(_)), "{e:?}");
        let message = e.to_string();
        assert!(message.contains("./vectors") && message.contains(&checkout.display().to_string()), "{message}");
        assert!(message.contains("--vectors DIR"), "{message}");
        // A folder without index.json is not found.
        std::fs::create_dir_all(&checkout).unwrap();
        assert!(find(None, &here, &checkout).is_err());
        std::fs::write(checkout.join(INDEX), "{}").unwrap();
        assert_eq!(find(None, &here, &checkout).unwrap(), checkout);
        // The current folder's comes first.
        std::fs::create_dir_all(&here).unwrap();
        std::fs::write(here.join(INDEX), "{}").unwrap();
        assert_eq!(find(None, &here, &checkout).unwrap(), here);
        assert_eq!(find(Some(named), &here, &checkout).unwrap(), named);
    }

    #[test]
    fn the_checkout_is_the_repositorys_vectors() {
        assert!(checkout().join(INDEX).is_file(), "{}", checkout().display());
        assert!(checkout().join("syntax").is_dir());
    }
}
