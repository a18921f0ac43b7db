"""Counter-based random numbers (TRANDOM, kind `random`): Philox4x32 with `Rounds` rounds, keyed by
a 64-bit `TRandomKey` and started from a 128-bit `TRandomCounter` (targets.yaml `structs:`, array
types). The element order and the counter increment are upstream's CPU simulator's (the spec's
mechanism): row r is written in chunks of 256 columns; chunk q of row r ciphers the counters
`counter + (r * Q + q) * RowStride / 4 + lane` for lanes 0..63, and lane l's four words go to the
columns `256 q + 64 w + l` (w = 0..3). The golden computes the cipher from its definition
(`philox4x32`), which tests/opkinds/test_random.py holds to the published known-answer vectors.

A kind of its own: its values come from a keyed counter cipher and read no operand element by
element, so neither its expression nor its golden fits another kind.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..importer.contract import DOMAIN, PageOp
from ..kindlib.forms import FormsKind, form_call, written_check
from ..kindlib.layout import tile_logical
from ..testing.golden import Check, GoldenContext, inputs
from ..testing.plan import OpTests, RuntimeCase, TileDecl, dtype_profiles, plan_rule_cases, runtime_cases

if TYPE_CHECKING:
    from ..kind_api import OpViewAPI, ProjectViewAPI

MASK32 = 0xFFFFFFFF
MULTIPLIERS = (0xD2511F53, 0xCD9E8D57)  # Philox4x32's round multipliers
WEYL = (0x9E3779B9, 0xBB67AE85)  # the key schedule's increments
CHUNK = 256  # columns a row is written in at a time
LANES = 64  # counters a chunk ciphers (the columns of one word of each lane)
WORDS = 4  # words one cipher block gives

# (label, element type, Rounds, rows, cols, valid rows, valid cols, run-time valid, counter).
CASES: list[tuple[str, str, int, int, int, int, int, bool, tuple[int, int, int, int] | None]] = [
    ("4x256, 10 rounds (upstream's case)", "uint32_t", 10, 4, 256, 4, 256, False, None),
    ("2x16, 7 rounds", "int32_t", 7, 2, 16, 2, 16, False, None),
    ("valid 3x300 of 4x512 (two chunks a row), 10 rounds", "uint32_t", 10, 4, 512, 3, 300, False, None),
    ("run-time valid 5x40 of 8x64, 7 rounds", "int32_t", 7, 8, 64, 5, 40, True, None),
    (
        "counter carrying across words 0-2, 3x32, 10 rounds",
        "uint32_t",
        10,
        3,
        32,
        3,
        32,
        False,
        (0xFFFFFFF0, 0xFFFFFFFF, 0xFFFFFFFF, 0x7),
    ),
]


def philox4x32(counter: tuple[int, ...], key: tuple[int, ...], rounds: int) -> tuple[int, int, int, int]:
    """One Philox4x32 block: `rounds` rounds over the four counter words under the two key words."""
    c0, c1, c2, c3 = (int(w) & MASK32 for w in counter)
    k0, k1 = (int(w) & MASK32 for w in key)
    for _ in range(rounds):
        p0 = MULTIPLIERS[0] * c0
        p1 = MULTIPLIERS[1] * c2
        c0, c1, c2, c3 = (p1 >> 32) ^ c1 ^ k0, p1 & MASK32, (p0 >> 32) ^ c3 ^ k1, p0 & MASK32
        k0, k1 = (k0 + WEYL[0]) & MASK32, (k1 + WEYL[1]) & MASK32
    return c0, c1, c2, c3


def add_counter(counter: tuple[int, ...], n: int) -> tuple[int, int, int, int]:
    """The 128-bit counter (word 0 least significant) plus n, wrapping."""
    value = sum(int(w) << (32 * i) for i, w in enumerate(counter)) + n
    value &= (1 << 128) - 1
    return tuple((value >> (32 * i)) & MASK32 for i in range(WORDS))  # type: ignore[return-value]


def random_tile(
    counter: tuple[int, ...],
    key: tuple[int, ...],
    rounds: int,
    row_stride: int,
    valid_rows: int,
    valid_cols: int,
) -> np.ndarray:
    """The valid region TRANDOM writes, as uint32 words (valid_rows x valid_cols)."""
    out = np.zeros((valid_rows, valid_cols), dtype=np.uint32)
    chunks = -(-valid_cols // CHUNK)
    base = tuple(counter)
    for r in range(valid_rows):
        for q in range(chunks):
            for lane in range(LANES):
                words = philox4x32(add_counter(base, lane), key, rounds)
                for w in range(WORDS):
                    col = q * CHUNK + w * LANES + lane
                    if col < valid_cols:
                        out[r, col] = words[w]
            base = add_counter(base, row_stride // WORDS)
    return out


class Random(FormsKind):
    name: ClassVar[str] = "random"

    def recognise(self, page: PageOp) -> int | None:
        # templates/opkinds/random/domain.md.j2: "..., a word of the Philox4x32 cipher"
        return DOMAIN if not page.vector and page.intro_says("of the Philox4x32 cipher") else None

    def complete_import(self, semantics: dict[str, Any], operands: list[dict[str, Any]]) -> None:
        # The key and counter are the structs the declaration takes (context operands), and the
        # expression names the destination, which the page's formula writes.
        for o in operands:
            if o["name"] != semantics["domain"]:
                o["kind"] = "context"
        semantics["expr"] = semantics["domain"]

    def check_operands(self, spec: Any) -> list[tuple[tuple[str | int, ...], str]]:
        kinds = [o.kind for o in spec.operands]
        if kinds != ["tile", "context", "context"]:
            return [
                (("operands",), "a random op has a destination tile, then its key and counter (`context`)")
            ]
        return []

    def math(self, op: OpViewAPI) -> str | None:
        return (
            rf"\mathrm{{{op.domain}}}_{{r,\,256q + 64w + l}} = \mathrm{{Philox}}_{{R}}"
            r"\bigl(\mathrm{counter} + (rQ + q)\tfrac{S}{4} + l,\ \mathrm{key}\bigr)_{w}"
        )

    @staticmethod
    def contexts(op: OpViewAPI) -> list[tuple[str, str]]:
        intr = op.spec.intrinsic
        assert intr is not None
        ctx = {o.name for o in op.spec.operands if o.kind == "context"}
        return [(str(p.type), str(p.operand)) for p in intr.params if p.operand in ctx]

    def test_contexts(self, op: OpViewAPI) -> list[tuple[str, str]]:
        return self.contexts(op)

    def sim_args(self, op: OpViewAPI, form: Any) -> list[str]:
        return [p.name for p in form.params if not p.events]

    def plan_tests(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        form = op.forms[0]
        dst = op.domain
        contexts = self.contexts(op)
        for dtype, on in dtype_profiles(project, op):
            cases: list[RuntimeCase] = []
            for label, t, rounds, r, c, vr, vc, dyn, counter in CASES:
                if t != dtype:
                    continue
                tiles = [TileDecl(dst, t, r, c, vr, vc, dyn)]
                call = form_call(form, {"Rounds": str(rounds)}, {})
                case = self.case(project, tests, cases, label, tiles, call, {"rounds": str(rounds)})
                case.contexts = list(contexts)
                if counter is not None:
                    case.attrs["counter"] = ",".join(str(w) for w in counter)
                cases.append(case)
            self.kernel(tests, dtype, cases, on)
        sizes = {s.name: s.length or 1 for s in op.targets.structs}
        for case in runtime_cases(tests):  # the key and counter (context operands) from the case's files
            case.loaded += [(f"c{case.index}_{name}.bin", name, int(sizes[t])) for t, name in case.contexts]
        plan_rule_cases(project, op, tests)

    def prepare_cases(self, gx: GoldenContext, data: Path) -> list[Check]:
        checks: list[Check] = []
        dst = gx.op.domain
        for case in gx.group.cases:
            n = case.index
            seed = f"{gx.op_name}/{gx.entry.group}/{n}"
            label = f"{gx.label} case {n} ({case.label})"
            td = case.tiles[dst]
            dt = gx.np_type(gx.group.dtypes[dst])
            words = inputs(np.dtype(np.uint32), 6, f"{seed}/state")
            key = tuple(int(w) for w in words[:2])
            given = case.attrs.get("counter")
            counter = tuple(int(w) for w in given.split(",")) if given else tuple(int(w) for w in words[2:])
            np.array(key, dtype=np.uint32).tofile(data / f"c{n}_key.bin")
            np.array(counter, dtype=np.uint32).tofile(data / f"c{n}_counter.bin")
            before = self.write(data, n, dst, inputs(dt, td.rows * td.cols, f"{seed}/{dst}"))
            grid = tile_logical(before, td)
            want = grid.copy()
            mask = np.zeros(want.shape, dtype=bool)
            region = random_tile(
                counter, key, int(case.attrs["rounds"]), td.cols, td.valid_rows, td.valid_cols
            )
            want[: td.valid_rows, : td.valid_cols] = region.view(dt)
            mask[: td.valid_rows, : td.valid_cols] = True
            checks.append(written_check(f"c{n}_{dst}.out", td, want, mask, grid, label))
        return checks
