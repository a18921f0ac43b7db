"""Every generated tile intrinsic has exactly the documented signature (up to whitespace), in the
header and on both doc pages. The documented declarations are facts pinned in a fixture."""

from __future__ import annotations

import re

import pytest

from ptogen.importer.declarations import declaration_shapes
from ptogen.importer.pagefacts import normalise_signature, parse_file

from ..helpers import ROOT, checkout_project, checkout_specs

SPECS = checkout_specs()
DOCUMENTED = {
    line.split(" ", 1)[0]: line.split(" ", 1)[1]
    for line in (ROOT / "tests/fixtures/documented_signatures.txt").read_text().splitlines()
    if line and not line.startswith("#")
}
# The public intrinsics of each header: what follows each op's `namespace profiled { ... }`
# implementation (the comm TGATHER's in pto_comm_inst.hpp, the tile op's in pto_instr.hpp).
HEADERS = {
    h: re.sub(
        r"namespace profiled \{.*?\} // namespace profiled",
        "",
        (ROOT / "generated/include" / h).read_text(),
        flags=re.S,
    )
    for h in ("pto/common/pto_instr.hpp", "pto/comm/pto_comm_inst.hpp")
}
TILE_OPS = [op for op in SPECS.ops if op.spec.intrinsic is not None]
VIEWS = [op for op in checkout_project().ops if op.spec.intrinsic is not None]
# Pages that document no declaration, or one the header does not have (TSTORE's page adds an
# `AtomicType` parameter); their spec follows the implementation and says so in `notes`.
UNDOCUMENTED = {"pto.taxpy", "pto.tstore", "pto.tsubreluconv"}  # TSUBRELUCONV has no page
# Pages that claim a declaration upstream's header does not have; the spec chooses one and says so.
UNDECLARED = {"pto.talias"}


def without_guard(declaration: str) -> str:
    """Drop the `std::enable_if_t` guard that keeps overloads apart; the pages do not show it."""
    return re.sub(r",std::enable_if_t<.*?,int>=0>", ">", declaration)


def header_declaration(name: str, header: str) -> str:
    match = re.search(
        r"(template\s*<[^{;]*?>\s*PTO_\w+\s+(?:RecordEvent|comm::AsyncEvent|AsyncEvent|bool|void)\s+"
        + name
        + r"\s*\([^)]*\))\s*\{",
        HEADERS[header],
    )
    assert match, f"{name} is not defined in pto_instr.hpp or pto_comm_inst.hpp"
    return without_guard(normalise_signature(match.group(1) + ";"))


def follows_upstream_header(op) -> bool:  # type: ignore[no-untyped-def]
    """The spec argues in `notes` why its main declaration is upstream's header's, not the page's."""
    return any(
        "pto_instr.hpp" in n or ("pto_comm_inst.hpp" in n and "which this spec follows" in n)
        for n in op.spec.notes
    )


def test_fixture_covers_every_tile_op() -> None:
    names = {op.spec.mnemonic for op in TILE_OPS}
    chosen = UNDOCUMENTED | UNDECLARED
    assert names - chosen <= set(DOCUMENTED), sorted(names - chosen - set(DOCUMENTED))
    for mnemonic in UNDOCUMENTED:
        op = next(o for o in TILE_OPS if o.spec.mnemonic == mnemonic)
        assert any("signature follows the upstream implementation" in n for n in op.spec.notes)
    for mnemonic in UNDECLARED:
        op = next(o for o in TILE_OPS if o.spec.mnemonic == mnemonic)
        assert any("This spec chooses the" in " ".join(n.split()) for n in op.spec.notes)


@pytest.mark.parametrize("op", VIEWS, ids=[op.spec.key for op in VIEWS])
def test_generated_signature_is_the_documented_one(op) -> None:  # type: ignore[no-untyped-def]
    intr = op.spec.intrinsic
    declared = header_declaration(intr.name, op.iset.header or "pto/common/pto_instr.hpp")
    ref_page = parse_file(ROOT / "generated" / op.ref_doc_path).signature
    op_page = ROOT / "generated" / op.doc_path
    assert without_guard(ref_page) == declared == without_guard(parse_file(op_page).signature)
    if op.spec.mnemonic not in UNDOCUMENTED and not follows_upstream_header(op):
        assert declared == DOCUMENTED[op.spec.mnemonic]


def _fixture(name: str) -> list[str]:
    """`<NAME> <shape>` lines of a declaration fixture (comments dropped)."""
    lines = (ROOT / "tests/fixtures" / name).read_text().splitlines()
    return [line for line in lines if line and not line.startswith("#")]


UPSTREAM = [tuple(line.split(" ", 1)) for line in _fixture("upstream_declarations.txt")]
# Upstream declarations of covered intrinsics that the header does not have yet; each is a known gap
# (see the spec's notes). The test fails when one is closed or a new one opens, so the list stays true.
KNOWN_GAPS = set(_fixture("upstream_declaration_gaps.txt"))


def test_header_has_upstream_declarations() -> None:
    ours = declaration_shapes((ROOT / "generated/include/pto/common/pto_instr.hpp").read_text())
    missing = {f"{name} {shape}" for name, shape in UPSTREAM if name in ours and shape not in ours[name]}
    assert missing == KNOWN_GAPS, (sorted(missing - KNOWN_GAPS), sorted(KNOWN_GAPS - missing))


@pytest.mark.parametrize("name", ["TPREFETCH", "MGATHER", "MSCATTER"])
def test_every_upstream_declaration_is_generated(name: str) -> None:
    ours = declaration_shapes((ROOT / "generated/include/pto/common/pto_instr.hpp").read_text())[name]
    theirs = {shape for n, shape in UPSTREAM if n == name}
    assert theirs, name
    assert theirs == set(ours), (sorted(theirs - set(ours)), sorted(set(ours) - theirs))
