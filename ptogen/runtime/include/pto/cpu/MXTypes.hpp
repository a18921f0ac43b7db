// The MX element types under the header name upstream's CPU tests include: the fp8 formats and the
// e8m0 scale (pto/common/fp8_types.hpp) and the twin 4-bit floats (pto/common/packed_types.hpp),
// named at global scope as upstream's MXTypes.hpp names them.
#pragma once

#include <pto/common/fp8_types.hpp>
#include <pto/common/packed_types.hpp>

using pto::float8_e4m3_t;
using pto::float8_e5m2_t;
using pto::float8_e8m0_t;
