"""Vector memory builtins (kind `vmem`): the loads, stores, unaligned streams, gathers and scatters of
the vector register model (pto/vsim/loadstore.hpp), `vlds(dst, ptr, offset, NORM)`,
`vsts(src, ptr, offset, NORM_B32, mask)`. What they share with the rearrangements is in
kindlib/regcalls.py."""

from __future__ import annotations

from typing import ClassVar

from ..kindlib.regcalls import RegisterCall


class VectorMemory(RegisterCall):
    name: ClassVar[str] = "vmem"
    domain_starts: ClassVar[tuple[str, ...]] = ("Not applicable: a vector memory builtin",)
