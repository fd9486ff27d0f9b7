"""The model's matrix products in int8: a graph edit made when the model is opened.

The pinned ``model.onnx`` stores its weights as int8 with a float scale per
column and widens them (``Cast`` then ``Mul``) before each float ``MatMul``, so
ONNX Runtime computes in float32. Each such product is rewritten here as ONNX
Runtime's ``DynamicQuantizeMatMul``, which takes the int8 weights and scales as
they are and quantizes its input to 8 bits at run time: a short text embeds in
about half the time, on one core instead of two (docs/embeddings.md has the
figures and the retrieval benchmarks).

Its input is quantized with one scale for the whole tensor, so a text's vector
would depend on what else shares its batch: the embedder runs every text alone.

The embedding tables (words and positions) are widened the same way before
their rows are looked up; the lookups are moved ahead of the widening, so that
only the rows a text uses are widened, with the same arithmetic (the same
vectors, bit for bit), and the word table stays 12 MB of int8 in memory
instead of 47 MB of float32.

Only the fields the edit touches are described to protobuf (a node's inputs,
outputs, operator and domain; an initializer's name and type; the opsets);
everything else, the weights included, passes through as unknown fields, byte
for byte. No ``onnx`` package is needed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import cache
from typing import Any

from remember.errors import ConfigError

#: The int8-weight products of all-MiniLM-L6-v2: 6 layers of query, key, value,
#: attention output and the two feed-forward products.
EXPECTED_PRODUCTS = 36
#: Names how the vectors are computed, for caches of them kept outside a database.
COMPUTATION = "int8-products"
#: The int8 tables looked up by token: words and positions.
EXPECTED_LOOKUPS = 2
_INT8 = 3  # TensorProto.INT8
_MICROSOFT = "com.microsoft"

_STRING, _INT32, _INT64, _MESSAGE = 9, 5, 3, 11
_OPTIONAL, _REPEATED = 1, 3
_TENSOR, _OPSET = ".remember_onnx.Tensor", ".remember_onnx.OperatorSetId"


def int8_products(model: bytes, *, narrow_lookups: bool = True) -> bytes:
    """``model`` with its int8-weight ``MatMul`` products computed in int8 and, with
    ``narrow_lookups``, its int8 tables widened after their rows are looked up.

    Raises ConfigError when the graph is not the one this edit was made for.
    """
    message = _model_class()()
    try:
        message.ParseFromString(model)
    except Exception as exc:  # protobuf's DecodeError is not part of its typed API
        raise ConfigError(f"The embedding model file is not a readable ONNX model: {exc}") from exc
    graph = message.graph
    weights = {t.name for t in graph.initializer if t.data_type == _INT8}
    products, lookups, dropped = _plan(graph.node, weights, narrow_lookups)
    _expect(products, EXPECTED_PRODUCTS, "int8 matrix products")
    if narrow_lookups:
        _expect(len(lookups), EXPECTED_LOOKUPS, "int8 lookup tables")
    rebuilt: list[Any] = []
    for index, node in enumerate(graph.node):
        if index not in dropped:
            rebuilt.extend(lookups.get(index, [node]))
    kept = [node.SerializeToString() for node in rebuilt]
    del graph.node[:]
    for serialized in kept:
        graph.node.add().ParseFromString(serialized)
    if not any(opset.domain == _MICROSOFT for opset in message.opset_import):
        message.opset_import.add(domain=_MICROSOFT, version=1)
    edited: bytes = message.SerializeToString()
    return edited


def _plan(nodes: Any, weights: set[str], narrow_lookups: bool) -> tuple[int, dict[int, list[Any]], set[int]]:
    """Rewrite each ``MatMul(x, Mul(Cast(int8), scale))`` in place as ``DynamicQuantizeMatMul(x, int8,
    scale)``; with ``narrow_lookups``, the nodes that replace each ``Gather(Mul(Cast(int8), scale), ids)``
    by ``Mul(Cast(Gather(int8, ids)), Gather(scale, ids))``, by the Gather's index. Returns the count of
    products rewritten, those replacements and the indexes of the widening nodes left without a use."""
    producer = {output: index for index, node in enumerate(nodes) for output in node.output}
    uses = Counter(name for node in nodes for name in node.input)
    products, lookups, dropped = 0, dict[int, list[Any]](), set[int]()
    for index, node in enumerate(nodes):
        if node.domain or len(node.input) != 2:
            continue
        if node.op_type == "MatMul":
            widened = _widening(nodes, producer, uses, node.input[1], weights)
            if widened is not None:
                mul, cast = widened
                node.op_type, node.domain = "DynamicQuantizeMatMul", _MICROSOFT
                node.input[:] = [node.input[0], nodes[cast].input[0], nodes[mul].input[1]]
                products += 1
                dropped.update(widened)
        elif node.op_type == "Gather" and narrow_lookups and _axis(node) == 0:
            widened = _widening(nodes, producer, uses, node.input[0], weights)
            if widened is not None:
                mul, cast = widened
                lookups[index] = _narrowed(node, nodes[mul], nodes[cast])
                dropped.update(widened)
    return products, lookups, dropped


def _expect(found: int, expected: int, what: str) -> None:
    if found != expected:
        raise ConfigError(
            f"The embedding model has {found} {what} where {expected} were expected; "
            "it is not the all-MiniLM-L6-v2 file this version of remember was made for."
        )


def _widening(
    nodes: Any, producer: dict[str, int], uses: Counter[str], name: str, weights: set[str]
) -> tuple[int, int] | None:
    """The (Mul, Cast) nodes that widen an int8 initializer into ``name``, when nothing else uses them."""
    mul = producer.get(name)
    if mul is None or nodes[mul].op_type != "Mul" or uses[name] != 1 or len(nodes[mul].input) != 2:
        return None
    cast = producer.get(nodes[mul].input[0])
    if cast is None or nodes[cast].op_type != "Cast" or uses[nodes[mul].input[0]] != 1:
        return None
    if nodes[cast].input[0] not in weights or nodes[mul].input[1] in producer:  # the scale: a constant
        return None
    return mul, cast


def _narrowed(gather: Any, mul: Any, cast: Any) -> list[Any]:
    """The four nodes that look up int8 rows and their scales, then widen just those rows."""
    out, ids = gather.output[0], gather.input[1]
    int8_weight, scale = cast.input[0], mul.input[1]
    rows, scales, widened = f"{out}_int8_rows", f"{out}_row_scales", f"{out}_widened_rows"
    new_gather, scale_gather, new_cast, new_mul = (type(gather)() for _ in range(4))
    for copy, original, name, inputs, outputs in (
        (new_gather, gather, "int8_rows", [int8_weight, ids], [rows]),
        (scale_gather, gather, "row_scales", [scale, ids], [scales]),
        (new_cast, cast, "widen_rows", [rows], [widened]),
        (new_mul, mul, "scale_rows", [widened, scales], [out]),
    ):
        copy.CopyFrom(original)  # keeps the attributes: Gather's axis, Cast's target type
        copy.name = f"{out}_{name}"
        copy.input[:], copy.output[:] = inputs, outputs
    return [new_gather, scale_gather, new_cast, new_mul]


def _axis(node: Any) -> int:
    return next((int(a.i) for a in node.attribute if a.name == "axis"), 0)


@cache
def _model_class() -> Any:
    """A ModelProto class that knows only the fields the edit reads or writes."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory  # type: ignore[import-untyped]

    proto = descriptor_pb2.FileDescriptorProto(name="remember_onnx_subset.proto", package="remember_onnx")
    _message(proto, "OperatorSetId", [("domain", 1, _STRING, _OPTIONAL), ("version", 2, _INT64, _OPTIONAL)])
    _message(proto, "Tensor", [("data_type", 2, _INT32, _OPTIONAL), ("name", 8, _STRING, _OPTIONAL)])
    _message(proto, "Attribute", [("name", 1, _STRING, _OPTIONAL), ("i", 3, _INT64, _OPTIONAL)])
    _message(
        proto,
        "Node",
        [
            ("input", 1, _STRING, _REPEATED),
            ("output", 2, _STRING, _REPEATED),
            ("name", 3, _STRING, _OPTIONAL),
            ("op_type", 4, _STRING, _OPTIONAL),
            ("attribute", 5, ".remember_onnx.Attribute", _REPEATED),
            ("domain", 7, _STRING, _OPTIONAL),
        ],
    )
    _message(
        proto,
        "Graph",
        [("node", 1, ".remember_onnx.Node", _REPEATED), ("initializer", 5, ".remember_onnx.Tensor", _REPEATED)],
    )
    _message(
        proto,
        "Model",
        [
            ("graph", 7, ".remember_onnx.Graph", _OPTIONAL),
            ("opset_import", 8, ".remember_onnx.OperatorSetId", _REPEATED),
        ],
    )
    pool = descriptor_pool.DescriptorPool()
    pool.Add(proto)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("remember_onnx.Model"))


def _message(proto: Any, name: str, fields: Sequence[tuple[str, int, int | str, int]]) -> None:
    message = proto.message_type.add(name=name)
    for field_name, number, kind, label in fields:
        field = message.field.add(name=field_name, number=number, label=label)
        if isinstance(kind, str):
            field.type, field.type_name = _MESSAGE, kind
        else:
            field.type = kind
