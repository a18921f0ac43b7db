"""ConvTile operands of the generated runtime cases (TLOAD and TSTORE of a ConvTile): the feature-map and
filter shapes the cases move, in units of the element type's channel block C0 (32 bytes), and where
each element lies, by its (n, [d,] c1, h, w, c0) or (c1, h, w, n, c0) indices, in the ConvTile's dense
storage and in a GlobalTensor of the same layout with padded strides. The goldens index the arrays
so in numpy, independently of the simulator's walk over the ConvTile's matrix (sim_conv.hpp)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..rules.parts import StaticBreak, TileFilter, TypeFilter, is_static, part
from ..testing.plan import BreakContext, Call, CompileCase, GlobalDecl, OpTests, TileDecl

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..kind_api import OpViewAPI, ProjectViewAPI, RuleViewAPI, VariantViewAPI

# The named set (targets.yaml's dtype_sets) of the element types a ConvTile transfer moves: the
# simulator's requirement (pto/common/sim_conv.hpp), which upstream's states alike.
CONV_DTYPES = "int8_to_32_floats"


def conv_tile(
    name: str, dtype: str, loc: str, layout: str, extents: tuple[int, ...], dynamic: tuple[int, ...] = ()
) -> TileDecl:
    """A ConvTile of these extents (all of them, C0 included), its storage rows x last extent; the
    extents at the positions `dynamic` are DYNAMIC in its ConvTileShape, given at construction."""
    count = int(np.prod(extents))
    return TileDecl(name, dtype, count // extents[-1], extents[-1], count // extents[-1], extents[-1], False,
                    loc, conv=(layout, extents), conv_dynamic=dynamic)  # fmt: skip


def variant_profiles(
    project: ProjectViewAPI, op: OpViewAPI, variant: VariantViewAPI, tiles: dict[str, TileDecl]
) -> list[str]:
    """The profiles whose rules of the variant admit a call with these tiles: their locations,
    layouts and element types."""
    combo = {n: t.dtype for n, t in tiles.items()}

    def admitted(profile: str) -> bool:
        return all(
            part(rv.rule, TileFilter).admits_tiles(tiles)
            and not part(rv.rule, TypeFilter).broken_by(op, rv, combo, {})
            and all(part(rv.rule, TileFilter).admits_location(n, t.loc) for n, t in tiles.items())
            for rv in variant.rules_for(profile)
        )

    return [p.name for p in project.profiles if op.available(p.name) and admitted(p.name)]


def _admits(op: OpViewAPI, rv: RuleViewAPI, tiles: dict[str, TileDecl]) -> bool:
    combo = {n: t.dtype for n, t in tiles.items()}
    return (
        part(rv.rule, TileFilter).admits_tiles(tiles)
        and not part(rv.rule, TypeFilter).broken_by(op, rv, combo, {})
        and all(part(rv.rule, TileFilter).admits_location(n, t.loc) for n, t in tiles.items())
    )


def plan_variant_rules(
    project: ProjectViewAPI,
    op: OpViewAPI,
    tests: OpTests,
    variant: VariantViewAPI,
    legal: Callable[[str], dict[str, TileDecl] | None],
    call: Callable[[dict[str, TileDecl]], Call],
) -> None:
    """Compile cases of a variant's rules: per profile, a legal call with the tiles `legal(profile)`
    gives (a runtime case's), and one call per rule of the variant breaking it (the rule's
    `break_static`), expecting also the messages of the variant's other rules those tiles break."""
    for p in project.profiles:
        tiles = legal(p.name)
        if tiles is None:
            continue
        low = p.name.lower()
        fn = f"{low}_{variant.name}"
        tests.compile.append(
            CompileCase.legal(
                f"legal_{fn}", p.name, list(tiles.values()), call(tiles), of=f" of variant {variant.name}"
            )
        )
        rules = [rv for rv in variant.rules_for(p.name) if is_static(rv.rule)]
        for rv in rules:
            bx = BreakContext(project, op, rv, p.name)
            broken = part(rv.rule, StaticBreak).break_static(bx, dict(tiles)).tiles
            also = [o for o in rules if o is not rv and not _admits(op, o, broken)]
            tests.compile.append(
                CompileCase.breaking(
                    f"fail_{fn}_{rv.id}", p.name, rv, list(broken.values()), call(broken), also=also,
                    on=f" on variant {variant.name}",
                )
            )  # fmt: skip


def mx_dtypes(project: ProjectViewAPI) -> list[str]:
    """The 8-bit MX floats (numpy's `float8_*` types of ml_dtypes) and the twin 4-bit floats (two
    elements a byte): the CPU simulator's conv paths move them as upstream's do (its TTRANS conv tests
    move float8_e8m0_t, float8_e4m3_t and float4_e2m1x2_t); the pages' A2A3 and A5 lists leave them
    out, so their cases run on the profiles whose rules admit them."""
    return [d.name for d in project.targets.dtypes
            if d.kind == "float" and (d.numpy.startswith("float8_") or d.per_byte == 2)]  # fmt: skip


def channel_block(project: ProjectViewAPI, dtype: str) -> int:
    """C0: the elements of one 32-byte channel block."""
    return 256 // next(d.bits for d in project.targets.dtypes if d.name == dtype)


@dataclass(frozen=True)
class ConvShape:
    """A ConvTile and the GlobalTensor it moves to or from. `tile` holds the ConvTileShape extents
    without C0 (C0 follows from the element type; a four-extent NC1HWC0 shape leaves it implied, a
    FRACTAL_Z shape of four extents is (c1*h*w, n/16, 16, c0)); `tensor` the tensor's indices before
    C0: (n, c1, h, w) for NC1HWC0, (n, d, c1, h, w) for NDC1HWC0, (c1, h, w, n) for FRACTAL_Z."""

    label: str
    layout: str
    tile: tuple[int, ...]
    tensor: tuple[int, ...]
    implied_c0: bool = False  # a four-extent NC1HWC0 ConvTileShape
    dynamic: tuple[int, ...] = ()  # positions of the ConvTileShape's DYNAMIC extents

    def extents(self, c0: int) -> tuple[int, ...]:
        """The ConvTileShape's extents."""
        return self.tile if self.implied_c0 else (*self.tile, c0)

    def elements(self, c0: int) -> int:
        return int(np.prod(self.tile)) * c0

    def global_dims(self, c0: int) -> tuple[tuple[int, ...], tuple[int, ...], int]:
        """The tensor's five extents, its strides (each dimension padded by one or two channel blocks
        beyond the next one's span, so a wrong stride shows) and the elements its buffer holds."""
        inner = self.tensor if self.layout == "NDC1HWC0" else (*self.tensor, c0)
        step = c0 if self.layout == "NDC1HWC0" else 1  # NDC1HWC0 keeps C0 beyond its five dimensions
        strides = [step]
        for k in range(len(inner) - 1, 0, -1):
            strides.insert(0, strides[0] * inner[k] + c0 * (k % 2 + 1))
        span = sum((e - 1) * s for e, s in zip(inner, strides, strict=True)) + step
        return tuple(inner), tuple(strides), span

    def positions(self, c0: int) -> tuple[np.ndarray, np.ndarray]:
        """(tile offset, buffer offset) of every element, by its indices."""
        _, strides, _ = self.global_dims(c0)
        idx = np.indices((*self.tensor, c0)).reshape(len(self.tensor) + 1, -1)
        glob = sum(i * s for i, s in zip(idx[: len(strides)], strides, strict=False))
        if self.layout == "NDC1HWC0":
            glob = glob + idx[-1]  # c0, within the innermost stride's block
        if self.layout == "FRACTAL_Z" and len(self.tile) == 3:  # tile (c1*h*w, n/16, 16, c0)
            c1, h, w, n, k = idx
            _, hh, ww, _ = self.tensor
            tile = ((((c1 * hh + h) * ww + w) * (self.tensor[3] // 16) + n // 16) * 16 + n % 16) * c0 + k
            return np.asarray(tile), np.asarray(glob)
        return np.asarray(np.ravel_multi_index(tuple(idx), (*self.tensor, c0))), np.asarray(glob)

    def decls(self, tile: str, glob: str, dtype: str, c0: int) -> tuple[TileDecl, GlobalDecl]:
        """The case's ConvTile (in Mat) and GlobalTensor."""
        count = self.elements(c0)
        t = TileDecl(tile, dtype, count // c0, c0, count // c0, c0, False, "Mat",
                     conv=(self.layout, self.extents(c0)), conv_dynamic=self.dynamic)  # fmt: skip
        dims = self.global_dims(c0)
        return t, GlobalDecl(glob, dtype, count // c0, c0, 0, self.layout, dims=dims)


# Every extent count the simulator moves, for each of TLOAD's and TSTORE's conv layouts; three of
# them with extents given at run time (DYNAMIC), where upstream allows it (a four-extent FRACTAL_Z
# tile keeps its last two static).
TRANSFER_SHAPES = (
    ConvShape("NC1HWC0, four extents", "NC1HWC0", (2, 2, 3, 5), (2, 2, 3, 5), implied_c0=True),
    ConvShape("NC1HWC0, five extents, N and H at run time", "NC1HWC0", (1, 3, 2, 4), (1, 3, 2, 4),
              dynamic=(0, 2)),
    ConvShape("NDC1HWC0, D and W at run time", "NDC1HWC0", (2, 2, 2, 3, 4), (2, 2, 2, 3, 4), dynamic=(1, 4)),
    ConvShape("FRACTAL_Z, five extents", "FRACTAL_Z", (2, 2, 3, 16), (2, 2, 3, 16)),
    ConvShape("FRACTAL_Z, four extents, C1*H*W at run time", "FRACTAL_Z", (6, 1, 16), (3, 1, 2, 16),
              dynamic=(0,)),
)  # fmt: skip


# A TTRANS conv conversion: label, source layout, extents and DYNAMIC positions, destination layout,
# extents and DYNAMIC positions.
Conversion = tuple[str, str, tuple[int, ...], tuple[int, ...], str, tuple[int, ...], tuple[int, ...]]


def conversions(c0: int) -> list[Conversion]:
    """TTRANS's conv conversions, each channel count past a whole block where the layout allows, so
    the padding lanes show; three with extents given at run time (the simulator reads every extent
    with GetShape)."""
    return [
        ("NCHW to NC1HWC0, C and H at run time", "NCHW", (2, c0 + 3, 3, 4), (1,), "NC1HWC0", (2, 2, 3, 4, c0),
         (2,)),
        ("NC1HWC0 to NCHW", "NC1HWC0", (1, 2, 2, 3, c0), (), "NCHW", (1, 2 * c0, 2, 3), ()),
        ("GNCHW to GNC1HWC0", "GNCHW", (2, 1, 5, 2, 2), (), "GNC1HWC0", (2, 1, 1, 2, 2, c0), ()),
        ("GNC1HWC0 to GNCHW, G at run time", "GNC1HWC0", (2, 1, 1, 2, 2, c0), (0,), "GNCHW", (2, 1, c0, 2, 2),
         (0,)),
        ("NC1HWC0 to FRACTAL_Z", "NC1HWC0", (20, 2, 2, 1, c0), (), "FRACTAL_Z", (4, 2, 16, c0), ()),
        ("GNC1HWC0 to FRACTAL_Z", "GNC1HWC0", (2, 5, 1, 1, 2, c0), (), "FRACTAL_Z", (4, 1, 16, c0), ()),
        ("NCDHW to FRACTAL_Z_3D, N and N1 at run time", "NCDHW", (3, c0 + 2, 2, 1, 2), (0,), "FRACTAL_Z_3D",
         (8, 1, 16, c0), (1,)),
    ]  # fmt: skip


def converted_from(src_lay: str, src: tuple[int, ...], dst_lay: str, dst: tuple[int, ...]) -> np.ndarray:
    """For each element of the destination's storage, the index of the source element a conv
    conversion puts there, or -1 where it writes nothing (the padding channels and filters), from the
    layouts' definitions: reshapes and transposes of the source's indices."""
    x = np.arange(int(np.prod(src)), dtype=np.float64).reshape(src)
    if src_lay in ("NCHW", "GNCHW") and dst_lay in ("NC1HWC0", "GNC1HWC0"):
        lead, (c, h, w) = x.shape[:-3], x.shape[-3:]
        c1, c0 = dst[-4], dst[-1]
        padded = np.full((*lead, c1 * c0, h, w), np.nan)
        padded[..., :c, :, :] = x
        out = np.moveaxis(padded.reshape(*lead, c1, c0, h, w), -3, -1)  # [..., C1, H, W, C0]
    elif dst_lay in ("NCHW", "GNCHW"):
        out = np.moveaxis(x, -1, -3).reshape(dst)  # [..., C1, C0, H, W] -> [..., C, H, W]
    elif dst_lay == "FRACTAL_Z":
        g = x.shape[0] if src_lay == "GNC1HWC0" else 1
        n = x.shape[-5]
        y = x.reshape(g, *x.shape[-5:])  # [G, N, C1, H, W, C0]
        k, n1, n0, c0 = dst
        filt = np.full((g, n1 * n0, *y.shape[2:]), np.nan)
        filt[:, :n] = y
        out = filt.transpose(0, 2, 3, 4, 1, 5).reshape(k, n1, n0, c0)  # [G, C1, H, W, N, C0]
    else:  # NCDHW to FRACTAL_Z_3D
        n, c, d, h, w = x.shape
        k, n1, n0, c0 = dst
        c1 = -(-c // c0)
        full = np.full((n1 * n0, c1 * c0, d, h, w), np.nan)
        full[:n, :c] = x
        out = full.reshape(n1 * n0, c1, c0, d, h, w).transpose(3, 1, 4, 5, 0, 2).reshape(k, n1, n0, c0)
    flat = np.asarray(out).reshape(-1)
    return np.where(np.isnan(flat), -1, flat).astype(np.int64)


# TEXTRACT's conv variant: (label, source layout, extents without C0, destination rows and columns in
# units of (C0, 16), rows and columns short of them in the valid region, index row in units of C0,
# index column, positions of the source's DYNAMIC extents: a four-extent filter keeps its last two
# static, as upstream demands).
EXTRACTS = (
    ("FRACTAL_Z [K, N1, 16, C0]", "FRACTAL_Z", (4, 3, 16), (2, 2), (0, 0), 1, 16, ()),
    ("FRACTAL_Z, partial valid region, K and N1 at run time", "FRACTAL_Z", (6, 2, 16), (3, 1), (4, 7), 1, 16,
     (0, 1)),
    ("FRACTAL_Z [C1, H, W, N, C0], H and N at run time", "FRACTAL_Z", (1, 2, 2, 32), (2, 1), (0, 0), 1, 16,
     (1, 3)),
    ("FRACTAL_Z_3D", "FRACTAL_Z_3D", (4, 2, 16), (2, 1), (0, 3), 2, 16, ()),
)  # fmt: skip


def filter_matrix(flat: np.ndarray, extents: tuple[int, ...]) -> np.ndarray:
    """A FRACTAL_Z filter's storage as its matrix: row k * C0 + c0, column n1 * 16 + n0 hold element
    (k, n1, n0, c0) ([C1, H, W, N, C0] is the same storage with K = C1 * H * W, N1 = N / 16)."""
    c0 = extents[-1]
    k = int(np.prod(extents[:-2])) if len(extents) == 5 else extents[0]
    n1 = extents[-2] // 16 if len(extents) == 5 else extents[1]
    return flat.reshape(k, n1, 16, c0).transpose(0, 3, 1, 2).reshape(k * c0, n1 * 16)


def extracted(
    matrix: np.ndarray, before: np.ndarray, c0: int, valid: tuple[int, int], at: tuple[int, int]
) -> np.ndarray:
    """The destination's matrix after the extraction: the whole C0 x 16 fractals covering its valid
    region, from the fractal holding (index row, index column) on; the rest as it was."""
    top, left = at[0] // c0 * c0, at[1] // 16 * 16
    rows, cols = -(-valid[0] // c0) * c0, -(-valid[1] // 16) * 16
    want = before.copy()
    want[:rows, :cols] = matrix[top : top + rows, left : left + cols]
    return want
