//! The typed graph: values with element type and static shape, nodes as resolved ops, in an
//! order that respects their data dependencies.

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use proc_macro2::TokenStream;

use crate::dtype::DType;

/// Index of a value in [`Graph::values`].
pub type ValueId = usize;

/// Which way a reduction or arg-reduction looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// ArgMax, ReduceMax, Hardmax.
    Max,
    /// ArgMin, ReduceMin.
    Min,
}

/// What a node computes, resolved by its op family (see [`crate::ops`]) against the input's
/// type and shape: the interface the later stages (memory plan, emitter) use, so that they never
/// look at op names. Each family implements it for its own resolved op.
pub trait Compute: DynEq + fmt::Debug + Send + Sync {
    /// The op's part of the node function's name (`argmax` in `node_0_argmax`).
    fn stem(&self) -> &'static str;

    /// The attributes as resolved, for the node function's doc (`axis 1, keepdims 0`); `None`
    /// for an op without attributes.
    fn resolved(&self, input: &Value) -> Option<String>;

    /// Whether the output may share the input's storage (the node computes nothing then,
    /// unless its output is a graph output).
    fn is_alias(&self) -> bool {
        self.alias_offset().is_some()
    }

    /// When the output is a contiguous part of the input (a Slice of the outermost axes), the
    /// element where it starts: the output may then be a view into the input's storage. `Some(0)`
    /// for ops whose output is the input under another shape.
    fn alias_offset(&self) -> Option<usize> {
        None
    }

    /// The node function's body over `x: &[input element]` and `y: &mut [output element]`,
    /// and a one-line description of its plan. `rt` is the path of the runtime crate.
    fn emit(&self, input: &Value, output: &Value, rt: &TokenStream) -> NodeCode;

    /// Whether this node can also compute the output of `sibling`, another node reading the
    /// same `input`, in its own pass over it (sibling fusion, see [`crate::fuse`]).
    fn absorbs(&self, sibling: &dyn Compute, input: &Value) -> bool {
        let _ = (sibling, input);
        false
    }

    /// The body of a node that also computes the outputs of absorbed siblings: over `x`, `y`
    /// and one `also_<k>: &mut [element]` per value of `also`. Only called when
    /// [`Compute::absorbs`] accepted each sibling.
    fn emit_fused(
        &self,
        input: &Value,
        output: &Value,
        also: &[&Value],
        rt: &TokenStream,
    ) -> NodeCode {
        let _ = also;
        self.emit(input, output, rt)
    }

    /// For an op whose output is one-hot along one axis (Hardmax), that axis: every position
    /// of the other axes holds exactly one 1, at the op's pick along it.
    fn one_hot_axis(&self, input: &Value) -> Option<usize> {
        let _ = input;
        None
    }

    /// How many leading axes of the input the op keeps, in order, as the leading axes of its
    /// output, each output position computed from its own part of the input: the op over a run
    /// of positions of axis 0 is then the same op over that part of the tensor, so two nodes
    /// can run in chunks along axis 0 ([`crate::chunks`]). 0 (the default) for ops that mix
    /// positions of axis 0.
    fn leading_kept_axes(&self, input: &Value) -> usize {
        let _ = input;
        0
    }

    /// For a reduction over exactly the leading axes `0..k` of its input (`k` at least 1, an
    /// axis after them kept, nothing folded into it): `k`. Its output is then the extreme,
    /// element by element, of the input's planes (the blocks of its first `k` axes), so that
    /// it runs in chunks along axis `k` with the next node ([`crate::chunks`]) through
    /// [`Compute::emit_plane_part`]. `None` (the default) for everything else.
    fn reduced_leading_axes(&self, input: &Value) -> Option<usize> {
        let _ = input;
        None
    }

    /// For an op with [`Compute::reduced_leading_axes`]: the body of a function over `x` (the
    /// whole input), `y` (a chunk of the output) and `at: usize` that writes into `y` the
    /// extreme across the `planes` planes of `x` of their elements `at..at + y.len()`. Empty
    /// for any other op.
    fn emit_plane_part(&self, input: &Value, planes: usize, rt: &TokenStream) -> NodeCode {
        let _ = (input, planes, rt);
        NodeCode {
            body: TokenStream::new(),
            plan: String::new(),
        }
    }

    /// For a Transpose, its permutation (output axis `i` is input axis `perm[i]`).
    fn permutation(&self) -> Option<&[usize]> {
        None
    }

    /// This op over the input of a Transpose by `perm` instead of over its output `transposed`,
    /// if the result keeps its layout (the kept dimensions keep their order); `None` if not.
    fn over_permuted(&self, perm: &[usize], transposed: &Value) -> Option<Arc<dyn Compute>> {
        let _ = (perm, transposed);
        None
    }

    /// This op over the input of a Cast from `from` to `to` instead of over its output
    /// `cast`, if it can read the uncast values and give the same output (a Cast folded into
    /// the read); `None` if not.
    fn over_cast(&self, from: DType, to: DType, cast: &Value) -> Option<Arc<dyn Compute>> {
        let _ = (from, to, cast);
        None
    }

    /// This op writing its output directly as `to`, the type of a Cast that is the only reader
    /// of its output (an index cast to INT32 after an ArgMax), if it can; `None` if not.
    fn writes_cast(&self, to: DType, input: &Value) -> Option<Arc<dyn Compute>> {
        let _ = (to, input);
        None
    }

    /// For an op that, read over a one-hot input along `axis`, gives the same result as over
    /// the one-hot's own input (ArgMax: the 1 sits at the first maximum), the op to use there
    /// instead; `None` if it does not.
    fn over_one_hot_source(&self, axis: usize) -> Option<Arc<dyn Compute>> {
        let _ = axis;
        None
    }
}

/// The body of a node function and the plan it follows.
#[derive(Clone, Debug)]
pub struct NodeCode {
    /// Statements over `x` and `y`; empty when there is nothing to compute.
    pub body: TokenStream,
    /// The plan in words, for the function's doc (`reduction over merged runs [keep 4]`).
    pub plan: String,
}

/// Comparison and downcasting of [`Compute`] trait objects; implemented for every op type that
/// is `PartialEq`.
pub trait DynEq: Any {
    /// The op as [`Any`], for downcasting.
    fn as_any(&self) -> &dyn Any;
    /// Whether `other` is the same op type with equal fields.
    fn dyn_eq(&self, other: &dyn Any) -> bool;
}

impl<T: PartialEq + Any> DynEq for T {
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn dyn_eq(&self, other: &dyn Any) -> bool {
        other.downcast_ref::<T>() == Some(self)
    }
}

impl PartialEq for dyn Compute {
    fn eq(&self, other: &Self) -> bool {
        self.dyn_eq(other.as_any())
    }
}

impl dyn Compute {
    /// The resolved op as its family's own type (`ops::arg::ArgOp`), if it is one.
    pub fn downcast_ref<T: Any>(&self) -> Option<&T> {
        self.as_any().downcast_ref()
    }
}

/// One node of the graph.
#[derive(Clone, Debug)]
pub struct Node {
    /// The node's name in the file (may be empty).
    pub name: String,
    /// Its position in the file's node list.
    pub index: usize,
    /// The op type as written, e.g. `"ArgMax"`.
    pub op_type: String,
    /// The domain as written (normalized: `""` for the default domain).
    pub domain: String,
    /// The op version that applies (highest `since_version` <= the opset import).
    pub version: i64,
    /// The opset imported for the node's domain.
    pub opset: i64,
    /// What the node computes, as resolved by its op family.
    pub op: Arc<dyn Compute>,
    /// The data input (the only one read at run time).
    pub input: ValueId,
    /// The output.
    pub output: ValueId,
    /// Sibling nodes reading the same input whose outputs this node computes in the same pass
    /// (sibling fusion, [`crate::fuse`]); they are not in [`Graph::nodes`] themselves.
    pub fused: Vec<Node>,
    /// Doc string of the node.
    pub doc: String,
    /// The attributes as written in the file (`name=value`), for generated docs.
    pub written: Vec<String>,
}

/// The attributes of a node as written (`axis=-1`, `axes=[0, 2]`), for generated docs.
pub fn written_attributes(node: &crate::onnx::NodeProto) -> Vec<String> {
    use crate::onnx::attribute_type as t;
    node.attribute
        .iter()
        .map(|a| match a.r#type {
            t::INT => format!("{}={}", a.name, a.i),
            t::INTS => format!("{}={:?}", a.name, a.ints),
            t::FLOAT => format!("{}={}", a.name, a.f),
            other => format!("{}=({})", a.name, t::name(other)),
        })
        .collect()
}

impl PartialEq for Node {
    fn eq(&self, other: &Self) -> bool {
        // Written out: a derived comparison of `Arc<dyn Compute>` does not compile.
        self.name == other.name
            && self.index == other.index
            && self.op_type == other.op_type
            && self.domain == other.domain
            && self.version == other.version
            && self.opset == other.opset
            && *self.op == *other.op
            && self.input == other.input
            && self.output == other.output
            && self.fused == other.fused
            && self.doc == other.doc
            && self.written == other.written
    }
}

impl Node {
    /// Every value the node computes: its output, then the fused siblings' outputs.
    pub fn outputs(&self) -> impl Iterator<Item = ValueId> + '_ {
        std::iter::once(self.output).chain(self.fused.iter().map(|f| f.output))
    }

    /// A short description for messages: `node 2 "argmax_1" (ArgMax-13, opset 18)`.
    pub fn describe(&self) -> String {
        crate::messages::describe_node(
            self.index,
            &self.name,
            &self.op_type,
            self.version,
            self.opset,
        )
    }
}

/// Where a value comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// A graph input supplied at run time: position among the run-time inputs.
    Input(usize),
    /// A constant (initializer, `Constant` node or frozen input).
    Constant(Tensor),
    /// The output of a node (index into [`Graph::nodes`]).
    Node(usize),
}

/// A value flowing through the graph.
#[derive(Clone, Debug, PartialEq)]
pub struct Value {
    /// The ONNX name.
    pub name: String,
    /// Element type.
    pub dtype: DType,
    /// Static shape.
    pub shape: Vec<usize>,
    /// Where it comes from.
    pub source: Source,
}

impl Value {
    /// Number of elements.
    pub fn numel(&self) -> usize {
        self.shape.iter().product()
    }
}

/// A constant tensor: element type, shape and little-endian element bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    /// Element type.
    pub dtype: DType,
    /// Shape.
    pub shape: Vec<usize>,
    /// `numel * dtype.size()` bytes, little-endian elements (bool as 0/1).
    pub bytes: Vec<u8>,
}

impl Tensor {
    /// The elements as `i64`, for integer tensors (`axes` inputs).
    pub fn to_i64s(&self) -> Option<Vec<i64>> {
        let size = self.dtype.size();
        let read = |c: &[u8]| -> i64 {
            let mut b = [0u8; 8];
            b[..c.len()].copy_from_slice(c);
            match self.dtype {
                DType::I8 => c[0] as i8 as i64,
                DType::I16 => i16::from_le_bytes([c[0], c[1]]) as i64,
                DType::I32 => i32::from_le_bytes([c[0], c[1], c[2], c[3]]) as i64,
                _ => i64::from_le_bytes(b),
            }
        };
        match self.dtype {
            DType::I8 | DType::I16 | DType::I32 | DType::I64 => {
                Some(self.bytes.chunks_exact(size).map(read).collect())
            }
            _ => None,
        }
    }
}

/// A graph output: its name and the value it shows.
#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    /// The ONNX name.
    pub name: String,
    /// The value.
    pub value: ValueId,
}

/// The checked, typed, shape-inferred graph.
#[derive(Clone, Debug, PartialEq)]
pub struct Graph {
    /// Every value, constants and inputs included.
    pub values: Vec<Value>,
    /// The nodes that compute something, in dependency order.
    pub nodes: Vec<Node>,
    /// The run-time inputs in graph order (frozen and constant inputs excluded).
    pub inputs: Vec<ValueId>,
    /// The graph outputs in graph order.
    pub outputs: Vec<Output>,
    /// Facts about the model for documentation.
    pub info: ModelInfo,
    /// Pairs of adjacent nodes that run together in chunks along axis 0 ([`crate::chunks`]).
    pub chunked: Vec<Chunked>,
}

/// A node and the next one, its output's only reader, run together chunk after chunk of axis
/// 0, so that the value between them is never whole: only a chunk of it in scratch, read while
/// it is in cache ([`crate::chunks`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunked {
    /// The first node's position in [`Graph::nodes`] (the second is the next one).
    pub first: usize,
    /// Positions of the chunked axis per chunk, two chunks at least; when it does not divide
    /// the axis, the last positions are one shorter chunk (never with `planes`).
    pub rows: usize,
    /// 1: the pair runs along axis 0 of all three values. More: the first node reduces the
    /// leading axes of its input ([`Compute::reduced_leading_axes`]), the product of their
    /// extents; each chunk of its output is the extreme of that many parts of the input, one
    /// per plane, and the pair runs along the value's axis [`Chunked::axis`].
    pub planes: usize,
    /// The chunked axis of the value between the nodes and of the second node's output (the
    /// axes before it have extent 1): 0 unless the first node keeps the reduced axes.
    pub axis: usize,
}

impl Graph {
    /// How many readers each value has, by value: nodes (a fused node's siblings read its input
    /// too) and graph outputs.
    pub fn readers(&self) -> Vec<usize> {
        let mut readers = vec![0usize; self.values.len()];
        for node in &self.nodes {
            readers[node.input] += 1 + node.fused.len();
        }
        for out in &self.outputs {
            readers[out.value] += 1;
        }
        readers
    }

    /// The chunked pair each node is part of (as its first or second node), by position.
    pub fn chunked_by_node(&self) -> Vec<Option<Chunked>> {
        let mut by_node = vec![None; self.nodes.len()];
        for &c in &self.chunked {
            for k in [c.first, c.first + 1] {
                if let Some(slot) = by_node.get_mut(k) {
                    *slot = Some(c);
                }
            }
        }
        by_node
    }

    /// The value between a chunked pair (the first node's output) and the elements one chunk
    /// of it holds: the scratch it takes.
    pub fn chunk_of(&self, c: Chunked) -> Option<(ValueId, usize)> {
        let v = self.nodes.get(c.first)?.output;
        let n = *self.values[v].shape.get(c.axis)?;
        Some((v, self.values[v].numel() / n.max(1) * c.rows))
    }
}

/// Descriptive facts about the model, passed into generated docs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModelInfo {
    /// The graph's name.
    pub graph_name: String,
    /// The model's and the graph's doc strings.
    pub doc: String,
    /// Producer name and version.
    pub producer: String,
    /// The IR version.
    pub ir_version: i64,
    /// Opset imports (domain, version), default domain spelled `""`.
    pub opsets: Vec<(String, i64)>,
    /// Metadata key/value pairs.
    pub metadata: Vec<(String, String)>,
}
