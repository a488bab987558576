//! Bit patterns as the vector files write them: `0x` and width/4 lower-case hex
//! digits. One formatter and one parser for every file format of the project
//! (semantic vectors, self-checking modules, silicon evidence).

use serde_json::{Map, Value};

/// A bit pattern as `0x` and `width / 4` hex digits.
pub fn hex(bits: u64, width: u32) -> String {
    format!("0x{:0w$x}", bits, w = (width / 4) as usize)
}

/// A hex string of at most `width` bits; errors name the field `key`.
pub fn parse_hex(v: &Value, key: &str, width: u32) -> Result<u64, String> {
    let s = v.as_str().ok_or_else(|| {
        format!(
            "\"{key}\": expected a hex string such as \"0x{}\", found {v}",
            "0".repeat((width / 4) as usize)
        )
    })?;
    let digits = s
        .strip_prefix("0x")
        .ok_or_else(|| format!("\"{key}\": `{s}` does not start with 0x"))?;
    if digits.is_empty() || digits.len() > 16 {
        return Err(format!(
            "\"{key}\": `{s}` is not a bit pattern of at most 64 bits"
        ));
    }
    let v = u64::from_str_radix(digits, 16).map_err(|e| format!("\"{key}\": `{s}`: {e}"))?;
    if width < 64 && v >> width != 0 {
        return Err(format!("\"{key}\": `{s}` is wider than {width} bits"));
    }
    Ok(v)
}

/// The hex string under `key`.
pub fn hex_one(m: &Map<String, Value>, key: &str, width: u32) -> Result<u64, String> {
    parse_hex(
        m.get(key)
            .ok_or_else(|| format!("no \"{key}\" among the inputs"))?,
        key,
        width,
    )
}

/// The list of hex strings under `key`.
pub fn hex_list(m: &Map<String, Value>, key: &str, width: u32) -> Result<Vec<u64>, String> {
    match m.get(key) {
        Some(Value::Array(items)) => items.iter().map(|v| parse_hex(v, key, width)).collect(),
        Some(v) => Err(format!(
            "\"{key}\": expected a list of hex strings, found {v}"
        )),
        None => Err(format!("no \"{key}\" among the inputs")),
    }
}
