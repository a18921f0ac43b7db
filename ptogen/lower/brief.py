"""`ptogen show OP --brief`: what a kernel writer looks up, in a terminal. The op's declarations, its
element types per profile (and the combinations a rule tabulates), where its tiles live and what it
computes, read off the same views as the op's page (`Glance`), so the two cannot disagree."""

from __future__ import annotations

from dataclasses import dataclass

from ..kind_api import OpViewAPI
from .glance import DTypeRow, Glance, PlacementRow


@dataclass(frozen=True)
class Combination:
    """One element-type combination of a tabulated rule, and the profiles that admit it."""

    types: tuple[str, ...]
    profiles: list[str]


class Brief:
    """What `show --brief` prints of one op (templates/cli/brief.txt.j2)."""

    def __init__(self, op: OpViewAPI):
        self.op = op
        self.glance = Glance(op)

    @property
    def semantics(self) -> str:
        """One line: the element expression (`dst = src0 + src1`), else the op's summary."""
        expr = self.op.spec.semantics.expr
        if not expr:
            return self.op.spec.summary
        return expr if "=" in expr.split("(")[0] else f"{self.op.domain} = {expr}"

    @property
    def profiles(self) -> list[str]:
        return self.glance.profiles

    @property
    def unavailable(self) -> list[str]:
        return [p for p in self.profiles if not self.op.available(p)]

    @property
    def type_rows(self) -> list[DTypeRow]:
        return self.glance.dtype_rows()

    def spelled_types(self, row: DTypeRow) -> dict[str, str]:
        """A row's types per profile, one line each (`any` where no rule names the operands, `-` for
        none)."""
        spelled = {p: row.per_profile[p] for p in self.profiles}
        return {p: "any" if types is None else " ".join(types) or "-" for p, types in spelled.items()}

    @property
    def combinations(self) -> tuple[list[str], list[Combination]] | None:
        """The tabulated operands and each combination with the profiles admitting it (one table
        with a mark per profile, not one per profile); None when no rule tabulates several."""
        tables = self.glance.tuple_tables()
        if not tables:
            return None
        table = tables[0]
        return table.operands, [Combination(row, table.accepted[row]) for row in table.rows]

    @property
    def placements(self) -> list[PlacementRow]:
        """Tile operands whose location or layout some profile fixes."""
        return [r for r in self.glance.placement_rows() if set(r.per_profile.values()) != {"any"}]

    @property
    def types_by_form(self) -> bool:
        """Whether the declarations' type rows differ, so that each row names its declarations."""
        return len({r.forms for r in self.type_rows}) > 1

    @property
    def placements_by_form(self) -> bool:
        """Whether the declarations' tile rows differ (rows that fix nothing included, which the list
        leaves out), so that each row names its declarations."""
        return len({r.forms for r in self.glance.placement_rows()}) > 1
