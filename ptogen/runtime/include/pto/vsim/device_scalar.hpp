// Scalar builtins the device compiler provides to A5 code without an include: integer helpers
// (`CeilDivision`, `min`, `max`), the subblock query and the intra-block semaphores of the
// pipeline-sync pages (set_intra_block.md, wait_intra_core.md: `set_intra_block(pipe, id)` signals
// semaphore `id`, `wait_intra_block(pipe, id)` waits for it; ids 0-15 reach AIV0, 16-31 AIV1).
// The simulation runs one subblock in program order, so a semaphore is a count of signals not yet
// waited for, and a wait with none pending would wait forever: it stops with an error instead.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <type_traits>

// ceil(a / b) in the wider of the two unsigned types; 0 when b is 0 (as the device builtin).
template <typename T, typename U>
    requires std::is_integral_v<T> && std::is_integral_v<U>
constexpr auto CeilDivision(T a, U b) {
    using W = std::make_unsigned_t<std::common_type_t<T, U>>;
    return b == 0 ? W{0} : static_cast<W>((static_cast<W>(a) + static_cast<W>(b) - 1) / static_cast<W>(b));
}

template <typename T>
    requires std::is_arithmetic_v<T>
constexpr T min(T a, T b) {
    return b < a ? b : a;
}

template <typename T>
    requires std::is_arithmetic_v<T>
constexpr T max(T a, T b) {
    return a < b ? b : a;
}

namespace pto::vsim {

inline constexpr std::uint64_t intra_block_ids = 32;

inline std::uint32_t& intra_block_pending(std::uint64_t id) {
    static std::uint32_t pending[intra_block_ids] = {};
    return pending[id];
}

inline void check_intra_block_id(const char* builtin, std::uint64_t id) {
    if (id >= intra_block_ids) {
        std::fprintf(stderr, "PTO runtime error: %s: semaphore id %llu is out of range (0..31: 0-15 AIV0, 16-31 AIV1)\n",
                     builtin, static_cast<unsigned long long>(id));
        std::abort();
    }
}

} // namespace pto::vsim

template <typename Pipe>
void set_intra_block(Pipe, std::uint64_t id) {
    pto::vsim::check_intra_block_id("set_intra_block", id);
    ++pto::vsim::intra_block_pending(id);
}

template <typename Pipe>
void wait_intra_block(Pipe, std::uint64_t id) {
    pto::vsim::check_intra_block_id("wait_intra_block", id);
    auto& pending = pto::vsim::intra_block_pending(id);
    if (pending == 0) {
        std::fprintf(stderr, "PTO runtime error: wait_intra_block: semaphore %llu was never signalled; the wait "
                             "would never return (one subblock runs, in program order)\n",
                     static_cast<unsigned long long>(id));
        std::abort();
    }
    --pending;
}
