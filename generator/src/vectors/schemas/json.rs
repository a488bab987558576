//! The JSON the generated parts of the schemas are built as, and the values they
//! share: an input value of a field at its width, an output's expectations.

use crate::record::Field;

/// A JSON value written in the order it is built (serde_json's map sorts its keys;
/// the schema reads best with `if` before `then` and `minItems` before `maxItems`).
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    /// An object, its members in order.
    Object(Vec<(String, Json)>),
    /// An array.
    Array(Vec<Json>),
    /// A string.
    String(String),
    /// A count.
    Count(usize),
    /// `false`: the key is refused.
    False,
}

impl Json {
    /// The value as serde_json's pretty printer writes it, its first line at the
    /// caller's position and the lines after it at `indent` spaces.
    pub fn write(&self, indent: usize, out: &mut String) {
        let pad = |n: usize| " ".repeat(n);
        match self {
            Json::Object(members) if members.is_empty() => out.push_str("{}"),
            Json::Object(members) => {
                out.push_str("{\n");
                for (i, (key, value)) in members.iter().enumerate() {
                    out.push_str(&pad(indent + 2));
                    out.push_str(&serde_json::Value::from(key.as_str()).to_string());
                    out.push_str(": ");
                    value.write(indent + 2, out);
                    out.push_str(if i + 1 < members.len() { ",\n" } else { "\n" });
                }
                out.push_str(&pad(indent));
                out.push('}');
            }
            Json::Array(items) if items.is_empty() => out.push_str("[]"),
            Json::Array(items) => {
                out.push_str("[\n");
                for (i, item) in items.iter().enumerate() {
                    out.push_str(&pad(indent + 2));
                    item.write(indent + 2, out);
                    out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
                }
                out.push_str(&pad(indent));
                out.push(']');
            }
            Json::String(s) => out.push_str(&serde_json::Value::from(s.as_str()).to_string()),
            Json::Count(n) => out.push_str(&n.to_string()),
            Json::False => out.push_str("false"),
        }
    }
}

/// A string.
pub fn string(s: impl Into<String>) -> Json {
    Json::String(s.into())
}

/// An object of these members, in order.
pub fn object(members: Vec<(&str, Json)>) -> Json {
    Json::Object(members.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
}

/// One input value of `field`, written at its width (a predicate: one digit, 0 or 1).
pub fn value(field: Field) -> Json {
    let pattern = match field {
        Field::Pred => "^0x[01]$".to_owned(),
        Field::Bits(w) => format!("^0x[0-9a-f]{{{}}}$", w / 4),
    };
    object(vec![("type", string("string")), ("pattern", string(pattern))])
}

/// An output value of `field`: a reference to the definition of its expectations
/// (exact bits at its width, an accept class, or null where the lane does not
/// execute).
pub fn output(field: Field) -> Json {
    let def = match field {
        Field::Pred => "pred".to_owned(),
        Field::Bits(w) => format!("width{w}"),
    };
    object(vec![("$ref", string(format!("#/$defs/{def}")))])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_is_written_as_serde_json_writes_it_in_build_order() {
        let v = object(vec![
            ("z", Json::Array(vec![string("a\"b"), Json::Count(3)])),
            ("a", object(vec![])),
            ("e", Json::Array(vec![])),
            ("f", Json::False),
        ]);
        let mut out = String::new();
        v.write(2, &mut out);
        assert_eq!(out, "{\n    \"z\": [\n      \"a\\\"b\",\n      3\n    ],\n    \"a\": {},\n    \"e\": [],\n    \"f\": false\n  }");
        // The same text as serde_json's, keys aside.
        let parsed: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(parsed["z"][0], "a\"b");
    }
}
