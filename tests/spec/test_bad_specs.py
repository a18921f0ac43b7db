"""A bad spec gets one `file:line: field: message` error per problem, exit code 2, and
generated/ stays untouched; strings that would inject into C++ or Markdown are rejected."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ptogen.cli import main
from ptogen.spec.load import check_op

from ..helpers import TLRELU, checkout_specs, edit, tree_hash


def run_gen(project: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    before = tree_hash(project / "generated")
    code = main(["--root", str(project), "gen"])
    errors = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error:")]
    assert tree_hash(project / "generated") == before, "generated/ was touched"
    return code, errors


CASES = [
    # (description, old text, new text, field path, message fragment)
    (
        "missing field",
        "summary: Leaky ReLU of a tile, with one scalar slope for the negative side.\n",
        "",
        "summary",
        "Field required",
    ),
    ("wrong type", "  domain: dst\n", "  domain: [dst]\n", "semantics.domain", "string"),
    (
        "unknown dtype",
        "dtypes: [half, float]\n",
        "dtypes: [half, flaot]\n",
        "constraints[6].dtypes[1]",
        "unknown dtype 'flaot'",
    ),
    (
        "unknown profile",
        "profiles: [A5]\n",
        "profiles: [A7]\n",
        "constraints[6].profiles[0]",
        "unknown profile 'A7'",
    ),
    ("bad identifier", "  name: TLRELU\n", "  name: TL RELU\n", "intrinsic.name", "not a C++ identifier"),
    (
        "keyword identifier",
        "{name: src, type: TileDataSrc, operand: src}",
        "{name: class, type: TileDataSrc, operand: src}",
        "intrinsic.params[1].name",
        "C++ keyword",
    ),
    (
        "unknown field",
        "  tolerance: {kind: exact}\n",
        "  colour: red\n  tolerance: {kind: exact}\n",
        "semantics.colour",
        "unknown field",
    ),
    (
        "unknown operand in semantics",
        "expr: select(src > 0, src, src * slope)",
        "expr: select(src > 0, src, src * slop)",
        "semantics.expr",
        "unknown operand 'slop'",
    ),
    (
        "code in semantics",
        "expr: select(src > 0, src, src * slope)",
        "expr: __import__('os').system('x')",
        "semantics.expr",
        "unsupported construct",
    ),
    (
        "html in prose",
        "summary: Leaky ReLU of a tile",
        "summary: <script>alert(1)</script> Leaky ReLU of a tile",
        "summary",
        "raw HTML",
    ),
    (
        "fence in prose",
        "side_effects: >-\n  Only",
        "side_effects: |-\n  ```\n  Only",
        "side_effects",
        "code fences",
    ),
    (
        "unknown op kind",
        "  kind: elementwise\n",
        "  kind: diagonal\n",
        "semantics.kind",
        "unknown op kind 'diagonal'",
    ),
    (
        "reduction in an element-wise op",
        "expr: select(src > 0, src, src * slope)",
        "expr: sum(src)",
        "semantics.expr",
        "does not reduce",
    ),
    (
        "scalar from a tile in the main declaration",
        "- {name: scalar, dtype_of: TileDataSrc, operand: slope}",
        "- {name: scalar, type: TileDataSrc, operand: slope, from_tile: true}",
        "intrinsic.params[2].from_tile",
        "only an overload may take a scalar as a tile",
    ),
    (
        "tile operand from a tile",
        "- {name: src, type: TileDataSrc, operand: src}",
        "- {name: src, type: TileDataSrc, operand: src, from_tile: true}",
        "intrinsic.params[1].from_tile",
        "only a scalar can come from a tile",
    ),
    (
        "empty value range",
        "  - {kind: same_dtype, operands: [dst, src]}\n",
        "  - {kind: value_range, operands: [src], min: 5, max: -5}\n"
        "  - {kind: same_dtype, operands: [dst, src]}\n",
        "constraints[3].min",
        "the range is empty",
    ),
    (
        "value range of an unknown type",
        "  - {kind: same_dtype, operands: [dst, src]}\n",
        "  - {kind: value_range, operands: [src], min: 0, max: 1, dtypes: [int23_t]}\n"
        "  - {kind: same_dtype, operands: [dst, src]}\n",
        "constraints[3].dtypes[0]",
        "unknown dtype 'int23_t'",
    ),
    (
        "value range of a scalar",
        "  - {kind: same_dtype, operands: [dst, src]}\n",
        "  - {kind: value_range, operands: [slope], min: 0, max: 1}\n"
        "  - {kind: same_dtype, operands: [dst, src]}\n",
        "constraints[3].operands[0]",
        "is not a tile",
    ),
    (
        "unknown dtype in a pair table",
        "  - {kind: same_dtype, operands: [dst, src]}\n",
        "  - {kind: dtype_pairs, operands: [src, dst], pairs: {half: [flaot]}}\n"
        "  - {kind: same_dtype, operands: [dst, src]}\n",
        "constraints[3].pairs.half[0]",
        "unknown dtype 'flaot'",
    ),
    (
        "table layout of a tile",
        "  - {kind: same_dtype, operands: [dst, src]}\n",
        "  - {kind: table_layout, operands: [src, dst], layouts: {ND: plain}}\n"
        "  - {kind: same_dtype, operands: [dst, src]}\n",
        "constraints[3].operands[0]",
        "is not a GlobalTensor",
    ),
    (
        "unknown table layout",
        "  - {kind: same_dtype, operands: [dst, src]}\n",
        "  - {kind: table_layout, operands: [src, dst], layouts: {ZN: plain}}\n"
        "  - {kind: same_dtype, operands: [dst, src]}\n",
        "constraints[3].layouts.ZN",
        "Input should be 'ND', 'DN' or 'NZ'",
    ),
    (
        "guard of a value or unknown template parameter",
        "  template:\n",
        "  guard: [WaitEvents, TileDataDt]\n  template:\n",
        "intrinsic.guard[1]",
        "'TileDataDt' is not a type template parameter or the pack",
    ),
    (
        "misspelt key in a rule",
        "    dtypes: [half, float]\n",
        "    dtype: [half, float]\n",
        "constraints[6].dtype",
        "unknown field (did you mean 'dtypes'?)",
    ),
    (
        "misspelt nested key",
        "  domain: dst\n",
        "  domian: dst\n",
        "semantics.domian",
        "unknown field (did you mean 'domain'?)",
    ),
    (
        "misspelt key in a tolerance",
        "  tolerance: {kind: exact}\n",
        "  tolerance: {kind: ulp, ulps: 2}\n",
        "semantics.tolerance.ulps",
        "unknown field (did you mean 'ulp'?)",
    ),
    (
        "misspelt top-level shorthand",
        "summary: Leaky ReLU",
        "dtype: {A5: [half]}\nsummary: Leaky ReLU",
        "dtype",
        "unknown field (did you mean 'dtypes'?)",
    ),
    (
        "misspelt operand in a rule",
        "  - {kind: same_dtype, operands: [dst, src]}\n",
        "  - {kind: same_dtype, operands: [dst, srcc]}\n",
        "constraints[3].operands[1]",
        "unknown operand 'srcc' (did you mean 'src'?)",
    ),
    (
        "misspelt rule kind",
        "  - {kind: row_major, profiles",
        "  - {kind: row_majr, profiles",
        "constraints[5].kind",
        "unknown rule kind 'row_majr' (did you mean 'row_major'?)",
    ),
    (
        "unknown rule kind",
        "  - {kind: row_major, profiles",
        "  - {kind: diagonal, profiles",
        "constraints[5].kind",
        "unknown rule kind 'diagonal' (known: dtype, dtype_pairs, location,",
    ),
    (
        "rule without a kind",
        "  - {kind: same_dtype, operands: [dst, src]}\n",
        "  - {operands: [dst, src]}\n",
        "constraints[3].kind",
        "Field required",
    ),
    (
        "misspelt op kind",
        "  kind: elementwise\n",
        "  kind: elementwis\n",
        "semantics.kind",
        "unknown op kind 'elementwis' (did you mean 'elementwise'?)",
    ),
    (
        "comment breaker in identifier",
        "{name: TileDataDst, kind: typename}",
        "{name: 'Tile*/Dst', kind: typename}",
        "intrinsic.template[0].name",
        "not a C++ identifier",
    ),
]


@pytest.mark.parametrize(("what", "old", "new", "field", "fragment"), CASES, ids=[c[0] for c in CASES])
def test_bad_spec_is_reported_with_file_line_field(
    spec_project: Path,
    capsys: pytest.CaptureFixture[str],
    what: str,
    old: str,
    new: str,
    field: str,
    fragment: str,
) -> None:
    line = edit(spec_project, TLRELU, old, new)
    code, errors = run_gen(spec_project, capsys)
    assert code == 2
    assert len(errors) == 1, errors
    where, rest = errors[0].removeprefix("error: ").split(": ", 1)
    path, line_no = where.rsplit(":", 1)
    assert path == TLRELU
    # The reported line is the edited one (a missing field points at its parent mapping: line 1).
    assert int(line_no) == (1 if what == "missing field" else line), errors[0]
    assert rest.startswith(f"{field}:"), errors[0]
    assert fragment in rest, errors[0]


CLASS = "specs/classes/tile_scalar.yaml"
CLASS_CASES = [
    # (description, old text, new text, field path, message)
    (
        "misspelt class field",
        "rule_operands: [dst, src]\n",
        "rule_operand: [dst, src]\n",
        "rule_operand",
        "unknown field (did you mean 'rule_operands'?)",
    ),
    (
        "misspelt key in a class's spec",
        "  semantics: {kind: elementwise, domain: dst,",
        "  semantics: {kind: elementwise, domian: dst,",
        "semantics.domian",
        "unknown field (did you mean 'domain'?)",
    ),
    (
        "misspelt op kind in a class",
        "  semantics: {kind: elementwise,",
        "  semantics: {kind: elementwse,",
        "semantics.kind",
        "unknown op kind 'elementwse' (did you mean 'elementwise'?)",
    ),
]


@pytest.mark.parametrize(
    ("what", "old", "new", "field", "message"), CLASS_CASES, ids=[c[0] for c in CLASS_CASES]
)
def test_misspelling_in_a_class_is_reported_once_at_its_line(
    spec_project: Path,
    capsys: pytest.CaptureFixture[str],
    what: str,
    old: str,
    new: str,
    field: str,
    message: str,
) -> None:
    line = edit(spec_project, CLASS, old, new)
    code, errors = run_gen(spec_project, capsys)
    assert code == 2
    assert errors == [f"error: {CLASS}:{line}: {field}: {message}"]


def test_newline_in_identifier_is_rejected(spec_project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(spec_project, TLRELU, "  name: TLRELU\n", '  name: "TLRELU\\nint x;"\n')
    code, errors = run_gen(spec_project, capsys)
    assert code == 2 and "intrinsic.name" in errors[0] and "identifier" in errors[0]


def test_newline_in_syntax_line_is_rejected(spec_project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(spec_project, TLRELU, 'pto_asm: ["%dst = tlrelu', 'pto_asm: ["```\\n%dst = tlrelu')
    code, errors = run_gen(spec_project, capsys)
    assert code == 2 and "syntax.pto_asm[0]" in errors[0]


def test_duplicate_mnemonic(spec_project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = spec_project / TLRELU
    copy = src.with_name("tlrelu_copy.yaml")
    copy.write_text(src.read_text().replace("name: TLRELU", "name: TLRELU2"))
    code, errors = run_gen(spec_project, capsys)
    assert code == 2
    assert len(errors) == 1
    assert errors[0].startswith(
        "error: specs/ops/tile_scalar_and_immediate/tlrelu_copy.yaml:1: mnemonic: duplicate"
    )
    assert "already defined in specs/ops/tile_scalar_and_immediate/tlrelu.yaml" in errors[0]


def test_invalid_yaml(spec_project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = edit(spec_project, TLRELU, "semantics:\n", "semantics: [\n")
    code, errors = run_gen(spec_project, capsys)
    assert code == 2 and "invalid YAML" in errors[0]
    assert int(errors[0].split(":")[2]) >= line


def test_every_problem_is_reported_in_one_run(spec_project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(spec_project, TLRELU, "dtypes: [half, float]\n", "dtypes: [half, flaot]\n")
    edit(spec_project, "specs/ops/tile_scalar_and_immediate/tmaxs.yaml", "profiles: [A5]", "profiles: [A9]")
    code, errors = run_gen(spec_project, capsys)
    assert code == 2 and len(errors) == 2
    assert any("tlrelu.yaml" in e for e in errors) and any("tmaxs.yaml" in e for e in errors)


def test_pipe_in_table_cell_is_escaped(project: Path) -> None:
    edit(project, TLRELU, "description: Source tile.}", "description: Source tile | not a column.}")
    assert main(["--root", str(project), "gen"]) == 0
    page = (project / "generated/docs/isa/tile/ops/tile-scalar-and-immediate/tlrelu.md").read_text()
    row = next(line for line in page.splitlines() if line.startswith("| `%src`"))
    assert "Source tile \\| not a column." in row
    assert row.count(" | ") == 3  # still four columns: the escaped pipe is not a separator


def test_exit_code_and_stderr_through_a_real_process(project: Path) -> None:
    edit(project, TLRELU, "dtypes: [half, float]\n", "dtypes: [half, flaot]\n")
    before = tree_hash(project / "generated")
    proc = subprocess.run(
        [sys.executable, "-m", "ptogen.cli", "--root", str(project), "check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"error: {TLRELU}:")
    assert "constraints[6].dtypes[1]: unknown dtype 'flaot'" in proc.stderr
    assert tree_hash(project / "generated") == before


def test_a_category_naming_an_unknown_op_kind(spec_project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    targets = "specs/targets.yaml"
    line = edit(spec_project, targets, "kinds: [predicate, vselect]}", "kinds: [predicat, vselect]}")
    code, errors = run_gen(spec_project, capsys)
    assert code == 2
    assert errors == [
        f"error: specs/targets.yaml:{line}: categories[1].kinds[0]: unknown op kind 'predicat'"
        " (did you mean 'predicate'?)"
    ]


TMAXS = "specs/ops/tile_scalar_and_immediate/tmaxs.yaml"  # over class tile_scalar, with the shorthand
USER_TERMS = [
    # (description, old text, new text, the error's field and message)
    (
        "a type of the dtypes shorthand",
        "dtypes: {A2A3: i32_i16_half_float}\n",
        "dtypes: {A2A3: i32_i16_half_float, A5: [half, float, int8_t, uint8_t, int99_t]}\n",
        "dtypes.A5[4]: unknown dtype 'int99_t' (did you mean 'int8_t'?)",
    ),
    (
        # The spec's second rule, whatever rules its class and shorthand put before it.
        "a rule the spec writes",
        "dtypes: [int32_t, uint32_t, float, int16_t, uint16_t, half, bfloat16_t, uint8_t, int8_t]\n",
        "dtypes: [int32_t, uint32_t, float, int16_t, uint16_t, half, bfloat16_t, uint8_t, int9_t]\n",
        "constraints[1].dtypes[8]: unknown dtype 'int9_t' (did you mean 'int8_t'?)",
    ),
    (
        "an unquoted expression with a comma",
        "semantics: {expr: 'max(src, scalar)'}\n",
        "semantics: {expr: max(src, scalar)}\n",
        "semantics.scalar): unknown field (an expression containing a comma must be quoted",
    ),
    (
        "a tab",
        "  - {name: dst, kind: tile, role: dst, description: Destination tile.}\n",
        "\t- {name: dst, kind: tile, role: dst, description: Destination tile.}\n",
        "invalid YAML: a tab (column 1); YAML indents with spaces only",
    ),
    (
        "a misspelt mnemonic",
        "mnemonic: pto.tmaxs\n",
        "mnemonic: pto.tmaxz\n",
        "mnemonic: pto.tmaxz is not in the `order:` of instruction set tile_scalar_and_immediate in "
        "specs/targets.yaml; did you mean 'pto.tmaxs'?",
    ),
]


@pytest.mark.parametrize(("what", "old", "new", "message"), USER_TERMS, ids=[c[0] for c in USER_TERMS])
def test_errors_name_fields_as_the_spec_writes_them(
    spec_project: Path, capsys: pytest.CaptureFixture[str], what: str, old: str, new: str, message: str
) -> None:
    line = edit(spec_project, TMAXS, old, new)
    code, errors = run_gen(spec_project, capsys)
    assert code == 2
    assert len(errors) == 1, errors
    assert errors[0].startswith(f"error: {TMAXS}:{line}: {message}"), errors[0]


def test_an_op_the_isa_catalog_leaves_out_is_reported_at_the_sets_list(
    spec_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog = "templates/site/isa_catalog.yaml"
    line = edit(spec_project, catalog, " pto.tmaxs,", "")
    code, errors = run_gen(spec_project, capsys)
    assert code == 2
    (error,) = errors
    assert error.startswith(f"error: {catalog}:{line}: instruction_sets["), error
    assert "pto.tmaxs (specs/ops/tile_scalar_and_immediate/tmaxs.yaml) is specified but not listed" in error


@pytest.mark.parametrize(
    ("short", "folds", "message"),
    [
        ("vcgadd", "rows", "lane_reduce ops fold one of register, groups, pairs"),
        ("vcgadd", None, "lane_reduce ops fold one of register, groups, pairs"),
        ("tcolsum", "pairs", "tile_reduce ops fold one of rows, cols"),
        ("tadd", "rows", "elementwise ops do not fold a span"),
    ],
)
def test_a_reduction_states_a_span_its_kind_folds(short: str, folds: str | None, message: str) -> None:
    """`semantics.folds` is data the kind's facts bound: a span of another kind, none where the kind
    needs one, or one where the kind folds nothing is the field's error."""
    specs = checkout_specs()
    spec = next(o.spec for o in specs.ops if o.spec.short == short)
    assert not [p for p in check_op(spec, specs.targets) if p[0] == ("semantics", "folds")]
    bad = spec.model_copy(update={"semantics": spec.semantics.model_copy(update={"folds": folds})})
    assert [p for p in check_op(bad, specs.targets) if p[0] == ("semantics", "folds")] == [
        (("semantics", "folds"), message)
    ]


def test_an_ir_form_states_its_spelling(spec_project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An IR form without its `spelling` (the C++ it is written as) is reported at its mapping."""
    castptr = "specs/ops/micro_instruction/castptr.yaml"
    text = (spec_project / castptr).read_text()
    start = text.index("spelling:\n")
    end = text.index("syntax:\n")
    edit(spec_project, castptr, text[start:end], "")
    code, errors = run_gen(spec_project, capsys)
    assert code == 2
    assert errors == [f"error: {castptr}:1: spelling: IR forms (and only they) state their C++ `spelling`"]
