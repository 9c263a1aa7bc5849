//! A multi-node model with a symbolic batch dimension and an `axes` input bound at build time.
//!
//! Run with `cargo run -p onnx-aot-examples --example head`.

onnx_aot::model! {
    /// Max-pools features over 4 positions, then picks the strongest of 8 channels.
    pub mod head = "models/head.onnx" {
        dims: { batch = 2 },
        inputs: { axes = [1] },
    }
}

fn main() {
    let mut features = [[[0.0f32; 8]; 4]; 2];
    for (b, sample) in features.iter_mut().enumerate() {
        for (p, row) in sample.iter_mut().enumerate() {
            for (c, v) in row.iter_mut().enumerate() {
                *v = ((b * 7 + p * 3 + c * 5) % 11) as f32 - 5.0;
            }
        }
    }
    let out = head::run(&head::Inputs { features });
    for b in 0..2 {
        println!(
            "sample {b}: one-hot {:?}, class {}",
            out.one_hot[b], out.class[b]
        );
    }
    println!(
        "input shapes {:?}, output shapes {:?}",
        head::INPUT_SHAPES,
        head::OUTPUT_SHAPES
    );
}
