// Events: what every intrinsic returns and what later intrinsics wait on.
#pragma once

#include <cstdint>
#include <type_traits>

#include "tile.hpp"

namespace pto {

// The simulator runs every op to completion before returning, so an event carries no state.
struct RecordEvent {};

// Traits that tell an event from a tile, so overloads that differ by a trailing tile operand
// (e.g. TRSQRT with a scratch tile) are not confused with a call passing events.
template <typename T>
struct is_event : std::is_same<std::remove_cv_t<T>, RecordEvent> {};

template <typename... Ts>
inline constexpr bool all_events_v = (is_event<Ts>::value && ...);

template <typename T>
inline constexpr bool is_tile_data_v = is_tile_v<T>;

namespace sim {

// Number of events waited on so far in this process; lets tests prove that an op honoured its events.
inline std::uint64_t& wait_count() {
    static std::uint64_t count = 0;
    return count;
}

} // namespace sim

// Waits for the given events. Ops complete synchronously here, so waiting only counts.
template <typename... Events>
void TSYNC(Events&... events) {
    static_assert((std::is_same_v<std::remove_cv_t<Events>, RecordEvent> && ...),
                  "TSYNC: wait arguments must be events");
    (static_cast<void>(events), ...);
    sim::wait_count() += sizeof...(Events);
}

} // namespace pto
