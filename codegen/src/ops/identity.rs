//! Identity (every version up to 25): the output is the input. It computes nothing when its
//! output can share the input's storage, and copies otherwise (into a graph output).

use std::sync::Arc;

use proc_macro2::TokenStream;
use quote::quote;

use super::{Family, Input, NodeCx, Resolved, Signature};
use crate::dtype::DType;
use crate::ir::{Compute, NodeCode, Value};

/// Identity.
pub struct IdentityFamily;

/// Identity.
pub static IDENTITY: IdentityFamily = IdentityFamily;

impl Family for IdentityFamily {
    fn versions(&self) -> &'static [i64] {
        &[1, 13, 14, 16, 19, 21, 23, 24, 25]
    }

    fn signature(&self, _version: i64) -> Signature {
        Signature {
            inputs: &[Input::DATA],
            attributes: &[],
        }
    }

    fn allows(&self, _version: i64, _dtype: DType) -> bool {
        true
    }

    fn resolve(&self, cx: &NodeCx<'_>) -> Result<Resolved, String> {
        let input = super::data(cx)?;
        Ok(Resolved::Compute {
            op: Arc::new(IdentityOp),
            dtype: input.dtype,
            shape: input.shape.clone(),
        })
    }
}

/// A resolved Identity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IdentityOp;

impl Compute for IdentityOp {
    fn stem(&self) -> &'static str {
        "identity"
    }

    fn resolved(&self, _input: &Value) -> Option<String> {
        None
    }

    fn alias_offset(&self) -> Option<usize> {
        Some(0)
    }

    fn emit(&self, _input: &Value, _output: &Value, rt: &TokenStream) -> NodeCode {
        NodeCode {
            body: quote!(#rt::node::copy(y, x);),
            plan: "copy".to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_is_an_alias_of_every_type() {
        assert!(IdentityOp.is_alias());
        assert!(DType::ALL.iter().all(|&t| IDENTITY.allows(25, t)));
        assert_eq!(IDENTITY.version_at(15), Some(14));
        assert_eq!(IDENTITY.signature(1).arity(), (1, 1));
    }
}
