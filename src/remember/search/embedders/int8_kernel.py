"""Which int8 products ONNX Runtime computes exactly on this CPU: a probe run once per process.

ONNX Runtime picks its int8 matrix kernel by instruction set. Most multiply a
uint8 input by int8 weights exactly (VNNI, AMX, ARM's dot products, SSE), but
the AVX2 and AVX-512 kernels of CPUs without VNNI add pairs of products in 16
bits with saturation, so large inputs meeting large weights come out wrong and
a text's vector would depend on the CPU it was embedded on. The probe runs one
tiny product built to saturate such a kernel and compares it with the exact
answer; when it is wrong, the weights enter as uint8 (the same integers, shifted
by a zero point of 128), which every kernel widens to 16 bits before pairing,
and that is checked too. When neither is exact, the products stay in float.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from remember.search.embedders.int8_graph import ZERO_POINT, Weights
from remember.search.embedders.onnx_subset import FLOAT, INT8, MICROSOFT, UINT8, model_class

#: The probe's product: 3 rows (a text is at least [CLS] and [SEP]) of 64 inputs, into 2 columns.
ROWS, DEPTH = 3, 64
#: Every input but the first is the largest (255 once quantized); the weights are the extremes.
WEIGHT_COLUMNS = (127, -128)


@cache
def exact_weights() -> Weights | None:
    """How the weights should enter the int8 products on this CPU so that they are exact:
    ``signed`` when ONNX Runtime's u8 x s8 kernel is, else ``unsigned`` when its u8 x u8 kernel is,
    else None (keep the products in float)."""
    for weights in ("signed", "unsigned"):
        if probe(weights):
            return weights
    return None


def probe(weights: Weights) -> bool:
    """Whether ONNX Runtime computes the probe's product exactly with ``weights``."""
    import numpy as np
    import onnxruntime as ort  # type: ignore[import-untyped]

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.log_severity_level = 3
    session = ort.InferenceSession(_probe_model(weights), sess_options=options, providers=["CPUExecutionProvider"])
    inputs = np.ones((ROWS, DEPTH), dtype=np.float32)
    inputs[:, 0] = 0.0  # the quantization's zero: inputs become 0 and 255
    got = session.run(["y"], {"a": inputs})[0]
    expected = inputs.sum(axis=1, keepdims=True) * np.asarray(WEIGHT_COLUMNS, dtype=np.float32)  # every weight alike
    return bool(np.allclose(got, expected, rtol=1e-4, atol=0.0))


def _probe_model(weights: Weights) -> bytes:
    """``y = DynamicQuantizeMatMul(a, b, b_scale[, b_zero_point])`` with ``b`` the weight columns."""
    model = model_class()()
    model.ir_version = 8
    model.opset_import.add(domain="", version=17)
    model.opset_import.add(domain=MICROSOFT, version=1)
    graph = model.graph
    graph.name = "int8_probe"
    row = bytes(value & 0xFF for value in WEIGHT_COLUMNS)
    inputs = ["a", "b", "b_scale"]
    if weights == "unsigned":
        row = bytes(value ^ 0x80 for value in row)
        graph.initializer.add(name=ZERO_POINT, data_type=UINT8, raw_data=bytes([128]))
        inputs.append(ZERO_POINT)
    kind = UINT8 if weights == "unsigned" else INT8
    graph.initializer.add(name="b", dims=[DEPTH, len(WEIGHT_COLUMNS)], data_type=kind, raw_data=row * DEPTH)
    scales = b"\x00\x00\x80\x3f" * len(WEIGHT_COLUMNS)  # float32 1.0, little-endian
    graph.initializer.add(name="b_scale", dims=[len(WEIGHT_COLUMNS)], data_type=FLOAT, raw_data=scales)
    graph.node.add(op_type="DynamicQuantizeMatMul", domain=MICROSOFT, name="product", input=inputs, output=["y"])
    _declare(graph.input.add(), "a", (ROWS, DEPTH))
    _declare(graph.output.add(), "y", (ROWS, len(WEIGHT_COLUMNS)))
    probe_bytes: bytes = model.SerializeToString()
    return probe_bytes


def _declare(value: Any, name: str, shape: tuple[int, ...]) -> None:
    value.name = name
    value.type.tensor_type.elem_type = FLOAT
    for size in shape:
        value.type.tensor_type.shape.dim.add(dim_value=size)
