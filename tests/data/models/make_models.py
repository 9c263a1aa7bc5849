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
