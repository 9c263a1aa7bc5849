//! The main job: embed a model through the macro and print its result.
//!
//! Run with `cargo run -p onnx-aot-examples --example top1`.

// Compiled at build time: `top1` is a plain Rust module with constant shapes.
onnx_aot::model!(pub mod top1 = "models/top1.onnx");

fn main() {
    let logits = [[
        0.1f32,
        -1.2,
        2.5,
        0.3,
        2.5,
        f32::NEG_INFINITY,
        0.0,
        1.9,
        -0.7,
        2.4,
    ]];
    let out = top1::run(&top1::Inputs { logits });
    println!("logits {:?}", logits[0]);
    println!("top-1 class: {} (ties go to the first index)", out.label[0]);

    // The same model through the byte-level entry point, as FFI or a test harness would use it.
    let bytes: Vec<u8> = logits[0].iter().flat_map(|v| v.to_le_bytes()).collect();
    let mut label = [0u8; 8];
    top1::run_bytes(&[&bytes], &mut [&mut label]).expect("buffer sizes match the model");
    println!("via run_bytes: {}", i64::from_le_bytes(label));
}
