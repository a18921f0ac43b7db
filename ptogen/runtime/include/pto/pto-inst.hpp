// Public entry point for PTO kernels on the CPU simulator: the core types plus the generated tile
// intrinsics and vector ops (those two headers come from the generated include directory).
#pragma once

#include <pto/common/pto_core.hpp>
#include <pto/common/pto_instr.hpp>
#include <pto/vector/pto_vec.hpp>
