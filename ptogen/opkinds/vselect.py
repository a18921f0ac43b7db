"""Vector compare, select and broadcast builtins (kind `vselect`): predicate results and lane choices of
the vector register model (pto/vsim/select.hpp), `vcmp_lt(p, a, b, mask)`, `vsel(d, a, b, mask)`,
`vdup(d, s, mask, MODE_ZEROING)`, `vbr(d, s)`. What they share with the loads, stores and
rearrangements is in kindlib/regcalls.py."""

from __future__ import annotations

from typing import ClassVar

from ..kindlib.regcalls import RegisterCall


class VectorSelect(RegisterCall):
    name: ClassVar[str] = "vselect"
    domain_starts: ClassVar[tuple[str, ...]] = (
        "Not applicable: a vector compare, select or broadcast builtin",
    )
