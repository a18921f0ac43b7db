// The vector builtin simulation, whole: the register model, the mode tokens, the device qualifiers and
// every generated builtin. Include it (or put it on the compile line with `-include`, as
// `ptogen cflags --builtins` does) ahead of vector code written for A5.
#pragma once

#include <pto/vsim/lanes.hpp>
#include <pto/vsim/modes.hpp>
#include <pto/vsim/register.hpp>
#include <pto/vsim/scope.hpp>
#include <pto/vsim/ops.hpp>
#include <pto/vsim/barrier.hpp>
#include <pto/vsim/predicate.hpp>
#include <pto/vsim/loadstore.hpp>
#include <pto/vsim/reduce.hpp>
#include <pto/vsim/rearrange.hpp>
#include <pto/vsim/convert.hpp>
#include <pto/vsim/select.hpp>
#include <pto/vsim/dma.hpp>
#include <pto/vsim/micro.hpp>
#include <pto/vsim/sfu.hpp>
