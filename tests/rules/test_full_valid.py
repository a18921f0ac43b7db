"""Rule kind `full_valid`: a valid extent is the whole static one, checked when the op runs
(TGATHER's GATHER_ROW destination)."""

from __future__ import annotations

from ptogen.rule_api import TileDecl
from ptogen.rules import PageLine
from ptogen.rules.full_valid import FullValidRule

from ..helpers import ROOT
from .common import OPS, PAGE, manifest


def test_tgather_gather_row_fills_the_destination_columns() -> None:
    op = OPS["tgather"]
    mask = op.forms[2]
    for profile in ("A2A3", "A5", "CPU"):
        (rv,) = mask.rules_for(profile, static=False)
        assert (
            rv.condition
            == "!(gatherType == GatherAxis::GATHER_ROW) || dst.GetValidCol() == DstTileData::Cols"
        )
    fails = {c["case"]: c for c in manifest("tgather")["runtime_fail"]}
    assert {f"rf_{p}_{rv.id}_f2" for p in ("a2a3", "a5", "cpu")} <= set(fails)
    # Every GATHER_ROW runtime case: the destination's valid columns are its static ones.
    rows = 0
    for group in manifest("tgather")["runtime"]:
        for case in group["cases"]:
            if case["attrs"].get("axis") == "GATHER_ROW":
                dst = case["tiles"]["dst"]
                assert dst["valid_cols"] == dst["cols"], (group["group"], case["label"])
                rows += 1
    assert rows >= 3 * 11  # three row cases for each element type
    page = (ROOT / "generated/docs/isa/TGATHER.md").read_text()
    assert "Runtime full: `dst.GetValidCol() == Cols` when `gatherType` is `GatherAxis::GATHER_ROW`." in page


def test_a_full_valid_rule_breaks_one_short_and_reads_back() -> None:
    rule = FullValidRule.model_validate(
        {
            "operand": "dst",
            "extent": "cols",
            "when": {"param": "gatherType", "equals": "GatherAxis::GATHER_ROW"},
        }
    )
    tiles = {"dst": TileDecl("dst", "float", 4, 16, 4, 16)}
    broken, _ = rule.break_runtime(tiles, {})
    assert (broken["dst"].valid_cols, broken["dst"].cols, broken["dst"].dynamic) == (15, 16, True)
    plain = FullValidRule(operand="dst", extent="cols")
    assert plain.admits_tiles(tiles) and not plain.admits_tiles(broken)
    line = PageLine(None, rule.doc(OPS["tgather"]).replace("`", ""))
    assert FullValidRule.recognise(line, PAGE) == rule.model_dump(exclude_defaults=True, exclude={"kind"})
