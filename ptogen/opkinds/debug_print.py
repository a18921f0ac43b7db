"""Debug printing (TPRINT, kind `debug_print`): a tile's valid region written to standard output as
text, in the format a `PrintFormat` value names. The rule the spec states, rendered here in Python
(`render`) for the golden, never copied from the simulator's output:

- a header line `TPRINT <valid rows>x<valid cols>`;
- one line per valid row: its valid elements, separated by one space;
- each element right-aligned in a field of the format's width; a floating-point element (`half` and
  `bfloat16_t` widened to `float`) in fixed notation with the format's decimals (NaN as `nan` or
  `-nan` by its sign bit, infinities as `inf` or `-inf`); an integer as a decimal number.

The test kernels capture standard output around the call (the case's `before_call` and
`after_call`) and store it; the golden compares it byte for byte, and checks that the tile is
unchanged.

A kind of its own: its result is text on standard output, captured around the call, which no other
kind's kernels or goldens handle.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..importer.contract import DOMAIN, PageOp
from ..kindlib.layout import tile_logical
from ..spec.kindfacts import KindFacts
from ..testing.golden import Check, GoldenContext, inputs, same_bits
from ..testing.plan import (
    Call,
    GlobalDecl,
    OpTests,
    RuntimeCase,
    RuntimeKernel,
    TileDecl,
    dtype_profiles,
    global_type_name,
    layout_addresses,
    plan_rule_cases,
)
from ..testing.results import Outcome
from .base import NamesOperand

if TYPE_CHECKING:
    from ..kind_api import FormViewAPI, OpViewAPI, ProjectViewAPI

# PrintFormat value -> (field width, decimals of a floating-point element).
FORMATS = {
    "Width8_Precision4": (8, 4),
    "Width8_Precision2": (8, 2),
    "Width10_Precision6": (10, 6),
}
STDOUT = "stdout"  # the stored text's name: c<k>_stdout.out

# (label, rows, cols, valid rows, valid cols, run-time valid, formats, with the scratch form, layout).
CASES = [
    ("2x8, every format", 2, 8, 2, 8, False, list(FORMATS), False, "RowMajor"),
    ("valid 3x5 of 4x16", 4, 16, 3, 5, False, ["Width8_Precision2"], False, "RowMajor"),
    ("run-time valid 2x3 of 4x16", 4, 16, 2, 3, True, ["Width10_Precision6"], False, "RowMajor"),
    ("valid 5x3 of a column-major 16x4", 16, 4, 5, 3, False, ["Width8_Precision4"], False, "ColMajor"),
    (
        "1x8 through the declaration with a scratch",
        1,
        8,
        1,
        8,
        False,
        ["Width10_Precision6"],
        True,
        "RowMajor",
    ),
]


def field(value: Any, kind: str, fmt: str) -> str:
    """One element as the spec's rule writes it."""
    width, decimals = FORMATS[fmt]
    if kind == "float":
        x = float(value)
        if math.isnan(x):
            text = "-nan" if math.copysign(1.0, x) < 0 else "nan"
        elif math.isinf(x):
            text = "-inf" if x < 0 else "inf"
        else:
            text = f"{x:.{decimals}f}"
    else:
        text = str(int(value))
    return text.rjust(width)


def render(grid: np.ndarray, kind: str, fmt: str) -> str:
    """The whole text for a valid region (rows x cols of element values)."""
    rows, cols = grid.shape
    lines = [f"TPRINT {rows}x{cols}"]
    lines += [" ".join(field(grid[r, c], kind, fmt) for c in range(cols)) for r in range(rows)]
    return "\n".join(lines) + "\n"


class DebugPrint(NamesOperand):
    name: ClassVar[str] = "debug_print"
    facts: ClassVar[KindFacts] = KindFacts(writes=False, plans_forms=True)
    domain_starts: ClassVar[tuple[str, ...]] = ("For each valid row",)

    def recognise(self, page: PageOp) -> int | None:
        # templates/opkinds/debug_print/domain.md.j2: "..., printed as one line of text"
        return DOMAIN if not page.vector and page.intro_says("printed as one line of text") else None

    def import_domain(self, operands: list[dict[str, Any]]) -> str | None:
        # prints and writes nothing: its domain is the tile it reads
        return next((o["name"] for o in operands if o["kind"] == "tile"), None)

    def complete_import(self, semantics: dict[str, Any], operands: list[dict[str, Any]]) -> None:
        for o in operands:
            if o["name"] == semantics["domain"]:
                o["role"] = "src"

    def check_operands(self, spec: Any) -> list[tuple[tuple[str | int, ...], str]]:
        return []  # the scratch form takes a GlobalTensor (`tmp`), which it does not read

    def result_index(self, op: OpViewAPI) -> str:
        return "i,j"

    def operand_index(self, op: OpViewAPI, operand: str) -> str:
        return "i,j"

    def math(self, op: OpViewAPI) -> str | None:
        d = rf"\mathrm{{{op.domain}}}"
        return (
            rf"\mathrm{{line}}_{{i}} = \mathrm{{fmt}}_{{W,P}}({d}_{{i,0}}) \sqcup \cdots \sqcup "
            rf"\mathrm{{fmt}}_{{W,P}}({d}_{{i,C-1}})"
        )

    # ----------------------------------------------------------------- header and backend
    def sim_targs(self, op: OpViewAPI, form: FormViewAPI) -> list[str]:
        return [t.name for t in form.template if t.kind == "value"]

    def sim_args(self, op: OpViewAPI, form: FormViewAPI) -> list[str]:
        return [p.name for p in form.params if not p.events]

    # ----------------------------------------------------------------- tests
    @staticmethod
    def _captured(k: int) -> tuple[list[str], list[str]]:
        """Statements around case k's call that capture standard output and store it for the golden."""
        before = [
            f"std::ostringstream c{k}_text;",
            f"std::streambuf* const c{k}_cout = std::cout.rdbuf(c{k}_text.rdbuf());",
        ]
        after = [
            f"std::cout.rdbuf(c{k}_cout);",
            f"const std::string c{k}_printed = c{k}_text.str();",
            f'store("c{k}_{STDOUT}.out", c{k}_printed.data(), c{k}_printed.size());',
        ]
        return before, after

    def plan_tests(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        tests.includes = ["iostream", "sstream"]  # the kernels capture standard output (_captured)
        src = op.domain
        scratch = next((f for f in op.forms if f.index), None)
        first = 0
        for dtype, on in dtype_profiles(project, op):
            cases: list[RuntimeCase] = []
            for label, r, c, vr, vc, dyn, formats, with_tmp, layout in CASES:
                form = scratch if with_tmp and scratch is not None else op.forms[0]
                for fmt in formats:
                    tile = TileDecl(src, dtype, r, c, vr, vc, dyn, layout=layout)
                    targs = [f"PrintFormat::{fmt}", tile.type_name]
                    args = [src]
                    globals_: list[GlobalDecl] = []
                    if form.index:
                        tmp = next(str(p.operand) for p in form.params if p.operand != src)
                        globals_ = [GlobalDecl(tmp, dtype, tile.rows, tile.cols, tile.cols)]
                        targs.append(global_type_name(tmp))
                        args.append(tmp)
                    k = first + len(cases)
                    attrs = {"format": fmt, "form": str(form.index)}
                    text = f"{label}, {fmt}" + (", declaration 1" if form.index else "")
                    tiles = [tile]
                    cases.append(
                        RuntimeCase(
                            k,
                            text,
                            tiles,
                            {},
                            Call(targs, args),
                            layout_addresses(project, tiles),
                            attrs,
                            globals=globals_,
                        )
                    )
                    cases[-1].before_call, cases[-1].after_call = self._captured(k)
            first += len(cases)
            tests.runtime.append(RuntimeKernel(dtype, {src: dtype}, {}, on, cases))
        plan_rule_cases(project, op, tests)

    def prepare_cases(self, gx: GoldenContext, data: Path) -> list[Check]:
        src = gx.op.domain
        checks: list[Check] = []
        kind = "float" if gx.np_type(gx.group.dtypes[src]).kind in "fV" else "int"
        for case in gx.group.cases:
            k = case.index
            t = case.tiles[src]
            dt = gx.np_type(gx.group.dtypes[src])
            flat = inputs(dt, t.rows * t.cols, f"{gx.op_name}/{gx.entry.group}/{k}/{src}")
            flat.tofile(data / f"c{k}_{src}.bin")
            for name, g in case.globals.items():
                np.zeros(g.size, dtype=dt).tofile(data / f"c{k}_{name}.bin")
            grid = tile_logical(flat, t)[: t.valid_rows, : t.valid_cols]
            if dt.name == "bfloat16":
                grid = grid.astype(np.float32)
            want = render(grid, kind, case.attrs["format"]).encode()
            label = f"{gx.label} case {k} ({case.label})"
            checks.append(same_bits(f"c{k}_{src}.out", flat, label, "left unchanged by the print"))
            checks.append(text_check(f"c{k}_{STDOUT}.out", want, label))
        return checks


def text_check(out: str, want: bytes, label: str) -> Check:
    """The stored standard output is exactly `want`; a difference names its first differing line."""

    def check(d: Path) -> Outcome:
        got = (d / out).read_bytes()
        if got == want:
            return Outcome("pass", label)
        g, w = got.decode(errors="replace").split("\n"), want.decode().split("\n")
        n = next((i for i, (a, b) in enumerate(zip(g, w, strict=False)) if a != b), min(len(g), len(w)))
        shown = lambda lines: repr(lines[n]) if n < len(lines) else "(none)"  # noqa: E731
        return Outcome(
            "fail", label, f"printed text differs at line {n + 1}: got {shown(g)}, want {shown(w)}"
        )

    return check
