//! The device header every evidence file starts with (`vectors.json`, the probes'
//! and the sweeps' files): which device wrote it, under which driver, in which
//! format. One type, [`Header`], and one wrapper, [`Evidence`], that reads a file
//! as the header's keys beside its body's.
//!
//! serde's `flatten` would put the header's keys beside the body's, but it does not
//! work together with `deny_unknown_fields`: a flattened struct takes every key it
//! does not know. [`Evidence`] therefore reads the file's keys itself, takes the
//! header's, and hands every other key to the body's own (derived, strict)
//! deserializer, so that a key neither knows is refused with its position.

use std::fmt;
use std::marker::PhantomData;

use serde::de::value::{MapAccessDeserializer, StringDeserializer};
use serde::de::{DeserializeSeed, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};

use super::device::DeviceInfo;

/// The device that wrote an evidence file. Fields are declared in the order the
/// compact files list them (alphabetical), so that serde writes the committed
/// bytes; [`Header::pretty`] writes the sweeps' order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Header {
    /// Compute capability, `9.0`.
    pub cc: String,
    /// `cuDriverGetVersion`.
    pub cuda_driver_api: i32,
    /// `cuDeviceGetName`.
    pub device: String,
    /// The kernel module's version, where readable.
    pub driver: Option<String>,
    /// The file's format name and version (`ptxvec-silicon-vectors/1`).
    pub format: String,
}

impl Header {
    /// The header of a file in `format` written on `info`'s device.
    pub fn of(info: &DeviceInfo, format: &str) -> Header {
        Header {
            cc: info.cc_text(),
            cuda_driver_api: info.driver_api,
            device: info.name.clone(),
            driver: info.driver.clone(),
            format: format.to_owned(),
        }
    }

    /// The header as the sweeps' pretty files open: one key a line, two spaces in,
    /// in the order format, device, cc, driver, cuda_driver_api, each line ending
    /// with a comma (the body's keys follow).
    pub fn pretty(&self) -> String {
        let driver = self.driver.as_deref().map_or("null".to_owned(), quote);
        format!(
            "  \"format\": {},\n  \"device\": {},\n  \"cc\": {},\n  \"driver\": {driver},\n  \"cuda_driver_api\": {},\n",
            quote(&self.format),
            quote(&self.device),
            quote(&self.cc),
            self.cuda_driver_api,
        )
    }
}

/// A string as a JSON string.
pub fn quote(s: &str) -> String {
    // A str always serializes.
    serde_json::to_string(s).unwrap_or_default()
}

/// An evidence file: the [`Header`]'s keys and the body's, side by side in one
/// object. Reads through to the body (`file.variants`); the header is
/// `file.header`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evidence<B> {
    /// The device that wrote it.
    pub header: Header,
    /// Everything else the file holds.
    pub body: B,
}

impl<B> std::ops::Deref for Evidence<B> {
    type Target = B;
    fn deref(&self) -> &B {
        &self.body
    }
}

impl<B> std::ops::DerefMut for Evidence<B> {
    fn deref_mut(&mut self) -> &mut B {
        &mut self.body
    }
}

impl<'de, B: Deserialize<'de>> Deserialize<'de> for Evidence<B> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(EvidenceVisitor(PhantomData))
    }
}

struct EvidenceVisitor<B>(PhantomData<B>);

impl<'de, B: Deserialize<'de>> Visitor<'de> for EvidenceVisitor<B> {
    type Value = Evidence<B>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an evidence file: a JSON object of the device header's keys and the body's")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Evidence<B>, A::Error> {
        let mut tap = HeaderTap {
            map,
            slots: Slots::default(),
        };
        let body = B::deserialize(MapAccessDeserializer::new(&mut tap))?;
        let header = tap.slots.finish()?;
        Ok(Evidence { header, body })
    }
}

/// The header's values as they are read.
#[derive(Default)]
struct Slots {
    cc: Option<String>,
    cuda_driver_api: Option<i32>,
    device: Option<String>,
    driver: Option<Option<String>>,
    format: Option<String>,
}

impl Slots {
    fn finish<E: serde::de::Error>(self) -> Result<Header, E> {
        Ok(Header {
            cc: self.cc.ok_or_else(|| E::missing_field("cc"))?,
            cuda_driver_api: self
                .cuda_driver_api
                .ok_or_else(|| E::missing_field("cuda_driver_api"))?,
            device: self.device.ok_or_else(|| E::missing_field("device"))?,
            driver: self.driver.ok_or_else(|| E::missing_field("driver"))?,
            format: self.format.ok_or_else(|| E::missing_field("format"))?,
        })
    }
}

/// The file's map as the body sees it: the header's keys taken out into
/// [`Slots`] as they pass, every other key handed on.
struct HeaderTap<A> {
    map: A,
    slots: Slots,
}

/// Fills `slot` once; a second value for the key is an error, as serde's derived
/// readers make it.
fn put<T, E: serde::de::Error>(slot: &mut Option<T>, key: &'static str, v: T) -> Result<(), E> {
    if slot.replace(v).is_some() {
        return Err(E::duplicate_field(key));
    }
    Ok(())
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for HeaderTap<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        while let Some(key) = self.map.next_key::<String>()? {
            let s = &mut self.slots;
            match key.as_str() {
                "cc" => put(&mut s.cc, "cc", self.map.next_value()?)?,
                "cuda_driver_api" => {
                    put(&mut s.cuda_driver_api, "cuda_driver_api", self.map.next_value()?)?
                }
                "device" => put(&mut s.device, "device", self.map.next_value()?)?,
                "driver" => put(&mut s.driver, "driver", self.map.next_value()?)?,
                "format" => put(&mut s.format, "format", self.map.next_value()?)?,
                _ => return seed.deserialize(StringDeserializer::new(key)).map(Some),
            }
        }
        Ok(None)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.map.next_value_seed(seed)
    }
}

/// A compact evidence file's bytes: the header's keys, then the list `key`, one
/// row per line (`vectors.json`, the probes' files).
pub fn render_list<R: Serialize>(header: &Header, key: &str, rows: &[R]) -> String {
    // Headers and rows hold strings, numbers, lists and maps with string keys
    // only: serde_json cannot fail on them.
    let head = serde_json::to_string(header).unwrap_or_default();
    let mut s = format!("{},\n\"{key}\": [\n", head.trim_end_matches('}'));
    for (i, r) in rows.iter().enumerate() {
        s += &serde_json::to_string(r).unwrap_or_default();
        s += if i + 1 < rows.len() { ",\n" } else { "\n" };
    }
    s += "]}\n";
    s
}

/// Refuses a file whose header names another format than `want`.
pub fn expect_format(h: &Header, want: &str) -> Result<(), String> {
    if h.format == want {
        Ok(())
    } else {
        Err(format!("format {:?}, expected {want:?}", h.format))
    }
}

/// A made-up H100's header in `format`, for the unit tests of the files' forms.
#[cfg(test)]
pub(crate) fn h100(format: &str) -> Header {
    let info = DeviceInfo {
        name: "NVIDIA H100".into(),
        cc: (9, 0),
        driver_api: 13000,
        driver: Some("580.0".into()),
    };
    Header::of(&info, format)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A body as the files' bodies are declared: strict.
    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Body {
        rows: Vec<u32>,
    }

    const GOOD: &str = r#"{"cc":"9.0","cuda_driver_api":13000,"device":"NVIDIA H100","driver":null,"format":"f/1",
"rows": [1, 2]}"#;

    fn read(text: &str) -> Result<Evidence<Body>, serde_json::Error> {
        serde_json::from_str(text)
    }

    #[test]
    fn header_and_body_keys_are_read_in_any_order() {
        let e = read(GOOD).unwrap();
        assert_eq!(e.header.format, "f/1");
        assert_eq!(e.header.driver, None);
        assert_eq!(e.rows, vec![1, 2]);
        let shuffled = r#"{"rows":[3],"format":"f/1","driver":"580.0","device":"d","cuda_driver_api":1,"cc":"9.0"}"#;
        let e = read(shuffled).unwrap();
        assert_eq!((e.header.driver.as_deref(), e.rows.as_slice()), (Some("580.0"), &[3][..]));
    }

    /// Each way a file can break, and the message it must get: an unknown key is
    /// refused, with the body's expected keys and the line it stands on.
    #[test]
    fn unknown_missing_and_repeated_keys_are_refused_with_their_position() {
        let table = [
            (GOOD.replace("\"rows\"", "\"extra\": 1, \"rows\""), "unknown field `extra`, expected `rows` at line 2 column"),
            (GOOD.replace("\"cc\":\"9.0\",", ""), "missing field `cc`"),
            (GOOD.replace(",\n\"rows\": [1, 2]", ""), "missing field `rows`"),
            (GOOD.replace("\"device\":", "\"device\":\"x\",\"device\":"), "duplicate field `device` at line 1"),
            (GOOD.replace("13000", "\"13000\""), "invalid type: string \"13000\", expected i32 at line 1"),
        ];
        for (text, want) in table {
            let e = read(&text).unwrap_err().to_string();
            assert!(e.starts_with(want), "case: {text}\ngot: {e}");
        }
    }

    #[test]
    fn the_pretty_header_is_one_key_a_line_in_the_sweeps_order() {
        let h = read(GOOD).unwrap().header;
        assert_eq!(
            h.pretty(),
            "  \"format\": \"f/1\",\n  \"device\": \"NVIDIA H100\",\n  \"cc\": \"9.0\",\n  \"driver\": null,\n  \"cuda_driver_api\": 13000,\n"
        );
    }
}
