"""`dtype_tuples`: the element types of N operands form one of a table of tuples, e.g. a matrix
product's (accumulator, left, right) as `(int32_t, int8_t, int8_t)` or `(float, half, half)`. The
N-operand generalisation of `dtype_pairs`: one static check, a type table on the page, and the test
plan runs only the tuples a profile's table admits."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field, model_validator

from ..errors import did_you_mean
from ..spec.fields import Name, TypeName
from .base import Problem, RuleBase, or_list, with_note
from .page import PageContext, PageLine
from .parts import (
    Asserted,
    Broken,
    Recognised,
    StaticBreak,
    StaticCheck,
    Tabulated,
    TileFilter,
    TypeFilter,
    TypeListing,
)

if TYPE_CHECKING:
    from ..rule_api import RuleBreak as BreakContext
    from ..rule_api import RuleLowering as RuleView
    from ..rule_api import RuleOp as OpView
    from ..rule_api import SpecFacts as OpSpec
    from ..rule_api import TargetFacts as Targets
    from ..rule_api import TileDecl


class DTypeTuplesRule(
    RuleBase, Recognised, TypeListing, Tabulated, StaticBreak, TypeFilter, TileFilter, Asserted
):
    """`tuples` lists the allowed element types of `operands`, one type per operand in order."""

    kind: Literal["dtype_tuples"] = "dtype_tuples"
    operands: list[Name] = Field(min_length=2)
    tuples: list[list[TypeName]] = Field(min_length=1, description="one type per operand, in order")
    page_prefixes: ClassVar[tuple[str, ...]] = ("type tuples (",)

    @model_validator(mode="after")
    def _widths(self) -> DTypeTuplesRule:
        for i, t in enumerate(self.tuples):
            if len(t) != len(self.operands):
                raise ValueError(
                    f"tuple {i} ({', '.join(t)}) has {len(t)} types for {len(self.operands)} operands"
                )
        return self

    def check(self, spec: OpSpec, targets: Targets) -> Iterator[Problem]:
        yield from super().check(spec, targets)
        spellings = [n for t in targets.dtypes for n in (t.name, *t.aliases)]
        for i, t in enumerate(self.tuples):
            for j, d in enumerate(t):
                if not targets.has_dtype(d):
                    yield ("tuples", i, j), f"unknown dtype {d!r}{did_you_mean(d, spellings)}"

    def tabulated_tuples(self, op: OpView) -> tuple[list[str], list[tuple[str, ...]]] | None:
        return list(self.operands), self._table(op)

    def _table(self, op: OpView) -> list[tuple[str, ...]]:
        """The tuples in canonical C++ spellings, duplicates dropped."""
        return list(dict.fromkeys(tuple(op.targets.dtype(d).name for d in t) for t in self.tuples))

    def condition(self, op: OpView, rv: RuleView) -> str:
        terms = [
            "("
            + " && ".join(
                f"std::is_same_v<typename {ty}::DType, {d}>" for ty, d in zip(rv.types, t, strict=False)
            )
            + ")"
            for t in self._table(op)
        ]
        return "(" + " || ".join(terms) + ")"

    def text(self, op: OpView) -> str:
        # The tuples the rule allows; the compiler's note adds the tuple passed (static_checks).
        allowed = or_list(["(" + ", ".join(t) + ")" for t in self._table(op)], code=False)
        return f"the element types ({', '.join(self.operands)}) must be {allowed}"

    def static_checks(self, op: OpView, rv: RuleView) -> list[StaticCheck]:
        return [StaticCheck("", self.condition(op, rv), self.text(op), types=tuple(rv.dtype_exprs))]

    def doc(self, op: OpView) -> str:
        names = ", ".join(f"`{n}`" for n in self.operands)
        listed = "; ".join("(" + ", ".join(f"`{d}`" for d in t) + ")" for t in self.tuples)
        return with_note(f"Type tuples ({names}): {listed}", self.note)

    def listed_dtypes(self) -> list[str]:
        return list(dict.fromkeys(d for t in self.tuples for d in t))

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        m = re.match(r"Type tuples \(([\w, ]+)\): (.+?)\.?$", line.text)
        if m is None:
            return None
        operands = [n.strip() for n in m.group(1).split(",")]
        if not set(operands) <= set(page.data):
            return None
        tuples: list[list[str]] = []
        note = None
        for group in re.findall(r"\(([^()]*)\)", m.group(2)):
            items = [d.strip() for d in group.split(",")]
            if len(items) == len(operands) and all(re.fullmatch(r"\w+", d) for d in items):
                tuples.append(items)
            else:  # the parenthetical note after the table
                note = group.strip()
        if not tuples:
            return None
        found: dict[str, Any] = {"operands": operands, "tuples": tuples}
        if note:
            found["note"] = note
        return found

    def operand_dtypes(self, rv: RuleView, operand: str, values: dict[str, str]) -> list[str] | None:
        if operand not in self.operands:
            return None
        at = self.operands.index(operand)
        listed = self.listed_dtypes()
        # The view resolves the listed spellings in order (aliases to canonical names).
        canonical = (
            dict(zip(listed, rv.dtypes_cpp, strict=False)) if len(listed) == len(rv.dtypes_cpp) else {}
        )
        return list(dict.fromkeys(canonical.get(t[at], t[at]) for t in self.tuples))

    def admits(self, op: OpView, combo: dict[str, str]) -> bool:
        if not all(n in combo for n in self.operands):
            return True
        return tuple(combo[n] for n in self.operands) in self._table(op)

    def tuples_cpp(self, op: OpView) -> list[tuple[str, ...]]:
        """The table in canonical C++ spellings (the page's type table and the test plan read it)."""
        return self._table(op)

    def legalise(self, tiles: dict[str, TileDecl]) -> dict[str, TileDecl]:
        # A declaration checked against its own table (TINSERT's quantising forms) takes the table's
        # first tuple when the plan's tiles (one element type) are not in it.
        if not all(n in tiles for n in self.operands):
            return tiles
        if [tiles[n].dtype for n in self.operands] in self.tuples:
            return tiles
        return {
            **tiles,
            **{n: replace(tiles[n], dtype=d) for n, d in zip(self.operands, self.tuples[0], strict=True)},
        }

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        # Types each allowed at their position by some tuple, but not together in any.
        table = self._table(bx.op)
        columns = [list(dict.fromkeys(t[i] for t in table)) for i in range(len(self.operands))]
        # Operands of one type in the legal tiles keep one type where some combination allows it, so
        # that the case breaks no rule that ties them (`same_dtype`), only this one.
        same = [
            (a, b)
            for a, b in itertools.combinations(range(len(self.operands)), 2)
            if tiles[self.operands[a]].dtype == tiles[self.operands[b]].dtype
        ]
        combos = list(itertools.product(*columns))
        combos.sort(key=lambda c: not all(c[a] == c[b] for a, b in same))
        for combo in combos:
            if combo not in table:
                out = dict(tiles)
                for name, d in zip(self.operands, combo, strict=False):
                    out[name] = replace(out[name], dtype=d)
                return Broken(out, changed=self.operands[-1])
        raise ValueError(f"{bx.op.name} [{bx.profile}]: every combination is in the table; nothing breaks it")
