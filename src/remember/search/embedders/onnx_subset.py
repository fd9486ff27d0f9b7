"""The few ONNX protobuf messages the embedder reads, edits or builds, without the ``onnx`` package.

Only the fields it touches are described (a node's inputs, outputs, operator and
domain; a tensor's name, type, shape and bytes; the graph's inputs and outputs;
the opsets); everything else in a model file passes through as unknown fields,
byte for byte. Field numbers are ONNX's own (``onnx/onnx.proto``).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

#: ONNX's ``TensorProto.DataType`` values used here.
FLOAT, UINT8, INT8 = 1, 2, 3
MICROSOFT = "com.microsoft"

_STRING, _BYTES, _INT32, _INT64, _MESSAGE = 9, 12, 5, 3, 11
_OPTIONAL, _REPEATED = 1, 3
_PACKAGE = "remember_onnx"


def model_class() -> Any:
    """The ``ModelProto`` subset class (its messages are reached through its fields)."""
    return _classes()["Model"]


@cache
def _classes() -> dict[str, Any]:
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory  # type: ignore[import-untyped]

    proto = descriptor_pb2.FileDescriptorProto(name="remember_onnx_subset.proto", package=_PACKAGE)
    for name, fields in _MESSAGES:
        message = proto.message_type.add(name=name)
        for field_name, number, kind, label in fields:
            _field(message, field_name, number, kind, label)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(proto)
    return {
        name: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{_PACKAGE}.{name}")) for name, _ in _MESSAGES
    }


def _field(message: Any, name: str, number: int, kind: int | str, label: int) -> None:
    field = message.field.add(name=name, number=number, label=label)
    if isinstance(kind, str):
        field.type, field.type_name = _MESSAGE, f".{_PACKAGE}.{kind}"
    else:
        field.type = kind


_Fields = Sequence[tuple[str, int, int | str, int]]
_MESSAGES: Sequence[tuple[str, _Fields]] = (
    ("OperatorSetId", [("domain", 1, _STRING, _OPTIONAL), ("version", 2, _INT64, _OPTIONAL)]),
    (
        "Tensor",
        [
            ("dims", 1, _INT64, _REPEATED),
            ("data_type", 2, _INT32, _OPTIONAL),
            ("name", 8, _STRING, _OPTIONAL),
            ("raw_data", 9, _BYTES, _OPTIONAL),
        ],
    ),
    ("Attribute", [("name", 1, _STRING, _OPTIONAL), ("i", 3, _INT64, _OPTIONAL)]),
    (
        "Node",
        [
            ("input", 1, _STRING, _REPEATED),
            ("output", 2, _STRING, _REPEATED),
            ("name", 3, _STRING, _OPTIONAL),
            ("op_type", 4, _STRING, _OPTIONAL),
            ("attribute", 5, "Attribute", _REPEATED),
            ("domain", 7, _STRING, _OPTIONAL),
        ],
    ),
    ("Dimension", [("dim_value", 1, _INT64, _OPTIONAL)]),
    ("Shape", [("dim", 1, "Dimension", _REPEATED)]),
    ("TensorType", [("elem_type", 1, _INT32, _OPTIONAL), ("shape", 2, "Shape", _OPTIONAL)]),
    ("Type", [("tensor_type", 1, "TensorType", _OPTIONAL)]),
    ("ValueInfo", [("name", 1, _STRING, _OPTIONAL), ("type", 2, "Type", _OPTIONAL)]),
    (
        "Graph",
        [
            ("node", 1, "Node", _REPEATED),
            ("name", 2, _STRING, _OPTIONAL),
            ("initializer", 5, "Tensor", _REPEATED),
            ("input", 11, "ValueInfo", _REPEATED),
            ("output", 12, "ValueInfo", _REPEATED),
        ],
    ),
    (
        "Model",
        [
            ("ir_version", 1, _INT64, _OPTIONAL),
            ("graph", 7, "Graph", _OPTIONAL),
            ("opset_import", 8, "OperatorSetId", _REPEATED),
        ],
    ),
)
