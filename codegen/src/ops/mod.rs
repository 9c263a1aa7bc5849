//! The ops the generator compiles, one module per op family. Each module holds everything about
//! its ops: the versions and type constraints, the attributes and their checks, shape
//! inference, the loop plan and the emitted code. The stages reach them only through
//! [`Family`] (what the loader needs) and [`crate::ir::Compute`] (what the memory plan and the
//! emitter need), found by (domain, op type) in the [`registry`].
//!
//! | module | ops |
//! | --- | --- |
//! | [`arg`] | ArgMax, ArgMin |
//! | [`reduce`] | ReduceMax, ReduceMin |
//! | [`hardmax`] | Hardmax (default domain), Hardmax (`onnx_aot` domain, several axes) |
//! | [`identity`] | Identity |
//! | [`constant`] | Constant |
//! | [`cast`] | Cast, CastLike |
//! | [`pool`] | GlobalMaxPool, MaxPool over the whole map ([`pool_indices`]: its `Indices`) |
//! | [`shape_math`] | Shape, Gather, Concat, ConstantOfShape, Add, Sub, Mul, Div (evaluated at build time) |
//! | [`strided`] | Transpose, Slice (strided views; folded into max-family readers when possible) |
//! | [`reshape`] | Reshape, Flatten, Squeeze, Unsqueeze (views, folded on constants) |
//!
//! [`attrs`] and [`layout`] hold what several families share: reading attributes and axes, and
//! merging dimensions into runs.

pub mod arg;
pub mod attrs;
pub mod cast;
pub mod constant;
pub mod hardmax;
pub mod identity;
pub mod layout;
pub mod pool;
pub mod pool_indices;
pub mod reduce;
pub mod registry;
pub mod reshape;
pub mod shape_math;
pub mod strided;

use std::sync::Arc;

pub use attrs::Attributes;
pub use registry::{lookup, Registration, AOT_DOMAIN, DOMAINS};

use crate::dtype::DType;
use crate::ir::{Compute, Tensor, Value};

/// The kind of value an attribute must hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttrKind {
    /// One integer (`axis`).
    Int,
    /// An integer that must be 0 or 1 (`keepdims`).
    Flag,
    /// A list of integers (`axes`).
    Ints,
    /// One float (`value_float`).
    Float,
    /// A list of floats.
    Floats,
    /// A tensor (`value`).
    Tensor,
    /// A string.
    String,
    /// A list of strings.
    Strings,
    /// A sparse tensor.
    SparseTensor,
}

/// An attribute an op version takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Attr {
    /// Its name.
    pub name: &'static str,
    /// What it holds.
    pub kind: AttrKind,
}

/// An input an op version takes, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Input {
    /// What the input is, for messages (`data`, `axes`).
    pub name: &'static str,
    /// Whether the node may leave it out.
    pub optional: bool,
    /// Whether its value must be known when the code is generated (an initializer, a Constant
    /// node or a bound graph input), as ReduceMax-18's `axes` must.
    pub at_build_time: bool,
}

impl Input {
    /// The data input: required, read at run time.
    pub const DATA: Input = Input {
        name: "data",
        optional: false,
        at_build_time: false,
    };
}

/// What an op version takes: its inputs in order and its attributes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Signature {
    /// The inputs, in order; the data input (if any) comes first.
    pub inputs: &'static [Input],
    /// The attributes it accepts.
    pub attributes: &'static [Attr],
}

impl Signature {
    /// How many inputs a node may give: (required, all).
    pub fn arity(&self) -> (usize, usize) {
        let required = self.inputs.iter().filter(|i| !i.optional).count();
        (required, self.inputs.len())
    }

    /// The attribute named `name`, if the op version takes it.
    pub fn attribute(&self, name: &str) -> Option<&Attr> {
        self.attributes.iter().find(|a| a.name == name)
    }
}

/// What a family sees of a node when it resolves it: checked attributes, the data input and the
/// inputs known at build time.
pub struct NodeCx<'a> {
    /// The op version that applies.
    pub version: i64,
    /// The node as messages name it (`node 2 "top1" (ArgMax-13, opset 13)`).
    pub label: &'a str,
    /// The attributes, already checked against the signature.
    pub attrs: &'a Attributes<'a>,
    /// The data input, for ops that take one.
    pub data: Option<&'a Value>,
    /// For each input position, its value when known at build time.
    pub constants: &'a [Option<&'a Tensor>],
    /// For each input position, its element type when known (CastLike's `target_type`).
    pub input_dtypes: &'a [Option<DType>],
    /// Which output of the node is resolved (0 but for ops with several, see
    /// [`Family::outputs`]).
    pub output: usize,
}

/// A node as its family resolved it.
#[derive(Debug)]
pub enum Resolved {
    /// A computation at run time, with the output's element type and shape.
    Compute {
        /// What the node computes.
        op: Arc<dyn Compute>,
        /// The output's element type.
        dtype: DType,
        /// The output's shape.
        shape: Vec<usize>,
    },
    /// A value computed while generating code (a Constant node).
    Constant(Tensor),
}

/// An op family: what the loader needs to check and resolve a node of one op.
pub trait Family: Sync {
    /// The `since_version`s of the op, ascending.
    fn versions(&self) -> &'static [i64];

    /// The inputs and attributes of the op at a version.
    fn signature(&self, version: i64) -> Signature;

    /// Whether the data input may have `dtype` at a version (checked before [`Family::resolve`]).
    fn allows(&self, version: i64, dtype: DType) -> bool;

    /// When a type is refused at this version but a later one accepts it, the message's note
    /// (` (BFLOAT16 arrives in opset 13)`); empty otherwise.
    fn type_note(&self, _version: i64, _dtype: DType) -> &'static str {
        ""
    }

    /// Resolves a node against its inputs: attributes checked and defaulted, axes normalized,
    /// the output's type and shape inferred. The error is the whole message, starting with
    /// `cx.label`.
    fn resolve(&self, cx: &NodeCx<'_>) -> Result<Resolved, String>;

    /// How many outputs a node of the op may have at a version (MaxPool's `Indices` makes
    /// two). A node with several is loaded as one node per output given, each resolved with
    /// [`NodeCx::output`] naming its output; sibling fusion joins them into one pass again.
    fn outputs(&self, version: i64) -> usize {
        let _ = version;
        1
    }

    /// The version that applies under an opset import: the highest `since_version` <= opset.
    fn version_at(&self, opset: i64) -> Option<i64> {
        self.versions()
            .iter()
            .copied()
            .filter(|&v| v <= opset)
            .max()
    }

    /// The allowed input types at a version, spelled for a message.
    fn allowed_list(&self, version: i64) -> String {
        DType::ALL
            .iter()
            .filter(|&&t| self.allows(version, t))
            .map(|t| t.onnx_name())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The data input of a node whose op takes one (the loader passes it for every such op).
pub(crate) fn data<'a>(cx: &NodeCx<'a>) -> Result<&'a Value, String> {
    cx.data
        .ok_or_else(|| format!("{}: internal error: no data input", cx.label))
}
