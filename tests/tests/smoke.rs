onnx_aot::model!(mod am = "data/node/test_argmax_no_keepdims_example/model.onnx");
onnx_aot::model! { mod rm = "data/node/test_reduce_max_keepdims_example/model.onnx" { inputs: { axes = [1] } } }
onnx_aot::model!(mod hm = "data/node/test_hardmax_axis_1/model.onnx");
#[test]
fn smoke() {
    let out = am::run(&am::Inputs {
        data: [[2.0, 1.0], [3.0, 10.0]],
    });
    println!("{:?} {:?}", out, am::OUTPUT_SHAPES);
    let out = rm::run(&rm::Inputs {
        data: [
            [[5.0, 1.0], [20.0, 2.0]],
            [[30.0, 1.0], [40.0, 2.0]],
            [[55.0, 1.0], [60.0, 2.0]],
        ],
    });
    println!("{:?}", out);
}
