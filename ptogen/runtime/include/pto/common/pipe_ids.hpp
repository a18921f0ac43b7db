// The pipe and event identifiers of an AI core (see cpu_stub.hpp for what set_flag and wait_flag do
// with them). A header of their own, with no includes, because the generated op enums name pipes and
// are reached from pto_core.hpp, which cpu_stub.hpp includes: a program whose first include is
// cpu_stub.hpp still sees them declared first.
#pragma once

// ---- Pipes and flags --------------------------------------------------------------------------
// An AI core runs its scalar, vector, cube and transfer units as independent pipes; set_flag(src,
// dst, id) signals from pipe src to pipe dst and wait_flag(src, dst, id) blocks dst until that
// signal arrives. The simulator executes each core in program order, so it only checks the pairing,
// per core (pto/cpu/execution_context.hpp). A wait with no matching earlier set on the same core
// would hang the device: under the A2A3 and A5 profiles it stops the simulation; under the CPU
// profile it is accepted, as upstream's simulator (whose flags do nothing) accepts it, with one
// warning per call site.
using pipe_t = int;
using event_t = int;

inline constexpr pipe_t PIPE_S = 0;    // scalar unit
inline constexpr pipe_t PIPE_V = 1;    // vector unit
inline constexpr pipe_t PIPE_MTE1 = 2; // L1 -> L0 transfers
inline constexpr pipe_t PIPE_MTE2 = 3; // global memory -> on-chip transfers (TLOAD)
inline constexpr pipe_t PIPE_MTE3 = 4; // on-chip -> global memory transfers (TSTORE)
inline constexpr pipe_t PIPE_M = 5;    // cube unit
inline constexpr pipe_t PIPE_ALL = 6;  // every pipe (pipe_barrier only)
inline constexpr pipe_t PIPE_FIX = 7;  // fixpipe (accumulator write-back)

inline constexpr event_t EVENT_ID0 = 0;
inline constexpr event_t EVENT_ID1 = 1;
inline constexpr event_t EVENT_ID2 = 2;
inline constexpr event_t EVENT_ID3 = 3;
inline constexpr event_t EVENT_ID4 = 4;
inline constexpr event_t EVENT_ID5 = 5;
inline constexpr event_t EVENT_ID6 = 6;
inline constexpr event_t EVENT_ID7 = 7;
