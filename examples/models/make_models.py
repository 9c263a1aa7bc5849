"""Writes the example models. Run once with `pip install onnx` and `python3 make_models.py`;
the .onnx files are checked in, so building the examples needs nothing but cargo."""
import onnx
from onnx import TensorProto, helper

# top1: a classifier head, ArgMax over 10 logits.
top1 = helper.make_graph(
    [helper.make_node("ArgMax", ["logits"], ["label"], name="top1", axis=-1, keepdims=0)],
    "top1",
    [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 10])],
    [helper.make_tensor_value_info("label", TensorProto.INT64, [1])],
)
model = helper.make_model(top1, opset_imports=[helper.make_opsetid("", 13)], producer_name="onnx-aot examples")
model.doc_string = "Top-1 class of 10 logits."
onnx.checker.check_model(model)
onnx.save(model, "top1.onnx")

# head: max-pool features over a symbolic batch, then one-hot and class index.
head = helper.make_graph(
    [
        helper.make_node("ReduceMax", ["features", "axes"], ["pooled"], name="pool", keepdims=0),
        helper.make_node("Hardmax", ["pooled"], ["one_hot"], name="pick"),
        helper.make_node("ArgMax", ["pooled"], ["class"], name="top1", axis=-1, keepdims=0),
    ],
    "head",
    [
        helper.make_tensor_value_info("features", TensorProto.FLOAT, ["batch", 4, 8]),
        helper.make_tensor_value_info("axes", TensorProto.INT64, [1]),
    ],
    [
        helper.make_tensor_value_info("one_hot", TensorProto.FLOAT, ["batch", 8]),
        helper.make_tensor_value_info("class", TensorProto.INT64, ["batch"]),
    ],
)
model = helper.make_model(head, opset_imports=[helper.make_opsetid("", 18)], producer_name="onnx-aot examples")
onnx.checker.check_model(model)
onnx.save(model, "head.onnx")
