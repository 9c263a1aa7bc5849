"""Writes the real exporter models of issue 15 (tests/tests/exporter_models.rs): small heads and
full models written unmodified by torch (TorchScript and dynamo exporters) and skl2onnx, with
ONNX Runtime's outputs beside them, so that `cargo test` compares without Python.

Each case is a directory:
    model.onnx                      as the exporter wrote it
    options.txt                     what the Rust test passes to the generator, one per line:
                                    `dims NAME=SIZE`, `start NAME[:TYPE[DIMS]]`, `output NAME`
    test_data_set_0/input_<k>.pb    the run-time inputs (for a cut, the start tensors' values,
                                    computed by ONNX Runtime from a real input)
    test_data_set_0/output_<k>.pb   ONNX Runtime's outputs, in the order of the `output` lines
                                    (the graph's outputs when there are none)

Setup (versions of the committed data: requirements.txt; tensorflow for tf2onnx):
    python3 -m venv /tmp/expenv && /tmp/expenv/bin/pip install -r requirements.txt
The torch wheel on PyPI is a CUDA build; installing it with its dependencies lets it export on
CPU. Run from this directory: /tmp/expenv/bin/python make.py [--only NAME]
Inputs are drawn without NaN and without ties, where ONNX Runtime's kernels and the contract
could differ (SEMANTICS.md).
"""
import argparse
import os
import shutil

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20261124)


def distinct(shape, dtype=np.float32):
    """Values without ties: a permutation of a spread, scaled."""
    n = int(np.prod(shape))
    return (rng.permutation(n).astype(np.float64) / n * 8 - 4).reshape(shape).astype(dtype)


def run_ort(model, feeds, names):
    """ONNX Runtime's values of `names`, with intermediate tensors exposed as outputs."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    have = {o.name for o in m.graph.output}
    for n in names:
        if n not in have:
            m.graph.output.append(onnx.ValueInfoProto(name=n))
    sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    return dict(zip(names, sess.run(names, feeds)))


def save_case(name, model, feeds, options=(), start=(), outputs=None):
    """Writes a case; `start` names the cut tensors (their values become the inputs)."""
    d = os.path.join(HERE, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "test_data_set_0"))
    onnx.save(model, os.path.join(d, "model.onnx"))
    outputs = list(outputs) if outputs else [o.name for o in model.graph.output]
    values = run_ort(model, feeds, list(start) + outputs)
    inputs = [(s, values[s]) for s in start] if start else list(feeds.items())
    lines = list(options) + [f"output {o}" for o in outputs if outputs]
    with open(os.path.join(d, "options.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    for k, (n, v) in enumerate(inputs):
        t = numpy_helper.from_array(np.asarray(v), n)
        open(os.path.join(d, "test_data_set_0", f"input_{k}.pb"), "wb").write(t.SerializeToString())
    for k, n in enumerate(outputs):
        t = numpy_helper.from_array(np.asarray(values[n]), n)
        open(os.path.join(d, "test_data_set_0", f"output_{k}.pb"), "wb").write(t.SerializeToString())
    ops = sorted({f"{x.domain + '::' if x.domain else ''}{x.op_type}" for x in model.graph.node})
    opset = {o.domain or "ai.onnx": o.version for o in model.opset_import}
    print(f"{name}: {model.producer_name} {model.producer_version}, opset {opset}, ops {ops}")


def skl2onnx_cases():
    from sklearn.neural_network import MLPClassifier
    from skl2onnx import to_onnx

    X = rng.normal(size=(200, 6)).astype(np.float32)
    y = (X[:, 0] + 2 * X[:, 1] > 0).astype(np.int64) + (X[:, 2] > 1)
    clf = MLPClassifier(hidden_layer_sizes=(8,), max_iter=300, random_state=0).fit(X, y)
    model = to_onnx(clf, X[:1], options={id(clf): {"zipmap": False}}, target_opset=15)
    # A full model: MatMul/Relu/Softmax backbone, an ai.onnx.ml ArrayFeatureExtractor after the
    # ArgMax. The tail from the Softmax output (no type in the file) compiles.
    save_case(
        "skl2onnx_mlp_tail",
        model,
        {"X": distinct((4, 6))},
        options=["dims n=4", "start out_activations_result:f32[n,3]"],
        start=["out_activations_result"],
        outputs=["probabilities", "argmax_output"],
    )


def torch_cases():
    import torch

    class Head(torch.nn.Module):
        def __init__(self, kind):
            super().__init__()
            self.kind = kind

        def forward(self, x):
            k = self.kind
            if k == "argmax_int32":
                return x.argmax(dim=-1).to(torch.int32)
            if k == "argmax_uint8":
                return x.argmax(dim=1).to(torch.uint8)
            if k == "argmax_flat":
                return x.argmax()
            if k == "max_dim":
                v, i = torch.max(x, dim=1)
                return v, i
            if k == "max_keepdim":
                v, i = x.max(dim=-1, keepdim=True)
                return v, i
            if k == "half_argmax":
                return x.half().argmax(dim=-1)
            if k == "detector":
                p = x.permute(0, 2, 1)
                scores = p[:, :, 4:]
                conf, cls = scores.max(dim=-1)
                return conf, cls
            if k == "adaptive_pool":
                return torch.nn.functional.adaptive_max_pool2d(x, 1).flatten(1)
            if k == "global_pool_amax":
                return torch.amax(x, dim=(2, 3))
            raise ValueError(k)

    shapes = {
        "argmax_int32": (3, 10),
        "argmax_uint8": (2, 300),
        "argmax_flat": (4, 5),
        "max_dim": (2, 7, 3),
        "max_keepdim": (5, 9),
        "half_argmax": (3, 16),
        "detector": (1, 9, 20),
        "adaptive_pool": (2, 3, 4, 5),
        "global_pool_amax": (2, 3, 4, 5),
    }
    for dynamo, tag, opset in [(False, "torchscript", 13), (True, "dynamo", 18)]:
        for kind, shape in shapes.items():
            x = distinct(shape)
            path = f"/tmp/torch_{tag}_{kind}.onnx"
            torch.onnx.export(
                Head(kind), (torch.from_numpy(x),), path, dynamo=dynamo, opset_version=opset,
                input_names=["x"],
            )
            model = onnx.load(path)
            save_case(f"torch_{tag}_{kind}", model, {model.graph.input[0].name: x})

    # A full classifier: Conv/Relu/Gemm backbone, then max and argmax over the classes.
    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            torch.manual_seed(0)
            self.conv = torch.nn.Conv2d(1, 4, 3)
            self.fc = torch.nn.Linear(4 * 6 * 6, 10)

        def forward(self, x):
            h = torch.relu(self.conv(x)).flatten(1)
            logits = self.fc(h)
            return torch.max(torch.softmax(logits, dim=1), dim=1)

    for dynamo, tag, opset in [(False, "torchscript", 14), (True, "dynamo", 20)]:
        x = distinct((2, 1, 8, 8))
        path = f"/tmp/torch_{tag}_net.onnx"
        torch.onnx.export(Net(), (torch.from_numpy(x),), path, dynamo=dynamo,
                          opset_version=opset, input_names=["x"])
        model = onnx.load(path)
        # The cut: the Softmax's output, whatever name the exporter gave it.
        soft = [n for n in model.graph.node if n.op_type == "Softmax"][0].output[0]
        save_case(
            f"torch_{tag}_net_tail", model, {model.graph.input[0].name: x},
            options=[f"start {soft}:f32[2,10]"], start=[soft],
        )


def tf2onnx_cases():
    import tensorflow as tf
    import tf2onnx

    tf.random.set_seed(0)

    def bind_dims(model, feeds):
        """`dims` lines for the symbolic dims of the inputs (tf2onnx names them unk__N)."""
        lines = []
        for i in model.graph.input:
            for d, size in zip(i.type.tensor_type.shape.dim, feeds[i.name].shape):
                if d.dim_param and f"dims {d.dim_param}={size}" not in lines:
                    lines.append(f"dims {d.dim_param}={size}")
        return lines

    def export(name, fn, specs, opset, x, **case):
        model, _ = tf2onnx.convert.from_function(fn, input_signature=specs, opset=opset)
        feeds = {model.graph.input[0].name: x}
        opts = case.pop("options", [])
        save_case(name, model, feeds, options=bind_dims(model, feeds) + opts, **case)

    # tf.argmax with output_type=tf.int32 (ArgMax then Cast); the batch dim named differently on
    # the input and the output (unk__N).
    spec = [tf.TensorSpec([None, 12], tf.float32, name="x")]
    export("tf2onnx_argmax_int32", tf.function(lambda x: tf.argmax(x, axis=-1, output_type=tf.int32)),
           spec, 13, distinct((3, 12)))
    # reduce_max with keepdims, then squeeze; reduce_min over two axes.
    spec3 = [tf.TensorSpec([None, 4, 6], tf.float32, name="x")]
    x3 = distinct((2, 4, 6))
    export("tf2onnx_reduce_max_squeeze",
           tf.function(lambda x: tf.squeeze(tf.reduce_max(x, axis=1, keepdims=True), axis=1)),
           spec3, 15, x3)
    export("tf2onnx_reduce_min_axes", tf.function(lambda x: tf.reduce_min(x, axis=[0, 2])),
           spec3, 17, x3)
    # A keras classifier: Conv2D, GlobalMaxPooling2D, Dense with softmax, then argmax (a full
    # model, compiled from the softmax's output).
    inp = tf.keras.Input((8, 8, 2), name="image")
    h = tf.keras.layers.Conv2D(4, 3, activation="relu")(inp)
    pooled = tf.keras.layers.GlobalMaxPooling2D()(h)
    probs = tf.keras.layers.Dense(5, activation="softmax")(pooled)
    net = tf.keras.Model(inp, probs)

    def classify(x):
        p = net(x)
        return p, tf.argmax(p, axis=-1)

    spec4 = [tf.TensorSpec([None, 8, 8, 2], tf.float32, name="image")]
    model, _ = tf2onnx.convert.from_function(tf.function(classify), input_signature=spec4, opset=13)
    soft = [n for n in model.graph.node if n.op_type == "Softmax"][0].output[0]
    xi = distinct((2, 8, 8, 2))
    save_case("tf2onnx_keras_classifier_tail", model, {model.graph.input[0].name: xi},
              options=[f"start {soft}:f32[2,5]"], start=[soft])


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", choices=["skl2onnx", "torch", "tf2onnx"])
    a = ap.parse_args()
    if a.only in (None, "skl2onnx"):
        skl2onnx_cases()
    if a.only in (None, "torch"):
        torch_cases()
    if a.only in (None, "tf2onnx"):
        tf2onnx_cases()
