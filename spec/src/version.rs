//! PTX ISA version numbers, as a `.version` directive writes them.

use std::fmt;
use std::str::FromStr;

/// A PTX ISA version such as 7.8. Ordered numerically: 8.10 would follow 8.9.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PtxVersion {
    /// The part before the dot.
    pub major: u8,
    /// The part after the dot.
    pub minor: u8,
}

impl PtxVersion {
    /// Builds a version from its two numbers.
    pub const fn new(major: u8, minor: u8) -> Self {
        PtxVersion { major, minor }
    }
}

impl fmt::Display for PtxVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// Text that is not a `MAJOR.MINOR` PTX ISA version.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a PTX ISA version (expected MAJOR.MINOR, such as \"7.8\")")]
pub struct BadVersion(pub String);

impl FromStr for PtxVersion {
    type Err = BadVersion;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || BadVersion(s.to_owned());
        let (major, minor) = s.split_once('.').ok_or_else(bad)?;
        let digits =
            |t: &str| !t.is_empty() && t.len() <= 2 && t.bytes().all(|b| b.is_ascii_digit());
        if !digits(major) || !digits(minor) {
            return Err(bad());
        }
        Ok(PtxVersion::new(
            major.parse().map_err(|_| bad())?,
            minor.parse().map_err(|_| bad())?,
        ))
    }
}

impl<'de> serde::Deserialize<'de> for PtxVersion {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = PtxVersion;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a PTX ISA version as a quoted string, such as \"7.8\"")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<PtxVersion, E> {
                v.parse().map_err(E::custom)
            }
            // An unquoted 7.10 would read as 7.1: refuse numbers outright.
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<PtxVersion, E> {
                Err(E::custom(format_args!(
                    "PTX ISA version {v} must be a quoted string (\"{v}\"), or 7.10 would read as 7.1"
                )))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<PtxVersion, E> {
                Err(E::custom(format_args!(
                    "PTX ISA version {v} must be a quoted MAJOR.MINOR string"
                )))
            }
        }
        d.deserialize_any(Visitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_orders_numerically() {
        let v = |s: &str| s.parse::<PtxVersion>().unwrap();
        assert_eq!(v("7.8"), PtxVersion::new(7, 8));
        assert!(v("8.10") > v("8.9"));
        assert!(v("10.0") > v("9.5"));
        assert_eq!(v("8.6").to_string(), "8.6");
    }

    #[test]
    fn rejects_what_is_not_major_dot_minor() {
        for bad in [
            "", "7", "7.", ".8", "7.8.1", "v7.8", "7,8", "sm_90", "123.4",
        ] {
            assert!(bad.parse::<PtxVersion>().is_err(), "{bad:?}");
        }
    }
}
