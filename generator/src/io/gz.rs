//! Gzip for the recorded files that vectors/ keeps compressed (its 20 MB cap): the
//! clients' syntax results and the compilers' modules. A file named `*.gz` is read
//! through the decoder wherever a results file or a module is read, up to a cap
//! against decompression bombs; what ptxvec writes gzipped carries no name and no
//! time, so the same content gives the same bytes on any machine.

use std::io::{Read, Write};
use std::path::Path;

use crate::error::{Error, Result};

/// Whether `path` names a gzipped file.
pub fn is_gz(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "gz")
}

/// The decompressed bytes of `compressed` (read from `name`), at most `cap` of
/// them: more is an input error, as is a stream that is not gzip.
pub fn decompress(name: &str, compressed: &[u8], cap: u64) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(compressed)
        .take(cap + 1)
        .read_to_end(&mut out)
        .map_err(|e| Error::Input(format!("{name}: not a gzip stream: {e}")))?;
    if out.len() as u64 > cap {
        return Err(Error::Input(format!("{name}: decompresses to more than {cap} bytes")));
    }
    Ok(out)
}

/// A gzip stream decoded as it is read (lint's modules): an error in the stream
/// reads as `not a gzip stream: ...`, as [`decompress`] says it.
pub struct Decoder<R: Read>(flate2::read::GzDecoder<R>);

impl<R: Read> Decoder<R> {
    /// The decoder of the gzip stream `compressed`.
    pub fn new(compressed: R) -> Decoder<R> {
        Decoder(flate2::read::GzDecoder::new(compressed))
    }
}

impl<R: Read> Read for Decoder<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        self.0
            .read(out)
            .map_err(|e| std::io::Error::new(e.kind(), format!("not a gzip stream: {e}")))
    }
}

/// The text of the file at `path`, through the decoder if it is named `*.gz` (at
/// most `cap` bytes decompressed): the semantic vectors and the recorded results
/// are read alike whether gzipped or not.
pub fn read_text(path: &Path, cap: u64) -> Result<String> {
    let mut bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let name = path.display().to_string();
    if is_gz(path) {
        bytes = decompress(&name, &bytes, cap)?;
    }
    String::from_utf8(bytes).map_err(|e| Error::Input(format!("{name}: not UTF-8: {e}")))
}

/// Whether `path` names a vector file: `*.jsonl`, or `*.jsonl.gz`.
pub fn is_jsonl(path: &Path) -> bool {
    let name = path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
    name.ends_with(".jsonl") || name.ends_with(".jsonl.gz")
}

/// `bytes` gzipped at the best compression, with no file name and time 0.
pub fn compress(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::GzBuilder::new().mtime(0).write(Vec::new(), flate2::Compression::best());
    // Writing into a Vec cannot fail.
    e.write_all(bytes).expect("writing into memory");
    e.finish().expect("writing into memory")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_is_byte_stable_and_the_cap_holds() {
        let text = b"{\"id\":\"a\",\"accepted\":true}\n".repeat(100);
        let z = compress(&text);
        assert_eq!(z, compress(&text), "the same bytes every time");
        assert_eq!(decompress("t", &z, 10_000).unwrap(), text);
        let e = decompress("t", &z, 100).unwrap_err().to_string();
        assert!(e.contains("more than 100 bytes"), "{e}");
        let e = decompress("t", b"plain text", 100).unwrap_err().to_string();
        assert!(e.contains("not a gzip stream"), "{e}");
    }
}
