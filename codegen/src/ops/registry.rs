//! Which op family compiles which (domain, op type), and which domains and opsets are known.
//! Adding an op is one module under `ops/` and one line in [`REGISTRY`].

use super::Family;

/// The custom domain of onnx-aot's own ops (multi-axis Hardmax).
pub const AOT_DOMAIN: &str = "onnx_aot";

/// The domains onnx-aot knows, with the newest opset of each it knows: the default domain
/// (`""`, ONNX 1.23's opset 28) and [`AOT_DOMAIN`].
pub const DOMAINS: &[(&str, i64)] = &[("", 28), (AOT_DOMAIN, 1)];

/// One op the generator compiles.
pub struct Registration {
    /// Its domain, normalized (`""` is the default domain).
    pub domain: &'static str,
    /// Its op type.
    pub op_type: &'static str,
    /// The family that checks, resolves and emits it.
    pub family: &'static dyn Family,
}

/// Every op the generator compiles, in the order messages list them.
pub static REGISTRY: &[Registration] = &[
    op("", "ArgMax", &super::arg::ARG_MAX),
    op("", "ArgMin", &super::arg::ARG_MIN),
    op("", "ReduceMax", &super::reduce::REDUCE_MAX),
    op("", "ReduceMin", &super::reduce::REDUCE_MIN),
    op("", "Hardmax", &super::hardmax::HARDMAX),
    op("", "Identity", &super::identity::IDENTITY),
    op("", "Constant", &super::constant::CONSTANT),
    op("", "GlobalMaxPool", &super::pool::GLOBAL_MAX_POOL),
    op("", "MaxPool", &super::pool::MAX_POOL),
    op("", "Reshape", &super::reshape::RESHAPE),
    op("", "Flatten", &super::reshape::FLATTEN),
    op("", "Squeeze", &super::reshape::SQUEEZE),
    op("", "Unsqueeze", &super::reshape::UNSQUEEZE),
    op("", "Cast", &super::cast::CAST),
    op("", "CastLike", &super::cast::CAST_LIKE),
    op("", "Transpose", &super::strided::TRANSPOSE),
    op("", "Slice", &super::strided::SLICE),
    op("", "Shape", &super::shape_math::SHAPE),
    op("", "Gather", &super::shape_math::GATHER),
    op("", "Concat", &super::shape_math::CONCAT),
    op("", "ConstantOfShape", &super::shape_math::CONSTANT_OF_SHAPE),
    op("", "Add", &super::shape_math::ADD),
    op("", "Sub", &super::shape_math::SUB),
    op("", "Mul", &super::shape_math::MUL),
    op("", "Div", &super::shape_math::DIV),
    op(AOT_DOMAIN, "Hardmax", &super::hardmax::AOT_HARDMAX),
];

const fn op(
    domain: &'static str,
    op_type: &'static str,
    family: &'static dyn Family,
) -> Registration {
    Registration {
        domain,
        op_type,
        family,
    }
}

/// The op registered for a domain (normalized: `""` is the default) and op type.
pub fn lookup(domain: &str, op_type: &str) -> Option<&'static Registration> {
    REGISTRY
        .iter()
        .find(|r| r.domain == domain && r.op_type == op_type)
}

/// The newest opset onnx-aot knows of a domain, if it knows the domain.
pub fn max_opset(domain: &str) -> Option<i64> {
    DOMAINS.iter().find(|(d, _)| *d == domain).map(|&(_, v)| v)
}

/// The ops onnx-aot compiles, for messages: `ArgMax, ArgMin, ..., Constant and
/// onnx_aot::Hardmax`.
pub fn supported_list() -> String {
    let names: Vec<String> = REGISTRY
        .iter()
        .map(|r| {
            if r.domain.is_empty() {
                r.op_type.to_string()
            } else {
                format!("{}::{}", r.domain, r.op_type)
            }
        })
        .collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => names.join(""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_op_is_registered_once_in_a_known_domain() {
        for (i, r) in REGISTRY.iter().enumerate() {
            assert!(max_opset(r.domain).is_some(), "{} {}", r.domain, r.op_type);
            assert!(
                REGISTRY[..i]
                    .iter()
                    .all(|o| (o.domain, o.op_type) != (r.domain, r.op_type)),
                "{}::{} registered twice",
                r.domain,
                r.op_type
            );
            let versions = r.family.versions();
            assert!(
                versions.windows(2).all(|w| w[0] < w[1]) && versions[0] >= 1,
                "{}: versions must ascend from 1 or later",
                r.op_type
            );
            let max = max_opset(r.domain).unwrap_or(0);
            assert!(
                versions.iter().all(|&v| v <= max),
                "{}: a version beyond the known opset {max}",
                r.op_type
            );
        }
    }

    #[test]
    fn lookup_finds_by_domain_and_op() {
        assert_eq!(lookup("", "ArgMax").map(|r| r.op_type), Some("ArgMax"));
        assert_eq!(
            lookup(AOT_DOMAIN, "Hardmax").map(|r| r.domain),
            Some(AOT_DOMAIN)
        );
        assert!(lookup(AOT_DOMAIN, "ArgMax").is_none());
        assert!(lookup("", "Relu").is_none());
        let list = supported_list();
        assert!(list.starts_with("ArgMax, ArgMin, "), "{list}");
        assert!(list.ends_with(" and onnx_aot::Hardmax"), "{list}");
    }
}
