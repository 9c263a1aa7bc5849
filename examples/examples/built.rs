//! The same kind of model compiled by a build script (`build.rs` calls
//! `onnx_aot_codegen::Builder`) and pulled in with `include!`.
//!
//! Run with `cargo run -p onnx-aot-examples --example built`.

include!(concat!(env!("OUT_DIR"), "/head_built.rs"));

fn main() {
    let mut inputs = head_built::Inputs::zeroed();
    for (b, sample) in inputs.features.iter_mut().enumerate() {
        sample[b % 4][b + 1] = 10.0;
    }
    let out = head_built::run(&inputs);
    println!("classes {:?}", out.class);
    println!("one-hot {:?}", out.one_hot);
}
