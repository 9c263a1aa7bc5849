//! Reading a node's attributes against its op's [`Signature`], and the axis rules several
//! families share (negative axes, ranges, repeats, reduced shapes).

use std::collections::HashSet;

use crate::messages::closest;
use crate::onnx::{attribute_type, AttributeProto, NodeProto};

use super::{AttrKind, Signature};

/// How many of a node's attribute problems its message lists (the rest are counted).
const SHOWN_ATTRIBUTE_ERRORS: usize = 10;

/// A node's attributes, checked against its op version's signature: none unknown, none
/// repeated, each of the type it must have, flags 0 or 1.
#[derive(Clone, Debug, Default)]
pub struct Attributes<'a> {
    list: Vec<&'a AttributeProto>,
}

impl<'a> Attributes<'a> {
    /// Checks the attributes of a node; the error names each problem, after `label`.
    pub fn parse(node: &'a NodeProto, signature: &Signature, label: &str) -> Result<Self, String> {
        let mut list: Vec<&'a AttributeProto> = Vec::new();
        let mut errors = Vec::new();
        let allowed: Vec<&str> = signature.attributes.iter().map(|a| a.name).collect();
        // Names seen so far, so that a node with thousands of attributes costs linear time.
        let mut seen: HashSet<&str> = HashSet::new();
        for a in &node.attribute {
            if !seen.insert(a.name.as_str()) {
                errors.push((
                    a.name.clone(),
                    format!("attribute `{}` is given twice", a.name),
                ));
                continue;
            }
            let Some(spec) = signature.attribute(&a.name) else {
                errors.push((a.name.clone(), unknown(a, signature, &allowed)));
                continue;
            };
            let want = type_code(spec.kind);
            // An attribute without its type field (old exporters) is read by what it holds.
            let given = if a.r#type == attribute_type::UNDEFINED {
                payload_type(a).unwrap_or(want)
            } else {
                a.r#type
            };
            if given != want {
                let a = &AttributeProto {
                    r#type: given,
                    ..(*a).clone()
                };
                errors.push((
                    a.name.clone(),
                    format!(
                        "attribute `{}` has type {}, but it must be {}; {}",
                        a.name,
                        attribute_type::name(a.r#type),
                        attribute_type::name(want),
                        retype_hint(a, want)
                    ),
                ));
                continue;
            }
            list.push(a);
        }
        let mut errors: Vec<String> = errors.into_iter().map(|(_, e)| e).collect();
        for spec in signature.attributes {
            if spec.kind != AttrKind::Flag {
                continue;
            }
            if let Some(a) = list.iter().find(|a| a.name == spec.name) {
                if !matches!(a.i, 0 | 1) {
                    errors.push(format!(
                        "attribute `{}` is {}; it must be 0 or 1",
                        spec.name, a.i
                    ));
                }
            }
        }
        if errors.len() > SHOWN_ATTRIBUTE_ERRORS {
            let more = errors.len() - SHOWN_ATTRIBUTE_ERRORS;
            errors.truncate(SHOWN_ATTRIBUTE_ERRORS);
            errors.push(format!("and {more} more attribute problems not shown"));
        }
        if errors.is_empty() {
            Ok(Attributes { list })
        } else {
            Err(format!("{label}: {}", errors.join("; ")))
        }
    }

    /// The attribute named `name`, if the node gives it.
    pub fn get(&self, name: &str) -> Option<&'a AttributeProto> {
        self.list.iter().copied().find(|a| a.name == name)
    }

    /// An integer attribute (`Int` or `Flag`).
    pub fn int(&self, name: &str) -> Option<i64> {
        self.get(name).map(|a| a.i)
    }

    /// A flag attribute (0 or 1, checked), with its default.
    pub fn flag(&self, name: &str, default: bool) -> bool {
        self.int(name).map_or(default, |v| v == 1)
    }

    /// A list-of-integers attribute.
    pub fn ints(&self, name: &str) -> Option<&'a [i64]> {
        self.get(name).map(|a| a.ints.as_slice())
    }

    /// The attributes given, in the file's order.
    pub fn iter(&self) -> impl Iterator<Item = &'a AttributeProto> + '_ {
        self.list.iter().copied()
    }
}

/// The attribute type code of a kind of attribute value.
fn type_code(kind: AttrKind) -> i32 {
    match kind {
        AttrKind::Int | AttrKind::Flag => attribute_type::INT,
        AttrKind::Ints => attribute_type::INTS,
        AttrKind::Float => attribute_type::FLOAT,
        AttrKind::Floats => attribute_type::FLOATS,
        AttrKind::Tensor => attribute_type::TENSOR,
        AttrKind::String => attribute_type::STRING,
        AttrKind::Strings => attribute_type::STRINGS,
        AttrKind::SparseTensor => attribute_type::SPARSE_TENSOR,
    }
}

/// The message for an attribute the op version does not take: what it takes, the closest name,
/// and a note when the name is an input of this version.
fn unknown(a: &AttributeProto, signature: &Signature, allowed: &[&str]) -> String {
    let list = if allowed.is_empty() {
        "none".to_string()
    } else {
        allowed
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let hint = match signature.inputs.iter().position(|i| i.name == a.name) {
        Some(k) => format!(
            " (in this op version, {} is the {} input, not an attribute)",
            a.name,
            ordinal(k)
        ),
        None => String::new(),
    };
    let suggestion = closest(&a.name, allowed.iter().copied())
        .map_or(String::new(), |c| format!(" (did you mean `{c}`?)"));
    format!(
        "unknown attribute `{}`{hint}{suggestion}; this op version takes: {list}",
        a.name
    )
}

/// `first`, `second`, ... for an input position.
fn ordinal(k: usize) -> String {
    match k {
        0 => "first".to_string(),
        1 => "second".to_string(),
        2 => "third".to_string(),
        n => format!("{}th", n + 1),
    }
}

/// How to write an attribute with the type it needs, after the value the model gives: "write it
/// as an integer, e.g. axis=1, not axis=1.0".
fn retype_hint(a: &AttributeProto, want: i32) -> String {
    let name = &a.name;
    if want != attribute_type::INT && want != attribute_type::INTS {
        return format!("write it as a {} attribute", attribute_type::name(want));
    }
    // An integer close to what was written, for the example.
    let int = |f: f32| {
        if f.is_finite() && f.abs() < 1e9 {
            f.trunc() as i64
        } else {
            1
        }
    };
    let floats = |v: &[f32]| {
        v.iter()
            .map(|f| format!("{f:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if want == attribute_type::INTS {
        let (example, given) = match a.r#type {
            attribute_type::INT => (vec![a.i], Some(a.i.to_string())),
            attribute_type::FLOAT => (vec![int(a.f)], Some(format!("{:?}", a.f))),
            attribute_type::FLOATS if !a.floats.is_empty() => (
                a.floats.iter().map(|&f| int(f)).collect(),
                Some(format!("[{}]", floats(&a.floats))),
            ),
            _ => (vec![1], None),
        };
        let example = example
            .iter()
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        let not = given.map_or(String::new(), |g| format!(", not {name}={g}"));
        return format!("write it as a list of integers, e.g. {name}=[{example}]{not}");
    }
    let (example, given) = match a.r#type {
        attribute_type::FLOAT => (int(a.f), Some(format!("{:?}", a.f))),
        attribute_type::INTS if !a.ints.is_empty() => {
            let ints = a
                .ints
                .iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(", ");
            (a.ints[0], Some(format!("[{ints}]")))
        }
        attribute_type::FLOATS if !a.floats.is_empty() => {
            (int(a.floats[0]), Some(format!("[{}]", floats(&a.floats))))
        }
        _ => (1, None),
    };
    let not = given.map_or(String::new(), |g| format!(", not {name}={g}"));
    format!("write it as an integer, e.g. {name}={example}{not}")
}

/// The type an attribute without its type field holds, by the one payload it carries: `None`
/// when nothing tells (a zero `i` or `f` fits either).
fn payload_type(a: &AttributeProto) -> Option<i32> {
    use attribute_type as t;
    if !a.ints.is_empty() {
        Some(t::INTS)
    } else if !a.floats.is_empty() {
        Some(t::FLOATS)
    } else if a.t.is_some() {
        Some(t::TENSOR)
    } else if !a.strings.is_empty() {
        Some(t::STRINGS)
    } else if !a.s.is_empty() {
        Some(t::STRING)
    } else if a.f != 0.0 {
        Some(t::FLOAT)
    } else if a.i != 0 {
        Some(t::INT)
    } else {
        None
    }
}

/// Makes an axis non-negative, checking its range for the op version.
pub fn normalize_axis(
    axis: i64,
    rank: usize,
    negative_ok: bool,
    what: &str,
    label: &str,
) -> Result<usize, String> {
    let r = rank as i64;
    if axis < 0 && !negative_ok {
        return Err(format!(
            "{label}: {what} {axis} is negative, which this op version does not allow (negative \
             axes arrive in opset 11); use {} instead, or import opset 11 or later",
            axis + r
        ));
    }
    let lo = if negative_ok { -r } else { 0 };
    if axis < lo || axis >= r {
        let range = if rank == 0 {
            "none: the input is a scalar (rank 0)".to_string()
        } else {
            format!("{lo} to {}", r - 1)
        };
        return Err(format!(
            "{label}: {what} {axis} is out of range for an input of rank {rank} (valid: {range})"
        ));
    }
    Ok(if axis < 0 {
        (axis + r) as usize
    } else {
        axis as usize
    })
}

/// Normalizes a list of axes, rejecting repeats; the result is sorted.
pub fn normalize_axes(
    axes: &[i64],
    rank: usize,
    negative_ok: bool,
    label: &str,
) -> Result<Vec<usize>, String> {
    let mut out = Vec::with_capacity(axes.len());
    for &a in axes {
        let n = normalize_axis(a, rank, negative_ok, "axis", label)?;
        if out.contains(&n) {
            return Err(format!(
                "{label}: axes {axes:?} name axis {n} more than once; list each axis once"
            ));
        }
        out.push(n);
    }
    out.sort_unstable();
    Ok(out)
}

/// The shape after reducing `axes`: kept as 1 with `keepdims`, removed otherwise.
pub fn reduced_shape(shape: &[usize], axes: &[usize], keepdims: bool) -> Vec<usize> {
    let mut out = Vec::with_capacity(shape.len());
    for (i, &d) in shape.iter().enumerate() {
        if axes.contains(&i) {
            if keepdims {
                out.push(1);
            }
        } else {
            out.push(d);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::{Attr, Input};

    const SIG: Signature = Signature {
        inputs: &[Input::DATA],
        attributes: &[
            Attr {
                name: "axis",
                kind: AttrKind::Int,
            },
            Attr {
                name: "value_float",
                kind: AttrKind::Float,
            },
        ],
    };

    fn node(a: AttributeProto) -> NodeProto {
        NodeProto {
            attribute: vec![a],
            ..Default::default()
        }
    }

    #[test]
    fn attributes_without_a_type_are_read_by_what_they_hold() {
        // An old exporter's `axis` with no type field but an int: accepted.
        let n = node(AttributeProto {
            name: "axis".into(),
            i: 1,
            ..Default::default()
        });
        let a = Attributes::parse(&n, &SIG, "node").unwrap();
        assert_eq!(a.int("axis"), Some(1));
        // A `value_float` holding ints: an error, never a silent 0.0.
        let n = node(AttributeProto {
            name: "value_float".into(),
            ints: vec![3],
            ..Default::default()
        });
        let e = Attributes::parse(&n, &SIG, "node").unwrap_err();
        assert!(e.contains("has type INTS, but it must be FLOAT"), "{e}");
        // Typed as INTS: the same error.
        let n = node(AttributeProto {
            name: "value_float".into(),
            ints: vec![3],
            r#type: attribute_type::INTS,
            ..Default::default()
        });
        assert!(Attributes::parse(&n, &SIG, "node").is_err());
    }
}
