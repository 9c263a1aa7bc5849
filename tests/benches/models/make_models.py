"""Writes the benchmark models W1..W9 of issue 5 (see tests/benches/peers.rs).

Run once with `pip install onnx` and `python3 make_models.py` from this folder; the .onnx files
are checked in, so the benchmark needs nothing but cargo. ReduceMax-18 takes its axes as an
initializer, so that the macro, tract and ONNX Runtime all read the very same file.
"""
import onnx
from onnx import TensorProto, helper

F32 = TensorProto.FLOAT
U8 = TensorProto.UINT8
I64 = TensorProto.INT64


def save(name, nodes, x_type, x_shape, y_type, y_shape, opset, initializers=(), doc=""):
    graph = helper.make_graph(
        nodes,
        name,
        [helper.make_tensor_value_info("x", x_type, x_shape)],
        [helper.make_tensor_value_info("y", y_type, y_shape)],
        initializer=list(initializers),
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", opset)],
        producer_name="onnx-aot benches",
    )
    # IR version 8 (ONNX 1.10+) so that older runtimes load the files too.
    model.ir_version = 8
    model.doc_string = doc
    onnx.checker.check_model(model)
    onnx.save(model, f"{name}.onnx")


def axes(name, values):
    return helper.make_tensor(name, I64, [len(values)], values)


save(
    "w1_argmax_1x1000",
    [helper.make_node("ArgMax", ["x"], ["y"], name="argmax", axis=-1, keepdims=0)],
    F32, [1, 1000], I64, [1], 13,
    doc="W1: ArgMax [1, 1000] axis -1, keepdims 0 (a classifier head: latency)",
)
save(
    "w2_argmax_64x1000",
    [helper.make_node("ArgMax", ["x"], ["y"], name="argmax", axis=1, keepdims=0)],
    F32, [64, 1000], I64, [64], 13,
    doc="W2: ArgMax [64, 1000] axis 1, keepdims 0",
)
save(
    "w3_reducemax_middle",
    [helper.make_node("ReduceMax", ["x", "axes"], ["y"], name="reducemax", keepdims=1)],
    F32, [256, 256, 16], F32, [256, 1, 16], 18,
    initializers=[axes("axes", [1])],
    doc="W3: ReduceMax-18 [256, 256, 16] axes [1], keepdims 1 (middle axis)",
)
save(
    "w4_reducemax_leading",
    [helper.make_node("ReduceMax", ["x", "axes"], ["y"], name="reducemax", keepdims=0)],
    F32, [1024, 1024], F32, [1024], 18,
    initializers=[axes("axes", [0])],
    doc="W4: ReduceMax-18 [1024, 1024] axes [0], keepdims 0 (leading axis, strided)",
)
save(
    "w5_hardmax13",
    [helper.make_node("Hardmax", ["x"], ["y"], name="hardmax", axis=-1)],
    F32, [128, 1000], F32, [128, 1000], 13,
    doc="W5: Hardmax-13 [128, 1000] axis -1",
)
save(
    "w6_hardmax11",
    [helper.make_node("Hardmax", ["x"], ["y"], name="hardmax", axis=1)],
    F32, [8, 16, 16, 16], F32, [8, 16, 16, 16], 11,
    doc="W6: Hardmax-11 [8, 16, 16, 16] axis 1 (coerced to 2-D)",
)
save(
    "w7_reducemax_u8",
    [helper.make_node("ReduceMax", ["x", "axes"], ["y"], name="reducemax", keepdims=0)],
    U8, [4096, 256], U8, [4096], 18,
    initializers=[axes("axes", [1])],
    doc="W7: ReduceMax-18 uint8 [4096, 256] axes [1], keepdims 0",
)
save(
    "w8_chain",
    [
        helper.make_node("ReduceMax", ["x", "axes"], ["pooled"], name="pool", keepdims=1),
        helper.make_node("Hardmax", ["pooled"], ["one_hot"], name="pick", axis=-1),
        helper.make_node("ArgMax", ["one_hot"], ["y"], name="top1", axis=-1, keepdims=0),
    ],
    F32, [32, 64, 64], I64, [32, 1], 18,
    initializers=[axes("axes", [1])],
    doc="W8: ReduceMax [32, 64, 64] axes [1] keepdims 1 -> Hardmax axis -1 -> ArgMax axis -1 keepdims 0",
)
save(
    "w9_argmax_leading",
    [helper.make_node("ArgMax", ["x"], ["y"], name="argmax", axis=0, keepdims=0)],
    F32, [1024, 1024], I64, [1024], 13,
    doc="W9: ArgMax [1024, 1024] axis 0, keepdims 0 (leading axis, strided)",
)
