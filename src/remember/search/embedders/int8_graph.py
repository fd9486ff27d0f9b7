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

ONNX Runtime multiplies its uint8 input by int8 weights exactly on most CPUs,
but on x86 CPUs with AVX2 or AVX-512 and without VNNI its kernel adds pairs of
products in 16 bits, which saturate, so the vectors would depend on the CPU.
There the weights enter as uint8 with a zero point of 128 instead
(``weights="unsigned"``): the same integers, which every kernel multiplies
exactly. `int8_kernel.py` finds out which case a CPU is.

The embedding tables (words and positions) are widened the same way before
their rows are looked up; the lookups are moved ahead of the widening, so that
only the rows a text uses are widened, with the same arithmetic (the same
vectors, bit for bit), and the word table stays 12 MB of int8 in memory
instead of 47 MB of float32.

The edit reads and writes the model through a protobuf subset of ONNX
(`onnx_subset.py`): no ``onnx`` package is needed, and what it does not touch
passes through byte for byte.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Literal

from remember.errors import ConfigError
from remember.search.embedders.onnx_subset import INT8, MICROSOFT, UINT8, model_class

#: The int8-weight products of all-MiniLM-L6-v2: 6 layers of query, key, value,
#: attention output and the two feed-forward products.
EXPECTED_PRODUCTS = 36
#: Names how the vectors are computed, for caches of them kept outside a database.
COMPUTATION = "exact-int8-products"
#: The int8 tables looked up by token: words and positions.
EXPECTED_LOOKUPS = 2
#: How the int8 weights enter the products: as they are (``signed``), or shifted to uint8 with a
#: zero point of 128 (``unsigned``: the same integers, for the CPUs whose u8 x s8 kernel saturates).
Weights = Literal["signed", "unsigned"]
ZERO_POINT = "remember_weight_zero_point"
_FLIP_SIGN = bytes(value ^ 0x80 for value in range(256))  # int8 v as uint8 v + 128


def int8_products(model: bytes, *, weights: Weights = "signed", narrow_lookups: bool = True) -> bytes:
    """``model`` with its int8-weight ``MatMul`` products computed in int8 (their weights entering
    as ``weights`` says) and, with ``narrow_lookups``, its int8 tables widened after their rows are
    looked up.

    Raises ConfigError when the graph is not the one this edit was made for.
    """
    message = model_class()()
    try:
        message.ParseFromString(model)
    except Exception as exc:  # protobuf's DecodeError is not part of its typed API
        raise ConfigError(f"The embedding model file is not a readable ONNX model: {exc}") from exc
    graph = message.graph
    int8 = {t.name for t in graph.initializer if t.data_type == INT8}
    products, lookups, dropped = _plan(graph.node, int8, narrow_lookups)
    _expect(len(products), EXPECTED_PRODUCTS, "int8 matrix products")
    if narrow_lookups:
        _expect(len(lookups), EXPECTED_LOOKUPS, "int8 lookup tables")
    if weights == "unsigned":
        _unsigned_weights(graph, products)
    rebuilt: list[Any] = []
    for index, node in enumerate(graph.node):
        if index not in dropped:
            rebuilt.extend(lookups.get(index, [node]))
    kept = [node.SerializeToString() for node in rebuilt]
    del graph.node[:]
    for serialized in kept:
        graph.node.add().ParseFromString(serialized)
    if not any(opset.domain == MICROSOFT for opset in message.opset_import):
        message.opset_import.add(domain=MICROSOFT, version=1)
    edited: bytes = message.SerializeToString()
    return edited


def _unsigned_weights(graph: Any, products: list[Any]) -> None:
    """Give each product its weights as uint8 (v + 128) with a zero point of 128: the same integers,
    which every kernel of ONNX Runtime multiplies exactly (widened to 16 bits before they are paired)."""
    tensors = {t.name: t for t in graph.initializer}
    for node in products:
        tensor = tensors[node.input[1]]  # used by this product alone (`_widening` checked it)
        tensor.data_type, tensor.raw_data = UINT8, tensor.raw_data.translate(_FLIP_SIGN)
        node.input.append(ZERO_POINT)  # DynamicQuantizeMatMul(A, B, b_scale, b_zero_point)
    graph.initializer.add(name=ZERO_POINT, data_type=UINT8, raw_data=bytes([128]))


def _plan(nodes: Any, weights: set[str], narrow_lookups: bool) -> tuple[list[Any], dict[int, list[Any]], set[int]]:
    """Rewrite each ``MatMul(x, Mul(Cast(int8), scale))`` in place as ``DynamicQuantizeMatMul(x, int8,
    scale)``; with ``narrow_lookups``, the nodes that replace each ``Gather(Mul(Cast(int8), scale), ids)``
    by ``Mul(Cast(Gather(int8, ids)), Gather(scale, ids))``, by the Gather's index. Returns the products
    rewritten, those replacements and the indexes of the widening nodes left without a use."""
    producer = {output: index for index, node in enumerate(nodes) for output in node.output}
    uses = Counter(name for node in nodes for name in node.input)
    products, lookups, dropped = list[Any](), dict[int, list[Any]](), set[int]()
    for index, node in enumerate(nodes):
        if node.domain or len(node.input) != 2:
            continue
        if node.op_type == "MatMul":
            widened = _widening(nodes, producer, uses, node.input[1], weights)
            if widened is not None:
                mul, cast = widened
                node.op_type, node.domain = "DynamicQuantizeMatMul", MICROSOFT
                node.input[:] = [node.input[0], nodes[cast].input[0], nodes[mul].input[1]]
                products.append(node)
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
    if nodes[cast].input[0] not in weights or uses[nodes[cast].input[0]] != 1:
        return None
    if nodes[mul].input[1] in producer:  # the scale: a constant
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
