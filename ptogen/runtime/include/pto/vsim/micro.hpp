// Builtins of the micro-instruction pages that the register model does not already provide: the
// fresh store-side alignment state (`init_align`, align-type.md) and the merge-sort status register
// (`get_vms4_sr`, vms4-status-query.md). The block-dimension queries are the runtime's
// (pto/cpu/execution_context.hpp) and `__VEC_SCOPE__` is the register model's (pto/vsim/scope.hpp).
#pragma once

#include <cstdint>

#include <pto/vsim/register.hpp>

namespace pto::vsim {

// VMS4_SR: how many elements of each of its four source lists the last exhausted 4-way merge sort
// consumed, list k in bits [16k+15 : 16k]. The merge sort records them; each core has its own (a
// simulated core runs on a thread of its own).
inline std::uint64_t& vms4_status() {
    static thread_local std::uint64_t status = 0;
    return status;
}

} // namespace pto::vsim

// A store-side alignment state with nothing held: the start of an unaligned store stream (vstus,
// vstur, vstas, vstar, pstu). A load stream starts from vldas instead.
inline vector_align init_align() {
    return vector_align{};
}

// The status register's four 16-bit counts in one word, as A5 code reads it.
inline std::int64_t get_vms4_sr() {
    return static_cast<std::int64_t>(pto::vsim::vms4_status());
}
