//! Multi-axis Hardmax (DirectML's HARDMAX1) through `onnx_aot::Hardmax`: the three worked
//! examples of DirectML's documentation on its 2x2x2 input, with outputs derived by the
//! definition (one 1 per position of the other axes, at the first maximum in row-major order
//! over the reduced axes).

onnx_aot::model!(mod axes_1 = "data/models/directml_axes_1.onnx");
onnx_aot::model!(mod axes_0 = "data/models/directml_axes_0.onnx");
onnx_aot::model!(mod axes_0_2 = "data/models/directml_axes_0_2.onnx");

const INPUT: [[[f32; 2]; 2]; 2] = [[[12.0, 0.0], [-101.0, 11.0]], [[3.0, 234.0], [0.0, -101.0]]];

#[test]
fn axes_1() {
    // For each (i, k): the max over j. {12, -101} -> j=0, {0, 11} -> j=1, {3, 0} -> j=0,
    // {234, -101} -> j=0.
    let y = axes_1::run(&axes_1::Inputs { x: INPUT }).y;
    assert_eq!(y, [[[1.0, 0.0], [0.0, 1.0]], [[1.0, 1.0], [0.0, 0.0]]]);
}

#[test]
fn axes_0() {
    // For each (j, k): the max over i. {12, 3} -> 0, {0, 234} -> 1, {-101, 0} -> 1, {11, -101} -> 0.
    let y = axes_0::run(&axes_0::Inputs { x: INPUT }).y;
    assert_eq!(y, [[[1.0, 0.0], [0.0, 1.0]], [[0.0, 1.0], [1.0, 0.0]]]);
}

#[test]
fn axes_0_2() {
    // For each j: the max over (i, k) in row-major order. j=0: {12, 0, 3, 234} -> (1, 1);
    // j=1: {-101, 11, 0, -101} -> (0, 1).
    let y = axes_0_2::run(&axes_0_2::Inputs { x: INPUT }).y;
    assert_eq!(y, [[[0.0, 0.0], [0.0, 1.0]], [[0.0, 1.0], [0.0, 0.0]]]);
}

#[test]
fn ties_and_nan_follow_row_major_order_over_the_reduced_axes() {
    // j=0: {5, 5, 5, 5}: the first in row-major order over (i, k) is (0, 0).
    // j=1: {1, NaN, 7, NaN}: the first NaN, (0, 1).
    let x = [[[5.0, 5.0], [1.0, f32::NAN]], [[5.0, 5.0], [7.0, f32::NAN]]];
    let y = axes_0_2::run(&axes_0_2::Inputs { x }).y;
    assert_eq!(y, [[[1.0, 0.0], [0.0, 1.0]], [[0.0, 0.0], [0.0, 0.0]]]);
}
