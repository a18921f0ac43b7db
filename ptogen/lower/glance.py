"""The facts at the top of an op page: which element types each profile admits for each operand,
the pairs a conversion takes, and where each tile operand may live.

Everything here is read off the op's rules as the profile checks enforce them (`rules_for`,
`dtype_combos`), so the table and the static_asserts cannot disagree.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TypeVar

from ..kind_api import FormViewAPI, OpViewAPI
from ..rules.parts import Placed, Tabulated, TypeListing, part


@dataclass(frozen=True)
class DTypeRow:
    """Operands of one declaration that admit the same types on every profile, and those types per
    profile (None: any type, no rule names the operand there)."""

    operands: list[str]
    per_profile: dict[str, list[str] | None]
    forms: str = "1"  # the declarations, numbered from 1 as the page numbers them ("1, 4-8")


@dataclass(frozen=True)
class PairMatrix:
    """The legal pairs of two operands' element types (TCVT's conversions) over the profiles whose
    rules tabulate them: each pair with the profiles that accept it."""

    row_operand: str
    col_operand: str
    profiles: list[str]  # the profiles whose rules tabulate the pairs, in the targets' order
    rows: list[str]  # the row operand's types on any of them, in the vocabulary's order
    cols: list[str]
    legal: dict[tuple[str, str], list[str]]  # (row type, column type) -> the profiles accepting it
    unrestricted: list[str]  # the profiles that offer the op and tabulate no pairs

    def marks(self, row: str, col: str) -> list[str]:
        return self.legal.get((row, col), [])


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
    """Tile operands of one declaration with the same placement on every profile, and that placement
    per profile."""

    operands: list[str]
    per_profile: dict[str, str]
    forms: str = "1"  # the declarations, numbered from 1 as the page numbers them ("1, 4-8")


_Row = TypeVar("_Row", "DTypeRow", "PlacementRow")

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

    def form_types(self, profile: str, form: FormViewAPI, operand: str) -> list[str] | None:
        """The element types one declaration takes for one of its operands on the profile, over every
        template value the op varies: the declaration's own rules and, unless its kind runs it
        without them (TGATHER's other forms), the op's rules on the main operands whose argument
        this operand is (a declaration runs the op's checks on what it passes for them). None: no
        rule names it, any type compiles."""
        if not self.op.available(profile):
            return []
        common = self._checks_common(form)
        mains = self._main_operands(form, operand) if common else []
        found: set[str] = set()
        named = False
        for values in self.op.value_variants:
            lists = [self.op.operand_dtypes(profile, m, values) for m in mains]
            if self.op.compute_operand in mains:  # the rules type it through the others
                lists.append(self.op.allowed_dtypes(profile, values))
            lists += [
                part(rv.rule, TypeListing).operand_dtypes(rv, operand, values)
                for rv in form.rules_for(profile, static=True)
            ]
            named_here = [x for x in lists if x is not None]
            if named_here:
                named = True
                found |= {d for d in named_here[0] if all(d in x for x in named_here[1:])}
        return [d.name for d in self.op.targets.dtypes if d.name in found] if named else None

    def _checks_common(self, form: FormViewAPI) -> bool:
        """Whether a declaration runs the op's common rules on what it passes: not when its kind runs
        it without them (TGATHER's other forms), nor when it passes a GlobalTensor where they name a
        tile (MGATHER's GM -> L1 forms, which the rules cannot speak of)."""
        if form.index == 0:
            return True
        backend = self.op.kind.form_backend(self.op, form)
        return backend.unchecked_when != "true" and not backend.global_operands

    def _main_operands(self, form: FormViewAPI, operand: str) -> list[str]:
        """The main declaration's tile operands whose argument, in this declaration, is `operand`."""
        carried = {p.name for p in form.params if p.operand == operand}
        out = []
        for m in self.op.tiles:
            try:
                arg = form.arg(m)
            except KeyError:
                continue
            if set(re.findall(r"\w+", arg)) & carried:
                out.append(m)
        return out

    def dtype_rows(self) -> list[DTypeRow]:
        """Per declaration (a vector op has one), its tile operands grouped by equal types;
        declarations whose rows are the same share them."""

        def rows_of(form: FormViewAPI | None) -> list[DTypeRow]:
            mine: list[DTypeRow] = []
            for operand in self._form_tiles(form):
                per = {
                    p: self.types(p, operand) if form is None else self.form_types(p, form, operand)
                    for p in self.profiles
                }
                same = next((r for r in mine if r.per_profile == per), None)
                if same is not None:
                    same.operands.append(operand)
                else:
                    mine.append(DTypeRow([operand], per))
            return mine

        return [replace(row, forms=numbers) for numbers, rows in self._by_form(rows_of) for row in rows]

    def _by_form(self, rows_of: Callable[[FormViewAPI | None], list[_Row]]) -> list[tuple[str, list[_Row]]]:
        """Each declaration's rows (a vector op's one set), declarations with the same rows together
        under their numbers ("1, 4-8")."""
        groups: list[tuple[list[int], list[_Row]]] = []
        forms: list[FormViewAPI | None] = [*self.op.forms] or [None]
        for form in forms:
            mine = rows_of(form)
            number = 1 if form is None else form.index + 1
            shared = next((g for g in groups if g[1] == mine), None)
            if shared is not None:
                shared[0].append(number)
            else:
                groups.append(([number], mine))
        return [(_numbers(numbers), rows) for numbers, rows in groups]

    def _form_tiles(self, form: FormViewAPI | None) -> list[str]:
        """The tile (or register) operands a declaration takes, in the op's order of operands."""
        if form is None:
            return list(self.op.tiles)
        taken = {p.operand for p in form.params if p.operand} | {
            t.operand for t in form.template if t.operand
        }
        taken -= set(self.op.kind.form_backend(self.op, form).global_operands)
        names = [o.name for o in self.op.spec.every_operand if o.kind in ("tile", "vreg") and o.name in taken]
        return list(dict.fromkeys(names))  # overloads may each declare an operand of the same name

    def pair_matrices(self) -> list[PairMatrix]:
        """One matrix per pair of operands a rule tabulates (TCVT's conversions), over every profile
        that tabulates them, each pair marked with the profiles whose static rules accept it."""
        found: dict[tuple[str, str], dict[str, tuple[list[str], list[str]]]] = {}
        for p in self.profiles:
            tabulated = [part(rv.rule, Tabulated) for rv in self.op.rules_for(p, static=True)]
            for pair in sorted({x for t in tabulated if (x := t.tabulated_operands()) is not None}):
                found.setdefault(pair, {})[p] = (self.types(p, pair[0]), self.types(p, pair[1]))
        out: list[PairMatrix] = []
        order = [d.name for d in self.op.targets.dtypes]
        for (row_op, col_op), per_profile in found.items():
            rows = [d for d in order if any(d in r for r, _ in per_profile.values())]
            cols = [d for d in order if any(d in c for _, c in per_profile.values())]
            legal: dict[tuple[str, str], list[str]] = {}
            for p, (p_rows, p_cols) in per_profile.items():
                for r in p_rows:
                    for c in p_cols:
                        if self._admits(p, {row_op: r, col_op: c}):
                            legal.setdefault((r, c), []).append(p)
            free = [p for p in self.profiles if self.op.available(p) and p not in per_profile]
            out.append(PairMatrix(row_op, col_op, list(per_profile), rows, cols, legal, free))
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

    def form_placement(self, profile: str, form: FormViewAPI, operand: str) -> dict[str, str]:
        """What the profile's static rules fix about where one declaration's tile operand lives: the
        declaration's own rules and, when it runs them, the op's rules on the main operands whose
        argument this operand is."""
        facts: dict[str, str] = {}
        if self._checks_common(form):
            for main in [operand] if form.index == 0 else self._main_operands(form, operand):
                for aspect, value in self.placement(profile, main).items():
                    facts.setdefault(aspect, value)
        if form.index:
            for rv in form.rules_for(profile, static=True):
                fact = part(rv.rule, Placed).placement()
                if fact is not None and operand in rv.rule.rule_operands:
                    facts.setdefault(fact[0], fact[1])
        return facts

    def placement_rows(self) -> list[PlacementRow]:
        """Per declaration, its tile operands grouped by equal placements: the location and layout
        their rules demand on each profile ("any" if none); declarations whose rows are the same
        share them."""

        def rows_of(form: FormViewAPI | None) -> list[PlacementRow]:
            mine: list[PlacementRow] = []
            tiles = self._form_tiles(form)
            main = [o.name for o in self.op.operands if o.kind == "tile"]
            own = [o.name for o in self.op.spec.every_operand if o.kind == "tile" and o.name not in main]
            for name in [t for t in main if t in tiles] + [t for t in tiles if t in own]:
                per: dict[str, str] = {}
                for p in self.profiles:
                    if not self.op.available(p):
                        per[p] = "unavailable"
                        continue
                    facts = self.placement(p, name) if form is None else self.form_placement(p, form, name)
                    ordered = sorted(facts.items(), key=lambda kv: (_ASPECTS + (kv[0],)).index(kv[0]))
                    per[p] = ", ".join(_spell(k, v) for k, v in ordered) or "any"
                same = next((r for r in mine if r.per_profile == per), None)
                if same is not None:
                    same.operands.append(name)
                else:
                    mine.append(PlacementRow([name], per))
            return mine

        return [replace(row, forms=numbers) for numbers, rows in self._by_form(rows_of) for row in rows]


def _numbers(numbers: list[int]) -> str:
    """Declaration numbers as a short list: runs of three or more as a range ("1, 4-8")."""
    out: list[str] = []
    start = 0
    for i in range(1, len(numbers) + 1):
        if i == len(numbers) or numbers[i] != numbers[i - 1] + 1:
            run = numbers[start:i]
            out += [f"{run[0]}-{run[-1]}"] if len(run) >= 3 else [str(n) for n in run]
            start = i
    return ", ".join(out)


def _spell(aspect: str, value: str) -> str:
    return f"location `{value}`" if aspect == "Location" else f"{aspect.lower()} {value}"
