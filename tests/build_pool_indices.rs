//! The MaxPool models of `tests/pool_indices.rs`: a MaxPool whose window covers the whole map,
//! with its `Indices` output, over maps of one to three dimensions, four element types,
//! `storage_order` 0 and 1, with the pooled values a graph output or not. Generated at build
//! time into `OUT_DIR/pool_indices_modules.rs` with a case table in `pool_indices_cases.rs`.

use std::fmt::Write as _;
use std::path::Path;

use crate::builder::{dims, ModelBuilder, Node};
use onnx_aot_codegen::onnx::data_type as dt;
use onnx_aot_codegen::Options;

const SHAPES: &[&[usize]] = &[&[2, 3, 4, 5], &[1, 4, 7], &[2, 2, 3, 2, 4], &[3, 2, 1, 1]];
const TYPES: &[(i32, &str)] = &[
    (dt::FLOAT, "F32"),
    (dt::FLOAT16, "F16"),
    (dt::INT8, "I8"),
    (dt::UINT8, "U8"),
];

pub fn generate(out_dir: &Path) {
    let mut modules = String::new();
    let mut table = String::from("static POOL_CASES: &[PoolCase] = &[\n");
    let mut errors = Vec::new();
    let mut n = 0;
    for &shape in SHAPES {
        for &(elem, elem_name) in TYPES {
            for (order, values) in [(0, true), (1, true), (1, false), (0, false)] {
                let module = format!("pool_indices_{n}");
                n += 1;
                let map = &shape[2..];
                let mut out_shape = shape.to_vec();
                out_shape.iter_mut().skip(2).for_each(|d| *d = 1);
                let kernel: Vec<i64> = map.iter().map(|&d| d as i64).collect();
                let mut b = ModelBuilder::new();
                b.opset("", 12).input("x", elem, &dims(shape)).node(
                    Node::new("MaxPool", &["x"], &["y", "i"])
                        .ints("kernel_shape", &kernel)
                        .int("storage_order", order),
                );
                if values {
                    b.output("y", elem, &dims(&out_shape));
                }
                b.output("i", dt::INT64, &dims(&out_shape));
                match onnx_aot_codegen::generate_pretty(&b.build(), &Options::new(module.clone())) {
                    Ok(code) => {
                        modules.push_str(&code);
                        modules.push('\n');
                        let _ = writeln!(
                            table,
                            "    PoolCase {{ dtype: DType::{elem_name}, shape: &{shape:?}, \
                             column_major: {}, values: {values}, scratch: {module}::SCRATCH_BYTES, \
                             run_bytes: {module}::run_bytes }},",
                            order == 1
                        );
                    }
                    Err(e) => errors.push(format!("{module}: {e}")),
                }
            }
        }
    }
    crate::tables::write(
        out_dir,
        "pool_indices",
        "static POOL_CASES: &[PoolCase]",
        "MaxPool models",
        &modules,
        table,
        &errors,
    );
}
