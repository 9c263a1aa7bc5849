// With the runtime renamed, a missing model file is one error: the stand-in module reaches the
// runtime under the name given in `crate = ...`, so nothing else fails.
extern crate onnx_aot as rt;

rt::model! {
    mod missing = "ui/models/no_such_model.onnx" {
        crate = rt,
    }
}

fn main() {
    let _ = missing::run_bytes(&[], &mut []);
}
