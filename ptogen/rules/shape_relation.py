"""`shape_relation`: static relations between operands' template shapes (`Rows`, `Cols`): equalities
such as a matrix product's `a.Cols == b.Rows`, and bounds such as TFILLPAD_EXPAND's
`dst.Rows >= src.Rows`. Checked by `static_assert` on the tiles' types."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

from pydantic import Field

from .base import Problem, RuleBase, When, and_list, conj, with_note
from .page import PageContext, PageLine
from .parts import Asserted, Broken, Recognised, StaticBreak, StaticCheck, TileFilter, TypeListing
from .template_value import WhenDType

if TYPE_CHECKING:
    from collections.abc import Iterator

    from ..rule_api import RuleBreak as BreakContext
    from ..rule_api import RuleLowering as RuleView
    from ..rule_api import RuleOp as OpView
    from ..rule_api import SpecFacts as OpSpec
    from ..rule_api import TargetFacts as Targets
    from ..rule_api import TileDecl

# `a.Cols == b.Rows`: an operand's template extent equal to another's, or to a count (`bias.Rows == 1`);
# the other side may be a sum of extents (TMRGSORT's `tmp.Cols >= src0.Cols + src1.Cols`).
_TERM = r"[a-z][a-z0-9_]*\.(?:Rows|Cols)"
_RELATION = rf"([a-z][a-z0-9_]*)\.(Rows|Cols) (==|>=|<=) (?:({_TERM}(?: \+ {_TERM})*)|([1-9][0-9]{{0,4}}))"
Relation = Annotated[str, Field(pattern=rf"^{_RELATION}$")]

# Boxed (cube) tiles grow by whole boxes: a broken shape adds this many rows or columns.
_STEP = 16


def _split(relation: str) -> tuple[str, str, str, str]:
    """(operand, extent, other operand, its extent); a count is ("", count); of a sum, its first term."""
    m = re.fullmatch(_RELATION, relation)
    assert m is not None  # the field's pattern
    if m.group(5) is not None:
        return m.group(1), m.group(2), "", m.group(5)
    b, eb = _terms(relation)[0]
    return m.group(1), m.group(2), b, eb


def _terms(relation: str) -> list[tuple[str, str]]:
    """The (operand, extent) terms of the relation's other side (none for a count)."""
    m = re.fullmatch(_RELATION, relation)
    assert m is not None  # the field's pattern
    if m.group(4) is None:
        return []
    return [(t.split(".")[0], t.split(".")[1]) for t in m.group(4).split(" + ")]


def _comparison(relation: str) -> str:
    m = re.fullmatch(_RELATION, relation)
    assert m is not None  # the field's pattern
    return m.group(3)


def _extent(tiles: dict[str, TileDecl], name: str, which: str) -> int:
    return tiles[name].rows if which == "Rows" else tiles[name].cols


class ShapeRelationRule(RuleBase, Recognised, TypeListing, StaticBreak, TileFilter, Asserted):
    """Each relation states that one operand's template `Rows` or `Cols` equals another's (or a
    count), or is at least (`>=`) or at most (`<=`) it."""

    kind: Literal["shape_relation"] = "shape_relation"
    relations: list[Relation] = Field(min_length=1, description="e.g. `a.Cols == b.Rows`")
    when_dtype: WhenDType | None = Field(
        default=None, description="the relations bind only while these operands have one of these types"
    )
    when: When | None = Field(
        default=None, description="the relations bind only while a value template parameter has this value"
    )
    page_prefixes: ClassVar[tuple[str, ...]] = ("static shapes:",)

    @property
    def rule_operands(self) -> list[str]:
        names: list[str] = []
        for r in self.relations:
            a = _split(r)[0]
            names += [n for n in (a, *(b for b, _ in _terms(r))) if n not in names]
        if self.when_dtype is not None:
            names += [n for n in self.when_dtype.operands if n not in names]
        return names

    def listed_dtypes(self) -> list[str]:
        return list(self.when_dtype.dtypes) if self.when_dtype is not None else []

    def check(self, spec: OpSpec, targets: Targets) -> Iterator[Problem]:
        yield from super().check(spec, targets)
        if self.when_dtype is not None:
            for j, d in enumerate(self.when_dtype.dtypes):
                if not targets.has_dtype(d):
                    yield ("when_dtype", "dtypes", j), f"unknown dtype {d!r}"
        if self.when is not None and spec.intrinsic is not None:
            values = [t.name for t in spec.intrinsic.template if t.kind == "value"]
            if self.when.param not in values:
                yield ("when", "param"), f"{self.when.param!r} is not a value template parameter"

    def _sides(self, rv: RuleView, relation: str) -> tuple[str, str]:
        """The relation's two sides in C++, over the check function's tile types."""
        types = dict(zip(self.rule_operands, rv.types, strict=False))
        a, ea, b, eb = _split(relation)
        other = " + ".join(f"{types[t]}::{e}" for t, e in _terms(relation)) if b else eb
        return f"{types[a]}::{ea}", other

    def condition(self, op: OpView, rv: RuleView) -> str:
        return self._guarded(rv, self.relations)

    def _guarded(self, rv: RuleView, relations: list[str]) -> str:
        """The relations holding, or not applying (`when_dtype`, `when`)."""
        types = dict(zip(self.rule_operands, rv.types, strict=False))
        parts = []
        for r in relations:
            lhs, rhs = self._sides(rv, r)
            parts.append(f"{lhs} {_comparison(r)} {rhs}")
        holds = "(" + conj(parts) + ")"
        applies = []
        if self.when_dtype is not None:
            listed = ", ".join(rv.dtypes_cpp)
            applies += [
                f"sim::is_one_of_v<typename {types[n]}::DType, {listed}>" for n in self.when_dtype.operands
            ]
        if self.when is not None:
            applies.append(f"{self.when.param} == {self.when.equals}")
        return f"(!({' && '.join(applies)}) || {holds})" if applies else holds

    def _when_text(self, code: bool) -> str:
        """` when src is uint32_t and byte is HistByte::BYTE_0`: the conditions, as read back."""
        parts = [w.clause(code) for w in (self.when_dtype, self.when) if w is not None]
        return " when " + " and ".join(parts) if parts else ""

    def text(self, op: OpView) -> str:
        relations = and_list(list(self.relations), code=False)
        return f"template shapes must satisfy {relations}{self._when_text(False)}"

    def static_checks(self, op: OpView, rv: RuleView) -> list[StaticCheck]:
        # One check per relation, so that the message names the one that failed and the compiler's
        # note its two sides' values.
        return [
            StaticCheck(
                f"_{k}" if len(self.relations) > 1 else "",
                self._guarded(rv, [r]),
                self._relation_text(r),
                values=self._sides(rv, r),
            )
            for k, r in enumerate(self.relations)
        ]

    def _relation_text(self, relation: str) -> str:
        return f"template shapes must satisfy {relation}{self._when_text(False)}"

    def broken_texts(self, tiles: dict[str, TileDecl]) -> list[str] | None:
        named = {n for r in self.relations for n in (_split(r)[0], *(t for t, _ in _terms(r)))}
        if not named <= set(tiles):
            return None
        broken = []
        for r in self.relations:
            a, ea, b, eb = _split(r)
            lhs = _extent(tiles, a, ea)
            rhs = sum(_extent(tiles, t, e) for t, e in _terms(r)) if b else int(eb)
            holds = {"==": lhs == rhs, ">=": lhs >= rhs, "<=": lhs <= rhs}[_comparison(r)]
            if not holds:
                broken.append(self._relation_text(r))
        return broken or None

    def doc(self, op: OpView) -> str:
        return with_note(
            f"Static shapes: {and_list(list(self.relations))}{self._when_text(True)}", self.note
        )

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        if not line.low.startswith("static shapes:"):
            return None
        head, _, cond = line.text.partition(" when ")
        found = [m.group(0) for m in re.finditer(_RELATION, head)]
        if not found or any({_split(r)[0], *(t for t, _ in _terms(r))} - set(page.data) for r in found):
            return None
        out: dict[str, Any] = {"relations": found}
        m = re.match(
            r"(?P<operands>\w+(?:(?:, | and )\w+)*) (?:is|are) (?P<dtypes>\w+(?:(?:, | or )\w+)*)"
            r"(?: and (?P<param>\w+) is (?P<value>[\w:]+))?",
            cond,
        )
        if cond and m is None:
            return None
        if m is not None:
            out["when_dtype"] = {
                "operands": re.findall(r"\w+", m.group("operands").replace(" and ", ", ")),
                "dtypes": re.findall(r"\w+", m.group("dtypes").replace(" or ", ", ")),
            }
            if m.group("param"):
                out["when"] = {"param": m.group("param"), "equals": m.group("value")}
        note = re.search(r"\((?P<note>[^()]*)\)\.?$", line.text)
        if note:
            out["note"] = note.group("note").strip()
        return out

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        if self.when_dtype is not None or self.when is not None:
            return self._break_when(bx, tiles)
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
        terms = _terms(self.relations[0])

        def extent(name: str, which: str) -> int:
            return _extent(tiles, name, which)

        def resized(name: str, which: str, size: int) -> Broken:
            t = tiles[name]
            if which == "Rows":
                fit = replace(t, rows=size, valid_rows=min(t.valid_rows, size))
            else:
                fit = replace(t, cols=size, valid_cols=min(t.valid_cols, size))
            return Broken({**tiles, name: fit}, changed=name)

        if _comparison(self.relations[0]) == ">=":
            if b:  # the other side's first term grows until the sum passes `a` by a box
                rest = sum(extent(t, e) for t, e in terms[1:])
                return resized(b, eb, max(1, extent(a, ea) - rest) + _STEP)
            return resized(a, ea, max(1, int(eb) - 1))
        return resized(a, ea, (extent(b, eb) if b else int(eb)) + _STEP)

    def legalise(self, tiles: dict[str, TileDecl]) -> dict[str, TileDecl]:
        # A lower bound by a sum of extents (a scratch tile of the lists' summed columns) holds once
        # the bounded tile spans the sum; the plan's other shapes already keep the other relations.
        out = dict(tiles)
        for r in self.relations:
            a, ea, _, _ = _split(r)
            terms = _terms(r)
            named = a in out and all(t in out for t, _ in terms)
            if _comparison(r) != ">=" or len(terms) < 2 or not named:
                continue
            want = sum(_extent(out, t, e) for t, e in terms)
            if _extent(out, a, ea) < want:
                out[a] = replace(out[a], rows=want) if ea == "Rows" else replace(out[a], cols=want)
        return out

    def _break_when(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        # Meet the conditions (the first listed type, the stated value), make the equalities hold on
        # those tiles, then break the first relation as an unconditional rule would.
        out = dict(tiles)
        if self.when_dtype is not None:
            for n in self.when_dtype.operands:
                out[n] = replace(out[n], dtype=self.when_dtype.dtypes[0])
        for _ in range(2):  # a side the Tile type rounds up is matched back on the other side
            for r in self.relations:
                a, ea, b, eb = _split(r)
                if _comparison(r) != "==":
                    continue
                want = _extent(out, b, eb) if b else int(eb)
                out[a] = _resized(out[a], ea, want)
                if b and _extent(out, a, ea) != want:
                    out[b] = _resized(out[b], eb, _extent(out, a, ea))
        plain = ShapeRelationRule(relations=self.relations)
        broken = plain.break_static(bx, out)
        values = {self.when.param: str(self.when.equals)} if self.when is not None else {}
        return replace(broken, values=values)


def _resized(t: TileDecl, which: str, size: int) -> TileDecl:
    """`t` with `size` rows or columns, its valid extent kept within them."""
    if which == "Rows":
        return replace(t, rows=size, valid_rows=min(t.valid_rows, size))
    return replace(t, cols=size, valid_cols=min(t.valid_cols, size))
