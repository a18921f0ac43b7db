"""Rule kind `scratch_bytes`: a scratch tile spans at least some bytes per element size (TCI on A2A3)."""

from __future__ import annotations

from ptogen.rule_api import TileDecl
from ptogen.rules import PageLine
from ptogen.rules.scratch_bytes import ScratchBytesRule

from .common import OPS, PAGE, failing_cases


def test_tci_sizes_its_a2a3_scratch_by_the_destination_element() -> None:
    tci = OPS["tci"]
    (rule,) = [r for r in tci.spec.constraints if isinstance(r, ScratchBytesRule)]
    assert rule.profiles == ["A2A3"] and rule.forms == [1]
    doc = rule.doc(tci)
    assert doc == (
        "Scratch size: `tmp` spans at least 768 bytes with 4-byte `dst` elements"
        " or 1792 bytes with 2-byte `dst` elements."
    )
    read = ScratchBytesRule.recognise(PageLine("A2A3", doc.replace("`", "")), PAGE)
    assert read == {"operands": ["tmp", "dst"], "min_bytes": [[4, 768], [2, 1792]]}
    failing = failing_cases("tci")
    assert failing["fail_a2a3_08_scratch_bytes_f1"] == [f"TCI [A2A3]: {rule.text(tci)}"]
    assert not any(k.startswith(("fail_a5_", "fail_cpu_")) and k.endswith("_f1") for k in failing)


def test_a_scratch_breaks_below_and_legalises_above_every_minimum() -> None:
    rule = ScratchBytesRule(operands=["tmp", "dst"], min_bytes=[(4, 768), (2, 1792)])
    tiles = {"dst": TileDecl("dst", "int32_t", 1, 16, 1, 16), "tmp": TileDecl("tmp", "float", 1, 16, 1, 16)}
    broken = rule.break_static(None, tiles)  # type: ignore[arg-type]  # the kind needs no context
    assert broken.changed == "tmp" and broken.tiles["tmp"].rows * broken.tiles["tmp"].cols * 4 < 768
    legal = rule.legalise(tiles)["tmp"]
    assert legal.rows * legal.cols >= 1792  # elements: enough bytes whatever the element type
    assert rule.legalise({"dst": tiles["dst"]}) == {"dst": tiles["dst"]}
