//! The typed graph: values with element type and static shape, nodes as resolved ops, in an
//! order that respects their data dependencies.

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

/// A node's operation with every attribute resolved against the input shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// ArgMax / ArgMin: index of the extreme along one axis.
    Arg {
        /// Max or Min.
        direction: Direction,
        /// The axis, already made non-negative.
        axis: usize,
        /// Keep the reduced axis as size 1.
        keepdims: bool,
        /// On ties (and among NaNs), pick the last index instead of the first.
        select_last_index: bool,
    },
    /// ReduceMax / ReduceMin over a set of axes.
    Reduce {
        /// Max or Min.
        direction: Direction,
        /// The reduced axes, non-negative, sorted, distinct. Empty with `noop` means identity.
        axes: Vec<usize>,
        /// Keep reduced axes as size 1.
        keepdims: bool,
        /// `noop_with_empty_axes=1` with empty axes: the output is the input.
        noop: bool,
    },
    /// Hardmax over a set of axes (1 and 11: `axis..rank`; 13: one axis; `onnx_aot`: any set).
    Hardmax {
        /// The reduced axes, non-negative, sorted, distinct.
        axes: Vec<usize>,
    },
    /// Identity: the output is the input.
    Identity,
}

/// One node of the graph.
#[derive(Clone, Debug, PartialEq)]
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
    /// The resolved operation.
    pub op: Op,
    /// The data input (the only one read at run time).
    pub input: ValueId,
    /// The output.
    pub output: ValueId,
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

impl Node {
    /// A short description for messages: `node 2 "argmax_1" (ArgMax-13, opset 18)`.
    pub fn describe(&self) -> String {
        describe_node(
            self.index,
            &self.name,
            &self.op_type,
            self.version,
            self.opset,
        )
    }
}

/// Formats a node reference for messages: index, name, op, version and opset.
pub fn describe_node(index: usize, name: &str, op_type: &str, version: i64, opset: i64) -> String {
    if name.is_empty() {
        format!("node {index} (unnamed, {op_type}-{version}, opset {opset})")
    } else {
        format!("node {index} {name:?} ({op_type}-{version}, opset {opset})")
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
