"""The memory-and-data-movement ops beyond TLOAD/TSTORE: TPREFETCH (a transfer without an events
pack) and the indexed MGATHER/MSCATTER (their own op kind). Their kernels run in test_simulator.py
like every op's; here: declarations, header shape and the golden's index policies."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ptogen.importer.declarations import declaration_shapes
from ptogen.opkinds.indexed import remap_index

ROOT = Path(__file__).resolve().parents[1]
HEADER = (ROOT / "generated/include/pto/common/pto_instr.hpp").read_text()
UPSTREAM = [
    tuple(line.split(" ", 1))
    for line in (ROOT / "tests/fixtures/upstream_declarations.txt").read_text().splitlines()
    if line and not line.startswith("#")
]


@pytest.mark.parametrize("name", ["TPREFETCH", "MGATHER", "MSCATTER"])
def test_every_upstream_declaration_is_generated(name: str) -> None:
    ours = declaration_shapes(HEADER)[name]
    theirs = {shape for n, shape in UPSTREAM if n == name}
    assert theirs, name
    assert theirs == set(ours), (sorted(theirs - set(ours)), sorted(set(ours) - theirs))


def test_tprefetch_waits_on_nothing() -> None:
    entry = HEADER.split("// pto.tprefetch", 1)[1].split("// pto.", 1)[0]
    assert "TSYNC(" not in entry
    assert re.search(r"PTO_INST RecordEvent TPREFETCH\(TileData& dst, GlobalData& src\)", entry)


def test_indexed_forms_forward_their_modes() -> None:
    # The CPU backend's MGATHER_IMPL/MSCATTER_IMPL pass each form's modes on to the simulator.
    entry = (ROOT / "generated/include/pto/cpu/sim/mgather.hpp").read_text()
    # the plain form is Coalesce::Row with GatherOOB::Undefined (the pages' default)
    assert "cpu::MGATHER_impl<Coalesce::Row, GatherOOB::Undefined>(dst, src, indexes)" in entry
    assert "cpu::MGATHER_impl<CMode, Mode>(dst, src, indexes)" in entry
    scatter = (ROOT / "generated/include/pto/cpu/sim/mscatter.hpp").read_text()
    assert "cpu::MSCATTER_impl<Mode, Atomic, Oob>(dst, src, indexes)" in scatter


@pytest.mark.parametrize(
    ("idx", "policy", "want"),
    [
        (3, "Undefined", (3, True)),
        (9, "Clamp", (7, True)),
        (0xFFFFFFFF, "Clamp", (7, True)),  # -1 read as uint32_t
        (0xFFFFFFFF, "Wrap", (0xFFFFFFFF % 8, True)),
        (8, "Zero", (0, False)),
        (8, "Skip", (0, False)),
        (7, "Zero", (7, True)),
    ],
)
def test_out_of_range_policies(idx: int, policy: str, want: tuple[int, bool]) -> None:
    assert remap_index(idx, 8, policy) == want
