"""Vector conversion builtins (kind `vconvert`): element-type conversions of the vector register model
(pto/vsim/convert.hpp), `vcvt(dst, src, mask, ROUND_R, RS_ENABLE, PART_EVEN)`, `vtrc(dst, src, ROUND_Z,
mask)`, `vci(dst, start, INC_ORDER)`, and the reinterpreting casts. What they share with the loads,
stores and rearrangements is in kindlib/regcalls.py."""

from __future__ import annotations

from typing import ClassVar

from ..kindlib.regcalls import RegisterCall


class VectorConvert(RegisterCall):
    name: ClassVar[str] = "vconvert"
    domain_starts: ClassVar[tuple[str, ...]] = ("Not applicable: a vector conversion builtin",)
