"""Rule kinds relating the element types of two or more operands: `same_dtype` (one shared type) and
`dtype_pairs` (a table of legal pairs, TCVT's conversions)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field

from ..errors import did_you_mean
from ..spec.fields import Name, TypeName
from .base import Problem, RuleBase, and_list, conj, pairs_line, with_note
from .page import PageContext, PageLine
from .parts import Broken, Recognised, ScalarOperands, StaticBreak, Tabulated, TypeFilter

if TYPE_CHECKING:
    from ..rule_api import RuleBreak as BreakContext
    from ..rule_api import RuleLowering as RuleView
    from ..rule_api import RuleOp as OpView
    from ..rule_api import SpecFacts as OpSpec
    from ..rule_api import TargetFacts as Targets
    from ..rule_api import TileDecl


class SameDTypeRule(RuleBase, Recognised, ScalarOperands, StaticBreak):
    """The operands share one element type (a scalar typed from a tile's DType matches it)."""

    kind: Literal["same_dtype"] = "same_dtype"
    operands: list[Name] = Field(min_length=2)
    page_prefixes: ClassVar[tuple[str, ...]] = ("scalar type",)

    def check(self, spec: OpSpec, targets: Targets) -> Iterator[Problem]:
        yield from super().check(spec, targets)
        intr = spec.intrinsic
        if intr is not None:
            # In each declaration it checks, the operands' parameters (of that declaration's scope).
            decls = [intr.params] + [o.params for o in intr.overloads]
            forms = self.forms if self.forms is not None else [0]
            scopes = [decls[k] for k in forms if k < len(decls)]
            if all(
                len({p.type or p.value_type or p.dtype_of for p in params if p.operand in self.operands}) < 2
                for params in scopes
            ):
                yield ("operands",), "operands share one template parameter, so the rule can never fail"

    def condition(self, op: OpView, rv: RuleView) -> str:
        first, *rest = rv.dtype_exprs
        return conj([f"std::is_same_v<{first}, {t}>" for t in rest])

    def text(self, op: OpView) -> str:
        return f"{and_list(self.operands, code=False)} must have the same DType"

    def doc(self, op: OpView) -> str:
        return with_note(
            f"{and_list(self.operands)} must use the same element type; a scalar typed from a tile's "
            "`DType` therefore matches the tile data type",
            self.note,
        )

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        low = line.low
        stated = "scalar type must match" in low or "must use the same element type" in low
        return {"operands": page.data} if stated and page.distinct_types else None

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        second = self.operands[1]
        if next(o.kind for o in bx.op.spec.every_operand if o.name == second) == "scalar":
            # The kernel passes a scalar of another type than the tile's.
            first = tiles[self.operands[0]].dtype
            return Broken(
                dict(tiles), scalar_types={second: "int64_t{}" if first != "int64_t" else "double{}"}
            )
        current = tiles[second].dtype
        allowed = bx.op.operand_dtypes(bx.profile, second) or bx.op.allowed_dtypes(bx.profile, None)
        other = bx.other_dtype([current], allowed)
        return Broken({**tiles, second: replace(tiles[second], dtype=other)}, changed=second)


class DTypePairsRule(RuleBase, Recognised, Tabulated, StaticBreak, TypeFilter):
    """The element types of two operands form one of a table of pairs (TCVT's conversions a
    target implements): `pairs` maps each type of the first operand to the types the second may
    have with it."""

    kind: Literal["dtype_pairs"] = "dtype_pairs"
    operands: list[Name] = Field(min_length=2, max_length=2, description="[from, to]")
    pairs: dict[TypeName, list[TypeName]] = Field(min_length=1)
    page_prefixes: ClassVar[tuple[str, ...]] = ("type pairs (",)

    def check(self, spec: OpSpec, targets: Targets) -> Iterator[Problem]:
        yield from super().check(spec, targets)
        spellings = [n for t in targets.dtypes for n in (t.name, *t.aliases)]
        for key, values in self.pairs.items():
            for j, d in [(None, key)] + list(enumerate(values)):
                if not targets.has_dtype(d):
                    where: tuple[str | int, ...] = ("pairs", key) if j is None else ("pairs", key, j)
                    yield where, f"unknown dtype {d!r}{did_you_mean(d, spellings)}"

    def tabulated_operands(self) -> tuple[str, str] | None:
        return (self.operands[0], self.operands[1])

    def _table(self, op: OpView) -> dict[str, list[str]]:
        """The pairs in canonical C++ spellings."""
        name = {
            s: op.targets.dtype(s).name for s in [*self.pairs, *(d for v in self.pairs.values() for d in v)]
        }
        return {name[s]: list(dict.fromkeys(name[d] for d in ds)) for s, ds in self.pairs.items()}

    def condition(self, op: OpView, rv: RuleView) -> str:
        a, b = rv.types
        terms = [
            f"(std::is_same_v<typename {a}::DType, {s}> && "
            f"sim::is_one_of_v<typename {b}::DType, {', '.join(ds)}>)"
            for s, ds in self._table(op).items()
        ]
        return "(" + " || ".join(terms) + ")"

    def text(self, op: OpView) -> str:
        a, b = self.operands
        return f"the element types of {a} and {b} must be one of the documented conversion pairs"

    def doc(self, op: OpView) -> str:
        return pairs_line("Type pairs", self.operands, self.pairs.items(), self.note)

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        m = re.match(r"Type pairs \((\w+) to (\w+)\): (.+?)\.?\s*(?:\((?P<note>[^()]*)\))?\.?$", line.text)
        if m is None or not {m.group(1), m.group(2)} <= set(page.data):
            return None
        pairs: dict[str, list[str]] = {}
        for part in m.group(3).split("; "):
            source, _, targets = part.partition(" to ")
            pairs[source.strip()] = [t.strip() for t in targets.split(",") if t.strip()]
        found: dict[str, Any] = {"operands": [m.group(1), m.group(2)], "pairs": pairs}
        if m.group("note"):
            found["note"] = m.group("note").strip()
        return found

    def admits(self, op: OpView, combo: dict[str, str]) -> bool:
        a, b = self.operands
        if a not in combo or b not in combo:
            return True
        return combo[b] in self._table(op).get(combo[a], [])

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        # A pair whose two types the profile's dtype rules each allow, but not together.
        a, b = self.operands
        table = self._table(bx.op)
        firsts = bx.op.operand_dtypes(bx.profile, a) or list(table)
        seconds = bx.op.operand_dtypes(bx.profile, b) or [d for ds in table.values() for d in ds]
        for s in firsts:
            for d in seconds:
                if d not in table.get(s, []):
                    out = {**tiles, a: replace(tiles[a], dtype=s), b: replace(tiles[b], dtype=d)}
                    return Broken(out, changed=b)
        raise ValueError(
            f"{bx.op.name} [{bx.profile}]: every allowed pair is in the table; nothing breaks it"
        )
