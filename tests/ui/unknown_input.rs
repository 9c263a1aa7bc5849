// `inputs` binds `axis`, but the graph input is named `axes`; the error points at the binding.
onnx_aot::model! {
    mod rowmax = "ui/models/axes_input.onnx" {
        inputs: { axis = [1] },
    }
}

fn main() {}
