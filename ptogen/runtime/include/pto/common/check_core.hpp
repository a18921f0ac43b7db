// The few helpers the generated profile checks need besides the tile types: it includes only the
// standard library (and, on Linux, the C library's stack and loader interfaces), so the checks build
// both over ptogen's runtime and over upstream's include tree.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <type_traits>

#if defined(__linux__) && __has_include(<execinfo.h>) && __has_include(<link.h>)
#include <execinfo.h>
#include <link.h>
#include <unistd.h>
#define PTO_SIM_CALL_SITE 1
#endif

namespace pto::sim {

template <typename T, typename... Allowed>
inline constexpr bool is_one_of_v = (std::is_same_v<T, Allowed> || ...);

// static_assert(always_false_v<T>) fires only when the enclosing template is instantiated.
template <typename...>
inline constexpr bool always_false_v = false;

// What a profile check asserts besides its named condition, so that the compiler's note on a failure
// spells the call's element types (`passed_types<false, float, half, float>`) or the two sides of
// the relation that failed (`passed_values<false, 32, 16>`): a static_assert message cannot.
template <bool Ok, typename... Passed>
inline constexpr bool passed_types = Ok;
template <bool Ok, auto... Passed>
inline constexpr bool passed_values = Ok;

#ifdef PTO_SIM_CALL_SITE
namespace site {

// The main program's loaded segments and load bias: the first object dl_iterate_phdr visits.
struct Program {
    std::uintptr_t bias = 0;
    std::uintptr_t lo[16] = {}, hi[16] = {};
    int segments = 0;
};

inline int visit_main(dl_phdr_info* info, std::size_t, void* data) {
    auto* p = static_cast<Program*>(data);
    p->bias = info->dlpi_addr;
    for (int i = 0; i < info->dlpi_phnum && p->segments < 16; ++i)
        if (info->dlpi_phdr[i].p_type == PT_LOAD) {
            p->lo[p->segments] = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
            p->hi[p->segments] = p->lo[p->segments] + info->dlpi_phdr[i].p_memsz;
            ++p->segments;
        }
    return 1;  // the main program only
}

// Whether a source file is the PTO headers' (ours or upstream's) or the C++ library's: the call
// site is the first frame outside them.
inline bool library_file(const char* file) {
    return std::strstr(file, "/include/pto/") != nullptr || std::strstr(file, "/include/c++/") != nullptr ||
           std::strncmp(file, "??", 2) == 0;
}

// Names the kernel's file and line of the call that broke a rule: the stack's return addresses in
// the main program, read back by addr2line (the debug information a -g build has). Only a failing
// run pays for it; without addr2line or -g it names the program and offset instead.
inline void print() {
    void* frames[64];
    const int n = backtrace(frames, 64);
    Program prog;
    dl_iterate_phdr(visit_main, &prog);
    char command[64 * 20 + 64];
    // The program's own path as this process sees it (in the shell popen starts, /proc/self is the shell's).
    int len = std::snprintf(command, sizeof command, "addr2line -a -f -C -i -e /proc/%d/exe", static_cast<int>(getpid()));
    std::uintptr_t first = 0;
    for (int i = 1; i < n; ++i) {  // frame 0 is this function
        const auto at = reinterpret_cast<std::uintptr_t>(frames[i]) - 1;  // inside the call instruction
        bool in_main = false;
        for (int s = 0; s < prog.segments; ++s)
            in_main = in_main || (at >= prog.lo[s] && at < prog.hi[s]);
        if (!in_main)
            continue;
        len += std::snprintf(command + len, sizeof command - static_cast<std::size_t>(len), " 0x%lx",
                             static_cast<unsigned long>(at - prog.bias));
        if (first == 0)
            first = at - prog.bias;
    }
    std::strcat(command, " 2>/dev/null");
    char file_only[4096] = "";  // a frame addr2line knows the file of but not the line (no -g)
    if (std::FILE* out = popen(command, "r")) {
        // Per address: its "0x..." heading, then (function, file:line) pairs, innermost inlined
        // frame first. The call site is the first pair outside the simulator's own functions
        // (pto::sim::...) and outside the headers' and the C++ library's files.
        char function[4096], place[4096];
        while (std::fgets(function, sizeof function, out) != nullptr) {
            if (std::strncmp(function, "0x", 2) == 0)
                continue;
            if (std::fgets(place, sizeof place, out) == nullptr)
                break;
            if (std::strncmp(function, "pto::sim::", 10) == 0 || library_file(place))
                continue;
            char* colon = std::strrchr(place, ':');
            if (colon != nullptr && colon[1] == '?') {
                if (file_only[0] == '\0')
                    std::snprintf(file_only, sizeof file_only, "%.*s", static_cast<int>(colon - place), place);
                continue;
            }
            std::fprintf(stderr, "  at %s", place);  // the line ends in its newline
            pclose(out);
            return;
        }
        pclose(out);
    }
    std::fprintf(stderr, "  at %s%soffset 0x%lx of the program (build with -g and put addr2line on PATH for the line)\n",
                 file_only, file_only[0] != '\0' ? ", " : "", static_cast<unsigned long>(first));
}

}  // namespace site
#endif

// A violated run-time rule is a program error on the hardware too, so the simulator stops at once
// with a message tests can match on, then the call site in the kernel (stop()).
[[noreturn]] inline void stop() {
    std::fflush(stderr);
#ifdef PTO_SIM_CALL_SITE
    site::print();
    std::fflush(stderr);
#endif
    std::abort();
}

[[noreturn]] inline void fail(const char* op, const char* rule) {
    std::fprintf(stderr, "PTO runtime error: %s: %s\n", op, rule);
    stop();
}

// fail(op, rule, spelling, value, ...): the same, then the values the rule compared on a line of its
// own (`  compared: a.GetValidRow() = 0`).
inline void print_compared(const char*) {}

template <typename V, typename... Rest>
void print_compared(const char* sep, const char* name, const V& value, const Rest&... rest) {
    if constexpr (std::is_floating_point_v<V>)
        std::fprintf(stderr, "%s%s = %g", sep, name, static_cast<double>(value));
    else if constexpr (std::is_same_v<V, bool>)
        std::fprintf(stderr, "%s%s = %s", sep, name, value ? "true" : "false");
    else
        std::fprintf(stderr, "%s%s = %lld", sep, name, static_cast<long long>(value));
    print_compared(", ", rest...);
}

template <typename V, typename... Rest>
[[noreturn]] void fail(const char* op, const char* rule, const char* name, const V& value, const Rest&... rest) {
    std::fprintf(stderr, "PTO runtime error: %s: %s\n  compared: ", op, rule);
    print_compared("", name, value, rest...);
    std::fprintf(stderr, "\n");
    stop();
}

inline void check(bool ok, const char* op, const char* rule) {
    if (!ok)
        fail(op, rule);
}

// What the pages call undefined but a profile's simulator computes anyway (as upstream's does): the
// run goes on after one warning per call site (a loop warns once), with the site, on any core.
inline bool first_warning(const char* op, const char* rule) {
    std::uint64_t key = 1469598103934665603ull;  // FNV-1a over the op, the rule and the call stack
    const auto mix = [&key](std::uint64_t v) { key = (key ^ v) * 1099511628211ull; };
    mix(reinterpret_cast<std::uintptr_t>(op));
    mix(reinterpret_cast<std::uintptr_t>(rule));
#ifdef PTO_SIM_CALL_SITE
    void* frames[64];
    const int n = backtrace(frames, 64);
    for (int i = 0; i < n; ++i)
        mix(reinterpret_cast<std::uintptr_t>(frames[i]));
#endif
    static std::mutex mutex;
    static std::set<std::uint64_t> warned;
    std::scoped_lock lock(mutex);
    return warned.insert(key).second;
}

// warn(op, rule[, spelling, value, ...]): the warning, then the values the rule compared (as fail's).
template <typename... Compared>
void warn(const char* op, const char* rule, const Compared&... compared) {
    if (!first_warning(op, rule))
        return;
    std::fprintf(stderr, "PTO runtime warning: %s: %s\n", op, rule);
    if constexpr (sizeof...(compared) > 0) {
        std::fprintf(stderr, "  compared: ");
        print_compared("", compared...);
        std::fprintf(stderr, "\n");
    }
#ifdef PTO_SIM_CALL_SITE
    site::print();
#endif
    std::fflush(stderr);
}

// Anything with tile storage (data() and a static SizeBytes()); spelled as a concept so this header
// does not need tile.hpp and placeholder arguments (no data()) are left to their own overloads.
template <typename T>
concept has_tile_storage = requires(const T& t) {
    t.data();
    { T::SizeBytes() } -> std::convertible_to<std::size_t>;
};

// Whether the byte ranges [data(), data() + SizeBytes()) of two tiles intersect.
template <typename A, typename B>
    requires has_tile_storage<A> && has_tile_storage<B>
bool tiles_overlap(const A& a, const B& b) {
    // Integer addresses: relational comparison of pointers into different objects is unspecified.
    const auto a0 = reinterpret_cast<std::uintptr_t>(a.data());
    const auto b0 = reinterpret_cast<std::uintptr_t>(b.data());
    return a0 < b0 + B::SizeBytes() && b0 < a0 + A::SizeBytes();
}

// Whether every element of the tile's valid region lies in [lo, hi]; a tile whose element type is
// not among `Only` (when any are named) is not checked. Bounds are long double, so every bound a
// spec states for a 32-bit element converts exactly.
template <typename... Only, typename TileT>
bool values_within(const TileT& t, long double lo, long double hi) {
    using D = typename TileT::DType;
    if constexpr (sizeof...(Only) > 0 && !is_one_of_v<D, Only...>) {
        return true;
    } else {
        for (int r = 0; r < t.GetValidRow(); ++r)
            for (int c = 0; c < t.GetValidCol(); ++c) {
                // Plain row- or column-major storage (what value-range rules' Vec tiles have),
                // indexed through data() so the check also builds over upstream's tiles.
                const int i = TileT::isRowMajor ? r * TileT::Cols + c : c * TileT::Rows + r;
                long double v;
                if constexpr (std::is_arithmetic_v<D>)
                    v = static_cast<long double>(t.data()[i]);
                else // half, bfloat16_t: through float
                    v = static_cast<long double>(static_cast<float>(t.data()[i]));
                if (!(v >= lo && v <= hi))
                    return false;
            }
        return true;
    }
}

} // namespace pto::sim
