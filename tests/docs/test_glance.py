"""The at-a-glance block at the top of every op page: the declarations fit without scrolling, and
its type tables say what the profile checks enforce (a ✓ pair compiles, a · pair does not)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from ptogen.cli import RUNTIME_INCLUDE

from ..compilers import COMPILERS, cxx_argv, require
from ..helpers import ROOT

DOCS = ROOT / "generated/docs/isa"
OP_PAGES = sorted(p for p in DOCS.glob("*/ops/*/*.md"))


def _glance(page: Path) -> str:
    text = page.read_text()
    return text.split("## At a Glance", 1)[1].split("\n## ", 1)[0]


def test_every_op_page_opens_with_the_glance_before_its_summary() -> None:
    assert len(OP_PAGES) > 90
    for page in OP_PAGES:
        text = page.read_text()
        assert "## At a Glance" in text, page
        assert text.index("## At a Glance") < text.index("## Summary"), page


def _sections(page: Path, *names: str) -> list[str]:
    text = page.read_text()
    return [part.split("\n## ", 1)[0] for name in names for part in text.split(f"## {name}\n")[1:]]


def test_no_declaration_line_scrolls_sideways() -> None:
    pages = [*OP_PAGES, *DOCS.glob("*.md")]
    for page in pages:
        for section in _sections(page, "At a Glance", "C++ Intrinsic"):
            for block in re.findall(r"```cpp\n(.*?)```", section, re.S):
                long = [line for line in block.splitlines() if len(line) > 80]
                assert not long, (page.name, long)


def test_vector_pages_show_the_builtin() -> None:
    glance = _glance(DOCS / "vector/ops/vec-scalar-ops/vlrelu.md")
    assert "#include <pto/vsim/builtins.hpp>" in glance
    assert re.search(
        r"vlrelu\(\s*A_result& result, const A_input& input, const A_scalar& scalar,\s*"
        r"const vector_bool& mask, mode lanes_mode = MODE_ZEROING\);",
        glance,
    )
    # A binary op keeps inactive lanes unless the call names a mode; a carry comes first, as A5 passes it.
    assert "mode lanes_mode = MODE_MERGING" in _glance(DOCS / "vector/ops/binary-vector-ops/vadd.md")
    assert re.search(
        r"vaddc\(\s*vector_bool& carry, A_result& result,",
        _glance(DOCS / "vector/ops/binary-vector-ops/vaddc.md"),
    )


def test_profile_columns_hold_each_profiles_own_types() -> None:
    glance = _glance(DOCS / "tile/ops/tile-scalar-and-immediate/tlrelu.md")
    header, *rows = [
        line for line in glance.splitlines() if line.startswith("| `dst`") or "| Operand" in line
    ]
    cells = [c.strip() for c in rows[0].split("|")[1:-1]] if rows else []
    assert "A2/A3" in header and "CPU Simulator" in header
    a2a3, cpu = cells[1], cells[3]
    assert "`int32_t`" not in a2a3 and "`int32_t`" in cpu  # the guide's profile-check sample


def _matrix(glance: str) -> dict[tuple[str, str], set[str]]:
    """TCVT's pair matrix: (row type, column type) -> the titles of the profiles marked there. The
    columns name the types by their short spelling, the C++ name in the tooltip."""
    block = glance.split("Legal pairs (", 1)[1].split("\n\n", 2)[1]
    lines = [line for line in block.splitlines() if line.startswith("|")]
    cols = re.findall(r'<abbr title="([^"]+)">', lines[0])
    out = {}
    for line in lines[2:]:
        cells = [c.strip() for c in line.split("|")[1:-1]]
        for col, mark in zip(cols, cells[1:], strict=True):
            out[(cells[0].strip("`"), col)] = set() if mark == "·" else set(mark.split("<br>"))
    return out


def test_the_tcvt_matrix_marks_each_pair_with_the_profiles_that_accept_it() -> None:
    glance = _glance(DOCS / "tile/ops/elementwise-tile-tile/tcvt.md")
    assert glance.count("Legal pairs (") == 1  # one matrix, a mark per profile
    marks = _matrix(glance)
    a2a3 = {pair for pair, titles in marks.items() if "A2/A3" in titles}
    assert ("half", "int8_t") in a2a3 and ("float", "int8_t") not in a2a3 and ("int8_t", "half") in a2a3
    assert len(a2a3) == 6 + 5 + 2 + 2 + 4 + 2 + 1 + 1  # the rows of tcvt.yaml's A2A3 pairs
    assert marks[("int8_t", "int32_t")] == {"A5"} and marks[("half", "float")] == {"A2/A3", "A5"}
    # every pair converts on the simulator, which the text says instead of marking every cell
    assert "CPU Simulator" not in set().union(*marks.values())
    assert "CPU Simulator: every pair of its element types" in glance


def _table(glance: str, heading: str) -> list[list[str]]:
    """The rows of the glance's table under the line that starts with `heading`, as cells."""
    block = glance.split(heading, 1)[1].split("\n\n", 2)[1]
    return [[c.strip() for c in line.split("|")[1:-1]] for line in block.splitlines()[2:]]


def test_a_form_that_passes_a_global_tensor_shows_no_tile_rules() -> None:
    """MGATHER's GM -> L1 declarations (4-6) take a GlobalTensor index and run without the tile rules:
    their rows show no index tile and no shared rule, in the type table and the locations table."""
    glance = _glance(DOCS / "tile/ops/memory-and-data-movement/mgather.md")
    for heading in ("Element types each profile admits", "Tile locations and layouts"):
        rows = _table(glance, heading)
        assert [r[:2] for r in rows] == [["1-3", "`dst`"], ["1-3", "`indexes`"], ["4-6", "`dst`"]], heading
        assert rows[2][2:] == ["any", "any", "any"], heading
    places = _table(glance, "Tile locations and layouts")
    assert places[1][2:] == ["location `Vec`, layout row-major", "location `Vec`", "any"]


def test_the_locations_table_has_a_row_per_operand_group_of_each_declaration() -> None:
    glance = _glance(next(DOCS.glob("tile/ops/*/tgather.md")))
    rows = _table(glance, "Tile locations and layouts")
    assert {r[0] for r in rows} == {"1", "2", "3"}  # TGATHER's three forms take different operands
    assert ["1", "`src0`, `src1`", "location `Vec`", "location `Vec`", "any"] in rows


KERNEL = """
#include <pto/pto-inst.hpp>
using namespace pto;
int main() {{
    Tile<TileType::Vec, {src}, 16, {scols}> s;
    Tile<TileType::Vec, {dst}, 16, {dcols}> d;
    TCVT(d, s, RoundMode::CAST_RINT);
    return 0;
}}
"""

_BYTES = {"half": 2, "float": 4, "int8_t": 1, "int32_t": 4}


@pytest.mark.parametrize(("src", "dst"), [("half", "int8_t"), ("float", "int8_t"), ("int32_t", "half")])
def test_a_cell_of_the_matrix_is_what_the_a2a3_checks_decide(src: str, dst: str, tmp_path: Path) -> None:
    cxx = require(COMPILERS[0])
    legal = "A2/A3" in _matrix(_glance(DOCS / "tile/ops/elementwise-tile-tile/tcvt.md"))[(src, dst)]
    source = tmp_path / "k.cpp"
    source.write_text(KERNEL.format(src=src, dst=dst, scols=32 // _BYTES[src], dcols=32 // _BYTES[dst]))
    argv = [
        *cxx_argv(cxx),
        "-std=c++20",
        "-fsyntax-only",
        "-D__CPU_SIM",
        "-DPTO_TARGET_PROFILE=PTO_PROFILE_A2A3",
        f"-I{ROOT / 'generated/include'}",
        f"-I{RUNTIME_INCLUDE}",
        str(source),
    ]
    done = subprocess.run(argv, capture_output=True, text=True)
    assert (done.returncode == 0) is legal, done.stderr[-2000:]


def test_every_formula_symbol_beyond_standard_math_is_defined_on_its_page() -> None:
    for page in [*OP_PAGES, *DOCS.glob("*.md")]:
        text = page.read_text()
        formulas = " ".join(re.findall(r"\$\$(.*?)\$\$", text, re.S))
        for symbol in (r"\mathrm{rnd}_T", r"\mathrm{carry}", r"\mathrm{borrow}", r"\mathrm{remainder}"):
            if symbol in formulas:
                assert re.search(rf"^where .*\\\({re.escape(symbol)}\(", text, re.M), (page.name, symbol)


def test_no_syntax_line_is_a_placeholder() -> None:
    # TAXPY's page had `%dst = pto.taxpy ...`: a form with no operands says nothing.
    for page in OP_PAGES:
        for block in re.findall(r"```text\n(.*?)```", page.read_text(), re.S):
            for line in block.splitlines():
                assert not re.search(r"pto\.\w+ (\.\.\.|ins\(\.\.\.\))", line), (page.name, line)


def test_set_indexes_name_each_intrinsic_with_its_parameter_types() -> None:
    index = (DOCS / "tile/tile-scalar-and-immediate.md").read_text()
    row = next(line for line in index.splitlines() if line.startswith("| [pto.tlrelu]"))
    assert "`TLRELU(TileDataDst& dst, TileDataSrc& src, typename TileDataSrc::DType scalar," in row


def test_a_joint_type_rule_is_one_table_with_a_mark_per_profile() -> None:
    glance = _glance(DOCS / "tile/ops/matrix-and-matrix-vector/tmatmul.md")
    assert glance.count("Legal element-type combinations") == 1
    table = glance.split("Legal element-type combinations", 1)[1].split("\n\n", 2)[1]
    assert table.startswith("| `c` | `a` | `b` | A2/A3 | A5 | CPU Simulator |")
    assert "| `int32_t` | `int8_t` | `int8_t` | ✓ | ✓ | ✓ |" in table
    # Marks follow the profile checks: MX's fp8 triples are refused on A2A3 only.
    mx = _glance(DOCS / "tile/ops/matrix-and-matrix-vector/tmatmul_mx.md")
    assert "| `float` | `float8_e4m3_t` | `float8_e4m3_t` | · | ✓ | ✓ |" in mx


def _declared_numbers(cell: str) -> set[int]:
    out: set[int] = set()
    for item in cell.split(", "):
        first, _, last = item.partition("-")
        out |= set(range(int(first), int(last or first) + 1))
    return out


MULTI_FORM_PAGES = [
    "irregular-and-complex/tgather",
    "layout-and-rearrangement/tmov",
    "layout-and-rearrangement/textract",
]


@pytest.mark.parametrize("page", MULTI_FORM_PAGES)
def test_every_declaration_has_its_operands_and_types_at_a_glance(page: str) -> None:
    """A multi-form op's type table: the declarations numbered as the page numbers them, each with
    a row for every tile operand it takes, and the types its own rules give (TGATHER's index form
    takes any `tmp`; its comparison form's `k_value` is typed by that form's rules)."""
    from ptogen.lower.glance import Glance

    from .test_site import _project

    path = DOCS / f"tile/ops/{page}.md"
    glance = _glance(path)
    op = next(o for o in _project().ops if o.doc_path.endswith(f"{page}.md"))  # type: ignore[attr-defined]
    assert len(op.forms) >= 3
    numbers = re.findall(r"^// Declaration (\d+)\.", glance, re.M)
    assert numbers == [str(k) for k in range(1, len(op.forms) + 1)]
    table = glance.split("| Declaration | Operand |", 1)[1].split("\n\n", 1)[0]
    rows = [line.split(" | ") for line in table.splitlines()[2:]]
    g = Glance(op)
    for form in op.forms:
        mine = [r for r in rows if form.index + 1 in _declared_numbers(r[0].lstrip("| "))]
        operands = {o.strip("`") for r in mine for o in r[1].split(", ")}
        taken = {p.operand for p in form.params if p.operand}
        taken |= {t.operand for t in form.template if t.operand}
        tiles = {o.name for o in op.spec.every_operand if o.kind == "tile" and o.name in taken}
        assert operands == tiles, (form.index, operands, tiles)
        for r in mine:
            for operand in r[1].split(", "):
                for p, cell in zip(op.targets.profiles, r[2:], strict=True):
                    types = g.form_types(p.name, form, operand.strip("`"))
                    want = "any" if types is None else " ".join(f"`{t}`" for t in types) or "—"
                    assert cell.rstrip(" |") == want, (form.index, operand, p.name)
    if page.endswith("tgather"):
        assert "| 1 | `tmp` | any | any | any |" in table
