//! A firmware-style library: `#![no_std]`, no allocator, its own panic handler, two models
//! compiled in through the macro, and `extern "C"` entry points.
//!
//! Build: `cargo build --release --manifest-path examples/firmware/Cargo.toml`.
//! `tests/tests/firmware.rs` builds it and reads its symbols to check that no panic machinery
//! is reachable from the entry points.
#![no_std]

onnx_aot::model!(pub mod top1 = "../models/top1.onnx");

onnx_aot::model! {
    /// Max-pool over positions, one-hot of the strongest channel, and its index.
    pub mod head = "../models/head.onnx" {
        dims: { batch = 2 },
        inputs: { axes = [1] },
    }
}

onnx_aot::model!(pub mod w1 = "../../tests/benches/models/w1_argmax_1x1000.onnx");

/// The W1 benchmark model: ArgMax over 1000 logits (a classifier head).
#[no_mangle]
pub extern "C" fn onnx_w1_argmax(logits: &[[f32; 1000]; 1], label: &mut [i64; 1]) {
    let mut outputs = w1::Outputs::zeroed();
    w1::run_into(&w1::Inputs { x: *logits }, &mut outputs);
    *label = outputs.y;
}

/// The top-1 class of 10 logits.
#[no_mangle]
pub extern "C" fn onnx_top1_label(logits: &[f32; 10]) -> i64 {
    let out = top1::run(&top1::Inputs { logits: [*logits] });
    out.label[0]
}

/// The multi-node head: writes the one-hot rows and the class of each of the 2 samples.
#[no_mangle]
pub extern "C" fn onnx_head_run(
    features: &[[[f32; 8]; 4]; 2],
    one_hot: &mut [[f32; 8]; 2],
    class: &mut [i64; 2],
) {
    let inputs = head::Inputs {
        features: *features,
    };
    let mut outputs = head::Outputs::zeroed();
    head::run_into(&inputs, &mut outputs);
    *one_hot = outputs.one_hot;
    *class = outputs.class;
}

/// The byte-level entry point of the head model, for hosts that only pass buffers: returns 0 on
/// success, 1 if a buffer has the wrong size.
#[no_mangle]
pub extern "C" fn onnx_head_run_bytes(
    features: &[u8; 256],
    one_hot: &mut [u8; 64],
    class: &mut [u8; 16],
) -> i32 {
    match head::run_bytes(&[features], &mut [one_hot, class]) {
        Ok(()) => 0,
        Err(_) => 1,
    }
}

/// Negative control for the symbol check (feature `panic-control`): indexing that can panic.
#[cfg(feature = "panic-control")]
#[no_mangle]
pub extern "C" fn onnx_panic_control(logits: &[f32; 10], i: usize) -> f32 {
    logits[i]
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}
