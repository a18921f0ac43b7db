"""What single declarations may state of their own: an operand carried by a template value
(TASSIGN<Addr>), operands a form drops (TSYNC's barrier), rules limited to some declarations
(`forms`, TSTORE's accumulator-only forms) and rules whose kind scopes them (placement). A bad entry
gets one located error and nothing is written; a good one reaches the checks of only its forms."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ptogen.cli import main

from ..helpers import ROOT, edit, tree_hash

TSTORE = "specs/ops/memory_and_data_movement/tstore.yaml"
TSYNC = "specs/ops/sync_and_config/tsync.yaml"
TASSIGN = "specs/ops/sync_and_config/tassign.yaml"

CASES = [
    # (spec, old text, new text, field path, message fragment)
    (
        TASSIGN,
        "  - {kind: placement, profiles: [A2A3],",
        "  - {kind: placement, profiles: [CPU],",
        "constraints[1].profiles[0]",
        "states no `memories`",
    ),
    (
        TSTORE,
        "    forms: [4, 5, 6, 7]\n",
        "    forms: [4, 5, 9]\n",
        "constraints[3].forms[2]",
        "no declaration 9",
    ),
    (
        TSYNC,
        "      drops: [events]\n",
        "      drops: [op_code]\n",
        "intrinsic.overloads[0].drops[0]",
        "not an operand of the main",
    ),
    (
        TASSIGN,
        "type: std::size_t, operand: addr}",
        "type: std::size_t, operand: obj}",
        "intrinsic.overloads[0].template[0].operand",
        "is not a scalar or attr operand",
    ),
    (
        TASSIGN,
        "      tile_only: [T]\n",
        "      tile_only: [U]\n",
        "intrinsic.overloads[0].tile_only[0]",
        "'U'",
    ),
]


@pytest.mark.parametrize(("spec", "old", "new", "field", "fragment"), CASES, ids=[c[3] for c in CASES])
def test_bad_form_entry_is_located(
    project: Path,
    capsys: pytest.CaptureFixture[str],
    spec: str,
    old: str,
    new: str,
    field: str,
    fragment: str,
) -> None:
    line = edit(project, spec, old, new)
    before = tree_hash(project / "generated")
    assert main(["--root", str(project), "gen"]) == 2
    errors = [e for e in capsys.readouterr().err.splitlines() if e.startswith("error:")]
    assert tree_hash(project / "generated") == before
    hit = [e for e in errors if f": {field}: " in e and fragment in e]
    assert hit, errors
    where = hit[0].removeprefix("error: ").split(": ", 1)[0]
    assert where.startswith(f"{spec}:") and abs(int(where.rsplit(":", 1)[1]) - line) <= 3, hit[0]


def _check_function(profile: str, name: str) -> str:
    text = (ROOT / f"generated/include/pto/profiles/{profile}_checks.hpp").read_text()
    m = re.search(rf"static constexpr bool check_{name}\(\) \{{(.*?)\n    \}}", text, re.S)
    assert m, name
    return m.group(1)


def test_form_rules_reach_only_their_forms() -> None:
    header = (ROOT / "generated/include/pto/common/pto_instr.hpp").read_text()
    # TSTORE: the accumulator-only rule is in the checks of declarations 4..7 on A2A3 and A5, not in
    # the op's common check (which admits Vec, Mat and Acc sources), and not on the CPU profile; the
    # accumulator type pairs are in the checks of declarations 0..5 and, with other tables, 6 and 7.
    acc_only = "tile location must be TileType::Acc"
    for profile in ("a2a3", "a5"):
        assert acc_only not in _check_function(profile, "TSTORE")
        for k in (4, 5, 6, 7):
            assert acc_only in _check_function(profile, f"TSTORE_f{k}")
        for k in (0, 1, 2, 3):
            assert acc_only not in _check_function(profile, f"TSTORE_f{k}")
        for k in range(8):
            pairs = _check_function(profile, f"TSTORE_f{k}")
            assert "documented element type pairs" in pairs
            assert ("int8_t" in pairs.split("constexpr bool")[-1]) == (k >= 6)  # the last rule
    assert _check_function("cpu", "TSTORE_f4").strip() == "return true;"
    assert header.count("Profile::template check_TSTORE_f") == 8
    # TASSIGN<Addr>: placement (A2A3, A5) in its own check, the address rule in the common one.
    assert "Addr % 32 == 0" in _check_function("a2a3", "TASSIGN_f1")
    assert "std::is_integral_v<AddrType>" in _check_function("cpu", "TASSIGN")
    # TSYNC<Op>: the pipeline rule on A5 only.
    assert "OpPipeEntry<OpCode>::pipe == PIPE_MTE2" in _check_function("a5", "TSYNC_f1")
    assert _check_function("a2a3", "TSYNC_f1").strip() == "return true;"


def test_form_rule_lines_name_their_declarations() -> None:
    page = (ROOT / "generated/docs/isa/TSTORE.md").read_text()
    assert page.count("Checked on declarations 5, 6, 7 and 8 only.") == 2  # A2A3 and A5
