"""Hand-written builtins of the SFU/DSA set (kind `vsfu`), in pto/vsim/sfu.hpp and called as A5 vector
code calls them: the sort unit's UB-to-UB helpers, `vbitsort(dst, src, idx, repeat)`,
`vmrgsort4(dst, lists, count, config)`, and the fused add or multiply with a conversion between
element types, `vaddreluconv(dst, a, b, mask)`, whose results are not one lane formula of one type.
What they share with the other register-model builtins is in kindlib/regcalls.py."""

from __future__ import annotations

from typing import ClassVar

from ..kindlib.regcalls import RegisterCall


class VectorSfu(RegisterCall):
    name: ClassVar[str] = "vsfu"
    domain_starts: ClassVar[tuple[str, ...]] = ("Not applicable: a hand-written builtin of the SFU/DSA set",)
