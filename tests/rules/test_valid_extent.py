"""Rule kind `same_valid_extent` with a factor: one valid extent is a multiple of another's
(TDEINTERLEAVE's one-source form)."""

from __future__ import annotations

from ..helpers import ROOT
from .common import OPS, manifest, runtime_failures


def test_tdeinterleave_one_source_form_reads_twice_the_destination_columns() -> None:
    op = OPS["tdeinterleave"]
    one = op.forms[1]
    for profile in ("A5", "CPU"):
        (rv,) = one.rules_for(profile, static=False)
        assert rv.condition == "src0.GetValidCol() == 2 * dst0.GetValidCol()"
    assert one.verify_aliases == [("src", "src0")]  # the check names the source as the rule does
    assert runtime_failures("tdeinterleave")[f"rf_cpu_{rv.id}_f1"] == (
        "PTO runtime error: TDEINTERLEAVE [CPU]: src0 must have 2 times the valid cols of dst0"
    )
    cases = (ROOT / "generated/tests/tdeinterleave/cases.cpp").read_text()
    failing = cases.split(f"void rf_a5_{rv.id}_f1(Prof) {{")[1].split("\n}\n")[0]
    # one ratio step short, still even (A5's even source columns hold), through the one-source call
    assert "Tile_src0 src0(8, 14);" in failing and "(dst1, dst0, src0);" in failing
    # The one-source cases are their own groups, called through that declaration, with a source
    # twice the destinations' valid columns; the two-source groups no longer call it.
    groups = manifest("tdeinterleave")["runtime"]
    ones = [g for g in groups if g["group"].endswith("_f1")]
    assert ones and all(set(g["profiles"]) == {"A5", "CPU"} for g in ones)
    for g in ones:
        for case in g["cases"]:
            t = case["tiles"]
            assert "src1" not in t and t["src0"]["valid_cols"] == 2 * t["dst0"]["valid_cols"], case["label"]
    assert "// overload 1" not in cases
    page = (ROOT / "generated/docs/isa/TDEINTERLEAVE.md").read_text()
    assert (
        "Runtime: `src0.GetValidCol()` is 2 times `dst0.GetValidCol()`. Checked on declaration 2 only."
        in page
    )
