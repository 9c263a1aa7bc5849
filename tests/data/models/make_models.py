"""Writes the hand-made test models in this folder. The .onnx files are checked in; tests need
nothing but cargo. Regenerate with `pip install onnx` and `python3 make_models.py`."""
import onnx
from onnx import TensorProto, helper


def save(graph, name, opset=13, **kw):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], **kw)
    onnx.checker.check_model(model)
    onnx.save(model, name)


# 4 MiB of input: run_bytes must not put it on the stack.
save(
    helper.make_graph(
        [helper.make_node("ArgMax", ["x"], ["y"], name="big", axis=0, keepdims=0)],
        "big_argmax",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1024, 1024])],
        [helper.make_tensor_value_info("y", TensorProto.INT64, [1024])],
    ),
    "big_argmax.onnx",
)


# DirectML's HARDMAX1 worked examples: the 2x2x2 input of its documentation, axes {1}, {0}, {0, 2},
# through a Hardmax node of the custom domain onnx_aot.
for name, axes in [("directml_axes_1", [1]), ("directml_axes_0", [0]), ("directml_axes_0_2", [0, 2])]:
    graph = helper.make_graph(
        [helper.make_node("Hardmax", ["x"], ["y"], name=name, domain="onnx_aot", axes=axes)],
        name,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 2, 2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 2, 2])],
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("onnx_aot", 1)]
    )
    onnx.save(model, name + ".onnx")


# As PyTorch's exporter writes models: `ai.onnx` spelled out, several opset imports (one unused
# domain), names that are paths, a symbolic batch, value_info for intermediates, an Identity, a
# Constant feeding ReduceMax-18's axes, doc strings and metadata.
graph = helper.make_graph(
    [
        helper.make_node("Constant", [], ["/model/Constant_output_0"], name="/model/Constant",
                         value=helper.make_tensor("c", TensorProto.INT64, [1], [-1])),
        helper.make_node("ReduceMax", ["input.1", "/model/Constant_output_0"], ["/model/ReduceMax_output_0"],
                         name="/model/ReduceMax", keepdims=0, domain="ai.onnx"),
        helper.make_node("Identity", ["/model/ReduceMax_output_0"], ["/model/Identity_output_0"], name="/model/Identity"),
        helper.make_node("ArgMax", ["/model/Identity_output_0"], ["output"], name="/model/ArgMax", axis=1, keepdims=0),
        helper.make_node("Hardmax", ["/model/Identity_output_0"], ["onehot.out"], name="/model/Hardmax", axis=-1),
    ],
    "main_graph",
    [helper.make_tensor_value_info("input.1", TensorProto.FLOAT, ["batch_size", 3, 4])],
    [
        helper.make_tensor_value_info("output", TensorProto.INT64, ["batch_size"]),
        helper.make_tensor_value_info("onehot.out", TensorProto.FLOAT, ["batch_size", 3]),
    ],
    value_info=[helper.make_tensor_value_info("/model/ReduceMax_output_0", TensorProto.FLOAT, ["batch_size", 3])],
    doc_string="Exported by a PyTorch-like exporter.",
)
model = helper.make_model(
    graph,
    opset_imports=[helper.make_opsetid("ai.onnx", 18), helper.make_opsetid("ai.onnx.ml", 3)],
    producer_name="pytorch",
    producer_version="2.5.0",
    ir_version=8,
)
model.doc_string = "Max over features, then top class and one-hot."
helper.set_model_props(model, {"author": "onnx-aot tests", "task": "classification"})
onnx.save(model, "exporter_pytorch.onnx")


# An old-style model (IR 3): initializers also listed as graph inputs; names that are not Rust
# identifiers, that collide after sanitizing, and keywords.
graph = helper.make_graph(
    [
        helper.make_node("ReduceMin", ["x.y"], ["type"], name="min", axes=[1], keepdims=0),
        helper.make_node("ReduceMax", ["x_y"], ["Type"], name="max", keepdims=1),
        helper.make_node("ArgMax", ["weights"], ["0"], name="w", axis=0, keepdims=0),
    ],
    "legacy",
    [
        helper.make_tensor_value_info("x.y", TensorProto.INT32, [2, 3]),
        helper.make_tensor_value_info("x_y", TensorProto.INT32, [2]),
        helper.make_tensor_value_info("weights", TensorProto.FLOAT, [3]),
    ],
    [
        helper.make_tensor_value_info("type", TensorProto.INT32, [2]),
        helper.make_tensor_value_info("Type", TensorProto.INT32, [1]),
        helper.make_tensor_value_info("0", TensorProto.INT64, []),
    ],
    initializer=[helper.make_tensor("weights", TensorProto.FLOAT, [3], [0.5, 2.0, -1.0])],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 9)], ir_version=3)
onnx.save(model, "legacy_names.onnx")


# 16 MiB of input and a 16 MiB intermediate: run_into and run_with_scratch must keep both off
# the stack.
save(
    helper.make_graph(
        [
            helper.make_node("Hardmax", ["x"], ["h"], name="hard", axis=-1),
            helper.make_node("ReduceMax", ["h"], ["rowmax"], name="rows", axes=[1], keepdims=0),
            helper.make_node("ArgMax", ["h"], ["col"], name="col", axis=1, keepdims=0),
        ],
        "big_chain",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2048, 2048])],
        [
            helper.make_tensor_value_info("rowmax", TensorProto.FLOAT, [2048]),
            helper.make_tensor_value_info("col", TensorProto.INT64, [2048]),
        ],
    ),
    "big_chain.onnx",
)


# A full classifier whose backbone (Gemm, Relu, and an ai.onnx.ml op) is not compiled: the tail
# from `logits` (no type or shape in the file, as in two of the exporter models of issue 15) is,
# with `start: ["logits": f32[2, 4]]`. ReduceMax and ArgMax of `logits` over the classes.
def classifier_tail():
    import numpy as np

    w = helper.make_tensor("w", TensorProto.FLOAT, [3, 4], np.arange(12, dtype=np.float32) / 7)
    nodes = [
        helper.make_node("Gemm", ["x", "w"], ["h"], name="fc"),
        helper.make_node("Normalizer", ["h"], ["n"], name="norm", domain="ai.onnx.ml", norm="MAX"),
        helper.make_node("Relu", ["n"], ["logits"], name="relu"),
        helper.make_node("ReduceMax", ["logits"], ["score"], name="best", axes=[1], keepdims=0),
        helper.make_node("ArgMax", ["logits"], ["label"], name="label", axis=1, keepdims=0),
    ]
    graph = helper.make_graph(
        nodes,
        "classifier_tail",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3])],
        [
            helper.make_tensor_value_info("score", TensorProto.FLOAT, ["batch"]),
            helper.make_tensor_value_info("label", TensorProto.INT64, ["batch"]),
        ],
        [w],
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("ai.onnx.ml", 1)],
    )
    onnx.checker.check_model(model)
    onnx.save(model, "classifier_tail.onnx")


classifier_tail()
