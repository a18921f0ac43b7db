// Public entry point for PTO kernels on the CPU simulator: the core types, the generated tile and
// communication intrinsics and vector ops (those headers come from the generated include
// directory), and the host-side compatibility layer (qualifiers, pipes and flags, ACL host API) that
// kernels and host programs written for a PTO device use.
#pragma once

#include <pto/common/pto_core.hpp>
#include <pto/common/type.hpp>
// The fix-pipe configuration a cube-to-vector push takes (it names the generated ReluPreMode, so it
// comes after the op enums are complete, not from type.hpp, which the enums' own includes reach).
#if __has_include(<pto/common/pto_enums.hpp>)  // generated; the runtime's core also builds alone
#include <pto/common/fixpipe.hpp>
#endif
#include <pto/common/cpu_stub.hpp>
#include <pto/cpu/NPUMemoryModel.hpp>
#include <pto/common/pto_instr.hpp>
#if __has_include(<pto/comm/pto_comm_inst.hpp>)  // generated; a build with stand-in headers may lack it
#include <pto/comm/pto_comm_inst.hpp>
#endif
#include <pto/vector/pto_vec.hpp>
