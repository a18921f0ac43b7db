"""Rule kind `same_element_size`: operands' element types have one size (TGATHER's mask form)."""

from __future__ import annotations

from ptogen.rules import PageLine
from ptogen.rules.same_element_size import SameElementSizeRule

from ..helpers import ROOT
from .common import OPS, PAGE, failing_cases


def test_tgather_mask_form_keeps_the_element_size_and_b64_rows() -> None:
    failing = failing_cases("tgather")
    for profile in ("A2A3", "A5", "CPU"):
        (case,) = [
            c
            for c in failing
            if c.startswith(f"fail_{profile.lower()}_") and c.endswith("same_element_size_f2")
        ]
        assert failing[case] == [
            f"TGATHER [{profile}]: the element types of dst and src must have the same size"
        ]
    (b64,) = [c for c in failing if c.startswith("fail_a5_") and c.endswith("template_value_f2")]
    assert failing[b64] == [
        "TGATHER [A5]: template argument gatherType must be GatherAxis::GATHER_ROW"
        " when dst and src are int64_t or uint64_t"
    ]
    verify = (ROOT / "generated/tests/tgather/verify.cpp").read_text()
    # The defaulted gatherType is spelled out (with the types and pattern before it) to pass GATHER_COL.
    assert (
        "TGATHER<profile_a5, Tile_dst, Tile_src_f2, MaskPattern::P1111, GatherAxis::GATHER_COL>(dst, src_f2)"
        in verify
    )


def test_an_element_size_breaks_by_a_type_of_another_size() -> None:
    op = OPS["tgather"]
    (rule,) = [r for r in op.spec.constraints if isinstance(r, SameElementSizeRule)]
    assert rule.admits(op, {"dst": "int16_t", "src": "half"})
    assert not rule.admits(op, {"dst": "float", "src": "half"})
    assert rule.doc(op) == "Element size: `sizeof(dst::DType) == sizeof(src::DType)`."
    read = SameElementSizeRule.recognise(
        PageLine(None, "Element size: sizeof(dst::DType) == sizeof(src::DType) (bits copied)."), PAGE
    )
    assert read == {"operands": ["dst", "src"], "note": "bits copied"}
    assert (
        SameElementSizeRule.recognise(
            PageLine(None, "Element size: sizeof(a::DType) == sizeof(src::DType)."), PAGE
        )
        is None
    )
