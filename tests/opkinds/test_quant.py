"""The MX element codecs the quant kind's goldens (and TMATMUL_MX's, TGEMV_MX's) use
(`ptogen/testing/fp4.py`, ml_dtypes' float8_e8m0fnu): every code decodes, packs and rounds as the
types define. (TQUANT's generated cases run fp4 tiles in tests/test_simulator.py.)"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from ptogen.testing import fp4


def test_e8m0_codes_are_powers_of_two() -> None:
    # The codes the MX tests draw (MX_SCALE_CODES) decode to 2^-6 .. 2^6 in ml_dtypes, as in the runtime.
    from ptogen.opkinds.matmul import MX_SCALE_CODES

    low, high = MX_SCALE_CODES
    codes = np.arange(low, high + 1, dtype=np.uint8).view(ml_dtypes.float8_e8m0fnu).astype(np.float64)
    assert codes.tolist() == [2.0**e for e in range(-6, 7)]


def test_fp4_codes_decode_pack_and_round_as_the_types_define() -> None:
    # E2M1: OCP's FP4 (1 sign, 2 exponent bits with bias 1, 1 significand bit); E1M2: one exponent
    # bit with bias 1, so exponent 0 gives m/4 and exponent 1 gives 1 + m/4.
    assert fp4.value_table(fp4.E2M1)[:8].tolist() == [0, 0.5, 1, 1.5, 2, 3, 4, 6]
    assert fp4.value_table(fp4.E1M2)[:8].tolist() == [k / 4 for k in range(8)]
    for name in fp4.TWINS:
        table = fp4.value_table(name)
        assert (table[8:] == -table[:8]).all() and np.signbit(table[8])
        # every code is its value's nearest code; midpoints go to the even (significand 0) code
        assert [fp4.nearest_code(v, name) for v in table] == list(range(16))
    assert fp4.nearest_code(0.25, fp4.E2M1) == 0 and fp4.nearest_code(5.0, fp4.E2M1) == 6
    assert fp4.nearest_code(-2.5, fp4.E2M1) == 0x8 | 4 and fp4.nearest_code(100.0, fp4.E2M1) == 7
    assert fp4.nearest_code(0.125, fp4.E1M2) == 0 and fp4.nearest_code(1.375, fp4.E1M2) == 6
    # element 2k in the low nibble of byte k
    codes = np.array([1, 2, 15, 0, 7], dtype=np.uint8)
    assert fp4.pack(codes).tolist() == [0x21, 0x0F, 0x07]
    assert fp4.unpack(fp4.pack(codes), 5).tolist() == codes.tolist()
