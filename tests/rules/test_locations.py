"""The rule kinds of the cube's transfers: `locations` (a tile in one of several TileTypes: TLOAD's
destination, TSTORE's source) and `location_dtype_pairs` (an accumulator source and its
GlobalTensor form a documented type pair), with the test plan they drive."""

from __future__ import annotations

from ptogen.rule_api import TileDecl
from ptogen.rules import PageContext, PageLine
from ptogen.rules.locations import LocationsRule
from ptogen.rules.store_pairs import LocationDTypePairsRule

from ..helpers import ROOT
from .common import PROJECT, manifest

TSTORE = next(o for o in PROJECT.ops if o.name == "TSTORE")
TLOAD = next(o for o in PROJECT.ops if o.name == "TLOAD")


def test_locations_admit_their_set_and_read_back_from_the_page_line() -> None:
    rule = LocationsRule(kind="locations", operands=["src"], locations=["Vec", "Acc"])
    assert rule.admits_location("src", "Acc") and not rule.admits_location("src", "Mat")
    assert rule.admits_location("dst", "Mat")  # another operand is free
    page = PageContext([], {"A5"}, ["src"], False)
    line = rule.doc(TSTORE).replace("`", "")
    assert LocationsRule.recognise(PageLine(None, line), page) == {
        "operands": ["src"],
        "locations": ["Vec", "Acc"],
    }
    scoped = LocationsRule(kind="locations", operands=["src"], locations=["Acc", "Mat"], forms=[4])
    assert scoped.admits_location("src", "Vec")  # a rule of some declarations leaves the others free


def test_pair_rule_types_the_global_and_reads_back_from_the_page_line() -> None:
    rule = LocationDTypePairsRule(
        kind="location_dtype_pairs",
        operands=["src", "dst"],
        location="Acc",
        pairs={"float": ["int8_t", "uint8_t"], "int32_t": ["half"]},
    )
    legal = rule.legalise({"src": TileDecl("src", "half", loc="Vec")})
    assert (legal["src"].loc, legal["src"].dtype) == ("Acc", "float")
    assert rule.global_dtypes(legal) == {"dst": "int8_t"}
    assert (
        rule.global_dtypes({"src": TileDecl("src", "float", loc="Vec")}) == {}
    )  # a Vec tile: no pair needed
    line = rule.doc(TSTORE).replace("`", "")
    found = LocationDTypePairsRule.recognise(PageLine(None, line), PageContext([], set(), ["src"], False))
    assert found == {"operands": ["src", "dst"], "location": "Acc", "pairs": rule.pairs}


def test_hardware_stores_check_the_pairs_and_the_cpu_converts_any() -> None:
    verify = (ROOT / "generated/tests/tstore/verify.cpp").read_text()
    for profile in ("A2A3", "A5"):
        rule = "a TileType::Acc src and dst must have one of the documented element type pairs"
        message = f"TSTORE [{profile}]: {rule}"
        assert verify.count(message) == 8  # one compile-fail case per declaration
    groups = {g["group"]: g for g in manifest("tstore")["runtime"]}
    assert set(groups["float_half_acc"]["profiles"]) == {"A2A3", "A5", "CPU"}
    assert groups["float_int8_t_acc"]["profiles"] == ["CPU"]  # quantising pairs: the plain call converts


def test_loads_reach_the_cube_locations_each_profile_admits() -> None:
    groups = {g["group"]: g for g in manifest("tload")["runtime"]}
    assert set(groups["float_mat"]["profiles"]) == {"A2A3", "A5", "CPU"}
    assert groups["float_bias"]["profiles"] == ["CPU"]
    assert groups["uint64_t_scaling"]["profiles"] == ["CPU"]
    verify = (ROOT / "generated/tests/tload/verify.cpp").read_text()
    assert "TLOAD [A2A3]: tile location must be one of TileType::Vec, TileType::Mat" in verify
