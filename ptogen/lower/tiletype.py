"""The Tile type's own facts as the templates see them: its static rules (a C++ condition, the
message and doc line, the Tile types of the rule's compile-fail case and legal twin) and the
cube's tile aliases per profile.

One definition in targets.yaml (`tile_type:`) renders to the static_asserts of
`pto/common/pto_tile_rules.hpp`, the aliases of `pto/common/pto_tile_aliases.hpp`, the Tile page
of the reference and the compile-fail kernels of `tests/tile/verify.cpp`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..spec.model import TILE_FACTS, ProfileDef, TileAliasDef, TileExample, TileRuleDef, TileTypeDef

# Bytes of one box of each TileConfig size name.
FRACTAL_BYTES = {"fractalABSize": 512, "fractalCSize": 1024, "fractalMxSize": 32}


def tile_cpp(t: TileExample) -> str:
    """The full Tile type of an example (static valid shape = the whole tile)."""
    return (
        f"Tile<TileType::{t.loc}, {t.dtype}, {t.rows}, {t.cols}, BLayout::{t.blayout}, {t.rows}, {t.cols}, "
        f"SLayout::{t.slayout}, {t.fractal}>"
    )


@dataclass(frozen=True)
class TileRuleView:
    fact: TileRuleDef

    @property
    def id(self) -> str:
        return self.fact.id

    @property
    def summary(self) -> str:
        return self.fact.summary

    @property
    def message(self) -> str:
        return f"Tile: {self.fact.summary}"

    @property
    def condition(self) -> str:
        """The static_assert's condition: the requirement wherever `when` holds."""
        if self.fact.when is None:
            return self.fact.require
        return f"!({self.fact.when}) || ({self.fact.require})"

    @property
    def when(self) -> str | None:
        return self.fact.when

    @property
    def require(self) -> str:
        return self.fact.require

    @property
    def source(self) -> str | None:
        return self.fact.source

    @property
    def broken_cpp(self) -> str:
        return tile_cpp(self.fact.broken)

    @property
    def legal_cpp(self) -> str:
        return tile_cpp(self.fact.legal)


@dataclass(frozen=True)
class AliasCase:
    """One branch of an alias's per-profile choice: the profiles it serves and their layout."""

    profiles: list[ProfileDef]
    blayout: str
    slayout: str
    fractal: str

    @property
    def box_bytes(self) -> int:
        return FRACTAL_BYTES[self.fractal]


@dataclass(frozen=True)
class TileAliasView:
    alias: TileAliasDef
    cases: list[AliasCase]  # the profiles named in `layouts:` first, then the rest ("*")

    @property
    def name(self) -> str:
        return self.alias.name

    @property
    def loc(self) -> str:
        return self.alias.loc

    @property
    def description(self) -> str:
        return self.alias.description

    @property
    def names(self) -> list[tuple[str, str | None]]:
        """(alias name, CompactMode value or None) of each alias this entry declares."""
        out: list[tuple[str, str | None]] = [(self.alias.name, None)]
        if self.alias.compact:
            out.append((f"{self.alias.name}Compact", "Normal"))
        return out

    def case_of(self, profile: ProfileDef) -> AliasCase:
        return next(c for c in self.cases if profile in c.profiles)


@dataclass(frozen=True)
class TileTypeView:
    spec: TileTypeDef
    profiles: list[ProfileDef]
    simulated: ProfileDef

    @property
    def facts(self) -> dict[str, str]:
        return TILE_FACTS

    @property
    def rules(self) -> list[TileRuleView]:
        return [TileRuleView(r) for r in self.spec.rules]

    @property
    def aliases(self) -> list[TileAliasView]:
        out = []
        for a in self.spec.aliases:
            cases: list[AliasCase] = []
            named = [p for p in self.profiles if p.name in a.layouts]
            for p in named:
                lay = a.layouts[p.name]
                cases.append(AliasCase([p], lay.blayout, lay.slayout, lay.fractal))
            rest = [p for p in self.profiles if p.name not in a.layouts]
            if rest:
                lay = a.layouts["*"]
                cases.append(AliasCase(rest, lay.blayout, lay.slayout, lay.fractal))
            out.append(TileAliasView(a, cases))
        return out

    @property
    def hardware_profiles(self) -> list[ProfileDef]:
        """The profiles an arch macro selects when PTO_TARGET_PROFILE is not given (the simulated
        profile is what remains)."""
        return [p for p in self.profiles if p != self.simulated]
