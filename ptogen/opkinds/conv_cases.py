"""ConvTile operands of the generated runtime cases (TLOAD and TSTORE of a ConvTile): the feature-map and
filter shapes the cases move, in units of the element type's channel block C0 (32 bytes), and where
each element lies, by its (n, [d,] c1, h, w, c0) or (c1, h, w, n, c0) indices, in the ConvTile's dense
storage and in a GlobalTensor of the same layout with padded strides. The goldens index the arrays
so in numpy, independently of the simulator's walk over the ConvTile's matrix (sim_conv.hpp)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..testing.plan import GlobalDecl, TileDecl


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
                     conv=(self.layout, self.extents(c0)))  # fmt: skip
        dims = self.global_dims(c0)
        return t, GlobalDecl(glob, dtype, count // c0, c0, 0, self.layout, dims=dims)


# Every extent count the simulator moves, for each of TLOAD's and TSTORE's conv layouts.
TRANSFER_SHAPES = (
    ConvShape("NC1HWC0, four extents", "NC1HWC0", (2, 2, 3, 5), (2, 2, 3, 5), implied_c0=True),
    ConvShape("NC1HWC0, five extents", "NC1HWC0", (1, 3, 2, 4), (1, 3, 2, 4)),
    ConvShape("NDC1HWC0", "NDC1HWC0", (2, 2, 2, 3, 4), (2, 2, 2, 3, 4)),
    ConvShape("FRACTAL_Z, five extents", "FRACTAL_Z", (2, 2, 3, 16), (2, 2, 3, 16)),
    ConvShape("FRACTAL_Z, four extents", "FRACTAL_Z", (6, 1, 16), (3, 1, 2, 16)),
)
