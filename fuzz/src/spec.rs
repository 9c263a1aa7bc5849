//! The description of a graph that the `graphs` fuzz target draws with `arbitrary`: what a model
//! looks like one level above its bytes, so that most inputs reach inference, planning and
//! emission instead of dying in the decoder.
//!
//! Every list is capped when the description is turned into a model ([`crate::build`]), so an
//! input costs at most a few milliseconds however long it is.

use arbitrary::{Arbitrary, Result, Unstructured};

/// `Some` for about one input in sixteen: for the options and shapes that make most models invalid
/// (a cut, chosen outputs, a missing type), so that most graphs still get through.
#[derive(Debug, Clone)]
pub struct Rare<T>(pub Option<T>);

impl<'a, T: Arbitrary<'a>> Arbitrary<'a> for Rare<T> {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        // Exhausted input reads as zeros: zero must mean the common case.
        Ok(Rare(if u8::arbitrary(u)? >= 240 {
            Some(T::arbitrary(u)?)
        } else {
            None
        }))
    }
}

/// `None` for about one input in thirty-two.
#[derive(Debug, Clone)]
pub struct Usually<T>(pub Option<T>);

impl<'a, T: Arbitrary<'a>> Arbitrary<'a> for Usually<T> {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        Ok(Usually(if u8::arbitrary(u)? >= 248 {
            None
        } else {
            Some(T::arbitrary(u)?)
        }))
    }
}

/// A whole model: opsets, the graph and the options it is generated with.
#[derive(Arbitrary, Debug, Clone)]
pub struct GraphSpec {
    /// The default domain's opset: mostly 13 to 28, else 1 to 29 (29 is unknown); `None`
    /// leaves it out.
    pub opset: Usually<u8>,
    /// The `onnx_aot` domain's import: mostly version 1 when a node uses it, sometimes always,
    /// never, or versions 0 and 2.
    pub aot_opset: u8,
    /// Also import a domain onnx-aot does not know.
    pub unknown_domain: Rare<()>,
    /// Index into [`IR_VERSIONS`].
    pub ir_version: u8,
    /// Graph inputs that are not initializers; when there are none and no initializers
    /// either, one input `x: f32[n0, 3]`.
    pub inputs: Vec<InputSpec>,
    /// Initializers (some also listed as graph inputs).
    pub inits: Vec<InitSpec>,
    /// Nodes, in file order.
    pub nodes: Vec<NodeSpec>,
    /// Graph outputs; when there are none, the newest value is the output.
    pub outputs: Vec<OutputSpec>,
    /// No graph output at all.
    pub no_outputs: Rare<()>,
    /// `value_info` entries for intermediate values.
    pub value_info: Vec<OutputSpec>,
    /// The options of the generation.
    pub options: OptionSpec,
}

/// IR versions written in the file: current ones, the oldest, a future one, none.
pub const IR_VERSIONS: [i64; 6] = [8, 7, 10, 3, 0, 99];

/// A graph input.
#[derive(Arbitrary, Debug, Clone)]
pub struct InputSpec {
    /// Index into [`NAMES`]; `None` for the default name `in{i}`.
    pub name: Rare<u8>,
    /// Its declared type; `None` declares no type at all.
    pub ty: Usually<TypeSpec>,
}

/// Names that exercise identifier mapping and namespacing: keywords, generated names, things
/// that are not identifiers, a bidi control, the empty name.
pub const NAMES: [&str; 14] = [
    "x",
    "in_x",
    "compute",
    "type",
    "self",
    "inputs",
    "a b",
    "0x",
    "\u{202e}evil",
    "",
    "Identity:0",
    "x__2",
    "scratch",
    "_",
];

/// A tensor type: element type and shape.
#[derive(Arbitrary, Debug, Clone)]
pub struct TypeSpec {
    /// The element type.
    pub elem: Elem,
    /// The shape; `None` leaves the rank unknown.
    pub dims: Usually<Vec<Dim>>,
}

/// An element type, or (rarely) a code onnx-aot does not support.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Elem {
    /// FLOAT.
    F32,
    /// FLOAT16.
    F16,
    /// BFLOAT16.
    Bf16,
    /// DOUBLE.
    F64,
    /// INT8.
    I8,
    /// UINT8.
    U8,
    /// INT16.
    I16,
    /// UINT16.
    U16,
    /// INT32.
    I32,
    /// UINT32.
    U32,
    /// INT64.
    I64,
    /// UINT64.
    U64,
    /// BOOL.
    Bool,
    /// STRING.
    Str,
    /// Any code, mostly unsupported or undefined.
    Code(u8),
}

impl<'a> Arbitrary<'a> for Elem {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        const SUPPORTED: [Elem; 13] = [
            Elem::F32,
            Elem::F16,
            Elem::Bf16,
            Elem::F64,
            Elem::I8,
            Elem::U8,
            Elem::I16,
            Elem::U16,
            Elem::I32,
            Elem::U32,
            Elem::I64,
            Elem::U64,
            Elem::Bool,
        ];
        Ok(match u8::arbitrary(u)? {
            b @ 0..=245 => SUPPORTED[usize::from(b) % SUPPORTED.len()],
            246..=250 => Elem::Str,
            _ => Elem::Code(u8::arbitrary(u)?),
        })
    }
}

/// One dimension of a declared shape: mostly fixed or symbolic.
#[derive(Debug, Clone, Copy)]
pub enum Dim {
    /// A fixed size, taken modulo 6.
    Fixed(u8),
    /// A symbolic dimension `n0`..`n3`.
    Sym(u8),
    /// Neither a size nor a name.
    Unknown,
    /// A size at the edge: 1 << 40, or negative.
    Edge(bool),
}

impl<'a> Arbitrary<'a> for Dim {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        Ok(match u8::arbitrary(u)? {
            b @ 0..=159 => Dim::Fixed(b),
            b @ 160..=245 => Dim::Sym(b),
            246..=250 => Dim::Unknown,
            _ => Dim::Edge(bool::arbitrary(u)?),
        })
    }
}

/// An initializer.
#[derive(Arbitrary, Debug, Clone)]
pub struct InitSpec {
    /// The tensor's contents.
    pub tensor: TensorSpec,
    /// How it appears among the graph inputs.
    pub listed: Listed,
}

/// How an initializer appears among the graph inputs.
#[derive(Debug, Clone, Copy)]
pub enum Listed {
    /// Not listed (the usual case since IR 4).
    No,
    /// Listed with its own type and shape.
    Same,
    /// Listed with another declared type.
    Other(Elem),
}

impl<'a> Arbitrary<'a> for Listed {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        Ok(match u8::arbitrary(u)? {
            0..=149 => Listed::No,
            150..=239 => Listed::Same,
            _ => Listed::Other(Elem::arbitrary(u)?),
        })
    }
}

/// A constant tensor (initializer, `Constant` value, `ConstantOfShape` value).
#[derive(Arbitrary, Debug, Clone)]
pub struct TensorSpec {
    /// Its element type.
    pub elem: Elem,
    /// Its dims, each modulo 5.
    pub dims: Vec<u8>,
    /// Element values, cycled to fill the tensor; -128 and 127 stand for the type's extremes.
    pub values: Vec<i8>,
    /// How the elements are stored.
    pub storage: Storage,
}

/// How a tensor's elements are stored: mostly as ONNX allows.
#[derive(Debug, Clone, Copy)]
pub enum Storage {
    /// In the typed field of its element type.
    Typed,
    /// As little-endian bytes in `raw_data`.
    Raw,
    /// In `raw_data`, one byte short or one long.
    RawWrongLength(bool),
    /// Nothing at all.
    Empty,
    /// In external data (not supported).
    External,
}

impl<'a> Arbitrary<'a> for Storage {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        Ok(match u8::arbitrary(u)? {
            0..=119 => Storage::Typed,
            120..=239 => Storage::Raw,
            240..=247 => Storage::RawWrongLength(bool::arbitrary(u)?),
            248..=251 => Storage::Empty,
            _ => Storage::External,
        })
    }
}

/// A node.
#[derive(Arbitrary, Debug, Clone)]
pub struct NodeSpec {
    /// Which op.
    pub op: Op,
    /// Its inputs; `None` wires the op's usual number of inputs from recent values.
    pub inputs: Rare<Vec<Ref>>,
    /// Its attributes.
    pub attrs: Vec<AttrSpec>,
    /// Two outputs instead of one (MaxPool's Indices, or one too many).
    pub two_outputs: Rare<()>,
    /// Name its output like an earlier value (a second producer of one name).
    pub reuse_name: Rare<u8>,
}

/// The ops of the registry, and rarely a misspelled one or one from an unknown domain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Op {
    ArgMax,
    ArgMin,
    ReduceMax,
    ReduceMin,
    Hardmax,
    AotHardmax,
    Identity,
    Constant,
    Cast,
    CastLike,
    Reshape,
    Flatten,
    Squeeze,
    Unsqueeze,
    Transpose,
    Slice,
    GlobalMaxPool,
    MaxPool,
    Shape,
    Gather,
    Concat,
    ConstantOfShape,
    Add,
    Sub,
    Mul,
    Div,
    Misspelled,
    Foreign,
}

impl<'a> Arbitrary<'a> for Op {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        use Op::*;
        const SUPPORTED: [Op; 26] = [
            ArgMax,
            ArgMin,
            ReduceMax,
            ReduceMin,
            Hardmax,
            AotHardmax,
            Identity,
            Constant,
            Cast,
            CastLike,
            Reshape,
            Flatten,
            Squeeze,
            Unsqueeze,
            Transpose,
            Slice,
            GlobalMaxPool,
            MaxPool,
            Shape,
            Gather,
            Concat,
            ConstantOfShape,
            Add,
            Sub,
            Mul,
            Div,
        ];
        Ok(match u8::arbitrary(u)? {
            b @ 0..=249 => SUPPORTED[usize::from(b) % SUPPORTED.len()],
            250..=252 => Misspelled,
            _ => Foreign,
        })
    }
}

/// A node input: mostly an earlier value.
#[derive(Debug, Clone)]
pub enum Ref {
    /// A value defined before the node (a graph input, an initializer or an earlier output),
    /// counted back from the newest.
    Value(u8),
    /// The output of a node, possibly a later one (out of order, or a cycle).
    Node(u8),
    /// A fresh 1-D INT64 initializer with these values (shapes, axes, starts, indices).
    Ints(Vec<i8>),
    /// A fresh 0-D INT64 initializer.
    Scalar(i8),
    /// The empty name: an omitted optional input.
    Omitted,
    /// A name nothing defines.
    Undefined,
}

impl<'a> Arbitrary<'a> for Ref {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        Ok(match u8::arbitrary(u)? {
            0..=159 => Ref::Value(u8::arbitrary(u)?),
            160..=189 => Ref::Ints(Vec::arbitrary(u)?),
            190..=209 => Ref::Scalar(i8::arbitrary(u)?),
            210..=229 => Ref::Node(u8::arbitrary(u)?),
            230..=244 => Ref::Omitted,
            _ => Ref::Undefined,
        })
    }
}

/// An attribute: the ones the supported ops read, with values in and out of range, sometimes
/// with the wrong attribute type.
#[derive(Arbitrary, Debug, Clone)]
pub enum AttrSpec {
    /// `axis`.
    Axis(i8),
    /// `axes`.
    Axes(Vec<i8>),
    /// `keepdims`.
    Keepdims(i8),
    /// `select_last_index`.
    SelectLastIndex(i8),
    /// `noop_with_empty_axes`.
    NoopWithEmptyAxes(i8),
    /// `perm`.
    Perm(Vec<i8>),
    /// `to` (Cast).
    To(Elem),
    /// `saturate` (Cast 19+).
    Saturate(i8),
    /// `allowzero` (Reshape 14+).
    Allowzero(i8),
    /// `shape` (Reshape 1-4).
    Shape(Vec<i8>),
    /// `starts`, `ends` and `steps` (Slice 1-9 has the first two).
    Starts(Vec<i8>),
    /// `ends`.
    Ends(Vec<i8>),
    /// `kernel_shape`.
    KernelShape(Vec<i8>),
    /// `strides`.
    Strides(Vec<i8>),
    /// `pads`.
    Pads(Vec<i8>),
    /// `dilations`.
    Dilations(Vec<i8>),
    /// `auto_pad`, index into NOTSET, VALID, SAME_UPPER, SAME_LOWER, junk.
    AutoPad(u8),
    /// `ceil_mode`.
    CeilMode(i8),
    /// `storage_order`.
    StorageOrder(i8),
    /// `value` (Constant, ConstantOfShape).
    Value(TensorSpec),
    /// `value_float`.
    ValueFloat(i8),
    /// `value_floats`.
    ValueFloats(Vec<i8>),
    /// `value_int`.
    ValueInt(i8),
    /// `value_ints`.
    ValueInts(Vec<i8>),
    /// `value_string`.
    ValueString,
    /// A known name with a mismatched type code, or an unknown name.
    Mistyped(u8, u8),
}

/// A graph output or `value_info` entry.
#[derive(Arbitrary, Debug, Clone)]
pub struct OutputSpec {
    /// Which value, counted back from the newest; the newest node output by default.
    pub value: Ref,
    /// A declared type (mostly not the inferred one, so rare); `None` declares none.
    pub ty: Rare<TypeSpec>,
}

/// Options of the generation.
#[derive(Arbitrary, Debug, Clone)]
pub struct OptionSpec {
    /// Sizes of the symbolic dimensions `n0`..`n3` the model uses, indices into [`SIZES`];
    /// 255 leaves one unbound.
    pub dims: [u8; 4],
    /// Bind a dimension the model does not have, or bind one twice.
    pub extra_dim: Rare<(u8, u8)>,
    /// Freeze a graph input: which, and how to pick the literals.
    pub freeze: Option<Freeze>,
    /// Free an initializer listed as an input (index), possibly twice.
    pub free: Option<(u8, Rare<()>)>,
    /// Start a cut at the output of a node (modulo their count), with a declared type or not.
    pub start: Rare<(u8, Option<TypeSpec>)>,
    /// Keep these values as outputs instead of the graph's.
    pub outputs: Rare<Vec<Ref>>,
    /// Index into [`NAMES`] for the module name; `None` for `model`.
    pub module: Option<u8>,
}

/// Sizes for symbolic dimensions: mostly small, sometimes at the edges.
pub const SIZES: [usize; 16] = [
    1,
    2,
    3,
    1,
    4,
    2,
    5,
    1,
    2,
    3,
    0,
    1,
    1 << 20,
    1 << 40,
    usize::MAX,
    2,
];

/// How a frozen input's literals are drawn.
#[derive(Arbitrary, Debug, Clone)]
pub struct Freeze {
    /// Which graph input (modulo their count).
    pub input: u8,
    /// Added to the element count: mostly 0, sometimes one off.
    pub count_delta: i8,
    /// The literals, cycled; their kind follows the element type unless `kind` says otherwise.
    pub values: Vec<i8>,
    /// `None` for the natural kind, else 0 float, 1 bool, 2 int.
    pub kind: Rare<u8>,
}
