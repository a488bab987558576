//! A thread mask of any width: one bit per thread of a record, thread `t` at bit
//! `t`, written as [`Bits`] writes a pattern (`0x` and `width / 4` lower-case hex
//! digits), so that a warp's mask (32 bits) and a CTA of two warps' (64) read as
//! they always have, and a CTA of up to 1024 threads (the most a CTA holds) in
//! as many digits as it needs.

use std::fmt;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{Bits, BitsError};

/// The most threads a mask spans: the largest CTA a device launches, 1024
/// threads (CUDA's limit per block).
pub const MAX_THREADS: u32 = 1024;

/// One bit per thread, in 32-bit words (a warp each, thread `32 w + l` at bit
/// `l` of word `w`), and the width it is written at.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LaneMask {
    /// The words, zero above `width`; as many as `width` needs, at least one.
    words: Vec<u32>,
    /// The width in bits, a multiple of 4 from 4 to [`MAX_THREADS`].
    width: u32,
}

impl LaneMask {
    /// The mask of `width` threads with thread `t` set where `set(t)`.
    pub fn from_fn(width: u32, set: impl Fn(usize) -> bool) -> LaneMask {
        let mut words = vec![0u32; (width as usize).div_ceil(32).max(1)];
        for t in 0..width as usize {
            if set(t) {
                words[t / 32] |= 1 << (t % 32);
            }
        }
        LaneMask { words, width }
    }

    /// The low threads from `value` (at most 64), written at `width` bits.
    pub fn new(value: u64, width: u32) -> LaneMask {
        debug_assert!(width >= 64 || value >> width == 0, "{value:#x} in {width} bits");
        let mut m = LaneMask::from_fn(width.max(64), |t| t < 64 && value >> t & 1 == 1);
        m.words.truncate((width as usize).div_ceil(32).max(1));
        m.width = width;
        m
    }

    /// The width the mask is written at, in bits.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Whether thread `t` is set.
    pub fn get(&self, t: usize) -> bool {
        self.words.get(t / 32).is_some_and(|w| w >> (t % 32) & 1 == 1)
    }

    /// Warp `w`'s 32 threads (0 past the mask).
    pub fn warp(&self, w: usize) -> u32 {
        self.words.get(w).copied().unwrap_or(0)
    }

    /// The first 64 threads: the whole mask of a warp, or of a CTA of two.
    pub fn low(&self) -> u64 {
        u64::from(self.warp(0)) | u64::from(self.warp(1)) << 32
    }

    /// The threads set.
    pub fn count_ones(&self) -> u32 {
        self.words.iter().map(|w| w.count_ones()).sum()
    }

    /// Whether a thread is set in both.
    pub fn intersects(&self, other: &LaneMask) -> bool {
        self.words.iter().zip(&other.words).any(|(a, b)| a & b != 0)
    }

    /// The threads set in either, at the wider width.
    pub fn union(&self, other: &LaneMask) -> LaneMask {
        let width = self.width.max(other.width);
        LaneMask::from_fn(width, |t| self.get(t) || other.get(t))
    }

    /// Parses `0x` and 1 to `MAX_THREADS / 4` hex digits (either case, nothing
    /// else); the width is what the digits can hold.
    pub fn parse(text: &str) -> Result<LaneMask, BitsError> {
        let bad = || BitsError::MaskSyntax(text.to_owned());
        let digits = text.strip_prefix("0x").ok_or_else(bad)?.as_bytes();
        if digits.is_empty() || digits.len() > (MAX_THREADS / 4) as usize {
            return Err(bad());
        }
        let width = 4 * digits.len() as u32;
        let mut words = vec![0u32; (width as usize).div_ceil(32)];
        // The last digit holds threads 0..3.
        for (k, &d) in digits.iter().rev().enumerate() {
            let nibble = match d {
                b'0'..=b'9' => d - b'0',
                b'a'..=b'f' => d - b'a' + 10,
                b'A'..=b'F' => d - b'A' + 10,
                _ => return Err(bad()),
            };
            words[k / 8] |= u32::from(nibble) << (4 * (k % 8));
        }
        Ok(LaneMask { words, width })
    }

    /// The same threads as a mask of `width` bits holds them: an error when a
    /// thread at or above `width` is set. Fewer digits than the width are
    /// accepted (`0x1` for a warp).
    pub fn fit(&self, width: u32) -> Result<LaneMask, BitsError> {
        let above = (width as usize..32 * self.words.len()).any(|t| self.get(t));
        if above {
            return Err(BitsError::TooWide {
                text: self.to_string(),
                width,
            });
        }
        Ok(LaneMask::from_fn(width, |t| self.get(t)))
    }
}

impl From<Bits> for LaneMask {
    fn from(b: Bits) -> LaneMask {
        LaneMask::new(b.value, b.width)
    }
}

impl fmt::Display for LaneMask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `width / 4` digits, more where a set thread needs them (as `Bits`).
        let highest = (0..32 * self.words.len()).rev().find(|&t| self.get(t));
        let needed = highest.map_or(1, |t| t / 4 + 1);
        let digits = (self.width as usize / 4).max(needed);
        f.write_str("0x")?;
        for k in (0..digits).rev() {
            let word = self.words.get(k / 8).copied().unwrap_or(0);
            write!(f, "{:x}", word >> (4 * (k % 8)) & 0xf)?;
        }
        Ok(())
    }
}

impl Serialize for LaneMask {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for LaneMask {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<LaneMask, D::Error> {
        struct Hex;
        impl Visitor<'_> for Hex {
            type Value = LaneMask;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a hex thread mask such as \"0x0000ffff\"")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<LaneMask, E> {
                LaneMask::parse(v).map_err(E::custom)
            }
        }
        d.deserialize_str(Hex)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A mask up to 64 threads reads and writes as `Bits` does, so every warp's
    /// and two-warp CTA's record keeps its bytes.
    #[test]
    fn up_to_64_threads_it_is_a_bit_pattern() {
        for text in ["0x00000001", "0xffffffff", "0x0000ffffffffff00", "0x1", "0xAbC", "0x8000000000000001"] {
            let b = Bits::parse(text).unwrap();
            let m = LaneMask::parse(text).unwrap();
            assert_eq!((m.low(), m.width()), (b.value, b.width), "{text}");
            assert_eq!(m.to_string(), b.to_string(), "{text}");
            assert_eq!(LaneMask::from(b), m);
        }
    }

    /// 1024 threads: 256 digits, thread 0 the last digit's low bit, thread 1023
    /// the first digit's high bit; more digits or none are refused.
    #[test]
    fn a_cta_of_1024_threads() {
        let m = LaneMask::from_fn(1024, |t| t == 0 || t == 1023 || t == 37);
        let text = m.to_string();
        assert_eq!(text.len(), 2 + 256);
        assert!(text.starts_with("0x8000"), "{text}");
        assert!(text.ends_with("00000020_00000001".replace('_', "").as_str()), "{text}");
        assert_eq!(LaneMask::parse(&text).unwrap(), m);
        assert_eq!((m.count_ones(), m.warp(1), m.warp(31)), (3, 1 << 5, 1 << 31));
        assert_eq!(serde_json::to_string(&m).unwrap(), format!("\"{text}\""));
        assert!(LaneMask::parse(&format!("0x0{}", &text[2..])).is_err());
        assert!(LaneMask::parse("0x").is_err());
        assert!(LaneMask::parse("0x1_0").is_err());
    }

    #[test]
    fn fit_checks_the_threads() {
        let m = LaneMask::parse("0x1").unwrap();
        assert_eq!(m.fit(128).unwrap().to_string(), format!("0x{}1", "0".repeat(31)));
        assert!(LaneMask::parse("0x100000000").unwrap().fit(32).is_err());
        // Leading zeros past the width are no thread.
        assert_eq!(LaneMask::parse("0x000000001").unwrap().fit(32).unwrap().to_string(), "0x00000001");
        let a = LaneMask::from_fn(128, |t| t == 100);
        assert!(a.intersects(&LaneMask::from_fn(128, |t| t >= 64)));
        assert!(!a.intersects(&LaneMask::new(u64::MAX, 64)));
        assert_eq!(a.union(&LaneMask::new(1, 32)).count_ones(), 2);
    }
}
