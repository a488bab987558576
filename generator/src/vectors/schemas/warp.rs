//! The warp block of vectors/schema.json: for each record shape the warp families
//! declare ([`WarpShape`]), one rule over the variants of that shape: which keys a
//! record holds, each source once for the warp or once per lane, the widths, the
//! number of lanes and of input classes. A new warp family, or a family whose shape
//! changes, is in the schema without an edit.

use crate::record::{Field, Per, Shape, Source, WarpShape};
use crate::vectors::semantic::Variant;

use super::json::{object, string, value, Json};

/// The warp variants grouped by the shape of their records as their texts write
/// them (`p` only where the text writes `d|p`), each group's ids sorted; the groups
/// in the order their first variant comes in `variants`. The float format is no
/// part of a record's shape on the page (a float is a bit pattern there).
pub(super) fn groups(variants: &[Variant<'_>]) -> Vec<(WarpShape, Vec<String>)> {
    super::group_by(variants, |v| match v.semantics.shape().written(v.pair) {
        Shape::Warp(w) => Some(WarpShape { float: None, ..w }),
        Shape::Memory(_) => None,
    })
}

/// Every warp variant's id, as a pattern, sorted.
pub(super) fn ids(variants: &[Variant<'_>]) -> Vec<String> {
    super::id_patterns(groups(variants))
}

/// The rules of the warp block: one per group of [`groups`], an `if` on the ids
/// of its variants and a `then` that holds their records to its shape.
pub(super) fn rules(variants: &[Variant<'_>]) -> Vec<Json> {
    groups(variants).into_iter().map(|(shape, ids)| super::rule_for_ids(&ids, rule(shape))).collect()
}

/// What a record of `shape` holds, as a schema.
fn rule(shape: WarpShape) -> Json {
    let threads = shape.threads();
    let mut required = Vec::new();
    let mut inputs = Vec::new();
    if shape.membermask {
        required.push(string("membermask"));
        inputs.push(("membermask", mask(32)));
    } else {
        inputs.push(("membermask", Json::False));
    }
    required.push(string("executing"));
    inputs.push(("executing", mask(threads)));
    inputs.push(("exited", mask(threads)));
    for (key, source) in shape.every_source() {
        match source {
            Some(s) => {
                if !s.optional {
                    required.push(string(key));
                }
                inputs.push((key, source_schema(s, threads)));
            }
            None => inputs.push((key, Json::False)),
        }
    }
    let mut outputs_required = vec![string("d")];
    let d = lanes(shape.d, threads);
    let p = if shape.p {
        outputs_required.push(string("p"));
        lanes(Field::Pred, threads)
    } else {
        Json::False
    };
    let count = object(vec![("minItems", Json::Count(shape.classes)), ("maxItems", Json::Count(shape.classes))]);
    object(vec![
        ("description", string(describe(shape))),
        (
            "properties",
            object(vec![
                ("class", count),
                ("inputs", object(vec![("required", Json::Array(required)), ("properties", object(inputs))])),
                (
                    "expect",
                    object(vec![(
                        "additionalProperties",
                        object(vec![
                            ("required", Json::Array(outputs_required)),
                            ("properties", object(vec![("d", d), ("p", p)])),
                        ]),
                    )]),
                ),
            ]),
        ),
    ])
}

/// A thread mask of `threads` bits, written at its width.
fn mask(threads: usize) -> Json {
    object(vec![("type", string("string")), ("pattern", string(format!("^0x[0-9a-f]{{{}}}$", threads / 4)))])
}

/// A list of one input value per thread.
fn per_lane(field: Field, threads: usize) -> Json {
    object(vec![
        ("type", string("array")),
        ("items", value(field)),
        ("minItems", Json::Count(threads)),
        ("maxItems", Json::Count(threads)),
    ])
}

/// A source as its shape holds it: one value for the warp, one per lane, or either.
fn source_schema(s: Source, threads: usize) -> Json {
    match s.per {
        Per::Lane => per_lane(s.field, threads),
        Per::Warp => value(s.field),
        Per::Either => object(vec![("oneOf", Json::Array(vec![value(s.field), per_lane(s.field, threads)]))]),
    }
}

/// An output of one expectation per thread.
fn lanes(field: Field, threads: usize) -> Json {
    object(vec![
        ("items", super::json::output(field)),
        ("minItems", Json::Count(threads)),
        ("maxItems", Json::Count(threads)),
    ])
}

/// A field's values in words.
fn field_words(field: Field) -> String {
    match field {
        Field::Pred => "a predicate".to_owned(),
        Field::Bits(w) => format!("a {w}-bit pattern"),
    }
}

/// The shape in words, for the rule's description.
fn describe(shape: WarpShape) -> String {
    let threads = shape.threads();
    let (unit, whole) = if shape.warps == 1 { ("lane", "the warp") } else { ("thread", "the CTA") };
    let mut parts = vec![if shape.warps == 1 {
        "One warp".to_owned()
    } else {
        format!("A CTA of {} warps, {threads} threads warp after warp", shape.warps)
    }];
    parts.push(if shape.membermask { "membermask".to_owned() } else { "no membermask".to_owned() });
    parts.push(format!("executing and exited {threads}-bit masks"));
    for (key, source) in shape.every_source() {
        let Some(s) = source else { continue };
        let how = match s.per {
            Per::Lane => format!("{} per {unit}", field_words(s.field)),
            Per::Warp => format!("{} for {whole}", field_words(s.field)),
            Per::Either => format!("{} for {whole} or one per {unit}", field_words(s.field)),
        };
        let optional = if s.optional { " (or left out)" } else { "" };
        parts.push(format!("{key}: {how}{optional}"));
    }
    parts.push(format!("d: {} per {unit}", field_words(shape.d)));
    if shape.p {
        parts.push(format!("p: a predicate per {unit}"));
    }
    let classes = if shape.classes == 1 { "1 input class".to_owned() } else { format!("{} input classes", shape.classes) };
    parts.push(classes);
    format!("{}.", parts.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every warp variant is in one group, and no two groups have one shape.
    #[test]
    fn each_warp_variant_is_in_the_group_of_its_shape() {
        let spec = crate::repo_spec();
        let variants = crate::vectors::semantic::variants(&spec);
        let groups = groups(&variants);
        for v in &variants {
            let Shape::Warp(w) = v.semantics.shape().written(v.pair) else { continue };
            let holding: Vec<&WarpShape> = groups.iter().filter(|(_, ids)| ids.contains(&v.id)).map(|(s, _)| s).collect();
            assert_eq!(holding, [&WarpShape { float: None, ..w }], "{}", v.id);
        }
        for (i, (a, _)) in groups.iter().enumerate() {
            assert!(groups[i + 1..].iter().all(|(b, _)| a != b));
        }
    }

    /// A shape's rule says what the shape does: bar.red's, its sources once for the
    /// CTA (the count optional) and its predicate per thread of 1024.
    #[test]
    fn a_rule_states_its_shape() {
        let bar = WarpShape {
            warps: 32,
            a: Some(Source::warp(Field::Bits(32))),
            b: Some(Source::warp(Field::Bits(32)).optional()),
            c: Some(Source::lane(Field::Pred)),
            d: Field::Pred,
            classes: 4,
            ..WarpShape::ONE_WARP
        };
        let mut text = String::new();
        rule(bar).write(0, &mut text);
        let r: serde_json::Value = serde_json::from_str(&text).unwrap();
        let inputs = &r["properties"]["inputs"];
        assert_eq!(inputs["required"], serde_json::json!(["executing", "a", "c"]));
        assert_eq!(inputs["properties"]["membermask"], false);
        assert_eq!(inputs["properties"]["executing"]["pattern"], "^0x[0-9a-f]{256}$");
        assert_eq!(inputs["properties"]["a"]["pattern"], "^0x[0-9a-f]{8}$");
        assert_eq!(inputs["properties"]["c"]["minItems"], 1024);
        assert_eq!(inputs["properties"]["c"]["items"]["pattern"], "^0x[01]$");
        let out = &r["properties"]["expect"]["additionalProperties"];
        assert_eq!(out["required"], serde_json::json!(["d"]));
        assert_eq!(out["properties"]["d"]["items"]["$ref"], "#/$defs/pred");
        assert_eq!(out["properties"]["d"]["maxItems"], 1024);
        assert_eq!(out["properties"]["p"], false);
        assert_eq!(r["properties"]["class"]["maxItems"], 4);
    }
}
