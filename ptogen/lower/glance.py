"""The facts at the top of an op page: which element types each profile admits for each operand,
the pairs a conversion takes, and where each tile operand may live.

Everything here is read off the op's rules as the profile checks enforce them (`rules_for`,
`dtype_combos`), so the table and the static_asserts cannot disagree.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..kind_api import OpViewAPI
from ..rules.parts import Placed, Tabulated, part


@dataclass(frozen=True)
class DTypeRow:
    """Operands that admit the same types on every profile, and those types per profile."""

    operands: list[str]
    per_profile: dict[str, list[str]]


@dataclass(frozen=True)
class PairMatrix:
    """For one profile: which (row operand type, column operand type) pairs are legal."""

    profile: str
    row_operands: list[str]
    col_operands: list[str]
    rows: list[str]
    cols: list[str]
    legal: frozenset[tuple[str, str]]

    def cell(self, row: str, col: str) -> bool:
        return (row, col) in self.legal


@dataclass(frozen=True)
class TupleTable:
    """The element-type combinations rules admit for several operands jointly, over every profile:
    each combination some profile tabulates, with the profiles that accept it."""

    operands: list[str]
    rows: list[tuple[str, ...]]
    accepted: dict[tuple[str, ...], list[str]]  # combination -> the profiles whose checks admit it

    def mark(self, row: tuple[str, ...], profile: str) -> bool:
        return profile in self.accepted[row]


@dataclass(frozen=True)
class PlacementRow:
    """Tile operands with the same placement on every profile, and that placement per profile."""

    operands: list[str]
    per_profile: dict[str, str]


# How the placement facts read, in this order.
_ASPECTS = ("Location", "Layout")


class Glance:
    def __init__(self, op: OpViewAPI):
        self.op = op
        self.profiles = [p.name for p in op.targets.profiles]

    def types(self, profile: str, operand: str) -> list[str]:
        """The element types the profile's dtype rules admit for one operand, over every template
        value the op varies (an operand no rule names takes the compute operand's types)."""
        if not self.op.available(profile):
            return []
        found: set[str] = set()
        for values in self.op.value_variants:
            listed = self.op.operand_dtypes(profile, operand, values)
            found |= set(listed if listed is not None else self.op.allowed_dtypes(profile, values))
        return [d.name for d in self.op.targets.dtypes if d.name in found]

    def dtype_rows(self) -> list[DTypeRow]:
        rows: list[DTypeRow] = []
        for operand in self.op.tiles:
            per = {p: self.types(p, operand) for p in self.profiles}
            same = next((r for r in rows if r.per_profile == per), None)
            if same is not None:
                same.operands.append(operand)
            else:
                rows.append(DTypeRow([operand], per))
        return rows

    def pair_matrices(self) -> list[PairMatrix]:
        """Per profile, the legal pairs of the two operands a rule tabulates (TCVT's conversions),
        each checked by the same static rules as a kernel would be."""
        out: list[PairMatrix] = []
        for p in self.profiles:
            tabulated = [part(rv.rule, Tabulated) for rv in self.op.rules_for(p, static=True)]
            pairs = {t.tabulated_operands() for t in tabulated} - {None}
            for row_op, col_op in sorted(x for x in pairs if x is not None):
                rows, cols = self.types(p, row_op), self.types(p, col_op)
                legal = frozenset(
                    (r, c) for r in rows for c in cols if self._admits(p, {row_op: r, col_op: c})
                )
                out.append(PairMatrix(p, [row_op], [col_op], rows, cols, legal))
        return out

    def tuple_tables(self) -> list[TupleTable]:
        """Each jointly tabulated set of operands (TMATMUL's type triples): one table for every
        profile, the combinations any profile lists, each marked with the profiles whose checks
        accept it (a profile without such a rule accepts what its other rules do)."""
        rows: dict[tuple[str, ...], list[tuple[str, ...]]] = {}
        for p in self.profiles:
            for rv in self.op.rules_for(p, static=True):
                found = part(rv.rule, Tabulated).tabulated_tuples(self.op)
                if found is not None:
                    listed = rows.setdefault(tuple(found[0]), [])
                    listed += [r for r in found[1] if r not in listed]
        return [
            TupleTable(
                list(operands),
                combos,
                {c: self._accepting(dict(zip(operands, c, strict=True))) for c in combos},
            )
            for operands, combos in rows.items()
        ]

    def _accepting(self, chosen: dict[str, str]) -> list[str]:
        return [p for p in self.profiles if self.op.available(p) and self._admits(p, chosen)]

    def _admits(self, profile: str, chosen: dict[str, str]) -> bool:
        compute = chosen.get(self.op.compute_operand, next(iter(chosen.values())))
        return self.op.admits(profile, {o: chosen.get(o, compute) for o in self.op.tiles})

    def placement(self, profile: str, operand: str) -> dict[str, str]:
        """What the profile's static rules fix about where a tile operand lives: {aspect: value},
        e.g. {"Location": "Vec", "Layout": "row-major"}; empty when nothing is fixed."""
        facts: dict[str, str] = {}
        for rv in self.op.rules_for(profile, static=True):
            fact = part(rv.rule, Placed).placement()
            if fact is not None and operand in rv.rule.rule_operands:
                facts.setdefault(fact[0], fact[1])
        return facts

    def locations(self, profile: str) -> list[str] | None:
        """The tile locations the op's tile operands may take on the profile (None: any)."""
        tiles = [o.name for o in self.op.operands if o.kind == "tile"]
        if not tiles or not self.op.available(profile):
            return []
        fixed = {self.placement(profile, t).get("Location") for t in tiles}
        return None if None in fixed else sorted(x for x in fixed if x is not None)

    def placement_rows(self) -> list[PlacementRow]:
        """Per tile operand and profile: the location and layout its rules demand ("any" if none)."""
        out: list[PlacementRow] = []
        for o in self.op.operands:
            if o.kind != "tile":
                continue
            per: dict[str, str] = {}
            for p in self.profiles:
                if not self.op.available(p):
                    per[p] = "unavailable"
                    continue
                facts = self.placement(p, o.name)
                ordered = sorted(facts.items(), key=lambda kv: (_ASPECTS + (kv[0],)).index(kv[0]))
                per[p] = ", ".join(_spell(k, v) for k, v in ordered) or "any"
            same = next((r for r in out if r.per_profile == per), None)
            if same is not None:
                same.operands.append(o.name)
            else:
                out.append(PlacementRow([o.name], per))
        return out


def _spell(aspect: str, value: str) -> str:
    return f"location `{value}`" if aspect == "Location" else f"{aspect.lower()} {value}"
