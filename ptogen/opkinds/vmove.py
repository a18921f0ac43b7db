"""Vector rearrangement builtins (kind `vmove`): register-to-register moves of the vector register
model (pto/vsim/rearrange.hpp), `vintlv(low, high, a, b)`, `vsqz(dst, src, mask, MODE_STORED)`. What
they share with the loads and stores is in kindlib/regcalls.py."""

from __future__ import annotations

from typing import ClassVar

from ..kindlib.regcalls import RegisterCall


class VectorMove(RegisterCall):
    name: ClassVar[str] = "vmove"
    domain_starts: ClassVar[tuple[str, ...]] = ("Not applicable: a vector rearrangement builtin",)
