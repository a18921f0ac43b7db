"""Rule kind `size_pairs`: the element sizes of two operands form one of some pairs (TSCATTER)."""

from __future__ import annotations

from ptogen.rules import PageContext, PageLine
from ptogen.rules.size_pairs import SizePairsRule

from .common import OPS, failing_cases


def test_tscatter_pairs_index_sizes_with_data_sizes() -> None:
    op = OPS["tscatter"]
    rules = {tuple(r.profiles or []): r for r in op.spec.constraints if isinstance(r, SizePairsRule)}
    a2a3, a5 = rules[("A2A3",)], rules[("A5",)]
    assert a5.pairs == [(8, 4), (4, 4), (2, 2), (1, 2)]
    assert a2a3.admits(op, {"src": "half", "indexes": "uint16_t"})
    assert not a2a3.admits(op, {"src": "half", "indexes": "int32_t"})
    assert not a2a3.admits(op, {"src": "int64_t", "indexes": "uint32_t"}) and a5.admits(
        op, {"src": "int64_t", "indexes": "uint32_t"}
    )
    assert a2a3.condition(op, op.rule_view(a2a3)).startswith(
        "((sizeof(typename TileDataS::DType) == 4 && sizeof(typename TileDataI::DType) == 4) ||"
    )
    failing = failing_cases("tscatter")
    for profile, rule in (("A2A3", a2a3), ("A5", a5)):
        (case,) = [
            c for c in failing if c.startswith(f"fail_{profile.lower()}_") and c.endswith("_size_pairs")
        ]
        assert failing[case] == [f"TSCATTER [{profile}]: {rule.text(op)}"]
    (cpu,) = [c for c in failing if c.startswith("fail_cpu_") and c.endswith("same_element_size_f1")]
    assert failing[cpu] == ["TSCATTER [CPU]: the element types of dst and src must have the same size"]
    line = PageLine("A2A3", a2a3.doc(op).replace("`", ""))
    assert SizePairsRule.recognise(line, PageContext([], {"A2A3"}, ["src", "indexes"], True)) == {
        "operands": ["src", "indexes"],
        "pairs": [[4, 4], [2, 2], [1, 2]],
    }
