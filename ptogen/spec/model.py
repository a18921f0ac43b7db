"""Pydantic models of the spec files: the target vocabulary and one op per file.

Field names mirror the sections of the ISA pages. Every fact a generator consumes is a typed
field; free text is limited to prose (summary, mechanism, notes) and is checked so it cannot
break out of the Markdown or C++ it lands in.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping
from typing import Annotated, ClassVar, Literal

from pydantic import AfterValidator, Field, model_validator

from ..rules import Rule
from .fields import (
    Code,
    CodeSpan,
    CppConstant,
    CppExample,
    CppIdent,
    CppParamType,
    CppQualified,
    FiniteFloat,
    InlineText,
    Int64,
    Line,
    Name,
    ProfileName,
    Prose,
    Strict,
    TileLocation,
    TypeName,
)

# ----------------------------------------------------------------------------- targets.yaml


class DTypeDef(Strict):
    """One element type of the vocabulary."""

    name: TypeName = Field(description="C++ spelling used in kernels and checks, e.g. `half`")
    aliases: list[TypeName] = Field(default_factory=list, description="other C++ spellings, e.g. float16_t")
    asm: Name = Field(description="PTO assembly spelling, e.g. f16")
    kind: Literal["float", "int", "uint"]
    bits: Literal[4, 8, 16, 32, 64]
    numpy: Name = Field(
        description="numpy / ml_dtypes name of the same type, e.g. float16, bfloat16 (for a 4-bit type, "
        "of its storage unit, uint8)"
    )
    per_byte: Literal[1, 2] = Field(
        1,
        description="elements one byte of storage holds: 2 for the twin 4-bit floats, 1 for every other type",
    )
    test_matrix: bool = Field(
        True,
        description="whether the general test matrix (every op over every type) includes this type; the "
        "4-bit types are left out of it: the MX products and TQUANT plan their fp4 cases themselves, and "
        "tests/runtime/test_packed_types.py checks TCVT, TLOAD and TSTORE of them",
    )


class ProfileDef(Strict):
    name: ProfileName
    extends: ProfileName | None = Field(
        default=None,
        description="a profile this one starts from: its fields are inherited unless stated here, and "
        "every rule of an op that applies to it applies to this profile too, unless the op states a "
        "rule of the same kind over the same operands for this profile",
    )
    backend_header: Annotated[str, Field(pattern=r"^[A-Za-z0-9_${}]+\.(hpp|h)$")] | None = Field(
        default=None,
        description="the backend header of an intrinsic whose spec names none, as a pattern over the "
        "op's name (`${Camel}.hpp`: TRowExpandAdd.hpp for TROWEXPANDADD)",
    )
    macro: CppIdent = Field(description="value for -DPTO_TARGET_PROFILE=<macro>")
    title: InlineText
    description: Prose
    arch_macro: CppIdent = Field(
        description="upstream's build macro that selects this target's backend, e.g. PTO_NPU_ARCH_A2A3; "
        "the profile's checks follow it unless PTO_TARGET_PROFILE says otherwise"
    )
    backend_dir: Annotated[str, Field(pattern=r"^[a-z0-9_]+(/[a-z0-9_]+)*$")] = Field(
        description="include directory of the backend's `<NAME>_IMPL` headers, e.g. pto/npu/a2a3"
    )
    memories: dict[TileLocation, Annotated[int, Field(ge=1, le=1 << 30)]] = Field(
        default_factory=dict,
        description="bytes of the on-chip memory behind each tile location on this target; a location "
        "not listed does not exist there (empty: the profile states no capacities, as the CPU simulator)",
    )


class InstructionSetDef(Strict):
    id: Name
    title: InlineText
    kind: Literal["tile", "vector", "scalar"] = Field(
        description="the level of the set's ops: tile intrinsics, vector-register ops, or scalar builtins "
        "(pipe flags, predicates, DMA set-up) a vector program calls"
    )
    namespace: CppIdent | None = Field(
        default=None,
        description="the namespace inside `pto` that declares the set's intrinsics (`comm`: pto::comm), "
        "as upstream's header declares them",
    )
    header: Annotated[str, Field(pattern=r"^pto/[a-z0-9_]+/[a-z0-9_]+\.hpp$")] | None = Field(
        default=None,
        description="the header that declares the set's intrinsics, as upstream names it "
        "(default: pto/common/pto_instr.hpp)",
    )
    impl_header: Annotated[str, Field(pattern=r"^pto/[a-z0-9_]+/[a-z0-9_]+\.hpp$")] | None = Field(
        default=None,
        description="with `header`: the header that includes the backend of the set's intrinsics, as "
        "upstream names it (pto/comm/pto_comm_instr_impl.hpp)",
    )
    backend_dirs: dict[ProfileName, Annotated[str, Field(pattern=r"^[a-z0-9_]+(/[a-z0-9_]+)*$")]] = Field(
        default_factory=dict,
        description="per profile, the include directory of the set's `<NAME>_IMPL` headers when it is "
        "not the profile's `backend_dir` (upstream's pto/comm/a2a3 for the communication ops)",
    )
    doc_dir: Annotated[str, Field(pattern=r"^[a-z0-9_-]+(/[a-z0-9_-]+)*$")]
    index_page: Annotated[str, Field(pattern=r"^[a-z0-9_-]+(/[a-z0-9_-]+)*\.md$")]
    summary: Prose
    order: list[Annotated[str, Field(pattern=r"^pto\.([a-z][a-z0-9_]*\.)?[a-z][a-z0-9_]*$")]] = Field(
        description="canonical order of the set's mnemonics; index pages and previous/next links follow it"
    )


class GroupingDef(Strict):
    """A category (arithmetic, compare, ...) or an execution unit (vector, cube, ...): a grouping of
    ops across instruction sets, stated once for each op kind it covers."""

    id: Name
    title: InlineText
    kinds: list[Name] = Field(min_length=1, description="the op kinds (`semantics.kind`) it covers")


class FamilyDef(Strict):
    """Related ops across instruction sets: each member's page lists the others."""

    name: Name
    title: InlineText
    ops: list[Annotated[str, Field(pattern=r"^pto\.[a-z][a-z0-9_]*$")]] = Field(min_length=2)


class EnumApply(Strict):
    """Semantics of an enum used as an op attribute: one expression per value over `params`."""

    params: list[Name] = Field(min_length=1)
    cases: dict[str, Line] = Field(description="value -> expression in the semantics language")


class EnumTrait(Strict):
    """A constant per value of an enum, as a class template specialised per value (upstream's
    `OpPipeEntry<Op>::pipe`): `name<Enum::V>::member` is `values[V]`, else `default`."""

    name: CppIdent
    member: CppIdent
    type: CppIdent
    default: CppIdent
    values: dict[CppIdent, CppIdent]


class EnumDef(Strict):
    name: CppIdent
    namespace: CppIdent | None = Field(
        default=None, description="the namespace inside `pto` that declares the enum (`comm`: pto::comm)"
    )
    values: list[CppIdent]
    underlying: TypeName | None = Field(
        default=None, description="the enum's underlying C++ type, as upstream declares it"
    )
    codes: dict[CppIdent, int] | None = Field(
        default=None, description="explicit enumerator values, as upstream declares them (default: 0, 1, ...)"
    )
    description: InlineText
    asm: Line | None = Field(default=None, description="attribute spelling in PTO assembly, e.g. #pto.cmp")
    apply: EnumApply | None = None
    trait: EnumTrait | None = None

    @model_validator(mode="after")
    def _cases(self) -> EnumDef:
        if self.trait is not None and not set(self.trait.values) <= set(self.values):
            raise ValueError("`trait.values` may name only values of the enum")
        if self.apply is not None and sorted(self.apply.cases) != sorted(self.values):
            raise ValueError("`apply.cases` must give exactly one expression per value")
        if self.codes is not None and sorted(self.codes) != sorted(self.values):
            raise ValueError("`codes` must give exactly one number per value")
        return self


OperandKind = Literal["tile", "scalar", "vreg", "mask", "attr", "global", "context", "events"]


class ExampleKernel(Strict):
    """What every compiled C++ example shares: `before` + the body (indented by `indent`) + `after`."""

    # Kept as written (a Code field would drop the newline that ends `before`).
    before: Annotated[str, Field(max_length=2000)]
    after: Annotated[str, Field(max_length=2000)]
    indent: Annotated[int, Field(ge=0, le=8)] = 2


# --------------------------------------------------------------------------- the Tile type
# The names a Tile rule's C++ condition may use: the Tile's own facts, as `tile_rules.hpp.j2` binds
# them, and the scoped names of its enums and of TileConfig.
TILE_FACTS = {
    "Loc": "the tile's location (TileType)",
    "Rows": "rows of the tile's storage",
    "Cols": "columns of the tile's storage",
    "BFractal": "the box order (BLayout), or the element order of a tile without boxes",
    "SFractal": "the layout inside one box (SLayout); NoneBox: no boxes",
    "SFractalSize": "bytes of one box",
    "InnerRows": "rows of one box (1 without boxes)",
    "InnerCols": "columns of one box (1 without boxes)",
    "ElemBytes": "sizeof(DType): the bytes of one element (one byte for the 4-bit types)",
}
TILE_SCOPES = ("TileType", "BLayout", "SLayout", "TileConfig")
_TILE_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)?")


def _tile_condition(value: str) -> str:
    for tok in _TILE_TOKEN.findall(value):
        scope, _, _member = tok.partition("::")
        if _member and scope in TILE_SCOPES:
            continue
        if not _member and (tok in TILE_FACTS or tok in ("and", "or", "not")):
            continue
        known = ", ".join([*TILE_FACTS, *(f"{s}::..." for s in TILE_SCOPES)])
        raise ValueError(f"{tok!r} is not a fact of the Tile type (one of: {known})")
    if re.search(r"[;{}\"'#]", value):
        raise ValueError("must be one C++ condition (no `;`, braces, quotes or `#`)")
    return value


TileCondition = Annotated[CodeSpan, AfterValidator(_tile_condition)]
BoxLayout = Literal["RowMajor", "ColMajor"]
InnerLayout = Literal["NoneBox", "RowMajor", "ColMajor"]


class TileExample(Strict):
    """One Tile type, written field by field (the rule's test kernels declare it)."""

    loc: TileLocation = "Vec"
    dtype: TypeName
    rows: Annotated[int, Field(ge=0, le=4096)]
    cols: Annotated[int, Field(ge=0, le=4096)]
    blayout: BoxLayout = "RowMajor"
    slayout: InnerLayout = "NoneBox"
    fractal: Annotated[int, Field(ge=1, le=4096)] = 512


class TileRuleDef(Strict):
    """A static rule of the Tile type: a condition and a summary that is both its message and its
    doc line, with a Tile that breaks it (and only it) and a legal twin."""

    id: Name
    summary: InlineText = Field(description="the static_assert's message and the Tile page's line")
    when: TileCondition | None = Field(
        default=None,
        description="the tiles the rule constrains (C++ over the Tile's facts); none: every tile",
    )
    require: TileCondition = Field(description="what such a tile must satisfy (C++ over the Tile's facts)")
    broken: TileExample = Field(description="a Tile that breaks this rule and no other")
    legal: TileExample = Field(description="its legal twin, which compiles")
    source: InlineText | None = Field(default=None, description="where upstream states the rule")

    @model_validator(mode="after")
    def _message(self) -> TileRuleDef:
        if '"' in self.summary or "\\" in self.summary:
            raise ValueError("`summary` is a C++ string literal's text: no `\"` or backslash")
        return self


class TileLayoutDef(Strict):
    blayout: BoxLayout
    slayout: InnerLayout
    fractal: Literal["fractalABSize", "fractalCSize", "fractalMxSize"]


class TileAliasDef(Strict):
    """A cube tile alias: a Tile of one location whose box layout may differ per profile."""

    name: CppIdent
    loc: TileLocation
    layouts: dict[Annotated[str, Field(pattern=r"^(\*|[A-Z][A-Z0-9]*)$")], TileLayoutDef] = Field(
        description='the box layout per profile; "*" for every profile not listed'
    )
    compact: bool = Field(default=True, description="also declare <name>Compact (CompactMode::Normal)")
    description: InlineText


class TileTypeDef(Strict):
    """The Tile type's own facts: the static rules every build checks and the cube's aliases."""

    rules: list[TileRuleDef]
    aliases: list[TileAliasDef] = Field(default_factory=list)

    @model_validator(mode="after")
    def _unique(self) -> TileTypeDef:
        _no_duplicates([r.id for r in self.rules], "tile rule id")
        _no_duplicates([a.name for a in self.aliases], "tile alias")
        for a in self.aliases:
            if "*" not in a.layouts:
                raise ValueError(f'tile alias {a.name}: `layouts` needs a "*" entry (every other profile)')
        return self


class StructField(Strict):
    name: CppIdent
    type: TypeName
    description: InlineText


class StructDef(Strict):
    """A plain C++ struct an intrinsic takes by reference (a `context` operand of a fixed class),
    declared once in pto_enums.hpp, before every backend."""

    name: CppIdent
    description: InlineText
    fields: list[StructField] = Field(default_factory=list)
    # An array type instead of a struct (`using TRandomKey = uint32_t[2];`): its element type and length.
    array_of: TypeName | None = None
    length: int | None = Field(default=None, ge=1)

    @model_validator(mode="after")
    def _struct_or_array(self) -> StructDef:
        if (self.array_of is None) != (self.length is None):
            raise ValueError("an array type states both `array_of` and `length`")
        if bool(self.fields) == (self.array_of is not None):
            raise ValueError("a struct states `fields`, an array type `array_of` and `length`; not both")
        return self


class Targets(Strict):
    """The shared vocabulary: element types, target profiles, instruction sets, enums."""

    dtypes: list[DTypeDef]
    profiles: list[ProfileDef]
    default_profile: ProfileName
    instruction_sets: list[InstructionSetDef]
    enums: list[EnumDef] = Field(default_factory=list)
    structs: list[StructDef] = Field(
        default_factory=list, description="plain structs that intrinsics take by reference (context operands)"
    )
    families: list[FamilyDef] = Field(
        default_factory=list, description="related ops across instruction sets, listed on each member's page"
    )
    dtype_sets: dict[Name, list[TypeName]] = Field(
        default_factory=dict,
        description="named, ordered lists of element types; a rule's `dtypes:` may name one instead of "
        "listing its types",
    )
    asm_types: dict[OperandKind, CodeSpan] = Field(
        default_factory=dict,
        description="an operand's PTO assembly type when its spec states none, per operand kind",
    )
    example_kernel: ExampleKernel | None = Field(
        default=None,
        description="the file around an example written as `kernel:` (a compiled C++ function body)",
    )
    texts: dict[Name, Prose] = Field(
        default_factory=dict,
        description="named prose that several specs state word for word (a note, an exception); a spec "
        "writes `{shared: <name>}` where the text goes",
    )
    tile_type: TileTypeDef | None = Field(
        default=None,
        description="the Tile type's static rules (checked in every build) and the cube's tile aliases",
    )
    name_words: list[Annotated[str, Field(pattern=r"^[A-Z][A-Za-z0-9]*$")]] = Field(
        default_factory=list,
        description="the words intrinsic names are made of, as upstream's file names spell them "
        "(Row, Expand, Add): `${Camel}` in a class or header pattern splits a name on them",
    )
    categories: list[GroupingDef] = Field(
        default_factory=list,
        description="what ops do, across instruction sets (arithmetic, compare, convert, ...), each "
        "listing the op kinds it covers; the finder filters on it and search indexes it",
    )
    units: list[GroupingDef] = Field(
        default_factory=list,
        description="the execution unit that runs an op (vector, cube, MTE, scalar), per op kind",
    )

    @model_validator(mode="after")
    def _unique(self) -> Targets:
        spellings = [s for d in self.dtypes for s in (d.name, *d.aliases)]
        _no_duplicates(spellings, "dtype spelling")
        _no_duplicates([p.name for p in self.profiles], "profile")
        _no_duplicates([s.id for s in self.instruction_sets], "instruction set")
        names = {p.name for p in self.profiles}
        if self.default_profile not in names:
            raise ValueError(f"default_profile {self.default_profile!r} is not a declared profile")
        for p in self.profiles:
            if p.extends is not None and p.extends not in names:
                raise ValueError(f"profile {p.name!r} extends {p.extends!r}, which is not a declared profile")
        _no_duplicates([f.name for f in self.families], "family")
        for what, groups in (("category", self.categories), ("unit", self.units)):
            _no_duplicates([g.id for g in groups], what)
            _no_duplicates([k for g in groups for k in g.kinds], f"op kind in {what} lists")
        for f in self.families:  # members are ops of the sets' `order` lists (spec/load.py checks)
            _no_duplicates(f.ops, f"op in family {f.name!r}")
        for set_name, members in self.dtype_sets.items():
            _no_duplicates(members, f"dtype in set {set_name!r}")
            for m in members:
                if not any(m == d.name or m in d.aliases for d in self.dtypes):
                    raise ValueError(f"dtype set {set_name!r} names {m!r}, which is not a dtype of `dtypes`")
        return self

    def ancestors(self, name: str) -> list[str]:
        """The profiles `name` extends, nearest first."""
        out: list[str] = []
        parent = self.profile(name).extends
        while parent is not None and parent not in out and parent != name:
            out.append(parent)
            parent = self.profile(parent).extends
        return out

    def dtype(self, spelling: str) -> DTypeDef:
        for d in self.dtypes:
            if spelling == d.name or spelling in d.aliases:
                return d
        raise KeyError(spelling)

    def has_dtype(self, spelling: str) -> bool:
        try:
            self.dtype(spelling)
        except KeyError:
            return False
        return True

    def profile_names(self) -> list[str]:
        return [p.name for p in self.profiles]

    def profile(self, name: str) -> ProfileDef:
        return next(p for p in self.profiles if p.name == name)

    def instruction_set(self, set_id: str) -> InstructionSetDef:
        return next(s for s in self.instruction_sets if s.id == set_id)

    def category_of(self, kind: str) -> GroupingDef | None:
        return next((g for g in self.categories if kind in g.kinds), None)

    def unit_of(self, kind: str) -> GroupingDef | None:
        return next((g for g in self.units if kind in g.kinds), None)


def _no_duplicates(items: list[str], what: str) -> None:
    seen: set[str] = set()
    for item in items:
        if item in seen:
            raise ValueError(f"duplicate {what} {item!r}")
        seen.add(item)


# ----------------------------------------------------------------------------- op spec

Role = Literal["dst", "src", "scalar", "tmp", "mask", "attr"]


class Operand(Strict):
    """One row of the Inputs / Expected Outputs tables."""

    name: Name = Field(description="name used in the semantics, syntax and tables, e.g. src, slope")
    kind: OperandKind
    role: Role
    asm_type: CodeSpan = Field(description="type in PTO assembly, e.g. `!pto.tile<...>` or `T`")
    description: InlineText
    enum: CppIdent | None = Field(
        default=None, description="attr operands: the enum of targets.yaml they take"
    )
    broadcast: Literal["per_row", "per_col"] | None = Field(
        default=None,
        description="source tiles read as one value per row (element (i, 0)) or per column "
        "(element (0, j)), broadcast over the result",
    )
    broadcast_swap: Name | None = Field(
        default=None,
        description="a broadcast source's partner that may take the broadcast role instead "
        "(TROWEXPANDSUB's src0): the one of the two with the destination's valid shape is the "
        "full-sized operand, decided when the op runs; a per-row operand of w valid columns is read "
        "at column j mod w (one column: a value per row; a 32-byte block: the block repeated)",
    )

    packed: Literal["rows", "stream"] | None = Field(
        default=None,
        description="a packed predicate tile, B = 8 * sizeof(element) predicates per element: "
        "`rows`: predicate (i, j) is bit j mod B of element (i, j div B) (TCMP, TSELS); "
        "`stream`: predicate n = i * cols + j of the region is bit n mod B of the (n div B)-th "
        "element of the tile's valid region in row-major order (TCMPS, TSEL)",
    )

    @model_validator(mode="after")
    def _attr(self) -> Operand:
        if (self.kind == "attr") != (self.enum is not None):
            raise ValueError("attr operands (and only they) name their `enum`")
        if self.packed and (self.kind != "tile" or self.role not in ("dst", "mask")):
            raise ValueError("only a destination or mask tile holds packed predicates")
        if self.broadcast is not None and (self.kind != "tile" or self.role == "dst"):
            raise ValueError("only source tiles are broadcast")
        if self.broadcast_swap is not None and self.broadcast != "per_row":
            raise ValueError("`broadcast_swap` names the partner of a `broadcast: per_row` operand")
        return self


class TemplateParam(Strict):
    name: CppIdent
    kind: Literal["typename", "value", "pack"]
    type: Literal["auto"] | CppQualified | None = Field(default=None, description="type of a value parameter")
    default: CppConstant | None = Field(
        default=None,
        description="the default argument: a (qualified) name, a type (`typename TileDataOut = void`) or a "
        "decimal integer (TRANDOM's `Rounds = 10`)",
    )
    operand: Name | None = Field(
        default=None,
        description="a value parameter that carries an operand as a compile-time constant, e.g. the "
        "address of `TASSIGN<Addr>(tile)`",
    )

    @model_validator(mode="after")
    def _shape(self) -> TemplateParam:
        if self.kind == "value" and self.type is None:
            raise ValueError("a value template parameter needs `type`")
        if self.kind != "value" and self.type is not None:
            raise ValueError("only value template parameters take `type`")
        if self.kind == "pack" and self.default is not None:
            raise ValueError("a pack takes no `default`")
        if self.operand is not None and (self.kind != "value" or self.default is not None):
            raise ValueError("only a value template parameter without a default carries an operand")
        return self


class Param(Strict):
    """One function parameter of the C++ intrinsic."""

    name: CppIdent
    type: CppIdent | None = Field(
        default=None, description="template parameter: a tile reference or the pack"
    )
    dtype_of: CppIdent | None = Field(default=None, description="scalar typed `typename <T>::DType`")
    attr: CppIdent | None = Field(default=None, description="an enum-typed attribute parameter, e.g. CmpMode")
    value_type: TypeName | None = Field(
        default=None, description="scalar passed by value: a template type T, or a C++ type such as bool"
    )
    operand: Name | None = Field(default=None, description="the operand this parameter carries")
    events: bool = Field(
        default=False,
        description="the trailing `WaitEvents&... events` pack, which the intrinsic waits on before it "
        "runs; or, carrying an `events` operand, the events an op waits on as what it does (TSYNC)",
    )
    from_tile: bool = Field(
        default=False,
        description="an overload's parameter that passes a scalar operand as a tile (`type`); the value is "
        "the tile's element (0, 0), e.g. TCMPS's tile form",
    )
    const: bool = Field(default=False, description="taken by const reference (`const AsyncSession& session`)")
    pointer: bool = Field(
        default=False,
        description="a tile passed by pointer (`TileDataExp* exp`) rather than by reference; with "
        "`default: nullptr` the argument may be left out or null (TQUANT's `offset`)",
    )
    default: Annotated[str, Field(pattern=r"^[A-Za-z0-9_:.+-]+$", max_length=60)] | None = Field(
        default=None,
        description="the default argument of a scalar passed by value, as upstream declares it "
        "(`uint16_t indexRow = 0`)",
    )

    @model_validator(mode="after")
    def _shape(self) -> Param:
        if sum(x is not None for x in (self.type, self.dtype_of, self.attr, self.value_type)) != 1:
            raise ValueError("give exactly one of `type`, `dtype_of`, `attr` and `value_type`")
        if not self.events and self.operand is None:
            raise ValueError("a parameter must name its `operand` (or be the `events` pack)")
        if self.from_tile and self.type is None:
            raise ValueError("a `from_tile` parameter is a tile: give its `type`")
        if self.pointer and (self.type is None or self.events or self.from_tile):
            raise ValueError("a `pointer` parameter is a tile: give its `type`")
        if self.default is not None and self.value_type is None and not self.pointer:
            raise ValueError("only a scalar passed by value (`value_type`) or a pointer takes a `default`")
        if self.pointer and self.default not in (None, "nullptr"):
            raise ValueError("a pointer's only `default` is nullptr")
        return self


CppExpr = Annotated[str, Field(min_length=1, max_length=160, pattern=r"^[A-Za-z0-9_:<>(), .+-]+$")]
BackendHeader = Annotated[str, Field(pattern=r"^([a-z0-9_]+/)?[A-Za-z0-9_]+\.(hpp|h)$")]


class Dispatch(Strict):
    """How a declaration reaches its backend, as upstream's pto_instr.hpp does it: the
    `<impl>_IMPL` it calls, with which template and call arguments. Names refer to the
    declaration's own template and function parameters."""

    impl: CppIdent | None = Field(
        default=None, description="intrinsic whose `_IMPL` runs (default: this one), e.g. TDIVS for TRECIP"
    )
    call: Literal["map", "direct", "helper"] = Field(
        default="map",
        description="`map`: through upstream's MAP_INSTR_IMPL macros (traced by its CPU simulator); "
        "`direct`: a plain `<impl>_IMPL(...)` call; `helper`: a call of the function `impl` that every "
        "backend shares instead of an `_IMPL` (TSYNC's wait form: WaitAllEvents)",
    )
    roles: Annotated[str, Field(pattern=r"^[OI]+$")] | None = Field(
        default=None, description="MAP_INSTR_IMPL_ROLES: `O` (output) or `I` (input) per call argument"
    )
    template_args: list[CppExpr] | None = Field(
        default=None, description="explicit template arguments (default: the value template parameters)"
    )
    args: list[CppExpr] | None = Field(
        default=None,
        description="call arguments (default: the function parameters in order, events excluded)",
    )


GUARD_DESCRIPTION = (
    "the `std::enable_if_t<..., int> = 0` guard that ends the declaration's template head, as the "
    "template parameters it constrains, in order: a type parameter must be a tile "
    "(`is_tile_data_v<T>`), or a GlobalTensor when a global operand has it (`is_global_data_v<T>`), "
    "or a GridPipe when a pipe (`context` operand) has it (`is_grid_pipe_v<T>`), "
    "the pack must hold events only (`all_events_v<WaitEvents...>`); the terms are joined by `&&`. "
    "Empty (the default): no guard, as most of upstream's declarations"
)

GUARD_PLACE_DESCRIPTION = (
    "the guard stands before the events pack instead of ending the template head, as upstream's pipe "
    "intrinsics place it (`TileSplitAxis Split, std::enable_if_t<...> = 0, typename... WaitEvents`)"
)


class Overload(Strict):
    """A further C++ declaration of the same intrinsic, with the same element semantics unless
    `expr` gives its own.

    It carries every operand of the main declaration (under its own parameter and template names,
    in its own order) and may add operands of its own that do not change the result on the
    simulator, such as a scratch tile or a mode the hardware needs.
    """

    summary: InlineText = Field(description="what this form adds or changes, shown on the page")
    template: list[TemplateParam]
    params: list[Param]
    operands: list[Operand] = Field(
        default_factory=list, description="operands only this form takes (tmp tiles, modes)"
    )
    test_args: dict[Name, CppQualified | Int64] = Field(
        default_factory=dict,
        description="value passed for a non-tile operand of this form in generated tests",
    )
    test_template_args: dict[CppIdent, CppConstant] = Field(
        default_factory=dict,
        description="value generated tests pass for a value template parameter only this form has "
        "(default: its default, else the first value of its enum), e.g. `atomicType: AtomicType::AtomicAdd`",
    )
    expr: Line | None = Field(
        default=None,
        description="this form's own element semantics when it computes something else, e.g. "
        "`scalar / src` for the scalar-first TDIVS; it reads the same operands as the main one",
    )
    value_output: Name | None = Field(
        default=None,
        description="arg-reductions: an own destination tile that also receives the source value "
        "at each index the reduction picks (TROWARGMAX's dstVal)",
    )
    drops: list[Name] = Field(
        default_factory=list,
        description="operands of the main declaration this form does not take (TSYNC's barrier form "
        "waits on no events)",
    )
    tile_only: list[CppIdent] = Field(
        default_factory=list,
        description="type template parameters this declaration takes only as tiles, spelled as "
        "upstream's `TASSIGN<Addr>` spells it: an `std::enable_if_t<is_tile_data_v<T> || "
        "is_conv_tile_v<T>>` return type",
    )
    guard: list[CppIdent] = Field(default_factory=list, description=GUARD_DESCRIPTION)
    guard_before_pack: bool = Field(default=False, description=GUARD_PLACE_DESCRIPTION)
    dispatch: Dispatch = Field(default_factory=Dispatch)


class Intrinsic(Strict):
    """The C++ intrinsic exactly as documented in include/pto/common/pto_instr.hpp."""

    name: CppIdent
    qualifier: Literal["PTO_INST", "PTO_INTERNAL"] = "PTO_INST"
    returns: Literal["RecordEvent", "comm::AsyncEvent", "AsyncEvent", "bool", "void"] = Field(
        default="RecordEvent",
        description="what the intrinsic returns: an event the next op may wait on, an asynchronous "
        "operation's completion handle (TPREFETCH_ASYNC; `AsyncEvent` inside pto::comm), whether a "
        "condition holds (TTEST), or nothing (TASSIGN, TSYNC)",
    )
    template: list[TemplateParam]
    params: list[Param]
    tmp_in_events: Name | None = Field(
        default=None,
        description="operand passed as the first element of the events pack (documented quirk of TPRELU)",
    )
    overloads: list[Overload] = Field(
        default_factory=list, description="further declarations of the intrinsic (upstream's header)"
    )
    guard: list[CppIdent] = Field(default_factory=list, description=GUARD_DESCRIPTION)
    guard_before_pack: bool = Field(default=False, description=GUARD_PLACE_DESCRIPTION)
    dispatch: Dispatch = Field(default_factory=Dispatch)
    backend_headers: dict[ProfileName, BackendHeader] = Field(
        default_factory=dict,
        description="per profile, the backend header (in the profile's backend_dir) that defines the "
        "`_IMPL` this intrinsic dispatches to, as upstream's pto_instr_impl.hpp includes it",
    )


class BuiltinParam(Strict):
    """One parameter of a builtin function."""

    name: CppIdent
    type: CppParamType = Field(
        description="its C++ type as the runtime declares it, e.g. pipe_t, bool, vector_f32& or const float*"
    )
    operand: Name = Field(description="the operand this parameter carries")
    example: CppExample = Field(
        default="{}",
        description="an argument the generated tests pass, e.g. PIPE_MTE2; `{}` (the default) for a "
        "value-initialised variable (a register a reference parameter binds to)",
    )


class Builtin(Strict):
    """A free function of the hand-written runtime that device code calls by name (`set_flag(...)`):
    the spec states its declaration, and the generated tests call it as the spec declares it."""

    name: CppIdent
    returns: TypeName = Field(
        default="void",
        description="its return type; a builtin that returns a value (vector_bool) returns its first "
        "operand, a destination no parameter carries",
    )
    params: list[BuiltinParam]
    header: Annotated[str, Field(pattern=r"^pto(/[a-z0-9_]+)+\.hpp$")] = Field(
        description="the runtime header that declares it (under ptogen/runtime/include), "
        "e.g. pto/common/cpu_stub.hpp"
    )


class Spelling(Strict):
    """How C++ writes an IR form that is no function (a pointer cast, pointer arithmetic, a subscript,
    a vector scope): the statements A5 code writes for it, each operand a variable of that name."""

    code: Code = Field(
        description="the statements, complete: they declare every value they read, so that the "
        "generated tests compile them as written"
    )
    header: Annotated[str, Field(pattern=r"^pto(/[a-z0-9_]+)+\.hpp$")] = Field(
        description="the runtime header that gives the spelling its meaning on the host: the "
        "qualifiers and `__VEC_SCOPE__` (pto/vsim/scope.hpp), with the builtins a body calls "
        "(pto/vsim/builtins.hpp)"
    )


class ExactTolerance(Strict):
    kind: Literal["exact"]


class UlpTolerance(Strict):
    kind: Literal["ulp"]
    ulp: Annotated[int, Field(ge=1, le=1 << 20)]
    integers: Literal["exact"] = "exact"


Tolerance = Annotated[ExactTolerance | UlpTolerance, Field(discriminator="kind")]


class Semantics(Strict):
    """Element semantics, written once; rendered to LaTeX, simulator C++ and the numpy reference."""

    kind: Name = Field(description="op kind (ptogen/opkinds/): how the op iterates, is simulated and tested")
    expr: Line = Field(description="expression over operand names, e.g. `select(src > 0, src, src * slope)`")
    domain: Name = Field(description="operand whose valid region (tile) or active lanes (vector) is iterated")
    compute: Name | None = Field(
        default=None, description="operand whose element type sets the compute type (default: the domain)"
    )
    folds: Name | None = Field(
        default=None,
        description="reductions: what one result folds, one of the spans its kind names (`rows`, `cols`; "
        "`register`, `groups`, `pairs`)",
    )
    tolerance: Tolerance
    inactive_lanes: Literal["zero", "preserve"] | None = Field(
        default=None, description="vector ops: what inactive lanes of the result hold"
    )
    extra_outputs: dict[Name, Line] = Field(
        default_factory=dict,
        description="vector ops: further results (e.g. a carry mask) and their expressions",
    )


class SyntaxForms(Strict):
    pto_asm: list[Line] = Field(default_factory=list, description="PTO assembly (synchronous) form")
    ssa: list[Line] = Field(default_factory=list, description="AS Level 1 (SSA)")
    dps: list[Line] = Field(default_factory=list, description="AS Level 2 (DPS)")


class ProseConstraint(Strict):
    """A documented constraint that no generator checks (shown on the page only)."""

    text: Prose
    profiles: list[ProfileName] | None = None


class ProfileNote(Strict):
    profile: ProfileName | None = None
    text: Prose


class UpstreamBug(Strict):
    """A result of upstream's A5 backend that differs from the spec's and is argued as upstream's
    bug: `ptogen a5-check` reports a difference it covers as argued (not a failure), and the op's
    page lists it among the source notes, in the one sentence `note` spells and `parse` reads back."""

    cases: Line = Field(
        description="the generated test cases it concerns: a glob over their labels, or several joined by "
        "` | `"
    )
    dtypes: list[TypeName] = Field(
        default_factory=list,
        description="the element types it concerns: a type set naming one of them (default: every type)",
    )
    operand_types: list[Annotated[dict[Name, TypeName], Field(min_length=1)]] = Field(
        default_factory=list,
        description="the combinations of element types it concerns, each naming the types of some operands "
        "(`{src: float, dst: int16_t}`), for an op whose operands' types vary apart (default: every "
        "combination)",
    )
    operands: list[Name] = Field(
        default_factory=list,
        description="the results it concerns (`[max, scaling]`): a difference in another result is not "
        "covered (default: every result)",
    )
    outside_valid: bool = Field(
        default=False,
        description="it concerns only elements outside the result tile's valid region, which the op does not "
        "define: a difference inside the valid region is not covered",
    )
    not_built: bool = Field(
        default=False,
        description="upstream's A5 code does not compile these cases (it lacks the form the page defines): "
        "a5-check builds their group without them and counts them argued; it covers no differing result",
    )
    reason: Prose = Field(description="what upstream computes and why the spec's result is the right one")

    LEAD: ClassVar[str] = "**Argued upstream bug**"
    OUTSIDE: ClassVar[str] = ", outside the valid region"
    NOT_BUILT: ClassVar[str] = ", not built"
    _SENTENCE: ClassVar[re.Pattern[str]] = re.compile(
        r"^\*\*Argued upstream bug\*\* \(`ptogen a5-check`, cases `([^`]+)`((?:, `\w+`)*)"
        r"((?:, `\w+ \w+(?:, \w+ \w+)*`)*)"
        r"((?:, results(?: `\w+`)+)?)"
        rf"({re.escape(OUTSIDE)})?({re.escape(NOT_BUILT)})?\): (.*)$",
        re.S,
    )

    @property
    def case_globs(self) -> list[str]:
        """The globs over case labels that `cases` joins with ` | `."""
        return self.cases.split(" | ")

    @property
    def note(self) -> str:
        """The page's note: the cases, the types and the reason."""
        types = "".join(f", `{t}`" for t in self.dtypes)
        combos = (", ".join(f"{o} {t}" for o, t in c.items()) for c in self.operand_types)
        types += "".join(f", `{c}`" for c in combos)
        types += ", results " + " ".join(f"`{o}`" for o in self.operands) if self.operands else ""
        where = (self.OUTSIDE if self.outside_valid else "") + (self.NOT_BUILT if self.not_built else "")
        return f"{self.LEAD} (`ptogen a5-check`, cases `{self.cases}`{types}{where}): {self.reason}"

    @classmethod
    def parse(cls, text: str) -> dict[str, object] | None:
        """The fields of a note `note` wrote, else None."""
        m = cls._SENTENCE.match(text)
        if m is None:
            return None
        out: dict[str, object] = {"cases": m.group(1)}
        if m.group(2):
            out["dtypes"] = re.findall(r"`(\w+)`", m.group(2))
        if m.group(3):
            combos = re.findall(r"`([^`]+)`", m.group(3))
            out["operand_types"] = [dict(p.split(" ") for p in c.split(", ")) for c in combos]
        if m.group(4):
            out["operands"] = re.findall(r"`(\w+)`", m.group(4))
        if m.group(5):
            out["outside_valid"] = True
        if m.group(6):
            out["not_built"] = True
        return {**out, "reason": m.group(7)}

    def covers(
        self,
        label: str,
        types: Mapping[str, str],
        outside_valid: bool = False,
        not_built: bool = False,
        operand: str = "",
    ) -> bool:
        """Whether a difference on the case labelled `label`, over operands of the element types `types`
        (operand -> type), is this one; `outside_valid`: every element that differs lies outside the
        result's valid region; `not_built`: the difference is that the A5 code does not compile the case;
        `operand`: the result that differs (none for a case not built)."""
        return (
            self.not_built == not_built
            and (not self.operands or operand in self.operands)
            and any(fnmatch.fnmatchcase(label, glob) for glob in self.case_globs)
            and (not self.dtypes or bool(set(types.values()) & set(self.dtypes)))
            and (not self.operand_types or any(c.items() <= types.items() for c in self.operand_types))
            and (outside_valid or not self.outside_valid)
        )


class Example(Strict):
    lang: Literal["cpp", "text", "c"]
    code: Code
    compiles: bool = Field(default=False, description="cpp example is compiled by the test suite")


class TestValues(Strict):
    """Special values for the scalar operand in generated tests (besides the defaults per kind)."""

    float_scalars: list[FiniteFloat] = Field(default_factory=lambda: [0.0, 1.0, -0.5, 0.25])
    int_scalars: list[Int64] = Field(default_factory=lambda: [0, 1, -3, 5])


class Variant(Strict):
    """A variant of the main declaration that the types of its operands select, as upstream's
    TTRANS and TEXTRACT take ConvTile operands through their one declaration: the same call,
    dispatched to the same `_IMPL`, checked against rules of its own instead of the op's. The op's
    kind says which variants exist and which operand types select each (`OpKind.variant_condition`)."""

    name: Name = Field(description="the variant, one the op's kind defines, e.g. `conv` (ConvTile operands)")
    summary: InlineText = Field(description="what the variant does, one line of the page")
    mechanism: Prose = Field(description="how it maps elements, for the page")
    constraints: list[Rule] = Field(
        default_factory=list,
        description="its compile-time rules (the op's own do not apply to it), in the main declaration's "
        "scope",
    )
    prose_constraints: list[ProseConstraint] = Field(default_factory=list)


class OpSpec(Strict):
    """One instruction, mirroring its documentation page."""

    mnemonic: Annotated[
        str,
        Field(
            pattern=r"^pto\.([a-z][a-z0-9_]*\.)?[a-z][a-z0-9_]*$",
            description="the op's key: `pto.<name>`, or `pto.<namespace>.<name>` for an op of a set with a "
            "C++ namespace whose name another set's op has too (`pto.comm.tgather` beside `pto.tgather`)",
        ),
    ]
    instruction_set: Name
    summary: InlineText
    mechanism: Prose
    semantics: Semantics
    operands: list[Operand] = Field(min_length=1)
    intrinsic: Intrinsic | None = None
    builtin: Builtin | None = Field(default=None, description="scalar-level ops: the runtime function")
    spelling: Spelling | None = Field(
        default=None, description="IR forms (kind ir_form): the C++ A5 code writes for them, no function"
    )
    syntax: SyntaxForms
    side_effects: Prose
    constraints: list[Rule] = Field(default_factory=list)
    prose_constraints: list[ProseConstraint] = Field(default_factory=list)
    variants: list[Variant] = Field(
        default_factory=list,
        description="variants of the main declaration selected by its operands' types (ConvTile operands)",
    )
    exceptions: list[InlineText] = Field(min_length=1)
    profile_notes: list[ProfileNote] = Field(default_factory=list)
    examples: list[Example] = Field(default_factory=list)
    notes: list[Prose] = Field(
        default_factory=list, description="disagreements between sources, shown on the page"
    )
    upstream_bugs: list[UpstreamBug] = Field(
        default_factory=list,
        description="differences of upstream's A5 backend from the spec, argued as its bugs: `ptogen "
        "a5-check` accepts them, the page lists them after the notes",
    )
    test_values: TestValues = Field(default_factory=TestValues)

    @property
    def short(self) -> str:
        """The name the op is spelled by in assembly and on its page (tgather)."""
        return self.mnemonic.rsplit(".", 1)[1]

    @property
    def qualifier(self) -> str | None:
        """The namespace a qualified key names (comm for pto.comm.tgather), else None."""
        parts = self.mnemonic.split(".")
        return parts[1] if len(parts) == 3 else None

    @property
    def key(self) -> str:
        """The op's identity without `pto.` (tgather, comm.tgather): what commands select ops by."""
        return self.mnemonic.split(".", 1)[1]

    @property
    def stem(self) -> str:
        """The op's name in file names shared by every set (tgather, comm_tgather)."""
        return self.key.replace(".", "_")

    def operand(self, name: str) -> Operand:
        return next(o for o in self.operands if o.name == name)

    @property
    def every_operand(self) -> list[Operand]:
        """The main declaration's operands, then those only an overload takes (TSYNC's op class)."""
        own = [o for ov in (self.intrinsic.overloads if self.intrinsic else []) for o in ov.operands]
        return [*self.operands, *own]

    @property
    def inputs(self) -> list[Operand]:
        return [o for o in self.operands if o.role != "dst"]

    @property
    def outputs(self) -> list[Operand]:
        return [o for o in self.operands if o.role == "dst"]
