"""`template_value`: a value template argument of the intrinsic takes one of a few listed values
(TTRI's `isUpperOrLower` is 0 or 1, TGATHER's comparison `cmpMode` is `CmpMode::GT` or
`CmpMode::EQ`), always or only while some operands have one of some element types (`when_dtype`:
A2A3's TGATHER compares an `int32_t` source with `CmpMode::EQ` only). Checked by `static_assert` on
the argument (and those operands' types); the failing kernel passes a value outside the list (with
those operands of the first listed type), one that the op's other rules on the parameter allow."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field

from ..spec.fields import CppIdent, CppQualified, Name, Strict, TypeName
from .base import Problem, RuleBase, When, and_list, or_list, when_phrase, with_note
from .page import PageContext, PageLine
from .parts import Broken, Recognised, StaticBreak, TypeFilter, TypeListing, enforced_by

if TYPE_CHECKING:
    from ..rule_api import RuleBreak as BreakContext
    from ..rule_api import RuleLowering as RuleView
    from ..rule_api import RuleOp as OpView
    from ..rule_api import SpecFacts as OpSpec
    from ..rule_api import TargetFacts as Targets
    from ..rule_api import TileDecl

# "Template argument `isUpperOrLower` must be `0` or `1`." (the page's words after its subject)
_VALUE = r"`?(?:-?\d+|[A-Za-z_][\w:]*::\w+)`?"
_LINE = re.compile(
    rf"^template argument `?(?P<param>[A-Za-z_]\w*)`? must be (?P<values>{_VALUE}(?:(?:, | or ){_VALUE})*)"
    r"(?: when (?P<operands>`?\w+`?(?:(?:, | and )`?\w+`?)*)"
    r" (?:is|are) (?P<dtypes>`?\w+`?(?:(?:, | or )`?\w+`?)*))?",
    re.IGNORECASE,
)


class WhenDType(Strict):
    """The operands whose element types make the rule apply: each is one of `dtypes`."""

    operands: list[Name] = Field(min_length=1)
    dtypes: list[TypeName] = Field(min_length=1)

    def clause(self, code: bool) -> str:
        """`dst and src are int64_t or uint64_t`, as a rule's message and doc line spell it."""
        verb = "is" if len(self.operands) == 1 else "are"
        return f"{and_list(self.operands, code=code)} {verb} {or_list(self.dtypes, code=code)}"


class TemplateValueRule(RuleBase, Recognised, TypeListing, StaticBreak, TypeFilter):
    """The value template parameter `param` of every declaration is one of `values`."""

    kind: Literal["template_value"] = "template_value"
    param: CppIdent = Field(description="a value template parameter of the intrinsic")
    values: list[int] | list[CppQualified] = Field(
        min_length=1, description="the values it may take: integers, or an enum's (`CmpMode::GT`)"
    )
    when_dtype: WhenDType | None = Field(
        default=None, description="the rule applies only while these operands have one of these types"
    )
    when: When | None = Field(
        default=None,
        description="the rule applies only while another value template parameter has this value",
    )
    page_prefixes: ClassVar[tuple[str, ...]] = ("template argument ",)

    @property
    def rule_operands(self) -> list[str]:
        return list(self.when_dtype.operands) if self.when_dtype is not None else []

    def listed_dtypes(self) -> list[str]:
        return list(self.when_dtype.dtypes) if self.when_dtype is not None else []

    def check(self, spec: OpSpec, targets: Targets) -> Iterator[Problem]:
        yield from super().check(spec, targets)
        intr = spec.intrinsic
        if intr is None:
            return
        params = value_params(intr, self.forms)
        if not any(t.name == self.param for t in params):
            known = ", ".join(t.name for t in params) or "none"
            yield ("param",), f"{self.param!r} is not a value template parameter of {intr.name} ({known})"
        if len(set(self.values)) != len(self.values):
            yield ("values",), "each value is listed once"
        if self.when_dtype is not None:
            for j, d in enumerate(self.when_dtype.dtypes):
                if not targets.has_dtype(d):
                    yield ("when_dtype", "dtypes", j), f"unknown dtype {d!r}"
        if self.when is not None:
            if self.when_dtype is not None:
                yield ("when",), "a rule states `when` or `when_dtype`, not both"
            if not any(t.name == self.when.param for t in params):
                yield ("when", "param"), f"{self.when.param!r} is not a value template parameter it checks"

    def _applies(self, rv: RuleView) -> str:
        """The C++ test of `when_dtype` (every named operand has one of the types)."""
        listed = ", ".join(rv.dtypes_cpp)
        return " && ".join(f"sim::is_one_of_v<{e}, {listed}>" for e in rv.dtype_exprs)

    def condition(self, op: OpView, rv: RuleView) -> str:
        allowed = "(" + " || ".join(f"{self.param} == {v}" for v in self.values) + ")"
        applies = [self._applies(rv)] if self.when_dtype is not None else []
        if self.when is not None:
            applies.append(f"{self.when.param} == {self.when.equals}")
        if not applies:
            return allowed
        return f"(!({' && '.join(applies)}) || {allowed})"

    def _when(self, code: bool) -> str:
        if self.when is not None:  # a value condition (with no type condition, which checks reject)
            return when_phrase(self.when, code)
        return f" when {self.when_dtype.clause(code)}" if self.when_dtype is not None else ""

    def _spelled(self, code: bool) -> str:
        return or_list([str(v) for v in self.values], code=code)

    def text(self, op: OpView) -> str:
        return f"template argument {self.param} must be {self._spelled(code=False)}{self._when(code=False)}"

    def doc(self, op: OpView) -> str:
        return with_note(
            f"Template argument `{self.param}` must be {self._spelled(code=True)}{self._when(code=True)}",
            self.note,
        )

    def broken_by(self, op: OpView, rv: RuleView, combo: dict[str, str], values: dict[str, str]) -> bool:
        # Tiles alone break it only with a value outside the list that the call passes.
        if self.param not in values or values[self.param] in {str(v) for v in self.values}:
            return False
        if self.when is not None:
            return values.get(self.when.param) == str(self.when.equals)
        if self.when_dtype is None:
            return True
        return all(combo.get(n) in rv.dtypes_cpp for n in self.when_dtype.operands)

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        m = _LINE.match(line.text)
        if m is None:
            return None
        out: dict[str, Any] = {
            "param": m.group("param"),
            "values": [_value(v) for v in re.findall(_VALUE, m.group("values"))],
        }
        names = re.findall(r"\w+", (m.group("operands") or "").replace(" and ", ", "))
        if len(names) == 1 and names[0] not in page.data:  # a value template parameter, not a tile
            out["when"] = {"param": names[0], "equals": m.group("dtypes").strip("`")}
        elif names:
            out["when_dtype"] = {
                "operands": re.findall(r"\w+", m.group("operands").replace(" and ", ", ")),
                "dtypes": re.findall(r"\w+", m.group("dtypes").replace(" or ", ", ")),
            }
        note = re.search(r"\((?P<note>[^()]*)\)\.?$", line.text)
        if note:
            out["note"] = note.group("note").strip()
        return out

    def outside(self, enums: dict[str, list[str]], keep: list[str] | None = None) -> str:
        """A value the rule rejects: the least integer above the list, or the first value of the
        enum (`enums`: each enum's values) that the list leaves out, among `keep` when given (the
        values the op's other rules on the parameter allow)."""
        ints = [v for v in self.values if isinstance(v, int)]
        if ints:
            return str(max(ints) + 1)
        enum = str(self.values[0]).rpartition("::")[0]
        left = [f"{enum}::{v}" for v in enums.get(enum, []) if f"{enum}::{v}" not in self.values]
        left = [v for v in left if keep is None or v in keep] or left
        if not left:
            raise ValueError(
                f"{self.param}: every value of {enum} is allowed, so no kernel can break the rule"
            )
        return left[0]

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        # Legal tiles, one template argument outside the list; with `when_dtype`, the operands it
        # names take its first type and the value is one the op's unconditional rules allow.
        enums = {e.name: list(e.values) for e in bx.op.targets.enums} if bx is not None else {}
        keep = None
        if bx is not None and self.when_dtype is not None:
            others = [
                r
                for r in bx.op.spec.constraints
                if isinstance(r, TemplateValueRule)
                and r is not self
                and r.param == self.param
                and r.when_dtype is None
                and enforced_by(r, bx.profile)
            ]
            keep = [str(v) for v in others[0].values] if others else None
        value = self.outside(enums, keep)
        if self.when is not None:  # the condition's value, and one outside the list
            return Broken(dict(tiles), values={self.when.param: str(self.when.equals), self.param: value})
        if self.when_dtype is None:
            return Broken(dict(tiles), values={self.param: value})
        dtype = bx.rv.dtypes_cpp[0] if bx is not None else self.when_dtype.dtypes[0]
        changed = {n: replace(tiles[n], dtype=dtype) for n in self.when_dtype.operands if n in tiles}
        first = self.when_dtype.operands[0]
        return Broken({**tiles, **changed}, values={self.param: value}, changed=first)


def value_params(intr: Any, forms: list[int] | None) -> list[Any]:
    """The value template parameters of the declarations a rule checks: every one, or those `forms`
    names."""
    decls = [intr.template] + [o.template for o in intr.overloads]
    checked = decls if forms is None else [decls[k] for k in forms if k < len(decls)]
    return [t for template in checked for t in template if t.kind == "value"]


def _value(spelled: str) -> int | str:
    spelled = spelled.strip("`")
    return spelled if "::" in spelled else int(spelled)
