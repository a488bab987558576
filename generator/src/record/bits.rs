//! A bit pattern as every file of the project writes it: `0x` and `width / 4`
//! lower-case hex digits. One formatter and one parser for the semantic vectors,
//! the self-checking modules and the silicon evidence.

use std::fmt;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A value and the width it is written at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Bits {
    /// The bits, zero above `width`.
    pub value: u64,
    /// The width in bits, a multiple of 4 from 4 to 64: a predicate is written
    /// with one digit.
    pub width: u32,
}

/// Why a string is no bit pattern, or a pattern does not fit where it stands.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BitsError {
    /// Not `0x` followed by 1 to 16 hex digits.
    #[error("`{0}` is not a bit pattern: expected `0x` and 1 to 16 hex digits")]
    Syntax(String),
    /// Not `0x` followed by 1 to 256 hex digits (a thread mask).
    #[error("`{0}` is not a thread mask: expected `0x` and 1 to 256 hex digits")]
    MaskSyntax(String),
    /// More bits than the field holds.
    #[error("`{text}` does not fit in {width} bits")]
    TooWide {
        /// The pattern as written.
        text: String,
        /// The field's width.
        width: u32,
    },
    /// A predicate other than 0 or 1.
    #[error("`{0}` is not a predicate: expected 0x0 or 0x1")]
    NotPredicate(String),
}

impl Bits {
    /// `value` written at `width` bits; `value` must fit.
    pub fn new(value: u64, width: u32) -> Bits {
        debug_assert!(
            width == 64 || value >> width == 0,
            "{value:#x} in {width} bits"
        );
        Bits { value, width }
    }

    /// A predicate, written `0x0` or `0x1`.
    pub fn pred(value: bool) -> Bits {
        Bits::new(u64::from(value), 4)
    }

    /// Parses `0x` and 1 to 16 hex digits (either case, nothing else: no sign, no
    /// underscore); the width is what the digits can hold.
    pub fn parse(text: &str) -> Result<Bits, BitsError> {
        let bad = || BitsError::Syntax(text.to_owned());
        let digits = text.strip_prefix("0x").ok_or_else(bad)?.as_bytes();
        if digits.is_empty() || digits.len() > 16 {
            return Err(bad());
        }
        // One pass that checks and accumulates (the vector files hold millions).
        let mut value = 0u64;
        for &d in digits {
            let nibble = match d {
                b'0'..=b'9' => d - b'0',
                b'a'..=b'f' => d - b'a' + 10,
                b'A'..=b'F' => d - b'A' + 10,
                _ => return Err(bad()),
            };
            value = value << 4 | u64::from(nibble);
        }
        Ok(Bits {
            value,
            width: 4 * digits.len() as u32,
        })
    }

    /// The same value as a field of `width` bits holds it: an error when it does
    /// not fit. Fewer digits than the width are accepted (`0x1` for a `.u32`).
    pub fn fit(self, width: u32) -> Result<Bits, BitsError> {
        if width < 64 && self.value >> width != 0 {
            return Err(BitsError::TooWide {
                text: self.to_string(),
                width,
            });
        }
        Ok(Bits::new(self.value, width))
    }

    /// The same value as a predicate: an error unless it is 0 or 1.
    pub fn fit_pred(self) -> Result<Bits, BitsError> {
        if self.value > 1 {
            return Err(BitsError::NotPredicate(self.to_string()));
        }
        Ok(Bits::pred(self.value == 1))
    }
}

impl Bits {
    /// The pattern as Display writes it, in `buf`: `0x` and `width / 4` lower-case
    /// digits (more where the value needs them); `None` for a width over 64.
    pub(super) fn write_to(self, buf: &mut [u8; 18]) -> Option<&str> {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        if self.width > 64 {
            return None;
        }
        let needed = (64 - self.value.leading_zeros()).div_ceil(4).max(1);
        let digits = (self.width / 4).max(needed) as usize;
        buf[0] = b'0';
        buf[1] = b'x';
        for i in 0..digits {
            let nibble = (self.value >> (4 * (digits - 1 - i))) & 0xf;
            buf[2 + i] = DIGITS[nibble as usize];
        }
        // Only ASCII was written.
        std::str::from_utf8(&buf[..2 + digits]).ok()
    }
}

impl fmt::Display for Bits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "0x{:0w$x}", self.value, w = (self.width / 4) as usize)
    }
}

impl Serialize for Bits {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // What Display writes, without the formatting machinery: the vector files
        // hold millions of these.
        match self.write_to(&mut [0; 18]) {
            Some(text) => s.serialize_str(text),
            None => s.collect_str(self),
        }
    }
}

impl<'de> Deserialize<'de> for Bits {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Bits, D::Error> {
        struct Hex;
        impl Visitor<'_> for Hex {
            type Value = Bits;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a hex bit pattern such as \"0x0000002a\"")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Bits, E> {
                Bits::parse(v).map_err(E::custom)
            }
        }
        d.deserialize_str(Hex)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_write() {
        // (text, parsed as (value, width), or None for a refusal)
        let rows: [(&str, Option<(u64, u32)>); 10] = [
            ("0x0000002a", Some((0x2a, 32))),
            ("0x1", Some((1, 4))),
            ("0xFFFF", Some((0xffff, 16))),
            ("0xffffffffffffffff", Some((u64::MAX, 64))),
            ("0x+1", None),
            ("0x", None),
            ("2a", None),
            ("0x1_0", None),
            ("0x10000000000000000", None),
            (" 0x1", None),
        ];
        for (text, want) in rows {
            let got = Bits::parse(text).ok().map(|b| (b.value, b.width));
            assert_eq!(got, want, "case: {text}");
        }
        assert_eq!(Bits::new(0x2a, 16).to_string(), "0x002a");
        // The writer that serializes equals Display, whatever the width.
        for (value, width) in [(0x2a, 16), (0, 4), (1, 4), (u64::MAX, 64), (0x1ff, 4), (0x8000_0000, 32), (0, 64), (5, 0), (7, 6)] {
            let b = Bits { value, width };
            assert_eq!(b.write_to(&mut [0; 18]), Some(b.to_string().as_str()), "{value:#x} at {width}");
            assert_eq!(serde_json::to_string(&b).unwrap(), format!("\"{b}\""));
        }
        assert_eq!(Bits { value: 1, width: 68 }.write_to(&mut [0; 18]), None);
        assert_eq!(Bits::pred(true).to_string(), "0x1");
    }

    #[test]
    fn fit_checks_the_field() {
        let one = Bits::parse("0x1").unwrap();
        assert_eq!(one.fit(32).unwrap().to_string(), "0x00000001");
        assert!(Bits::parse("0x1ffff").unwrap().fit(16).is_err());
        assert!(Bits::parse("0x2").unwrap().fit_pred().is_err());
        assert_eq!(one.fit_pred().unwrap(), Bits::pred(true));
    }
}
