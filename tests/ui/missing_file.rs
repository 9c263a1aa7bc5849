// The path names no file. The stub module still has the entry points, so calls through the
// erased API add no errors of their own.
onnx_aot::model!(mod top1 = "ui/models/does_not_exist.onnx");

fn main() {
    let out = top1::run(&top1::Inputs::zeroed());
    println!("{out:?}");
    let mut buf = [0u8; 16];
    let _ = top1::run_bytes(&[&[0u8; 24]], &mut [&mut buf]);
}
