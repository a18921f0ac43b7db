// The CPU simulator's instruction trace (namespace pto::cpu_sim), with upstream's names: each
// intrinsic a kernel calls appends one record (its opcode, the tiles and tensors it reads and
// writes, its scalar arguments) to the trace of the simulated core that called it. A host program
// resets and reads that trace, writes it as JSON lines (upstream's format), and writes every
// core's trace in the Chrome trace event format, which chrome://tracing and Perfetto show as one
// timeline row per core.
//
// Tracing is a compile-time switch, as upstream's: built without PTO_CPU_SIM_TRACE_MODE=1 the
// generated intrinsics contain no trace code at all, and these functions see an empty trace.
#pragma once

#include <pto/common/pto_core.hpp>
#include <pto/cpu/execution_context.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace pto::cpu_sim {

#if defined(PTO_CPU_SIM_TRACE_MODE) && PTO_CPU_SIM_TRACE_MODE
inline constexpr bool kInstructionTraceEnabled = true;
#else
inline constexpr bool kInstructionTraceEnabled = false;
#endif

// A tile, ConvTile or GlobalTensor operand: where it lives, its valid extents (a tile's rows and
// columns, a tensor's five extents), how it is laid out and its element type.
struct TileOperandTrace {
    std::uintptr_t address = 0;
    std::vector<int64_t> shape;
    std::string layout;
    std::string dtype;
};

struct ScalarOperandTrace {
    std::string dtype;
    std::string value;
};

// One executed intrinsic. `sequence_id` counts the core's instructions from its last reset;
// `start_ns` and `end_ns` are nanoseconds since the process's trace epoch.
struct InstructionTraceRecord {
    uint32_t block_idx = 0;
    uint64_t sequence_id = 0;
    std::string opcode;
    std::vector<TileOperandTrace> input_tiles;
    std::vector<ScalarOperandTrace> scalar_inputs;
    std::vector<TileOperandTrace> output_tiles;
    uint64_t start_ns = 0;
    uint64_t end_ns = 0;
};

// The trace of one simulated core (one host thread). Every state a thread creates stays registered
// after the thread ends, so a host can read all cores' traces once the kernel's threads have joined.
struct InstructionTraceState {
    uint64_t next_sequence_id = 0;
    uint32_t lane = 0;  // registration order: the Chrome trace's row
    std::vector<InstructionTraceRecord> records;
    mutable std::mutex mutex;
};

namespace trace_detail {

struct Registry {
    std::mutex mutex;
    std::vector<std::shared_ptr<InstructionTraceState>> states;
};

inline Registry& registry() {
    static Registry r;
    return r;
}

inline std::shared_ptr<InstructionTraceState> register_state() {
    auto state = std::make_shared<InstructionTraceState>();
    auto& r = registry();
    std::scoped_lock lock(r.mutex);
    state->lane = static_cast<uint32_t>(r.states.size());
    r.states.push_back(state);
    return state;
}

inline InstructionTraceState& own_state() {
    thread_local std::shared_ptr<InstructionTraceState> state = register_state();
    return *state;
}

inline thread_local InstructionTraceState* override_state = nullptr;

inline std::chrono::steady_clock::time_point epoch() {
    static const auto start = std::chrono::steady_clock::now();
    return start;
}

inline uint64_t now_ns() {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - epoch()).count());
}

}  // namespace trace_detail

// The simulated core a record belongs to: the calling thread's execution context (block 0 outside
// a launch).
inline uint32_t TraceCoreId() {
    return current_context().block_idx;
}

// The calling thread's trace (or the one a ScopedInstructionTraceState points it at).
inline InstructionTraceState& CurrentInstructionTraceState() {
    return trace_detail::override_state != nullptr ? *trace_detail::override_state : trace_detail::own_state();
}

inline InstructionTraceState& GetMutableInstructionTrace() {
    return CurrentInstructionTraceState();
}

// Callers lock the state's mutex before reading its records.
inline const InstructionTraceState& GetInstructionTrace() {
    return CurrentInstructionTraceState();
}

inline void ResetInstructionTrace() {
    auto& trace = CurrentInstructionTraceState();
    std::scoped_lock lock(trace.mutex);
    trace.next_sequence_id = 0;
    trace.records.clear();
}

inline std::vector<InstructionTraceRecord> CopyInstructionTraceRecords() {
    const auto& trace = GetInstructionTrace();
    std::scoped_lock lock(trace.mutex);
    return trace.records;
}

// Every core's trace, in registration order (a core that recorded nothing is left out).
inline std::vector<std::vector<InstructionTraceRecord>> CopyAllInstructionTraces() {
    std::vector<std::shared_ptr<InstructionTraceState>> states;
    {
        auto& r = trace_detail::registry();
        std::scoped_lock lock(r.mutex);
        states = r.states;
    }
    std::vector<std::vector<InstructionTraceRecord>> out;
    for (const auto& s : states) {
        std::scoped_lock lock(s->mutex);
        if (!s->records.empty())
            out.push_back(s->records);
    }
    return out;
}

// Clears every core's trace and forgets the traces of threads that have ended.
inline void ResetAllInstructionTraces() {
    auto& r = trace_detail::registry();
    std::scoped_lock lock(r.mutex);
    std::erase_if(r.states, [](const std::shared_ptr<InstructionTraceState>& s) { return s.use_count() == 1; });
    for (std::size_t k = 0; k < r.states.size(); ++k) {
        auto& s = *r.states[k];
        std::scoped_lock state_lock(s.mutex);
        s.lane = static_cast<uint32_t>(k);
        s.next_sequence_id = 0;
        s.records.clear();
    }
}

// Points the calling thread's records at `state` for the scope's lifetime.
class ScopedInstructionTraceState {
public:
    explicit ScopedInstructionTraceState(InstructionTraceState& state) : saved_(trace_detail::override_state) {
        trace_detail::override_state = &state;
    }
    ~ScopedInstructionTraceState() {
        trace_detail::override_state = saved_;
    }
    ScopedInstructionTraceState(const ScopedInstructionTraceState&) = delete;
    ScopedInstructionTraceState& operator=(const ScopedInstructionTraceState&) = delete;

private:
    InstructionTraceState* saved_ = nullptr;
};

inline uint64_t ReserveInstructionTraceSequenceId() {
    auto& trace = GetMutableInstructionTrace();
    std::scoped_lock lock(trace.mutex);
    return trace.next_sequence_id++;
}

inline void AppendInstructionTraceRecord(InstructionTraceRecord record) {
    auto& trace = GetMutableInstructionTrace();
    std::scoped_lock lock(trace.mutex);
    trace.records.push_back(std::move(record));
}

// ----------------------------------------------------------------------------- operand spelling

inline const char* LayoutToString(Layout layout) {
    static constexpr const char* names[] = {
        "ND",      "DN",      "NZ",       "SCALE",    "MX_A_ND",   "MX_A_DN",         "MX_A_ZZ",      "MX_B_ND",
        "MX_B_DN", "MX_B_NN", "HIF4_A_ZZ", "HIF4_B_NN", "NC1HWC0",  "GNC1HWC0",        "NCHW",         "GNCHW",
        "NHWC",    "NDC1HWC0", "NCDHW",   "FRACTAL_Z", "FRACTAL_Z_S16S8", "FRACTAL_Z_3D", "MAX"};
    const auto k = static_cast<std::size_t>(layout);
    return k < std::size(names) ? names[k] : "UNKNOWN";
}

template <typename T>
std::string TraceDTypeName() {
    using D = std::remove_cvref_t<T>;
    if constexpr (std::is_same_v<D, bool>)
        return "bool";
    else if constexpr (std::is_same_v<D, half>)
        return "float16";
    else if constexpr (std::is_same_v<D, bfloat16_t>)
        return "bfloat16";
    else if constexpr (std::is_same_v<D, float>)
        return "float32";
    else if constexpr (std::is_same_v<D, double>)
        return "float64";
    else if constexpr (std::is_same_v<D, int4b_t>)
        return "int4";
    else if constexpr (std::is_enum_v<D>)
        return "enum";
    else if constexpr (std::is_integral_v<D>)
        return std::string(std::is_signed_v<D> ? "int" : "uint") + std::to_string(sizeof(D) * 8);
    else
        return "unknown";
}

template <typename T>
std::string ScalarValueToString(const T& value) {
    using D = std::remove_cvref_t<T>;
    if constexpr (std::is_same_v<D, bool>) {
        return value ? "true" : "false";
    } else if constexpr (std::is_enum_v<D>) {
        return std::to_string(static_cast<std::underlying_type_t<D>>(value));
    } else if constexpr (std::is_integral_v<D>) {
        return std::to_string(static_cast<std::conditional_t<std::is_signed_v<D>, int64_t, uint64_t>>(value));
    } else if constexpr (std::is_same_v<D, half> || std::is_same_v<D, bfloat16_t> || std::is_floating_point_v<D>) {
        std::ostringstream os;
        os << static_cast<double>(static_cast<float>(value));
        return os.str();
    } else {
        return "<unsupported>";
    }
}

template <typename T>
inline constexpr bool kTraceTileLikeOperand =
    is_tile_data_v<std::remove_cvref_t<T>> || is_conv_tile_v<std::remove_cvref_t<T>> ||
    is_global_data_v<std::remove_cvref_t<T>>;

template <typename T>
inline constexpr bool kTraceScalarOperand =
    std::is_arithmetic_v<std::remove_cvref_t<T>> || std::is_enum_v<std::remove_cvref_t<T>> ||
    std::is_same_v<std::remove_cvref_t<T>, half> || std::is_same_v<std::remove_cvref_t<T>, bfloat16_t>;

// A tile's layout as upstream's trace spells it: ND or DN for a plain tile, otherwise its outer
// and inner box orders, compaction and fractal size.
template <typename TileData>
std::string TileLayoutString() {
    std::vector<std::string> parts;
    if constexpr (TileData::BFractal != BLayout::RowMajor)
        parts.emplace_back("outer=col_major");
    if constexpr (TileData::SFractal != SLayout::NoneBox)
        parts.emplace_back(TileData::SFractal == SLayout::RowMajor ? "inner=row_major" : "inner=col_major");
    if constexpr (TileData::Compact != CompactMode::Null) {
        constexpr const char* compact[] = {"null", "normal", "row_plus_one", "row_aligned_padding"};
        parts.emplace_back(std::string("compact=") + compact[static_cast<int>(TileData::Compact)]);
    }
    if constexpr (TileData::SFractal != SLayout::NoneBox)
        parts.emplace_back("fractal_size=" + std::to_string(TileData::SFractalSize));
    if (parts.size() <= 1 && TileData::SFractal == SLayout::NoneBox && TileData::Compact == CompactMode::Null)
        return TileData::BFractal == BLayout::RowMajor ? "ND" : "DN";
    std::string out;
    for (const auto& p : parts)
        out += (out.empty() ? "" : ",") + p;
    return out;
}

template <typename T>
TileOperandTrace CaptureTileOperand(T& operand) {
    using D = std::remove_cvref_t<T>;
    TileOperandTrace out;
    out.address = reinterpret_cast<std::uintptr_t>(operand.data());
    if constexpr (is_tile_data_v<D>) {
        out.shape = {static_cast<int64_t>(operand.GetValidRow()), static_cast<int64_t>(operand.GetValidCol())};
        out.layout = TileLayoutString<D>();
    } else if constexpr (is_conv_tile_v<D>) {
        for (int dim = 0; dim < D::totalDimCount; ++dim)
            out.shape.push_back(static_cast<int64_t>(operand.GetShape(dim)));
        out.layout = LayoutToString(D::layout);
    } else {
        for (int dim = 0; dim < 5; ++dim)
            out.shape.push_back(operand.GetShape(dim));
        out.layout = LayoutToString(D::layout);
    }
    out.dtype = TraceDTypeName<typename D::DType>();
    return out;
}

// ----------------------------------------------------------------------------- writers

inline std::string JsonEscape(std::string_view text) {
    std::string out;
    out.reserve(text.size() + 8);
    for (const char ch : text) {
        switch (ch) {
            case '\\': out += "\\\\"; break;
            case '"': out += "\\\""; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default: out += ch;
        }
    }
    return out;
}

inline std::string HexAddress(std::uintptr_t address) {
    std::ostringstream os;
    os << "0x" << std::hex << address;
    return os.str();
}

namespace trace_detail {

inline void write_tiles(std::ostream& os, const std::vector<TileOperandTrace>& tiles) {
    os << '[';
    for (std::size_t i = 0; i < tiles.size(); ++i) {
        const auto& t = tiles[i];
        os << (i ? "," : "") << "{\"address\":\"" << HexAddress(t.address) << "\",\"shape\":[";
        for (std::size_t d = 0; d < t.shape.size(); ++d)
            os << (d ? "," : "") << t.shape[d];
        os << "],\"layout\":\"" << JsonEscape(t.layout) << "\",\"dtype\":\"" << JsonEscape(t.dtype) << "\"}";
    }
    os << ']';
}

inline void write_operands(std::ostream& os, const InstructionTraceRecord& r) {
    os << "\"input_tiles\":";
    write_tiles(os, r.input_tiles);
    os << ",\"scalar_inputs\":[";
    for (std::size_t i = 0; i < r.scalar_inputs.size(); ++i) {
        const auto& s = r.scalar_inputs[i];
        os << (i ? "," : "") << "{\"dtype\":\"" << JsonEscape(s.dtype) << "\",\"value\":\"" << JsonEscape(s.value)
           << "\"}";
    }
    os << "],\"output_tiles\":";
    write_tiles(os, r.output_tiles);
}

// Microseconds, the Chrome trace format's unit, with the nanoseconds kept as decimals.
inline void write_us(std::ostream& os, uint64_t ns) {
    os << ns / 1000 << '.' << static_cast<char>('0' + ns / 100 % 10) << static_cast<char>('0' + ns / 10 % 10)
       << static_cast<char>('0' + ns % 10);
}

}  // namespace trace_detail

// The calling core's trace, one JSON object per line (upstream's format).
inline void DumpInstructionTraceJson(std::ostream& os) {
    for (const auto& r : CopyInstructionTraceRecords()) {
        os << "{\"block_idx\":" << r.block_idx << ",\"sequence_id\":" << r.sequence_id << ",\"opcode\":\""
           << JsonEscape(r.opcode) << "\",";
        trace_detail::write_operands(os, r);
        os << "}\n";
    }
}

// Every core's trace in the Chrome trace event format: one complete ("X") event per instruction,
// named by its opcode, on the row (tid) of the core that ran it, named "core <block index>".
inline void DumpInstructionTraceChrome(std::ostream& os) {
    os << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
    os << "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"args\":{\"name\":\"PTO CPU simulator\"}}";
    const auto traces = CopyAllInstructionTraces();
    for (std::size_t lane = 0; lane < traces.size(); ++lane) {
        const auto& records = traces[lane];
        os << ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":" << lane << ",\"args\":{\"name\":\"core "
           << records.front().block_idx << "\"}}";
        os << ",\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":" << lane
           << ",\"args\":{\"sort_index\":" << lane << "}}";
        for (const auto& r : records) {
            os << ",\n{\"name\":\"" << JsonEscape(r.opcode) << "\",\"cat\":\"pto\",\"ph\":\"X\",\"pid\":1,\"tid\":"
               << lane << ",\"ts\":";
            trace_detail::write_us(os, r.start_ns);
            os << ",\"dur\":";
            trace_detail::write_us(os, std::max<uint64_t>(r.end_ns - r.start_ns, 1));
            os << ",\"args\":{\"block_idx\":" << r.block_idx << ",\"sequence_id\":" << r.sequence_id << ',';
            trace_detail::write_operands(os, r);
            os << "}}";
        }
    }
    os << "\n]}\n";
}

// ----------------------------------------------------------------------------- recording

// Records one intrinsic call: built before the backend runs, appended when it returns, so the
// record's outputs describe the tiles as written. `roles` has one letter per argument: `I` an
// operand the op reads, `O` one it writes, `B` both, `X` one the trace skips.
class InstructionTraceScope {
public:
    template <typename... Args>
    InstructionTraceScope(std::string_view opcode, std::string_view roles, Args&... args) {
        record_.block_idx = TraceCoreId();
        record_.sequence_id = ReserveInstructionTraceSequenceId();
        record_.opcode = std::string(opcode);
        std::size_t k = 0;
        (visit(k < roles.size() ? roles[k++] : 'I', args), ...);
        record_.start_ns = trace_detail::now_ns();
    }

    ~InstructionTraceScope() {
        record_.end_ns = trace_detail::now_ns();
        for (const auto& capture : outputs_)
            capture(record_);
        AppendInstructionTraceRecord(std::move(record_));
    }

    InstructionTraceScope(const InstructionTraceScope&) = delete;
    InstructionTraceScope& operator=(const InstructionTraceScope&) = delete;

private:
    template <typename T>
    void visit(char role, T& arg) {
        using D = std::remove_cvref_t<T>;
        if constexpr (std::is_pointer_v<D>) {
            if constexpr (kTraceTileLikeOperand<std::remove_pointer_t<D>>) {
                if (arg != nullptr)
                    visit(role, *arg);
            }
        } else if constexpr (kTraceTileLikeOperand<D>) {
            if (role == 'I' || role == 'B')
                record_.input_tiles.push_back(CaptureTileOperand(arg));
            if (role == 'O' || role == 'B')
                outputs_.push_back([&arg](InstructionTraceRecord& r) { r.output_tiles.push_back(CaptureTileOperand(arg)); });
        } else if constexpr (kTraceScalarOperand<D>) {
            if (role != 'X')
                record_.scalar_inputs.push_back({TraceDTypeName<D>(), ScalarValueToString(arg)});
        }
    }

    InstructionTraceRecord record_{};
    std::vector<std::function<void(InstructionTraceRecord&)>> outputs_;
};

}  // namespace pto::cpu_sim

// What a generated intrinsic runs before its checks and backend: a trace scope when the build
// traces, nothing otherwise.
#if defined(PTO_CPU_SIM_TRACE_MODE) && PTO_CPU_SIM_TRACE_MODE
#define PTO_TRACE_INSTR(API, ROLES, ...) \
    ::pto::cpu_sim::InstructionTraceScope pto_trace_scope_(#API, ROLES __VA_OPT__(, ) __VA_ARGS__)
#else
#define PTO_TRACE_INSTR(API, ROLES, ...) static_cast<void>(0)
#endif
