"""`shape_relation`: static relations between operands' template shapes (`Rows`, `Cols`): equalities
such as a matrix product's `a.Cols == b.Rows`, and bounds such as TFILLPAD_EXPAND's
`dst.Rows >= src.Rows`. Checked by `static_assert` on the tiles' types."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

from pydantic import Field

from .base import Broken, PageContext, PageLine, RuleBase, _with_note, and_list, conj

if TYPE_CHECKING:
    from ..rule_api import RuleBreak as BreakContext
    from ..rule_api import RuleLowering as RuleView
    from ..rule_api import RuleOp as OpView
    from ..rule_api import TileDecl

# `a.Cols == b.Rows`: an operand's template extent equal to another's, or to a count (`bias.Rows == 1`).
_RELATION = r"([a-z][a-z0-9_]*)\.(Rows|Cols) (==|>=|<=) (?:([a-z][a-z0-9_]*)\.(Rows|Cols)|([1-9][0-9]{0,4}))"
Relation = Annotated[str, Field(pattern=rf"^{_RELATION}$")]

# Boxed (cube) tiles grow by whole boxes: a broken shape adds this many rows or columns.
_STEP = 16


def _split(relation: str) -> tuple[str, str, str, str]:
    """(operand, extent, other operand, its extent); a count is ("", count)."""
    m = re.fullmatch(_RELATION, relation)
    assert m is not None  # the field's pattern
    if m.group(6) is not None:
        return m.group(1), m.group(2), "", m.group(6)
    return m.group(1), m.group(2), m.group(4), m.group(5)


def _comparison(relation: str) -> str:
    m = re.fullmatch(_RELATION, relation)
    assert m is not None  # the field's pattern
    return m.group(3)


class ShapeRelationRule(RuleBase):
    """Each relation states that one operand's template `Rows` or `Cols` equals another's (or a
    count), or is at least (`>=`) or at most (`<=`) it."""

    kind: Literal["shape_relation"] = "shape_relation"
    relations: list[Relation] = Field(min_length=1, description="e.g. `a.Cols == b.Rows`")
    page_prefixes: ClassVar[tuple[str, ...]] = ("static shapes:",)

    @property
    def rule_operands(self) -> list[str]:
        names: list[str] = []
        for r in self.relations:
            a, _, b, _ = _split(r)
            names += [n for n in (a, b) if n and n not in names]
        return names

    def condition(self, op: OpView, rv: RuleView) -> str:
        types = dict(zip(self.rule_operands, rv.types, strict=False))
        parts = []
        for r in self.relations:
            a, ea, b, eb = _split(r)
            parts.append(f"{types[a]}::{ea} {_comparison(r)} " + (f"{types[b]}::{eb}" if b else eb))
        return "(" + conj(parts) + ")"

    def text(self, op: OpView) -> str:
        return f"template shapes must satisfy {and_list(list(self.relations), code=False)}"

    def doc(self, op: OpView) -> str:
        return _with_note(f"Static shapes: {and_list(list(self.relations))}", self.note)

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        if not line.low.startswith("static shapes:"):
            return None
        found = [m.group(0) for m in re.finditer(_RELATION, line.text)]
        if not found or any({_split(r)[0], _split(r)[2]} - set(page.data) - {""} for r in found):
            return None
        out: dict[str, Any] = {"relations": found}
        note = re.search(r"\((?P<note>[^()]*)\)\.?$", line.text)
        if note:
            out["note"] = note.group("note").strip()
        return out

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        if _comparison(self.relations[0]) != "==":
            return self._break_bound(tiles)
        # Grow one side of the first relation by a box, picking a side no other relation names, so
        # that only this relation (of this rule) fails.
        sides = [(a, ea) for r in self.relations for a, ea, _, _ in [_split(r)]]
        sides += [(b, eb) for r in self.relations for _, _, b, eb in [_split(r)] if b]
        a, ea, b, eb = _split(self.relations[0])
        for name, extent in ((b, eb), (a, ea)):
            if name and sides.count((name, extent)) == 1:
                break
        t = tiles[name]
        grown = replace(t, rows=t.rows + _STEP) if extent == "Rows" else replace(t, cols=t.cols + _STEP)
        return Broken({**tiles, name: grown}, changed=name)

    def _break_bound(self, tiles: dict[str, TileDecl]) -> Broken:
        # A bound fails when its smaller side ends a box beyond the larger one: `a >= b` grows `b`
        # past `a` (or shrinks `a` below a count), `a <= b` grows `a` past `b` (or past a count).
        a, ea, b, eb = _split(self.relations[0])

        def extent(name: str, which: str) -> int:
            return tiles[name].rows if which == "Rows" else tiles[name].cols

        def resized(name: str, which: str, size: int) -> Broken:
            t = tiles[name]
            if which == "Rows":
                fit = replace(t, rows=size, valid_rows=min(t.valid_rows, size))
            else:
                fit = replace(t, cols=size, valid_cols=min(t.valid_cols, size))
            return Broken({**tiles, name: fit}, changed=name)

        if _comparison(self.relations[0]) == ">=":
            if b:
                return resized(b, eb, extent(a, ea) + _STEP)
            return resized(a, ea, max(1, int(eb) - 1))
        return resized(a, ea, (extent(b, eb) if b else int(eb)) + _STEP)
