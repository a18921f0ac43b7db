"""Rule kind `dtype`: the element type of some operands is one of a documented list (optionally
only when a template value is set); the list most ops state per profile, through the spec's `dtypes:`
shorthand."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field

from ..errors import did_you_mean
from ..spec.fields import Name, TypeName
from .base import Problem, RuleBase, When, and_list, conj, kind_name, with_note
from .page import PageContext
from .parts import (
    Broken,
    Conditional,
    Recognised,
    Shorthand,
    StaticBreak,
    TileFilter,
    TypeFilter,
    TypeListing,
    VectorOps,
    applies_under,
)

if TYPE_CHECKING:
    from ..rule_api import RuleBreak as BreakContext
    from ..rule_api import RuleLowering as RuleView
    from ..rule_api import RuleOp as OpView
    from ..rule_api import SpecFacts as OpSpec
    from ..rule_api import TargetFacts as Targets
    from ..rule_api import TileDecl


class DTypeRule(
    RuleBase, Recognised, Shorthand, VectorOps, Conditional, TypeListing, StaticBreak, TypeFilter, TileFilter
):
    """The element type of the operands is one of a list (optionally when a template value is set)."""

    kind: Literal["dtype"] = "dtype"
    operands: list[Name] = Field(min_length=1)
    dtypes: list[TypeName] = Field(min_length=1, description="allowed spellings as documented")
    when: When | None = None
    page_prefixes: ClassVar[tuple[str, ...]] = ()
    shorthand: ClassVar[str] = "dtypes"

    @classmethod
    def from_shorthand(cls, profiles: list[str], operands: list[str], value: Any) -> dict[str, Any]:
        rule: dict[str, Any] = {"kind": "dtype"}
        if profiles:
            rule["profiles"] = profiles
        return {**rule, "operands": operands, "dtypes": value}

    @classmethod
    def to_shorthand(cls, rule: dict[str, Any], operands: list[str]) -> Any | None:
        plain = set(rule) <= {"kind", "profiles", "operands", "dtypes"} and rule.get("operands") == operands
        return (
            rule["dtypes"]
            if rule.get("kind") == "dtype" and plain and isinstance(rule.get("dtypes"), list)
            else None
        )

    def check(self, spec: OpSpec, targets: Targets) -> Iterator[Problem]:
        yield from super().check(spec, targets)
        for j, d in enumerate(self.dtypes):
            if not targets.has_dtype(d):
                spellings = [n for t in targets.dtypes for n in (t.name, *t.aliases)]
                yield ("dtypes", j), f"unknown dtype {d!r}{did_you_mean(d, spellings)}"
        if self.when is not None:
            values = {t.name: t for t in spec.intrinsic.template} if spec.intrinsic else {}
            t = values.get(self.when.param)
            if t is None or t.kind != "value":
                yield ("when", "param"), f"{self.when.param!r} is not a value template parameter"

    def condition(self, op: OpView, rv: RuleView) -> str:
        allowed = ", ".join(rv.dtypes_cpp)
        test = conj([f"sim::is_one_of_v<typename {t}::DType, {allowed}>" for t in rv.types])
        if self.when:
            return f"!({self.when.param} == {self.when.equals}) || ({test})"
        return test

    def text(self, op: OpView) -> str:
        when = f"with {self.when.param} == {self.when.equals}, " if self.when else ""
        return f"{when}DType must be one of: {', '.join(self.dtypes)}"

    def doc(self, op: OpView) -> str:
        if op.kind.lanes:
            listed = ", ".join(f"`{d}`" for d in op.rule_view(self).dtypes_asm)
            return with_note(f"Element type `T` must be one of: {listed}", self.note)
        when = f"With `{self.when.param} == {self.when.equals}`, " if self.when else ""
        subject = (
            "`TileData::DType`"
            if op.covers_data_tiles(self.operands) and self.forms is None
            else "The element type of " + and_list(self.operands)
        )
        listed = ", ".join(f"`{d}`" for d in self.dtypes)
        return with_note(f"{when}{subject} must be one of: {listed}", self.note)

    def vacuous(self, op: OpView, rv: RuleView) -> bool:
        return len(rv.dtypes_cpp) == len(op.targets.dtypes)

    def listed_dtypes(self) -> list[str]:
        return list(self.dtypes)

    def when_values(self) -> dict[str, str]:
        return {self.when.param: self.when.equals} if self.when else {}

    def operand_dtypes(self, rv: RuleView, operand: str, values: dict[str, str]) -> list[str] | None:
        if operand not in self.operands or not applies_under(self, values):
            return None
        return list(rv.dtypes_cpp)

    def broken_by(self, op: OpView, rv: RuleView, combo: dict[str, str], values: dict[str, str]) -> bool:
        if not applies_under(self, values):
            return False
        return any(n in combo and combo[n] not in rv.dtypes_cpp for n in self.operands)

    @classmethod
    def from_page(cls, page: PageContext) -> list[dict[str, Any]]:
        """The rules the page's type lists state (not its constraint lines)."""
        out: list[dict[str, Any]] = []
        keys = [t.key for t in page.type_lists if t.named is None]
        for t in page.type_lists:
            key, named = t.key, t.named
            profile, _, cond = key.partition("/") if "/" in key else (key, "", "")
            if profile == "common":  # a list for every profile: of some operands, or of the data tiles
                profile = key = "forms" if named is not None else "every"
            if profile not in page.profiles and not key.startswith(("forms", "every")) and "::" not in key:
                page.unplaced.append(f"dtype list under {key!r}: {', '.join(t.values)}")
                continue
            names = t.names
            if any(n is None for n in names):
                page.unplaced.append(f"unknown element types in {key}: {', '.join(t.values)}")
            known = [n for n in names if n is not None]
            if not known:
                continue
            rule: dict[str, Any] = {"kind": kind_name(cls)}
            if profile in page.profiles:
                rule["profiles"] = [profile]
            when = cond or (key if "::" in key else "")
            if when:
                rule["when"] = {"param": "PrecisionType", "equals": when}
            copied = any("/" in k and k.endswith(key) for k in keys)
            if profile not in page.profiles and "::" in key and copied:
                continue  # the per-profile copies carry this list
            if named is not None and not named:
                continue
            rule["operands"] = page.data if named is None else named
            rule["dtypes"] = known
            if t.note:
                rule["note"] = t.note
            if t.forms is not None:
                rule["forms"] = t.forms
            out.append(rule)
        return out

    def legalise(self, tiles: dict[str, TileDecl]) -> dict[str, TileDecl]:
        # A list limited to some declarations (TGATHER's comparison form: an `int32_t` dst) may
        # exclude the main form's types, which the plan's tiles for that form start from.
        if self.forms is None:
            return tiles
        return {
            n: replace(t, dtype=self.dtypes[0]) if n in self.operands and t.dtype not in self.dtypes else t
            for n, t in tiles.items()
        }

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        # int32_t first: the classic illegal use of a float-only op (TLRELU on int32_t under A5).
        bad = bx.other_dtype(
            bx.rv.dtypes_cpp,
            ["int32_t", "int16_t", "int8_t", "uint32_t", "uint8_t", "float", "half", "bfloat16_t"],
        )
        follow = bx.follow_compute(self.operands)
        out = {n: (replace(t, dtype=bad) if n in follow else t) for n, t in tiles.items()}
        return Broken(out, changed=self.operands[0])
