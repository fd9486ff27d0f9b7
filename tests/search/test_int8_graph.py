"""The graph edit that runs the model's matrix products in int8, on the pinned model file."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from remember.errors import ConfigError
from remember.search.embedders.int8_graph import EXPECTED_LOOKUPS, EXPECTED_PRODUCTS, ZERO_POINT, int8_products
from remember.search.embedders.model_files import default_model_path
from remember.search.embedders.onnx_subset import INT8, UINT8, model_class


@pytest.fixture(scope="module")
def original() -> bytes:
    return default_model_path().read_bytes()


def _parsed(model: bytes) -> object:
    message = model_class()()
    message.ParseFromString(model)
    return message


def test_every_int8_weight_product_runs_in_int8_and_the_widening_nodes_are_gone(original: bytes) -> None:
    before, after = _parsed(original), _parsed(int8_products(original))
    ops_before = Counter(node.op_type for node in before.graph.node)  # type: ignore[attr-defined]
    ops_after = Counter((node.op_type, node.domain) for node in after.graph.node)  # type: ignore[attr-defined]
    assert ops_after[("DynamicQuantizeMatMul", "com.microsoft")] == EXPECTED_PRODUCTS == 36
    # 48 products: 36 with int8 weights, 12 between activations (attention) stay float.
    assert ops_after[("MatMul", "")] == ops_before["MatMul"] - EXPECTED_PRODUCTS == 12
    # The lookups' widening moves after them (same count), and each looks up its scales too.
    assert ops_after[("Cast", "")] == ops_before["Cast"] - EXPECTED_PRODUCTS
    assert ops_after[("Mul", "")] == ops_before["Mul"] - EXPECTED_PRODUCTS
    assert ops_after[("Gather", "")] == ops_before["Gather"] + EXPECTED_LOOKUPS
    int8 = {t.name for t in after.graph.initializer if t.data_type == 3}  # type: ignore[attr-defined]
    for node in after.graph.node:  # type: ignore[attr-defined]
        if node.op_type == "DynamicQuantizeMatMul":
            assert node.input[1] in int8
    assert ("com.microsoft", 1) in {(o.domain, o.version) for o in after.opset_import}  # type: ignore[attr-defined]


def test_the_weights_pass_through_unchanged(original: bytes) -> None:
    edited = int8_products(original)
    # The nodes and the opset change (a few KB); the 22 MB of weights are carried as they were.
    assert abs(len(edited) - len(original)) < 10_000
    weights = [t.SerializeToString() for t in _parsed(original).graph.initializer]  # type: ignore[attr-defined]
    assert weights == [t.SerializeToString() for t in _parsed(edited).graph.initializer]  # type: ignore[attr-defined]


def test_unsigned_weights_are_the_same_integers_shifted_by_a_zero_point_of_128(original: bytes) -> None:
    signed, unsigned = _parsed(int8_products(original)), _parsed(int8_products(original, weights="unsigned"))
    before = {t.name: t for t in signed.graph.initializer}  # type: ignore[attr-defined]
    after = {t.name: t for t in unsigned.graph.initializer}  # type: ignore[attr-defined]
    products = [n for n in unsigned.graph.node if n.op_type == "DynamicQuantizeMatMul"]  # type: ignore[attr-defined]
    assert len(products) == EXPECTED_PRODUCTS
    for node in products:
        assert list(node.input[2:]) == [node.input[2], ZERO_POINT]
        weight, old = after[node.input[1]], before[node.input[1]]
        assert (old.data_type, weight.data_type) == (INT8, UINT8)
        shifted = np.frombuffer(weight.raw_data, np.uint8).astype(np.int16) - 128
        np.testing.assert_array_equal(shifted, np.frombuffer(old.raw_data, np.int8))
    assert (after[ZERO_POINT].data_type, after[ZERO_POINT].raw_data) == (UINT8, bytes([128]))
    # The lookup tables stay int8: only the products' weights change.
    assert sum(t.data_type == INT8 for t in after.values()) == EXPECTED_LOOKUPS


def test_the_tables_looked_up_before_widening_give_the_same_vectors_bit_for_bit(original: bytes) -> None:
    import onnxruntime as ort  # type: ignore[import-untyped]

    from remember.search.embedders.minilm import _open_tokenizer
    from remember.search.embedders.model_files import default_tokenizer_path

    tokenizer = _open_tokenizer(default_tokenizer_path())
    narrow, wide = (
        ort.InferenceSession(int8_products(original, narrow_lookups=flag), providers=["CPUExecutionProvider"])
        for flag in (True, False)
    )
    names = {i.name for i in narrow.get_inputs()}
    for text in ("ok", "The cat sat on the mat.", "word " * 300):
        ids = np.asarray([tokenizer.encode(text).ids], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
        feeds = {name: array for name, array in feeds.items() if name in names}
        np.testing.assert_array_equal(narrow.run(None, feeds)[0], wide.run(None, feeds)[0])


def test_a_graph_without_the_expected_lookups_is_refused(original: bytes) -> None:
    model = _parsed(original)
    words = next(n for n in model.graph.node if n.op_type == "Gather")  # type: ignore[attr-defined]
    words.op_type = "GatherElements"  # the word table no longer looked up by row
    changed = model.SerializeToString()  # type: ignore[attr-defined]
    with pytest.raises(ConfigError, match="1 int8 lookup tables where 2 were expected"):
        int8_products(changed)
    assert int8_products(changed, narrow_lookups=False)  # the products alone are still rewritten


def test_a_graph_without_the_expected_products_is_refused(original: bytes) -> None:
    edited = int8_products(original)
    with pytest.raises(ConfigError, match="0 int8 matrix products where 36 were expected"):
        int8_products(edited)


@pytest.mark.parametrize("model", [b"", b"\xff\xfe not protobuf", b"\x0a\x05short"])
def test_bytes_that_are_no_model_are_refused(model: bytes) -> None:
    with pytest.raises(ConfigError, match=r"ONNX model|int8 matrix products"):
        int8_products(model)
