"""The rule kind `pipe_locations`: a pipe op's tile lives where the pipe's direction puts it (TPUSH's
producer, TPOP's consumer), checked on the declarations that take a TPipe and a tile, with a
compile-fail case per declaration and hardware profile (the CPU profile moves what upstream's
simulator moves); and the GridPipe forms A5 does not offer."""

from __future__ import annotations

from ptogen.rules import PageLine
from ptogen.rules.pipe_locations import PipeLocationsRule

from .common import OPS, PAGE, failing_cases

PUSHED = {"DIR_C2V": ["Acc", "Mat"], "DIR_V2C": ["Vec"]}


def test_the_condition_reads_the_direction_from_the_pipe_type() -> None:
    rule = PipeLocationsRule(
        kind="pipe_locations", operands=["tile"], pipe="pipe", directions=PUSHED, forms=[0]
    )
    rv = next(rv for rv in OPS["tpush"].forms[0].rules_for("A5") if rv.rule.kind == "pipe_locations")
    assert rv.types == ["TileProd", "Pipe"]
    assert rule.condition(OPS["tpush"], rv) == (
        "(Pipe::DIR_TYPE != Direction::DIR_C2V || TileProd::Loc == TileType::Acc || "
        "TileProd::Loc == TileType::Mat) && (Pipe::DIR_TYPE != Direction::DIR_V2C || "
        "TileProd::Loc == TileType::Vec)"
    )


def test_the_page_line_reads_back() -> None:
    rule = PipeLocationsRule(
        kind="pipe_locations",
        operands=["tile"],
        pipe="pipe",
        directions=PUSHED,
        forms=[0],
        note="as the pages say",
    )
    line = rule.doc(OPS["tpush"])
    assert line.startswith("Tile location by the pipe's direction (`tile` in `pipe`): `Direction::DIR_C2V`:")
    assert PipeLocationsRule.recognise(PageLine(None, line), PAGE) == {
        "operands": ["tile"],
        "pipe": "pipe",
        "directions": PUSHED,
        "note": "as the pages say",
    }


def test_the_rule_names_a_pipe_and_its_declarations() -> None:
    spec = OPS["tpush"].spec
    targets = OPS["tpush"].targets
    unscoped = PipeLocationsRule(kind="pipe_locations", operands=["tile"], pipe="pipe", directions=PUSHED)
    assert [w for w, _ in unscoped.check(spec, targets)] == [("forms",)]
    wrong = PipeLocationsRule(
        kind="pipe_locations", operands=["tile"], pipe="tile", directions=PUSHED, forms=[0]
    )
    assert [w for w, _ in wrong.check(spec, targets)] == [("pipe",)]


def test_each_tpipe_declaration_fails_to_compile_with_a_tile_where_its_direction_forbids() -> None:
    # The CPU profile moves what upstream's simulator moves (its tests push Vec tiles cube to vector).
    push = failing_cases("tpush")
    assert {c for c in push if "pipe_locations" in c} == {
        f"fail_{p}_00_pipe_locations_f{k}" for p in ("a2a3", "a5") for k in (0, 1, 2, 4)
    }
    pop = failing_cases("tpop")
    assert {c for c in pop if "pipe_locations" in c} == {
        f"fail_{p}_00_pipe_locations_f{k}" for p in ("a2a3", "a5") for k in (0, 1, 2)
    }
    # The GridPipe declarations: A5 does not offer them (upstream's header rejects them there).
    assert {c for c in push if "unavailable" in c} == {
        "fail_a5_01_unavailable_f5",
        "fail_a5_01_unavailable_f6",
    }
    assert {c for c in pop if "unavailable" in c} == {"fail_a5_01_unavailable_f4"}
