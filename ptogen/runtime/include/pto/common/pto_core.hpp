// The op-independent core of the PTO CPU simulator; every generated header includes this one.
#pragma once

// Function qualifiers of the intrinsics and their helpers. On the host both are plain inline; the
// guards let a build substitute its own spelling.
#ifndef PTO_INST
#define PTO_INST inline
#endif
#ifndef PTO_INTERNAL
#define PTO_INTERNAL inline
#endif

#include "element_types.hpp"
#include "sim_support.hpp"
#include "tile.hpp"
#include "global_tensor.hpp"
#include "event.hpp"
#include "vreg.hpp"
#include <pto/cpu/tile_offsets.hpp>
#include <pto/comm/comm_types.hpp>
