//! Code generic over models: every generated module's unit struct `Model` implements
//! `onnx_aot::Model`, and its tensor structs `onnx_aot::Tensors`. One generic function runs two
//! different embedded models (different ops, shapes, types and output counts) and checks them
//! against what each model computes.

// As a user's `rt = { package = "onnx-aot", .. }` dependency would: `rt` in the extern prelude.
extern crate onnx_aot as rt;

use onnx_aot::{DType, Model, Tensors};

onnx_aot::model!(mod top1 = "../examples/models/top1.onnx");
onnx_aot::model!(mod chain = "data/models/big_chain.onnx");

/// Runs `M` on zeroed inputs with the first element of its first input set to `first`, three
/// ways (run_into, run_with_scratch, run_bytes), and returns its outputs as bytes.
fn run_generic<M: Model>(fill: impl Fn(&mut M::Inputs)) -> Vec<Vec<u8>>
where
    M::Inputs: AsBytes,
    M::Outputs: AsBytes + PartialEq + std::fmt::Debug,
{
    assert_eq!(M::INPUT_NAMES.len(), M::INPUT_SHAPES.len());
    assert_eq!(M::INPUT_DTYPES.len(), M::INPUT_BYTES.len());
    assert_eq!(M::OUTPUT_NAMES.len(), M::OUTPUT_BYTES.len());
    for (shape, (dtype, bytes)) in M::INPUT_SHAPES
        .iter()
        .zip(M::INPUT_DTYPES.iter().zip(M::INPUT_BYTES))
    {
        assert_eq!(shape.iter().product::<usize>() * dtype.size(), *bytes);
    }
    let mut inputs = M::Inputs::new_boxed();
    fill(&mut inputs);
    let mut a = M::Outputs::new_boxed();
    M::run_into(&inputs, &mut a);
    let mut b = M::Outputs::new_boxed();
    let mut scratch = M::Scratch::new_boxed();
    M::run_with_scratch(&inputs, &mut scratch, &mut b);
    assert_eq!(a, b);
    let input_bytes = inputs.as_bytes();
    let input_refs: Vec<&[u8]> = input_bytes.iter().map(Vec::as_slice).collect();
    let mut outs: Vec<Vec<u8>> = M::OUTPUT_BYTES.iter().map(|&n| vec![0; n]).collect();
    let mut out_refs: Vec<&mut [u8]> = outs.iter_mut().map(Vec::as_mut_slice).collect();
    M::run_bytes(&input_refs, &mut out_refs).expect("run_bytes");
    assert_eq!(outs, a.as_bytes(), "run_bytes agrees with run_into");
    outs
}

/// Each tensor of a struct as little-endian bytes, in graph order.
trait AsBytes {
    fn as_bytes(&self) -> Vec<Vec<u8>>;
}

fn le<T: Copy, const B: usize>(v: &[T], f: impl Fn(T) -> [u8; B]) -> Vec<u8> {
    v.iter().flat_map(|&x| f(x)).collect()
}

impl AsBytes for top1::Inputs {
    fn as_bytes(&self) -> Vec<Vec<u8>> {
        vec![le(self.logits.as_flattened(), f32::to_le_bytes)]
    }
}
impl AsBytes for top1::Outputs {
    fn as_bytes(&self) -> Vec<Vec<u8>> {
        vec![le(&self.label, i64::to_le_bytes)]
    }
}
impl AsBytes for chain::Inputs {
    fn as_bytes(&self) -> Vec<Vec<u8>> {
        vec![le(self.x.as_flattened(), f32::to_le_bytes)]
    }
}
impl AsBytes for chain::Outputs {
    fn as_bytes(&self) -> Vec<Vec<u8>> {
        chain::OUTPUT_NAMES
            .iter()
            .map(|&n| match n {
                "rowmax" => le(&self.rowmax, f32::to_le_bytes),
                _ => le(&self.col, i64::to_le_bytes),
            })
            .collect()
    }
}

#[test]
fn one_generic_function_runs_two_models() {
    // top1: ArgMax over 10 logits; the 7th wins.
    let outs = run_generic::<top1::Model>(|i| i.logits[0][7] = 3.5);
    assert_eq!(outs, vec![7i64.to_le_bytes().to_vec()]);
    assert_eq!(<top1::Model as Model>::INPUT_DTYPES, [DType::F32]);
    // chain: Hardmax over 2048 x 2048, then ReduceMax (1 per row) and ArgMax (where row r peaks).
    let outs = run_generic::<chain::Model>(|i| {
        for (r, row) in i.x.iter_mut().enumerate() {
            row[2047 - r] = 2.0;
        }
    });
    let names = <chain::Model as Model>::OUTPUT_NAMES;
    assert_eq!(names.len(), 2);
    for (name, bytes) in names.iter().zip(&outs) {
        match *name {
            "rowmax" => assert!(bytes.chunks(4).all(|c| c == 1f32.to_le_bytes())),
            _ => {
                for (r, c) in bytes.chunks(8).enumerate() {
                    assert_eq!(i64::from_le_bytes(c.try_into().unwrap()), 2047 - r as i64);
                }
            }
        }
    }
    assert_eq!(<chain::Model as Model>::SCRATCH_BYTES, chain::SCRATCH_BYTES);
}

/// The runtime under another name (`rt = { package = "onnx-aot", .. }` in a user's manifest,
/// here `extern crate .. as rt`): `crate = rt` makes the generated code use that path.
mod renamed {
    rt::model!(mod m = "../examples/models/top1.onnx" { crate = rt });

    #[test]
    fn crate_path_reaches_a_renamed_runtime() {
        let mut logits = [[0.0f32; 10]];
        logits[0][4] = 1.0;
        assert_eq!(m::run(&m::Inputs { logits }).label, [4]);
        fn generic<M: rt::Model>() -> usize {
            M::OUTPUT_BYTES[0]
        }
        assert_eq!(generic::<m::Model>(), 8);
    }
}
