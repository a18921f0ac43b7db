"""Sort-unit builtins (kind `vsort`): the UB-to-UB helpers of the SFU/DSA set, hand-written in
pto/vsim/sfu.hpp and called as A5 vector code calls them, `vbitsort(dst, src, idx, repeat)`,
`vmrgsort4(dst, lists, count, config)`. What they share with the other register-model builtins is in
kindlib/regcalls.py."""

from __future__ import annotations

from typing import ClassVar

from ..kindlib.regcalls import RegisterCall


class VectorSort(RegisterCall):
    name: ClassVar[str] = "vsort"
    domain_starts: ClassVar[tuple[str, ...]] = ("Not applicable: a UB-to-UB builtin of the sort unit",)
