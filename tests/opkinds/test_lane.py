"""The `lane` kind: which lane expressions compute on bit patterns and which operands are only shift
counts, the facts its builtins and goldens read from the expression."""

from __future__ import annotations

import pytest

from ptogen.spec import expr as semantics


@pytest.mark.parametrize(
    ("text", "bitwise"),
    [
        ("lhs | rhs", True),
        ("~(lhs & rhs) ^ lhs", True),
        ("lhs + rhs", False),
        ("lhs | 1", False),  # a constant has no bit pattern of the lane's type
        ("lhs << rhs", False),
    ],
)
def test_an_expression_of_bitwise_operators_alone_computes_on_bit_patterns(text: str, bitwise: bool) -> None:
    assert semantics.bitwise(semantics.parse(text, {"lhs", "rhs"})) is bitwise


def test_an_operand_read_only_as_a_shift_count_may_change_signedness() -> None:
    names = {"lhs", "rhs"}
    assert semantics.shift_counts(semantics.parse("lhs << rhs", names)) == {"rhs"}
    assert semantics.shift_counts(semantics.parse("(lhs >> rhs) + rhs", names)) == set()
    assert semantics.shift_counts(semantics.parse("lhs + rhs", names)) == set()
