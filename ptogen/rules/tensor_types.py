"""Rule kinds over the element types and layouts of GlobalTensors, and of the tensors a parallel group
holds, beside the tiles an op stages them through (the communication ops):
- `tensor_dtype`: a tensor's element type is one of a list (a signal is `int32_t`);
- `same_tensor_dtype`: tensors, groups and tiles have one element type;
- `same_tensor_layout`: tensors and groups have one `Layout`.
A parallel group (a `context` operand) stands for its tensors: the runtime's `ParallelGroup` names
their `DType` and `layout`. The failing kernel changes one operand's element type or layout; a kind
that declares tensors and groups hands them to `break_static` as stand-in tiles of their element type
and reads the changed type back."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field

from ..errors import did_you_mean
from ..spec.fields import Name, TypeName
from .base import Problem, RuleBase, and_list, conj, or_list, with_note
from .page import PageContext, PageLine
from .parts import Broken, Recognised, StaticBreak

if TYPE_CHECKING:
    from ..rule_api import RuleBreak as BreakContext
    from ..rule_api import RuleLowering as RuleView
    from ..rule_api import RuleOp as OpView
    from ..rule_api import SpecFacts as OpSpec
    from ..rule_api import TargetFacts as Targets
    from ..rule_api import TileDecl

_NAMES = r"(?P<operands>\w+(?:(?:, | and )\w+)*)"
_NOTE = r"(?: \((?P<note>[^()]*)\))?\.?$"


def _names(text: str) -> list[str]:
    """`a, b and c` (or `a, b or c`) as a list."""
    return [n for n in re.split(r", | and | or ", text) if n]


def _operand_kinds(rule: RuleBase, spec: OpSpec, kinds: tuple[str, ...]) -> Iterator[Problem]:
    """The rule's operands exist and are of `kinds`."""
    found = {o.name: o.kind for o in spec.operands}
    for j, name in enumerate(rule.rule_operands):
        if found.get(name) not in kinds:
            what = " or ".join(
                {"global": "GlobalTensor", "context": "parallel group", "tile": "tile"}[k] for k in kinds
            )
            yield ("operands", j), f"{name!r} is not a {what} operand of this op"
    if spec.intrinsic is None:
        yield ("kind",), f"{rule.kind} rules apply to intrinsics only"


def _retyped(bx: BreakContext, tiles: dict[str, TileDecl], name: str, avoid: list[str]) -> Broken:
    """The stand-ins with `name` of an element type outside `avoid`."""
    other = bx.other_dtype(avoid, [])
    return Broken({**tiles, name: replace(tiles[name], dtype=other)}, changed=name)


class TensorDTypeRule(RuleBase, Recognised, StaticBreak):
    """The element type of each named tensor (or group) is one of `dtypes`."""

    kind: Literal["tensor_dtype"] = "tensor_dtype"
    operands: list[Name] = Field(min_length=1)
    dtypes: list[TypeName] = Field(min_length=1)
    page_prefixes: ClassVar[tuple[str, ...]] = ("the element type of ",)

    def check(self, spec: OpSpec, targets: Targets) -> Iterator[Problem]:
        yield from _operand_kinds(self, spec, ("global", "context"))
        spellings = [n for t in targets.dtypes for n in (t.name, *t.aliases)]
        for j, d in enumerate(self.dtypes):
            if not targets.has_dtype(d):
                yield ("dtypes", j), f"unknown dtype {d!r}{did_you_mean(d, spellings)}"

    def _cpp(self, op: OpView) -> list[str]:
        return list(dict.fromkeys(op.targets.dtype(d).name for d in self.dtypes))

    def condition(self, op: OpView, rv: RuleView) -> str:
        listed = ", ".join(self._cpp(op))
        return conj([f"sim::is_one_of_v<std::remove_cv_t<{e}>, {listed}>" for e in rv.dtype_exprs])

    def text(self, op: OpView) -> str:
        names, types = and_list(self.operands, code=False), or_list(self.dtypes, code=False)
        return f"the element type of {names} must be {types}"

    def doc(self, op: OpView) -> str:
        return with_note(
            f"The element type of {and_list(self.operands)} must be {or_list(self.dtypes)}", self.note
        )

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        m = re.match(
            rf"^The element type of {_NAMES} must be (?P<dtypes>\w+(?:(?:, | or )\w+)*){_NOTE}", line.text
        )
        if m is None:
            return None
        found: dict[str, Any] = {"operands": _names(m["operands"]), "dtypes": _names(m["dtypes"])}
        return found | ({"note": m["note"]} if m["note"] else {})

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        return _retyped(bx, tiles, self.operands[0], self._cpp(bx.op))


class SameTensorDTypeRule(RuleBase, Recognised, StaticBreak):
    """The named tensors, groups and tiles have one element type."""

    kind: Literal["same_tensor_dtype"] = "same_tensor_dtype"
    operands: list[Name] = Field(min_length=2)
    page_prefixes: ClassVar[tuple[str, ...]] = ("the element types of ",)

    def check(self, spec: OpSpec, targets: Targets) -> Iterator[Problem]:
        yield from _operand_kinds(self, spec, ("global", "context", "tile"))
        kinds = {o.name: o.kind for o in spec.operands}
        if all(kinds.get(n) == "tile" for n in self.operands):
            yield ("kind",), "the operands are all tiles: a same_dtype rule states that"

    def condition(self, op: OpView, rv: RuleView) -> str:
        first, *rest = rv.dtype_exprs
        return conj([f"std::is_same_v<{first}, {t}>" for t in rest])

    def text(self, op: OpView) -> str:
        return f"the element types of {and_list(self.operands, code=False)} must be the same"

    def doc(self, op: OpView) -> str:
        return with_note(f"The element types of {and_list(self.operands)} must be the same", self.note)

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        m = re.match(rf"^The element types of {_NAMES} must be the same{_NOTE}", line.text)
        if m is None:
            return None
        return {"operands": _names(m["operands"])} | ({"note": m["note"]} if m["note"] else {})

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        return _retyped(bx, tiles, self.operands[1], [tiles[self.operands[0]].dtype])


class SameTensorLayoutRule(RuleBase, Recognised, StaticBreak):
    """The named tensors and groups have one `Layout`."""

    kind: Literal["same_tensor_layout"] = "same_tensor_layout"
    operands: list[Name] = Field(min_length=2)
    page_prefixes: ClassVar[tuple[str, ...]] = ("the layouts (layout) of ",)

    def check(self, spec: OpSpec, targets: Targets) -> Iterator[Problem]:
        yield from _operand_kinds(self, spec, ("global", "context"))

    def condition(self, op: OpView, rv: RuleView) -> str:
        first, *rest = rv.types
        return conj([f"{first}::layout == {t}::layout" for t in rest])

    def text(self, op: OpView) -> str:
        return f"the layouts of {and_list(self.operands, code=False)} must be the same"

    def doc(self, op: OpView) -> str:
        return with_note(f"The layouts (`Layout`) of {and_list(self.operands)} must be the same", self.note)

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        m = re.match(rf"^The layouts \(Layout\) of {_NAMES} must be the same{_NOTE}", line.text)
        if m is None:
            return None
        return {"operands": _names(m["operands"])} | ({"note": m["note"]} if m["note"] else {})

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        # The tests' tensors are ND: a DN one breaks the rule alone.
        return Broken(dict(tiles), global_layouts={self.operands[1]: "DN"})
