//! The cells of the benchmark matrix (`benches/matrix.rs`, issue 14), generated at build time.
//!
//! Included by `build.rs` as a module of its own; [`generate`] is its only entry point. Each cell
//! is one ONNX model (built with `src/builder.rs`) over one input `x`. For every cell this writes
//! the model to `OUT_DIR/matrix/`, the module `onnx_aot_codegen::generate` makes of it into
//! `OUT_DIR/matrix_modules.rs`, and into `OUT_DIR/matrix_cells.rs` a row of the cell table (what
//! the cell computes, with axes resolved, for the bench's reference check; the model bytes; a
//! constructor of the generated code's runner). A cell the generator refuses is left out with a
//! build warning and listed in `MATRIX_SKIPPED`, so the rest of the matrix still runs.
//!
//! The matrix is structured rather than a full cross product:
//! - **sweep**: f32, every op kind x every layout x every row length (2, 20, 80, 1000, 100000);
//! - **types**: every other element type an op version allows, at row length 1000 with the
//!   reduced axis last and first;
//! - **samples**: shapes from real models (a detector head, a segmentation map, a global max
//!   pool);
//! - **breadth**, only when [`BREADTH_VAR`] is set at build time: one op of each kernel family
//!   over every type, layout and more row lengths (f32 the ones the sweep lacks; rows of two and
//!   three of the other types with the reduced axis last and in the middle; every type's rows of
//!   12 to 31 with the reduced axis last; every type's two axes apart over planes of rows of
//!   three and four; every type's middle axis over blocks of five lanes), to look for weak spots
//!   outside the table's cells.
//!
//! Every input is about [`BYTES`] large (many rows for short row lengths), so that a cell takes
//! around a millisecond; the samples keep their real shapes.

use crate::builder::{dims, ModelBuilder, Node};
use onnx_aot_codegen::onnx::data_type;
use onnx_aot_codegen::Options;
use std::fmt::Write as _;
use std::path::Path;

/// The size of a sweep or type-sweep input, in bytes.
const BYTES: usize = 2 << 20;

/// The row lengths (the extent of the reduced axis or axes) of the layout sweep.
const ROWS: [usize; 5] = [2, 20, 80, 1000, 100000];

/// The row length of the type sweep and of `--quick`.
const MID_ROW: usize = 1000;

/// The environment variable that adds the **breadth** group at build time (any value).
pub const BREADTH_VAR: &str = "ONNX_AOT_MATRIX_BREADTH";

/// The ops of the breadth group: one of each kernel family (ArgMin and ReduceMin run the same
/// kernels as ArgMax and ReduceMax with the other direction; ArgMin-last stands for both rules).
const BREADTH_OPS: [Op; 5] = [
    Op::ArgMax,
    Op::ArgMinLast,
    Op::ReduceMax,
    Op::Hardmax13,
    Op::Siblings,
];

/// The row lengths of the breadth group for the types other than f32, every layout.
const BREADTH_ROWS: [usize; 4] = [20, 80, MID_ROW, 100000];

/// The row lengths of the breadth group's rows of a few bytes for the types other than f32,
/// the reduced axis last (contiguous rows of 2 to 24 bytes) or in the middle (blocks of two or
/// three rows of sixteen lanes).
const BREADTH_TINY_ROWS: [usize; 2] = [2, 3];

/// The environment variable that keeps, at build time, only the cells whose names contain one
/// of its `|`-separated parts (a quicker build for comparing kernels on a few cells).
pub const ONLY_VAR: &str = "ONNX_AOT_MATRIX_ONLY";

/// The row lengths of the breadth group's reductions over two axes apart, every type: planes
/// of two to four of rows of three or four (`[2, K, 3]`, `[3, K, 3]`, `[3, K, 4]`,
/// `[4, K, 4]`), where each row's parts are a few bytes in each plane.
const BREADTH_APART_ROWS: [usize; 4] = [6, 9, 12, 16];

/// The row lengths of the breadth group's short contiguous rows (the reduced axis last), every
/// type: where the kernels for rows of a few vectors choose between searching each row and
/// transposing blocks of rows into columns.
const BREADTH_SHORT_ROWS: [usize; 4] = [12, 16, 25, 31];

/// The row lengths of the breadth group for f32: the ones the sweep lacks, every layout.
const BREADTH_ROWS_F32: [usize; 5] = [3, 7, 33, 300, 5000];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dt {
    F32,
    F16,
    Bf16,
    F64,
    I8,
    U8,
    I16,
    U16,
    I32,
    I64,
    Bool,
}

impl Dt {
    fn name(self) -> &'static str {
        match self {
            Dt::F32 => "f32",
            Dt::F16 => "f16",
            Dt::Bf16 => "bf16",
            Dt::F64 => "f64",
            Dt::I8 => "i8",
            Dt::U8 => "u8",
            Dt::I16 => "i16",
            Dt::U16 => "u16",
            Dt::I32 => "i32",
            Dt::I64 => "i64",
            Dt::Bool => "bool",
        }
    }

    /// The bench's `Dt` variant.
    fn variant(self) -> &'static str {
        match self {
            Dt::F32 => "F32",
            Dt::F16 => "F16",
            Dt::Bf16 => "Bf16",
            Dt::F64 => "F64",
            Dt::I8 => "I8",
            Dt::U8 => "U8",
            Dt::I16 => "I16",
            Dt::U16 => "U16",
            Dt::I32 => "I32",
            Dt::I64 => "I64",
            Dt::Bool => "Bool",
        }
    }

    /// The element type of the generated code's `Inputs`/`Outputs` fields.
    fn rust(self) -> &'static str {
        match self {
            Dt::F32 => "f32",
            Dt::F16 => "::onnx_aot::f16",
            Dt::Bf16 => "::onnx_aot::bf16",
            Dt::F64 => "f64",
            Dt::I8 => "i8",
            Dt::U8 => "u8",
            Dt::I16 => "i16",
            Dt::U16 => "u16",
            Dt::I32 => "i32",
            Dt::I64 => "i64",
            Dt::Bool => "bool",
        }
    }

    fn code(self) -> i32 {
        match self {
            Dt::F32 => data_type::FLOAT,
            Dt::F16 => data_type::FLOAT16,
            Dt::Bf16 => data_type::BFLOAT16,
            Dt::F64 => data_type::DOUBLE,
            Dt::I8 => data_type::INT8,
            Dt::U8 => data_type::UINT8,
            Dt::I16 => data_type::INT16,
            Dt::U16 => data_type::UINT16,
            Dt::I32 => data_type::INT32,
            Dt::I64 => data_type::INT64,
            Dt::Bool => data_type::BOOL,
        }
    }

    fn size(self) -> usize {
        match self {
            Dt::I8 | Dt::U8 | Dt::Bool => 1,
            Dt::F16 | Dt::Bf16 | Dt::I16 | Dt::U16 => 2,
            Dt::F32 | Dt::I32 => 4,
            Dt::F64 | Dt::I64 => 8,
        }
    }
}

/// The op kinds of the matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    ArgMax,
    ArgMin,
    /// ArgMin with `select_last_index=1`.
    ArgMinLast,
    ReduceMax,
    ReduceMin,
    Hardmax13,
    /// Hardmax-11 (opset 11): the input coerced to 2-D at `axis`.
    Hardmax11,
    /// ReduceMax and ArgMax of the same tensor over the same axis (`torch.max(x, dim)`).
    Siblings,
    /// ReduceMax (keepdims 1) -> Hardmax -> ArgMax, like the peers benchmark's W8.
    Chain,
}

const OPS: [Op; 9] = [
    Op::ArgMax,
    Op::ArgMin,
    Op::ArgMinLast,
    Op::ReduceMax,
    Op::ReduceMin,
    Op::Hardmax13,
    Op::Hardmax11,
    Op::Siblings,
    Op::Chain,
];

impl Op {
    fn label(self) -> &'static str {
        match self {
            Op::ArgMax => "argmax",
            Op::ArgMin => "argmin",
            Op::ArgMinLast => "argmin-last",
            Op::ReduceMax => "reducemax",
            Op::ReduceMin => "reducemin",
            Op::Hardmax13 => "hardmax13",
            Op::Hardmax11 => "hardmax11",
            Op::Siblings => "max+argmax",
            Op::Chain => "chain",
        }
    }

    /// The bench's `Target` variant: which baseline and limit the cell is held to.
    fn target(self) -> &'static str {
        match self {
            Op::ReduceMax | Op::ReduceMin => "Target::Reduce",
            Op::Hardmax13 | Op::Hardmax11 => "Target::Hardmax",
            _ => "Target::Arg",
        }
    }

    fn is_reduce(self) -> bool {
        matches!(self, Op::ReduceMax | Op::ReduceMin)
    }

    /// The layouts of the sweep.
    fn layouts(self) -> &'static [Layout] {
        if self.is_reduce() {
            &[
                Layout::Last,
                Layout::First,
                Layout::Middle,
                Layout::Adjacent,
                Layout::Apart,
            ]
        } else {
            &[Layout::Last, Layout::First, Layout::Middle]
        }
    }

    /// The element types other than f32 the op version of the cell allows (opset 13; 11 for
    /// Hardmax-11; bool through ReduceMax/Min-20), for the type sweep.
    fn other_types(self) -> &'static [Dt] {
        use Dt::*;
        match self {
            Op::ArgMax | Op::ArgMin | Op::ArgMinLast => {
                &[F16, Bf16, F64, I8, U8, I16, U16, I32, I64]
            }
            Op::ReduceMax | Op::ReduceMin => &[F16, Bf16, F64, I8, U8, I32, I64, Bool],
            Op::Hardmax13 | Op::Chain => &[F16, Bf16, F64],
            Op::Hardmax11 => &[F16, F64],
            // The types both ReduceMax-13 and ArgMax-13 take.
            Op::Siblings => &[F16, Bf16, F64, I8, U8, I32, I64],
        }
    }
}

/// Where the reduced axis (or axes) sits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layout {
    Last,
    First,
    Middle,
    /// Two adjacent trailing axes, `[N, C, H, W]` over H and W (a global max pool).
    Adjacent,
    /// Two non-adjacent axes, `[H, M, W]` over 0 and 2.
    Apart,
    /// The middle axis of blocks of a few lanes, `[N, row, NARROW_LANES]` (breadth only).
    Narrow,
}

/// The lanes of [`Layout::Narrow`]: fewer than a vector holds of any type.
const NARROW_LANES: usize = 5;

/// The row lengths of the breadth group over [`Layout::Narrow`], every type.
const BREADTH_NARROW_ROWS: [usize; 4] = [2, 3, 20, 80];

impl Layout {
    fn label(self) -> &'static str {
        match self {
            Layout::Last => "last",
            Layout::First => "first",
            Layout::Middle => "middle",
            Layout::Adjacent => "adjacent",
            Layout::Apart => "apart",
            Layout::Narrow => "narrow",
        }
    }
}

/// What the bench's reference computes, axes resolved (the bench's `Compute`).
#[derive(Clone, Debug)]
enum Compute {
    Arg { min: bool, last: bool, axis: usize },
    Reduce { min: bool, axes: Vec<usize> },
    Hardmax13 { axis: usize },
    Hardmax11 { axis: usize },
    Siblings { axis: usize },
    Chain { reduce: usize, axis: usize },
}

/// One cell of the matrix.
struct Cell {
    name: String,
    op: Op,
    dtype: Dt,
    layout: String,
    row: usize,
    group: &'static str,
    quick: bool,
    shape: Vec<usize>,
    compute: Compute,
    /// Keep the reduced dimensions (the global max pool sample).
    keepdims: bool,
}

/// `h x w = n` with `h <= w` as close as possible (`1 x 2` for 2).
fn split(n: usize) -> (usize, usize) {
    let mut h = 1;
    let mut d = 1;
    while d * d <= n {
        if n.is_multiple_of(d) {
            h = d;
        }
        d += 1;
    }
    (h, n / h)
}

/// Shape and computation of a sweep or type-sweep cell of row length `row` over `elems`
/// elements.
fn layout_cell(op: Op, layout: Layout, row: usize, elems: usize) -> (Vec<usize>, Compute) {
    let other = (elems / row).max(1);
    let min = matches!(op, Op::ArgMin | Op::ArgMinLast | Op::ReduceMin);
    let (shape, axes) = match (op, layout) {
        (Op::Chain, _) => {
            // The Hardmax/ArgMax axis: up to 64 long, whatever the budget leaves.
            let h = (elems / row).clamp(2, 64);
            let r = (elems / (row * h)).max(1);
            let (shape, reduce, axis) = match layout {
                Layout::Last => (vec![r, h, row], 2, 1),
                Layout::Middle | Layout::Narrow => (vec![r, row, h], 1, 2),
                _ => (vec![row, r, h], 0, 2),
            };
            return (shape, Compute::Chain { reduce, axis });
        }
        (_, Layout::Last) => (vec![other, row], vec![1]),
        (_, Layout::First) => (vec![row, other], vec![0]),
        (_, Layout::Middle) => {
            let inner = if other >= 32 { 16 } else { 2 };
            let outer = (other / inner).max(2);
            if op == Op::Hardmax11 {
                // Hardmax-11 coerces to [outer, row]: the row spans two dimensions.
                let (h, w) = split(row);
                (vec![other, h, w], vec![1])
            } else {
                (vec![outer, row, inner], vec![1])
            }
        }
        (_, Layout::Adjacent) => {
            let (h, w) = split(row);
            let n = if other >= 4 { 2 } else { 1 };
            (vec![n, other / n, h, w], vec![2, 3])
        }
        (_, Layout::Apart) => {
            let (h, w) = split(row);
            (vec![h, other, w], vec![0, 2])
        }
        (_, Layout::Narrow) => (
            vec![(other / NARROW_LANES).max(1), row, NARROW_LANES],
            vec![1],
        ),
    };
    let shape = if op == Op::Hardmax11 && layout == Layout::First {
        // Axis 0 of Hardmax-11 makes the whole tensor one row.
        let (h, w) = split(row);
        vec![h, w]
    } else {
        shape
    };
    let axis = axes[0];
    let compute = match op {
        Op::ArgMax | Op::ArgMin | Op::ArgMinLast => Compute::Arg {
            min,
            last: op == Op::ArgMinLast,
            axis,
        },
        Op::ReduceMax | Op::ReduceMin => Compute::Reduce { min, axes },
        Op::Hardmax13 => Compute::Hardmax13 { axis },
        Op::Hardmax11 => Compute::Hardmax11 { axis },
        Op::Siblings => Compute::Siblings { axis },
        Op::Chain => unreachable!("handled above"),
    };
    (shape, compute)
}

fn shape_text(shape: &[usize]) -> String {
    let items: Vec<String> = shape.iter().map(usize::to_string).collect();
    format!("[{}]", items.join(","))
}

fn cells() -> Vec<Cell> {
    let mut cells = Vec::new();
    let mut push = |op: Op, dtype: Dt, layout: Layout, row: usize, group: &'static str| {
        let elems = BYTES / dtype.size();
        let (shape, compute) = layout_cell(op, layout, row, elems);
        let quick = group == "sweep" && row == MID_ROW;
        cells.push(Cell {
            name: format!(
                "{} {} {} r={} {}",
                op.label(),
                dtype.name(),
                layout.label(),
                row,
                shape_text(&shape)
            ),
            op,
            dtype,
            layout: layout.label().to_string(),
            row,
            group,
            quick,
            shape,
            compute,
            keepdims: false,
        });
    };
    for op in OPS {
        for &layout in op.layouts() {
            for row in ROWS {
                push(op, Dt::F32, layout, row, "sweep");
            }
        }
    }
    for op in OPS {
        for &dtype in op.other_types() {
            for layout in [Layout::Last, Layout::First] {
                push(op, dtype, layout, MID_ROW, "types");
            }
        }
    }
    if std::env::var_os(BREADTH_VAR).is_some() {
        for op in BREADTH_OPS {
            for &layout in op.layouts() {
                for row in BREADTH_ROWS_F32 {
                    push(op, Dt::F32, layout, row, "breadth");
                }
                if layout == Layout::Last {
                    for row in BREADTH_SHORT_ROWS {
                        push(op, Dt::F32, layout, row, "breadth");
                    }
                }
                for &dtype in [Dt::F32].iter().chain(op.other_types()) {
                    if layout == Layout::Apart {
                        for row in BREADTH_APART_ROWS {
                            push(op, dtype, layout, row, "breadth");
                        }
                    }
                }
                for &dtype in op.other_types() {
                    if matches!(layout, Layout::Last | Layout::Middle) {
                        for row in BREADTH_TINY_ROWS {
                            push(op, dtype, layout, row, "breadth");
                        }
                    }
                    if layout == Layout::Last {
                        for row in BREADTH_SHORT_ROWS {
                            push(op, dtype, layout, row, "breadth");
                        }
                    }
                    for row in BREADTH_ROWS {
                        let typed =
                            row == MID_ROW && matches!(layout, Layout::Last | Layout::First);
                        if !typed {
                            push(op, dtype, layout, row, "breadth");
                        }
                    }
                }
            }
            for &dtype in [Dt::F32].iter().chain(op.other_types()) {
                for row in BREADTH_NARROW_ROWS {
                    push(op, dtype, Layout::Narrow, row, "breadth");
                }
            }
        }
    }
    // Realistic samples, f32, at their real shapes.
    let mut sample = |what: &str, op: Op, layout: &str, shape: &[usize], compute: Compute| {
        let row = match &compute {
            Compute::Reduce { axes, .. } => axes.iter().map(|&a| shape[a]).product(),
            Compute::Arg { axis, .. } | Compute::Siblings { axis } => shape[*axis],
            _ => unreachable!("samples are reductions and arg-reductions"),
        };
        cells.push(Cell {
            name: format!(
                "{what} {} f32 {layout} r={row} {}",
                op.label(),
                shape_text(shape)
            ),
            op,
            dtype: Dt::F32,
            layout: layout.to_string(),
            row,
            group: "sample",
            quick: false,
            shape: shape.to_vec(),
            keepdims: what == "gmp",
            compute,
        });
    };
    let max = |axis| Compute::Reduce {
        min: false,
        axes: vec![axis],
    };
    let argmax = |axis| Compute::Arg {
        min: false,
        last: false,
        axis,
    };
    for (layout, shape, axis) in [
        ("last", [1usize, 8400, 80], 2usize),
        ("middle", [1, 84, 8400], 1),
    ] {
        sample("detector", Op::ReduceMax, layout, &shape, max(axis));
        sample("detector", Op::ArgMax, layout, &shape, argmax(axis));
        sample(
            "detector",
            Op::Siblings,
            layout,
            &shape,
            Compute::Siblings { axis },
        );
    }
    // Segmentation maps: class planes a power of two apart (every plane in the same cache
    // sets), of other sizes and class counts, and one whose planes are not.
    for shape in [
        [1usize, 21, 512, 512],
        [1, 19, 256, 256],
        [1, 150, 128, 128],
        [1, 21, 500, 500],
    ] {
        sample("segmentation", Op::ArgMax, "middle", &shape, argmax(1));
    }
    sample(
        "gmp",
        Op::ReduceMax,
        "adjacent",
        &[1, 512, 32, 32],
        Compute::Reduce {
            min: false,
            axes: vec![2, 3],
        },
    );
    cells
}

/// The shape after removing (or, with `keepdims`, setting to 1) the dimensions in `axes`.
fn reduced(shape: &[usize], axes: &[usize], keepdims: bool) -> Vec<usize> {
    (0..shape.len())
        .filter_map(|d| match (axes.contains(&d), keepdims) {
            (false, _) => Some(shape[d]),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect()
}

/// A graph output: name, element type, shape.
type Output = (&'static str, Dt, Vec<usize>);

/// The model of a cell and its outputs, in graph order.
fn build_model(cell: &Cell) -> (Vec<u8>, Vec<Output>) {
    let mut b = ModelBuilder::new();
    let bool_reduce = cell.dtype == Dt::Bool;
    let opset = match cell.op {
        Op::Hardmax11 => 11,
        _ if bool_reduce => 20,
        _ => 13,
    };
    b.opset("", opset);
    b.input("x", cell.dtype.code(), &dims(&cell.shape));
    let keep = cell.keepdims as i64;
    let mut outputs = Vec::new();
    let arg = |op: &str, axis: usize, output: &str| {
        Node::new(op, &["x"], &[output])
            .int("axis", axis as i64)
            .int("keepdims", 0)
    };
    match &cell.compute {
        Compute::Arg { min, last, axis } => {
            let mut n = arg(if *min { "ArgMin" } else { "ArgMax" }, *axis, "y");
            if *last {
                n = n.int("select_last_index", 1);
            }
            b.node(n);
            outputs.push(("y", Dt::I64, reduced(&cell.shape, &[*axis], false)));
        }
        Compute::Reduce { min, axes } => {
            let op = if *min { "ReduceMin" } else { "ReduceMax" };
            let written: Vec<i64> = axes.iter().map(|&a| a as i64).collect();
            if opset >= 18 {
                b.initializer_i64("axes", &[axes.len()], &written);
                b.node(Node::new(op, &["x", "axes"], &["y"]).int("keepdims", keep));
            } else {
                b.node(
                    Node::new(op, &["x"], &["y"])
                        .ints("axes", &written)
                        .int("keepdims", keep),
                );
            }
            outputs.push(("y", cell.dtype, reduced(&cell.shape, axes, cell.keepdims)));
        }
        Compute::Hardmax13 { axis } | Compute::Hardmax11 { axis } => {
            b.node(Node::new("Hardmax", &["x"], &["y"]).int("axis", *axis as i64));
            outputs.push(("y", cell.dtype, cell.shape.clone()));
        }
        Compute::Siblings { axis } => {
            b.node(
                Node::new("ReduceMax", &["x"], &["y"])
                    .ints("axes", &[*axis as i64])
                    .int("keepdims", 0),
            );
            b.node(arg("ArgMax", *axis, "i"));
            let out = reduced(&cell.shape, &[*axis], false);
            outputs.push(("y", cell.dtype, out.clone()));
            outputs.push(("i", Dt::I64, out));
        }
        Compute::Chain { reduce, axis } => {
            b.node(
                Node::new("ReduceMax", &["x"], &["pooled"])
                    .ints("axes", &[*reduce as i64])
                    .int("keepdims", 1),
            );
            b.node(Node::new("Hardmax", &["pooled"], &["one_hot"]).int("axis", *axis as i64));
            b.node(
                Node::new("ArgMax", &["one_hot"], &["y"])
                    .int("axis", *axis as i64)
                    .int("keepdims", 0),
            );
            let pooled = reduced(&cell.shape, &[*reduce], true);
            outputs.push(("y", Dt::I64, reduced(&pooled, &[*axis], false)));
        }
    }
    for (name, dtype, shape) in &outputs {
        b.output(name, dtype.code(), &dims(shape));
    }
    (b.build(), outputs)
}

/// `expr` (a nested array of rank `rank`) as a flat slice; `mut_` for a mutable one.
fn flat(expr: &str, rank: usize, mut_: bool) -> String {
    let (m, f) = if mut_ {
        ("mut ", "as_flattened_mut()")
    } else {
        ("", "as_flattened()")
    };
    match rank {
        0 if mut_ => format!("::core::slice::from_mut(&mut {expr})"),
        0 => format!("::core::slice::from_ref(&{expr})"),
        1 => format!("&{m}{expr}[..]"),
        _ => format!("{expr}{}", format!(".{f}").repeat(rank - 1)),
    }
}

fn compute_text(c: &Compute) -> String {
    match c {
        Compute::Arg { min, last, axis } => {
            format!("Compute::Arg {{ min: {min}, last: {last}, axis: {axis} }}")
        }
        Compute::Reduce { min, axes } => {
            format!("Compute::Reduce {{ min: {min}, axes: &{axes:?} }}")
        }
        Compute::Hardmax13 { axis } => format!("Compute::Hardmax13 {{ axis: {axis} }}"),
        Compute::Hardmax11 { axis } => format!("Compute::Hardmax11 {{ axis: {axis} }}"),
        Compute::Siblings { axis } => format!("Compute::Siblings {{ axis: {axis} }}"),
        Compute::Chain { reduce, axis } => {
            format!("Compute::Chain {{ reduce: {reduce}, axis: {axis} }}")
        }
    }
}

/// Writes the models, `matrix_modules.rs` and `matrix_cells.rs` into `out_dir`.
pub fn generate(out_dir: &Path) {
    let model_dir = out_dir.join("matrix");
    std::fs::create_dir_all(&model_dir).expect("create OUT_DIR/matrix");
    let mut modules = String::new();
    let mut table = String::from("static CELLS: &[Cell] = &[\n");
    let mut runners = String::new();
    let mut skipped = Vec::new();
    let only = std::env::var(ONLY_VAR).unwrap_or_default();
    let wanted = |cell: &Cell| only.is_empty() || only.split('|').any(|p| cell.name.contains(p));
    for (index, cell) in cells().iter().filter(|c| wanted(c)).enumerate() {
        let module = format!("mx_{index:03}");
        let (bytes, outputs) = build_model(cell);
        let path = model_dir.join(format!("{module}.onnx"));
        std::fs::write(&path, &bytes).expect("write matrix model");
        let mut options = Options::new(module.clone());
        options.source_name = format!("{}.onnx ({})", module, cell.name);
        let tokens = match onnx_aot_codegen::generate(&bytes, &options) {
            Ok(tokens) => tokens,
            Err(e) => {
                println!(
                    "cargo:warning=matrix cell `{}` left out: the generator refused it: {e}",
                    cell.name
                );
                skipped.push(format!("{}: {e}", cell.name));
                continue;
            }
        };
        match onnx_aot_codegen::pretty(tokens.clone()) {
            Ok(text) => modules.push_str(&text),
            Err(_) => modules.push_str(&tokens.to_string()),
        }
        modules.push('\n');

        // The runner of the generated code: boxed `Inputs`/`Outputs`, `run_into`.
        let t = cell.dtype.rust();
        let _ = writeln!(
            runners,
            "fn {module}(input: &[u8]) -> Box<dyn Runner> {{\n    \
             struct Generated {{ inputs: Box<mx::{module}::Inputs>, outputs: Box<mx::{module}::Outputs> }}\n    \
             impl Runner for Generated {{\n        \
             fn run(&mut self) {{ mx::{module}::run_into(black_box(&self.inputs), black_box(&mut self.outputs)); }}\n        \
             fn outputs(&mut self) -> Result<Vec<Vec<u8>>, String> {{\n            self.run();\n            Ok(vec![{outs}])\n        }}\n    }}\n    \
             let mut inputs = Box::new(mx::{module}::Inputs::zeroed());\n    \
             fill::<{t}>({x}, input);\n    \
             Box::new(Generated {{ inputs, outputs: Box::new(mx::{module}::Outputs::zeroed()) }})\n}}",
            x = flat("inputs.x", cell.shape.len(), true),
            outs = outputs
                .iter()
                .map(|(name, dt, shape)| format!(
                    "bytes_of::<{}>({})",
                    dt.rust(),
                    flat(&format!("self.outputs.{name}"), shape.len(), false)
                ))
                .collect::<Vec<_>>()
                .join(", "),
        );
        let outs: Vec<String> = outputs
            .iter()
            .map(|(_, dt, shape)| format!("(Dt::{}, &{:?})", dt.variant(), shape))
            .collect();
        let _ = writeln!(
            table,
            "    Cell {{ name: {:?}, op: {:?}, dtype: Dt::{}, layout: {:?}, row: {}, group: {:?}, \
             quick: {}, target: {}, shape: &{:?}, compute: {}, keepdims: {}, outputs: &[{}], \
             model: include_bytes!({:?}), generated: {module} }},",
            cell.name,
            cell.op.label(),
            cell.dtype.variant(),
            cell.layout,
            cell.row,
            cell.group,
            cell.quick,
            cell.op.target(),
            cell.shape,
            compute_text(&cell.compute),
            cell.keepdims,
            outs.join(", "),
            path.display().to_string(),
        );
    }
    table.push_str("];\n\n");
    let _ = writeln!(
        table,
        "/// Cells the generator refused at build time (left out of `CELLS`).\nstatic MATRIX_SKIPPED: &[&str] = &{skipped:?};\n"
    );
    table.push_str(&runners);
    std::fs::write(out_dir.join("matrix_modules.rs"), modules).expect("write matrix modules");
    std::fs::write(out_dir.join("matrix_cells.rs"), table).expect("write matrix cells");
}
