"""The rule kinds of the element-wise ISA (dtype lists and pairs, locations, layouts, shapes,
values, storage, placement, events, pipelines)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

from pydantic import Field

from ..errors import did_you_mean
from ..spec.fields import CppIdent, Name, TileLocation, TypeName

if TYPE_CHECKING:
    from ..rule_api import RuleBreak as BreakContext
    from ..rule_api import RuleLowering as RuleView
    from ..rule_api import RuleOp as OpView
    from ..rule_api import SpecFacts as OpSpec
    from ..rule_api import TargetFacts as Targets
    from ..rule_api import TileDecl

from .base import (
    Broken,
    PageContext,
    PageLine,
    Problem,
    RuleBase,
    When,
    _with_note,
    and_list,
    conj,
    free_location,
    kind_name,
    or_list,
)


class DTypeRule(RuleBase):
    """The element type of the operands is one of a list (optionally when a template value is set)."""

    kind: Literal["dtype"] = "dtype"
    operands: list[Name] = Field(min_length=1)
    dtypes: list[TypeName] = Field(min_length=1, description="allowed spellings as documented")
    when: When | None = None
    tile_intrinsic_only: ClassVar[bool] = False
    page_prefixes: ClassVar[tuple[str, ...]] = ()
    shorthand: ClassVar[str | None] = "dtypes"

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
            return _with_note(f"Element type `T` must be one of: {listed}", self.note)
        when = f"With `{self.when.param} == {self.when.equals}`, " if self.when else ""
        subject = (
            "`TileData::DType`"
            if op.covers_data_tiles(self.operands) and self.forms is None
            else "The element type of " + and_list(self.operands)
        )
        listed = ", ".join(f"`{d}`" for d in self.dtypes)
        return _with_note(f"{when}{subject} must be one of: {listed}", self.note)

    def vacuous(self, op: OpView, rv: RuleView) -> bool:
        return len(rv.dtypes_cpp) == len(op.targets.dtypes)

    def listed_dtypes(self) -> list[str]:
        return list(self.dtypes)

    def when_values(self) -> dict[str, str]:
        return {self.when.param: self.when.equals} if self.when else {}

    def operand_dtypes(self, rv: RuleView, operand: str, values: dict[str, str]) -> list[str] | None:
        if operand not in self.operands or not self.applies_under(values):
            return None
        return list(rv.dtypes_cpp)

    def broken_by(self, op: OpView, rv: RuleView, combo: dict[str, str], values: dict[str, str]) -> bool:
        if not self.applies_under(values):
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
            if named is not None and profile == "common":
                profile = key = "forms"  # a list of some operands, for every profile
            if profile not in page.profiles and not key.startswith(("forms",)) and "::" not in key:
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


class RowMajorRule(RuleBase):
    """The operands' tile layout is row-major."""

    kind: Literal["row_major"] = "row_major"
    operands: list[Name] = Field(min_length=1)
    page_prefixes: ClassVar[tuple[str, ...]] = ("tile layout",)

    def admits_layout(self, layout: str) -> bool:
        return layout == "RowMajor"

    def placement(self) -> tuple[str, str] | None:
        return ("Layout", "row-major")

    def condition(self, op: OpView, rv: RuleView) -> str:
        return conj([f"{t}::isRowMajor" for t in rv.types])

    def text(self, op: OpView) -> str:
        return "tile layout must be row-major"

    def doc(self, op: OpView) -> str:
        return _with_note("Tile layout must be row-major (`TileData::isRowMajor`)", self.note)

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        return {"operands": page.data} if line.low.startswith("tile layout must be row-major") else None

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        first = self.operands[0]
        tile = tiles[first]
        # A one-row tile (a bias) cannot be plain column-major (its column would be under 32 bytes,
        # which the Tile type refuses): it breaks the rule as column-major boxes instead.
        broken = (
            replace(tile, layout="ColMajor", slayout="RowMajor")
            if tile.rows == 1
            else replace(tile, layout="ColMajor")
        )
        return Broken({**tiles, first: broken}, changed=first)


Location = Literal["Vec", "Mat", "Left", "Right", "Acc", "Bias"]


class LocationRule(RuleBase):
    """The operands live in one tile location (TileType)."""

    kind: Literal["location"] = "location"
    operands: list[Name] = Field(min_length=1)
    location: Location
    page_prefixes: ClassVar[tuple[str, ...]] = ("tile location",)

    def placement(self) -> tuple[str, str] | None:
        return ("Location", self.location)

    def condition(self, op: OpView, rv: RuleView) -> str:
        return conj([f"{t}::Loc == TileType::{self.location}" for t in rv.types])

    def text(self, op: OpView) -> str:
        return f"tile location must be TileType::{self.location}"

    def doc(self, op: OpView) -> str:
        where = "vector" if self.location == "Vec" else f"`{self.location}`"
        return _with_note(
            f"Tile location must be {where} (`TileData::Loc == TileType::{self.location}`)", self.note
        )

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        m = re.match(r"Tile location must be (?:vector|\w+) \(TileData::Loc == TileType::(\w+)\)", line.text)
        if m is None:
            return None
        found: dict[str, Any] = {"operands": page.data, "location": m.group(1)}
        note = re.match(r".*?\)\s*\((?P<note>.*)\)\.?$", line.text)
        if note:
            found["note"] = note.group("note")
        return found

    def legalise(self, tiles: dict[str, TileDecl]) -> dict[str, TileDecl]:
        return {n: replace(t, loc=self.location) if n in self.operands else t for n, t in tiles.items()}

    def admits_location(self, operand: str, location: str) -> bool:
        return self.form_scoped or operand not in self.operands or location == self.location

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        first = self.operands[0]
        other = free_location(bx, self, first, [self.location])
        return Broken({**tiles, first: replace(tiles[first], loc=other)}, changed=first)


class ValidBoundsRule(RuleBase):
    """The static valid region fits in the tile."""

    kind: Literal["valid_bounds"] = "valid_bounds"
    operands: list[Name] = Field(min_length=1)
    page_prefixes: ClassVar[tuple[str, ...]] = ("static valid",)

    def condition(self, op: OpView, rv: RuleView) -> str:
        return conj([f"{t}::ValidRow <= {t}::Rows && {t}::ValidCol <= {t}::Cols" for t in rv.types])

    def text(self, op: OpView) -> str:
        return "static valid bounds: ValidRow <= Rows and ValidCol <= Cols"

    def doc(self, op: OpView) -> str:
        return _with_note(
            "Static valid bounds: `TileData::ValidRow <= TileData::Rows` and "
            "`TileData::ValidCol <= TileData::Cols`",
            self.note,
        )

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        return {"operands": page.data} if line.low.startswith("static valid bounds") else None

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        first = self.operands[0]
        t = tiles[first]
        return Broken({**tiles, first: replace(t, valid_rows=t.rows + 1)}, changed=first)


class SameDTypeRule(RuleBase):
    """The operands share one element type (a scalar typed from a tile's DType matches it)."""

    kind: Literal["same_dtype"] = "same_dtype"
    operands: list[Name] = Field(min_length=2)
    scalar_operands: ClassVar[bool] = True
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
        return _with_note(
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


class UnavailableRule(RuleBase):
    """The profile does not offer the op: every use is rejected."""

    kind: Literal["unavailable"] = "unavailable"
    legal_elsewhere: ClassVar[bool] = True
    not_offered: ClassVar[bool] = True
    page_prefixes: ClassVar[tuple[str, ...]] = ("not offered",)

    def condition(self, op: OpView, rv: RuleView) -> str:
        return f"sim::always_false_v<{op.cpp.dependent_type}>"

    def text(self, op: OpView) -> str:
        return "not available on this target profile"

    def doc(self, op: OpView) -> str:
        return _with_note(
            "Not offered: this profile documents no implementation of the op, and the profile checks "
            "reject every use",
            self.note,
        )

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        return {} if line.low.startswith("not offered") and line.group in page.profiles else None

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        return Broken(dict(tiles))  # any legal use of another profile


class TmpRequiredRule(RuleBase):
    """A tmp tile must be passed (at the head of the events pack, TPRELU's documented form)."""

    kind: Literal["tmp_required"] = "tmp_required"
    page_prefixes: ClassVar[tuple[str, ...]] = ("a tmp tile must be passed",)

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        return {} if line.low.startswith(cls.page_prefixes) else None

    def check(self, spec: OpSpec, targets: Targets) -> Iterator[Problem]:
        yield from super().check(spec, targets)
        if spec.intrinsic is not None and spec.intrinsic.tmp_in_events is None:
            yield ("kind",), "tmp_required needs `intrinsic.tmp_in_events`"

    def condition(self, op: OpView, rv: RuleView) -> str:
        assert op.spec.intrinsic is not None  # check() demands a tile intrinsic
        return f"sim::leads_with_tile_v<{op.spec.intrinsic.template[-1].name}...>"

    def text(self, op: OpView) -> str:
        return "a tmp tile must be passed"

    def doc(self, op: OpView) -> str:
        assert op.spec.intrinsic is not None
        return _with_note(
            f"A `{op.spec.intrinsic.tmp_in_events}` tile must be passed "
            "(as the first argument after the documented parameters)",
            self.note,
        )

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        return Broken(dict(tiles), with_tmp=False)


class DTypePairsRule(RuleBase):
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
        a, b = self.operands
        listed = "; ".join(f"`{s}` to {', '.join(f'`{d}`' for d in ds)}" for s, ds in self.pairs.items())
        return _with_note(f"Type pairs (`{a}` to `{b}`): {listed}", self.note)

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


# ----------------------------------------------------------------------------- run-time rules


class SameValidShapeRule(RuleBase):
    """The operands have the valid rows and columns of the first (checked when the op runs)."""

    kind: Literal["same_valid_shape"] = "same_valid_shape"
    operands: list[Name] = Field(min_length=2)
    storage_read_into: list[TileLocation] = Field(
        default_factory=list,
        description=(
            "locations of the first operand whose valid region is read from the others' storage instead: "
            "there it only has to lie within each other operand's rows and columns"
        ),
    )
    stage: ClassVar[Literal["static", "runtime"]] = "runtime"
    page_prefixes: ClassVar[tuple[str, ...]] = ("runtime: ",)

    def condition(self, op: OpView, rv: RuleView) -> str:
        first, *rest = self.operands
        same = conj(
            [
                f"{first}.GetValidRow() == {o}.GetValidRow() && {first}.GetValidCol() == {o}.GetValidCol()"
                for o in rest
            ]
        )
        if not self.storage_read_into:
            return same
        first_t, *rest_t = rv.types
        into = " || ".join(f"{first_t}::Loc == TileType::{loc}" for loc in self.storage_read_into)
        within = conj(
            [f"{first}.GetValidRow() <= {t}::Rows && {first}.GetValidCol() <= {t}::Cols" for t in rest_t]
        )
        return f"(({into}) ? ({within}) : ({same}))"

    def _exception(self, code: bool) -> str:
        if not self.storage_read_into:
            return ""
        first, rest = self.operands[0], self.operands[1:]
        tick = "`" if code else ""
        into = or_list(list[str](self.storage_read_into), code=code)
        return (
            f", except when {tick}{first}{tick} is a {into} tile: "
            f"then its valid region is read from the storage of {and_list(rest, code=code)} "
            f"and must lie within {'its' if len(rest) == 1 else 'their'} rows and columns"
        )

    def text(self, op: OpView) -> str:
        return (
            f"{and_list(self.operands, code=False)} must have the same valid row/col{self._exception(False)}"
        )

    def doc(self, op: OpView) -> str:
        return _with_note(
            f"Runtime: {and_list(self.operands)} must have the same valid row/col{self._exception(True)}",
            self.note,
        )

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        if line.low.startswith("runtime:") and "same valid" in line.low:
            head, _, tail = line.text.split(":", 1)[1].partition(", except when")
            rule: dict[str, Any] = {"operands": page.named(head) or page.data}
            into = re.match(r" \w+ is an? (.*?) tile:", tail)  # the page line has no code ticks
            if into:
                rule["storage_read_into"] = re.split(r", | or ", into.group(1))
            return rule
        return None

    def break_runtime(
        self, tiles: dict[str, TileDecl], addresses: dict[str, int]
    ) -> tuple[dict[str, TileDecl], dict[str, int]]:
        second = self.operands[1]  # dynamic valid shape: same C++ type, another run-time shape
        return {**tiles, second: replace(tiles[second], valid_cols=tiles[second].valid_cols - 1)}, addresses


class NoOverlapRule(RuleBase):
    """The operands occupy disjoint buffer ranges (checked when the op runs)."""

    kind: Literal["no_overlap"] = "no_overlap"
    operands: list[Name] = Field(min_length=2)
    stage: ClassVar[Literal["static", "runtime"]] = "runtime"

    def condition(self, op: OpView, rv: RuleView) -> str:
        pairs = [
            f"!sim::tiles_overlap({a}, {b})"
            for i, a in enumerate(self.operands)
            for b in self.operands[i + 1 :]
        ]
        return conj(pairs)

    def text(self, op: OpView) -> str:
        return f"{and_list(self.operands, code=False)} must not overlap in memory"

    def doc(self, op: OpView) -> str:
        return _with_note(
            f"Runtime: {and_list(self.operands)} must occupy different memory ranges without overlapping",
            self.note,
        )

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        if line.low.startswith("runtime:") and "without overlapping" in line.low:
            return {"operands": page.named(line.text.split(":", 1)[1]) or page.data}
        return None

    def break_runtime(
        self, tiles: dict[str, TileDecl], addresses: dict[str, int]
    ) -> tuple[dict[str, TileDecl], dict[str, int]]:
        first, second = self.operands[0], self.operands[1]
        return tiles, {**addresses, first: addresses[second]}


class SameValidExtentRule(RuleBase):
    """Two tiles agree on one valid extent: a row reduction's dst has src's valid rows (and a
    column reduction's dst src's valid columns), whatever the other extent."""

    kind: Literal["same_valid_extent"] = "same_valid_extent"
    operands: list[Name] = Field(min_length=2, max_length=2)
    extent: Literal["rows", "cols"]
    factor: Annotated[int, Field(ge=1, le=64)] = Field(
        default=1, description="the first tile's extent is this many times the second's (TDEINTERLEAVE's 2)"
    )
    stage: ClassVar[Literal["static", "runtime"]] = "runtime"

    def _getter(self) -> str:
        return "GetValidRow" if self.extent == "rows" else "GetValidCol"

    def _relation(self) -> str:
        a, b = self.operands
        times = f"{self.factor} * " if self.factor > 1 else ""
        return f"{a}.{self._getter()}() == {times}{b}.{self._getter()}()"

    def condition(self, op: OpView, rv: RuleView) -> str:
        return self._relation()

    def text(self, op: OpView) -> str:
        a, b = self.operands
        times = f"{self.factor} times " if self.factor > 1 else ""
        return f"{a} must have {times}the valid {self.extent} of {b}"

    def doc(self, op: OpView) -> str:
        if self.factor == 1:
            return _with_note(f"Runtime: `{self._relation()}`", self.note)
        # No `*` on the line: the pages' reader drops it as Markdown emphasis.
        a, b = self.operands
        g = self._getter()
        return _with_note(f"Runtime: `{a}.{g}()` is {self.factor} times `{b}.{g}()`", self.note)

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        m = re.search(
            r"\b(\w+)\.(GetValidRow|GetValidCol)\(\)(?: == | is (?P<factor>\d+) times )"
            r"(\w+)\.(GetValidRow|GetValidCol)\(\)",
            line.text,
        )
        if m is None or m.group(2) != m.group(5) or not {m.group(1), m.group(4)} <= set(page.data):
            return None
        found: dict[str, Any] = {
            "operands": [m.group(1), m.group(4)],
            "extent": "rows" if m.group(2) == "GetValidRow" else "cols",
        }
        if m.group("factor"):
            found["factor"] = int(m.group("factor"))
        return found

    def _valid(self, t: TileDecl) -> int:
        return t.valid_rows if self.extent == "rows" else t.valid_cols

    def admits_tiles(self, tiles: dict[str, TileDecl]) -> bool:
        # Only a ratio tells tiles apart here; equal extents are the plans' own shapes.
        a, b = self.operands
        if self.factor == 1 or a not in tiles or b not in tiles:
            return True
        return self._valid(tiles[a]) == self.factor * self._valid(tiles[b])

    def break_runtime(
        self, tiles: dict[str, TileDecl], addresses: dict[str, int]
    ) -> tuple[dict[str, TileDecl], dict[str, int]]:
        a, b = self.operands
        field_name = "valid_rows" if self.extent == "rows" else "valid_cols"
        if self.factor == 1:
            smaller = getattr(tiles[a], field_name) - 1
            return {**tiles, a: replace(tiles[a], **{field_name: smaller})}, addresses
        # One step of the ratio short (a multiple of it still, so that rules of evenness hold).
        want = self.factor * (self._valid(tiles[b]) - 1) or self.factor * (self._valid(tiles[b]) + 1)
        static = "rows" if self.extent == "rows" else "cols"
        t = tiles[a]
        grown = replace(t, **{static: max(getattr(t, static), want), field_name: want, "dynamic": True})
        return {**tiles, a: grown}, addresses


class MinValidExtentRule(RuleBase):
    """A tile's valid rows (or columns) are bounded below, by another operand's same extent or by a
    count: scratch tiles that hold intermediate rows (TREM's `tmp` on A2A3). Checked when the op runs."""

    kind: Literal["min_valid_extent"] = "min_valid_extent"
    operand: Name
    extent: Literal["rows", "cols"]
    at_least: Name | Annotated[int, Field(ge=1, le=1 << 20)] = Field(
        description="an operand (its same valid extent) or a count"
    )
    strict: bool = Field(default=False, description="more than the bound (`>`), not at least (`>=`)")
    stage: ClassVar[Literal["static", "runtime"]] = "runtime"

    @property
    def rule_operands(self) -> list[str]:
        return [self.operand] + ([self.at_least] if isinstance(self.at_least, str) else [])

    def _getter(self) -> str:
        return "GetValidRow" if self.extent == "rows" else "GetValidCol"

    def _relation(self) -> str:
        bound = self.at_least
        right = f"{bound}.{self._getter()}()" if isinstance(bound, str) else str(bound)
        return f"{self.operand}.{self._getter()}() {'>' if self.strict else '>='} {right}"

    def condition(self, op: OpView, rv: RuleView) -> str:
        return self._relation()

    def text(self, op: OpView) -> str:
        what = f"valid {self.extent}"
        if isinstance(self.at_least, str):
            bound = (
                f"more {what} than {self.at_least}"
                if self.strict
                else f"at least the {what} of {self.at_least}"
            )
            return f"{self.operand} must have {bound}"
        count = self.at_least + int(self.strict)
        what = what if count > 1 else what[:-1]  # "1 valid row", "2 valid rows"
        return f"{self.operand} must have at least {count} {what}"

    def doc(self, op: OpView) -> str:
        return _with_note(f"Runtime: `{self._relation()}`", self.note)

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        m = re.search(
            r"\b(\w+)\.(GetValidRow|GetValidCol)\(\) (>=|>) "
            r"(?:(\w+)\.(GetValidRow|GetValidCol)\(\)|(\d+)(?!\d))`?\s*(?:\((?P<note>[^()]*)\))?",
            line.text,
        )
        if m is None or m.group(1) not in page.data:
            return None
        if m.group(4) is not None and (m.group(4) not in page.data or m.group(5) != m.group(2)):
            return None
        found: dict[str, Any] = {
            "operand": m.group(1),
            "extent": "rows" if m.group(2) == "GetValidRow" else "cols",
            "at_least": m.group(4) if m.group(4) is not None else int(m.group(6)),
        }
        if m.group(3) == ">":
            found["strict"] = True
        if m.group("note"):
            found["note"] = m.group("note").strip()
        return found

    def _needed(self, tiles: dict[str, TileDecl]) -> int:
        rows = self.extent == "rows"
        other = tiles[self.at_least] if isinstance(self.at_least, str) else None
        bound = self.at_least if other is None else (other.valid_rows if rows else other.valid_cols)
        return int(bound) + int(self.strict)

    def legalise(self, tiles: dict[str, TileDecl]) -> dict[str, TileDecl]:
        t = tiles.get(self.operand)
        if t is None:
            return tiles
        need = self._needed(tiles)
        if self.extent == "rows" and t.valid_rows < need:
            t = replace(t, rows=max(t.rows, need), valid_rows=need)
        elif self.extent == "cols" and t.valid_cols < need:
            t = replace(t, cols=max(t.cols, need), valid_cols=need)
        return {**tiles, self.operand: t}

    def break_runtime(
        self, tiles: dict[str, TileDecl], addresses: dict[str, int]
    ) -> tuple[dict[str, TileDecl], dict[str, int]]:
        rows = self.extent == "rows"
        other = tiles[self.at_least] if isinstance(self.at_least, str) else None
        bound = self.at_least if other is None else (other.valid_rows if rows else other.valid_cols)
        short = int(bound) if self.strict else int(bound) - 1  # just below what the rule asks
        t = tiles[self.operand]
        broken = replace(t, valid_rows=short) if rows else replace(t, valid_cols=short)
        return {**tiles, self.operand: broken}, addresses


def _number(v: float) -> str:
    """A bound as the pages and the C++ spell it: integers without a fraction."""
    return str(int(v)) if float(v).is_integer() else repr(float(v))


class ValueRangeRule(RuleBase):
    """Every element of the operands' valid regions lies in [min, max], optionally only for some
    element types: inputs a backend computes through another type (TREM's int32 through float on
    A2A3 is exact only up to 2^24). Checked when the op runs, over the data."""

    kind: Literal["value_range"] = "value_range"
    operands: list[Name] = Field(min_length=1)
    min: float = Field(ge=-(2.0**64), le=2.0**64)
    max: float = Field(ge=-(2.0**64), le=2.0**64)
    dtypes: list[TypeName] | None = Field(
        default=None, description="element types it applies to; omitted = all"
    )
    stage: ClassVar[Literal["static", "runtime"]] = "runtime"

    def check(self, spec: OpSpec, targets: Targets) -> Iterator[Problem]:
        yield from super().check(spec, targets)
        if self.min > self.max:
            yield ("min",), f"the range is empty: min {_number(self.min)} > max {_number(self.max)}"
        for j, d in enumerate(self.dtypes or []):
            if not targets.has_dtype(d):
                spellings = [n for t in targets.dtypes for n in (t.name, *t.aliases)]
                yield ("dtypes", j), f"unknown dtype {d!r}{did_you_mean(d, spellings)}"

    def _range(self) -> str:
        return f"[{_number(self.min)}, {_number(self.max)}]"

    def condition(self, op: OpView, rv: RuleView) -> str:
        only = f"<{', '.join(rv.dtypes_cpp)}>" if rv.dtypes_cpp else ""
        lo, hi = (f"{_number(v)}.0L" if float(v).is_integer() else f"{v!r}L" for v in (self.min, self.max))
        return conj([f"sim::values_within{only}({o}, {lo}, {hi})" for o in self.operands])

    def text(self, op: OpView) -> str:
        types = f" {' and '.join(self.dtypes)}" if self.dtypes else ""
        return f"the{types} elements of {and_list(self.operands, code=False)} must lie in {self._range()}"

    def doc(self, op: OpView) -> str:
        scope = f" of type {and_list(list(self.dtypes))}" if self.dtypes else ""
        return _with_note(
            f"Runtime: every element{scope} in the valid region of {and_list(self.operands)} must lie in "
            f"`{self._range()}`",
            self.note,
        )

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        m = re.match(
            r"Runtime: every element(?: of type (?P<types>.+?))? in the valid region of (?P<ops>.+?) "
            r"must lie in "
            r"\[(?P<lo>-?[\d.e+]+), (?P<hi>-?[\d.e+]+)\]\s*(?:\((?P<note>[^()]*)\))?",
            line.text,
        )
        if m is None:
            return None
        operands = page.named(m.group("ops"))
        if not operands:
            return None

        def number(text: str) -> float | int:
            return float(text) if any(c in text for c in ".e") else int(text)

        found: dict[str, Any] = {
            "operands": operands,
            "min": number(m.group("lo")),
            "max": number(m.group("hi")),
        }
        if m.group("types"):
            found["dtypes"] = re.findall(r"[\w]+", m.group("types").replace(" and ", ", "))
        if m.group("note"):
            found["note"] = m.group("note").strip()
        return found

    def listed_dtypes(self) -> list[str]:
        return list(self.dtypes or [])

    def runtime_dtypes(self, rv: RuleView) -> list[str]:
        return list(rv.dtypes_cpp)  # the rule checks nothing for the other types

    def input_range(self, operand: str, dtype: str, rv: RuleView) -> tuple[float, float] | None:
        if operand in self.operands and (not rv.dtypes_cpp or dtype in rv.dtypes_cpp):
            return self.min, self.max
        return None

    def break_runtime(
        self, tiles: dict[str, TileDecl], addresses: dict[str, int]
    ) -> tuple[dict[str, TileDecl], dict[str, int]]:
        first = self.operands[0]
        over = self.max + 1 if float(self.max).is_integer() else self.max * 2 + 1
        return {**tiles, first: replace(tiles[first], poke=_number(over))}, addresses


# ----------------------------------------------------------------------------- registry


# Order is the order of import output and of the README's list.
class SameStorageRule(RuleBase):
    """Two tiles lay out storage the same way (TileType, BLayout, SLayout and strides), so that one
    can be a view into the other's storage (TSUBVIEW): element (i, j) of the view is then element
    (row + i, col + j) of the viewed tile."""

    kind: Literal["same_storage"] = "same_storage"
    operands: list[Name] = Field(min_length=2, max_length=2)
    page_prefixes: ClassVar[tuple[str, ...]] = ("the tiles ",)

    def condition(self, op: OpView, rv: RuleView) -> str:
        a, b = rv.types
        return conj(
            [
                f"{a}::Loc == {b}::Loc",
                f"{a}::isRowMajor == {b}::isRowMajor",
                f"{a}::SFractal == {b}::SFractal",
                f"{a}::RowStride == {b}::RowStride",
                f"{a}::ColStride == {b}::ColStride",
            ]
        )

    def text(self, op: OpView) -> str:
        a, b = self.operands
        return f"{a} and {b} must have the same TileType, layout and strides"

    def doc(self, op: OpView) -> str:
        a, b = self.operands
        return _with_note(
            f"The tiles `{a}` and `{b}` must have the same `TileType`, layout (`BLayout`, `SLayout`) and "
            f"strides (`RowStride`, `ColStride`), so that `{a}` reads `{b}`'s storage as `{b}` lays it out",
            self.note,
        )

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        m = re.match(r"The tiles (\w+) and (\w+) must have the same TileType, layout", line.text)
        return {"operands": [m.group(1), m.group(2)]} if m else None

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        # Wider rows: a row-major tile's RowStride changes, its TileType and layout do not.
        first = self.operands[0]
        t = tiles[first]
        return Broken({**tiles, first: replace(t, cols=t.cols + 16)}, changed=first)


TableLayout = Literal["ND", "DN", "NZ"]
TilePairing = Literal["row_major", "plain", "nz"]

# How each tile pairing reads in C++ (over the tile type T) and in prose.
_PAIRING_CPP = {
    "row_major": "{t}::isRowMajor && !{t}::isBoxedLayout",
    "plain": "!{t}::isBoxedLayout",
    "nz": "!{t}::isRowMajor && {t}::SFractal == SLayout::RowMajor && {t}::SFractalSize == 512 && "
    "{t}::Rows % 16 == 0 && {t}::Cols % (32 / sizeof(typename {t}::DType)) == 0 && "
    "{g}::staticShape[3] == 16 && {g}::staticShape[4] == 32 / sizeof(typename {t}::DType)",
}
_PAIRING_TEXT = {
    "row_major": "Layout::{lay} with a row-major {tile}",
    "plain": "Layout::{lay} with a row- or column-major {tile}",
    "nz": "Layout::{lay} of Shape[3] 16 and Shape[4] 32 bytes with an NZ {tile} (BLayout::ColMajor, "
    "SLayout::RowMajor, 512-byte fractals, whole 16-row, 32-byte boxes)",
}
_PAIRING_DOC = {
    "row_major": "`Layout::{lay}` with a row-major `{tile}` (`BLayout::RowMajor`, `SLayout::NoneBox`)",
    "plain": "`Layout::{lay}` with a row- or column-major `{tile}` (`SLayout::NoneBox`)",
    "nz": "`Layout::{lay}` with `Shape[3] == 16` and `Shape[4] == 32 / sizeof(T)`, with an NZ `{tile}` "
    "(`BLayout::ColMajor`, `SLayout::RowMajor`, `SFractalSize == 512`, `Rows % 16 == 0`, "
    "`Cols * sizeof(T) % 32 == 0`)",
}


class TableLayoutRule(RuleBase):
    """A GlobalTensor operand's layout is one of a list, each paired with the layout the tile it
    moves to or from must have (MGATHER/MSCATTER: an ND table with a plain tile, on A2/A3 also an NZ
    table with an NZ tile)."""

    kind: Literal["table_layout"] = "table_layout"
    operands: list[Name] = Field(min_length=2, max_length=2, description="[the GlobalTensor, the tile]")
    layouts: dict[TableLayout, TilePairing] = Field(
        min_length=1, description="each allowed GlobalTensor layout with the tile layout it pairs with"
    )
    page_prefixes: ClassVar[tuple[str, ...]] = ("the globaltensor ",)

    def check(self, spec: OpSpec, targets: Targets) -> Iterator[Problem]:
        kinds = {o.name: o.kind for o in spec.operands}
        table, tile = self.operands
        if kinds.get(table) != "global":
            yield ("operands", 0), f"{table!r} is not a GlobalTensor (`global`) operand of this op"
        if kinds.get(tile) != "tile":
            yield ("operands", 1), f"{tile!r} is not a tile operand of this op"
        if spec.intrinsic is None:
            yield ("kind",), "table_layout rules apply to tile intrinsics only"

    def admits_layout(self, layout: str) -> bool:
        return layout == "RowMajor" or any(p != "row_major" for p in self.layouts.values())

    def global_layouts(self) -> list[str] | None:
        return list(self.layouts)

    def condition(self, op: OpView, rv: RuleView) -> str:
        g, t = rv.types
        arms = [
            f"({g}::layout == Layout::{lay} && " + _PAIRING_CPP[pair].format(t=t, g=g) + ")"
            for lay, pair in self.layouts.items()
        ]
        return " || ".join(arms)

    def text(self, op: OpView) -> str:
        table, tile = self.operands
        arms = [_PAIRING_TEXT[pair].format(lay=lay, tile=tile) for lay, pair in self.layouts.items()]
        return f"{table} must be " + ", or ".join(arms)

    def doc(self, op: OpView) -> str:
        table, tile = self.operands
        arms = [_PAIRING_DOC[pair].format(lay=lay, tile=tile) for lay, pair in self.layouts.items()]
        return _with_note(f"The GlobalTensor `{table}` must be " + "; or ".join(arms), self.note)

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        head = re.match(r"The GlobalTensor (\w+) must be (.*)$", line.text)
        if head is None:
            return None
        phrases = {"a row-major": "row_major", "a row- or column-major": "plain", "an NZ": "nz"}
        layouts: dict[str, str] = {}
        tile = None
        arm_re = r"Layout::(\w+) with (?:.*?, with )?(a row-major|a row- or column-major|an NZ) (\w+)"
        for arm in head.group(2).split("; or "):
            m = re.match(arm_re, arm)
            if m is None:
                return None
            layouts[m.group(1)] = phrases[m.group(2)]
            tile = m.group(3)
        return {"operands": [head.group(1), tile], "layouts": layouts}

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        # DN pairs with nothing in any profile: the table alone breaks the rule.
        return Broken(dict(tiles), global_layouts={self.operands[0]: "DN"})


# ----------------------------------------------------------------------------- binding rules


class AddressTypeRule(RuleBase):
    """What an address may be (TASSIGN): an integer byte offset when the bound object is a tile, a
    pointer to its element type when it is a GlobalTensor."""

    kind: Literal["address_type"] = "address_type"
    operands: list[Name] = Field(min_length=2, max_length=2, description="[the bound object, the address]")
    scalar_operands: ClassVar[bool] = True
    page_prefixes: ClassVar[tuple[str, ...]] = ("the address ",)

    def condition(self, op: OpView, rv: RuleView) -> str:
        t, a = rv.types
        element = f"std::is_same_v<std::remove_cv_t<std::remove_pointer_t<{a}>>, typename {t}::DType>"
        return (
            f"((is_tile_data_v<{t}> || is_conv_tile_v<{t}>) && std::is_integral_v<{a}>) || "
            f"(is_global_data_v<{t}> && std::is_pointer_v<{a}> && {element})"
        )

    def text(self, op: OpView) -> str:
        obj, addr = self.operands
        return f"{addr} must be an integer for a tile {obj}, a pointer to its element type for a GlobalTensor"

    def doc(self, op: OpView) -> str:
        obj, addr = self.operands
        return _with_note(
            f"The address `{addr}` must be an integer (a byte offset) when `{obj}` is a tile, and a "
            f"pointer to `{obj}`'s element type when it is a GlobalTensor",
            self.note,
        )

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        m = re.match(
            r"The address (\w+) must be an integer \(a byte offset\) when (\w+) is a tile", line.text
        )
        return {"operands": [m.group(2), m.group(1)]} if m else None

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        return Broken(dict(tiles), scalar_types={self.operands[1]: "0.5"})


class PlacementRule(RuleBase):
    """A tile placed at a compile-time address (TASSIGN<Addr>) lies within the memory of its
    location at an aligned address. It checks the declarations whose template carries the address,
    against the `memories` of its one profile (targets.yaml); a location the profile does not list
    does not exist on the target."""

    kind: Literal["placement"] = "placement"
    operands: list[Name] = Field(min_length=2, max_length=2, description="[the tile, the address]")
    alignment: Annotated[int, Field(ge=1, le=4096)] = Field(description="bytes the address is a multiple of")
    scalar_operands: ClassVar[bool] = True
    scoped_by_kind: ClassVar[bool] = True
    page_prefixes: ClassVar[tuple[str, ...]] = ("with the address as a template argument",)

    def check(self, spec: OpSpec, targets: Targets) -> Iterator[Problem]:
        yield from super().check(spec, targets)
        if self.profiles is None or len(self.profiles) != 1:
            yield ("profiles",), "a placement rule names the one profile whose memories it checks"
        elif not targets.profile(self.profiles[0]).memories:
            yield ("profiles", 0), f"profile {self.profiles[0]} states no `memories` in targets.yaml"

    def in_form(self, form: Any) -> bool:
        return form.carrier(self.operands[1]) is not None

    def _memories(self, op: OpView) -> dict[str, int]:
        assert self.profiles is not None
        return {str(loc): cap for loc, cap in op.targets.profile(self.profiles[0]).memories.items()}

    def condition(self, op: OpView, rv: RuleView) -> str:
        t, a = rv.types
        size = f"sim::tile_storage_bytes<{t}>()"
        fits = " || ".join(
            f"({t}::Loc == TileType::{loc} && {a} <= {cap} && {size} <= {cap} - {a})"
            for loc, cap in self._memories(op).items()
        )
        return f"({fits}) && {a} % {self.alignment} == 0"

    def _sizes(self, op: OpView, code: bool = False) -> str:
        tick = "`" if code else ""
        return ", ".join(f"{tick}{loc}{tick} {cap}" for loc, cap in self._memories(op).items())

    def text(self, op: OpView) -> str:
        tile, addr = self.operands
        return (
            f"{tile} must lie within its memory at a {self.alignment}-byte aligned {addr} "
            f"(bytes per location: {self._sizes(op)})"
        )

    def doc(self, op: OpView) -> str:
        tile, addr = self.operands
        sizes = self._sizes(op, code=True)
        return _with_note(
            f"With the address as a template argument, `{tile}` must lie within the memory of its "
            f"location at a {self.alignment}-byte aligned address: `{addr} % {self.alignment} == 0` and "
            f"`{addr}` plus the tile's bytes (`Rows * Cols * sizeof(DType)`, a ConvTile's `BufferSize`) "
            f"at most the memory's size in bytes ({sizes}; no "
            "other location exists on this target)",
            self.note,
        )

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        m = re.match(
            r"With the address as a template argument, (\w+) must lie within the memory of its location "
            r"at a (\d+)-byte aligned address: (\w+) % .*? \((.*?); no other location",
            line.text,
        )
        if m is None:
            return None  # the sizes the line lists are the profile's `memories` (targets.yaml)
        return {"operands": [m.group(1), m.group(3)], "alignment": int(m.group(2))}

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        # The last aligned address of the unified buffer: the tile no longer fits behind it.
        top = self._memories(bx.op).get("Vec", 0) - self.alignment
        return Broken(dict(tiles), scalar_types={self.operands[1]: hex(max(top, 0))})


# ----------------------------------------------------------------------------- synchronisation rules


class EventsRule(RuleBase):
    """Every argument of an events operand is an event (TSYNC(events...))."""

    kind: Literal["event_args"] = "event_args"
    operands: list[Name] = Field(min_length=1, max_length=1)
    page_prefixes: ClassVar[tuple[str, ...]] = ("every argument passed as",)

    def check(self, spec: OpSpec, targets: Targets) -> Iterator[Problem]:
        kinds = {o.name: o.kind for o in spec.operands}
        if kinds.get(self.operands[0]) != "events":
            yield ("operands", 0), f"{self.operands[0]!r} is not an `events` operand of this op"

    def condition(self, op: OpView, rv: RuleView) -> str:
        return f"all_events_v<{rv.types[0]}...>"

    def text(self, op: OpView) -> str:
        return f"every argument of {self.operands[0]} must be an event (RecordEvent)"

    def doc(self, op: OpView) -> str:
        return _with_note(
            f"Every argument passed as `{self.operands[0]}` must be an event (a `RecordEvent` that an "
            "operation returned)",
            self.note,
        )

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        m = re.match(r"Every argument passed as (\w+) must be an event", line.text)
        return {"operands": [m.group(1)]} if m else None


class PipelineRule(RuleBase):
    """An op-class template argument names a class run by one of some pipelines (the `Op` enum's
    `OpPipeEntry` trait in targets.yaml): TSYNC<Op>() on A5 drains MTE2, MTE3 or every pipeline
    only. It checks the declarations whose template carries the operand."""

    kind: Literal["pipeline"] = "pipeline"
    operands: list[Name] = Field(min_length=1, max_length=1, description="the op-class operand")
    pipes: list[CppIdent] = Field(min_length=1, description="the pipelines allowed, e.g. PIPE_MTE2")
    scoped_by_kind: ClassVar[bool] = True
    page_prefixes: ClassVar[tuple[str, ...]] = ("the op class ",)

    def _enum(self, spec: OpSpec, targets: Targets) -> Any:
        o = next((o for o in spec.every_operand if o.name == self.operands[0]), None)
        return next((e for e in targets.enums if o is not None and e.name == o.enum), None)

    def check(self, spec: OpSpec, targets: Targets) -> Iterator[Problem]:
        enum = self._enum(spec, targets)
        if enum is None or enum.trait is None:
            yield ("operands", 0), f"{self.operands[0]!r} is no attr operand of an enum with a trait"
            return
        for i, pipe in enumerate(self.pipes):
            if pipe not in {*enum.trait.values.values(), enum.trait.default}:
                yield ("pipes", i), f"{pipe!r} is no value of {enum.trait.name}"

    def in_form(self, form: Any) -> bool:
        return form.carrier(self.operands[0]) is not None

    def condition(self, op: OpView, rv: RuleView) -> str:
        trait = self._enum(op.spec, op.targets).trait
        return " || ".join(f"{trait.name}<{rv.types[0]}>::{trait.member} == {p}" for p in self.pipes)

    def text(self, op: OpView) -> str:
        return f"{self.operands[0]} must name an op class of the {or_list(self.pipes, code=False)} pipeline"

    def doc(self, op: OpView) -> str:
        trait = self._enum(op.spec, op.targets).trait
        return _with_note(
            f"The op class `{self.operands[0]}` must run on the {or_list(self.pipes)} "
            f"pipeline (`{trait.name}<{self.operands[0]}>::{trait.member}`)",
            self.note,
        )

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        m = re.match(r"The op class (\w+) must run on the (.*?) pipeline \(", line.text)
        if m is None:
            return None
        return {"operands": [m.group(1)], "pipes": re.findall(r"\w+", m.group(2).replace(" or ", " "))}

    def breaking_value(self, op: OpView) -> str:
        """An enumerator whose class runs on a pipeline the rule does not allow."""
        enum = self._enum(op.spec, op.targets)
        value = next(v for v in enum.values if enum.trait.values.get(v, enum.trait.default) not in self.pipes)
        return f"{enum.name}::{value}"


CORE_KINDS: tuple[type[RuleBase], ...] = (
    DTypeRule,
    DTypePairsRule,
    LocationRule,
    ValidBoundsRule,
    SameValidShapeRule,
    SameDTypeRule,
    RowMajorRule,
    UnavailableRule,
    TmpRequiredRule,
    NoOverlapRule,
    SameValidExtentRule,
    MinValidExtentRule,
    ValueRangeRule,
    TableLayoutRule,
    SameStorageRule,
    AddressTypeRule,
    PlacementRule,
    EventsRule,
    PipelineRule,
)
