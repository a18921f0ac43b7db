// Upstream's name for the header of the tile and global-tensor types: code written for upstream's
// include tree, and ptogen's generated checks, include <pto/common/pto_tile.hpp>.
#pragma once

#include "conv_tile.hpp"
#include "global_tensor.hpp"
#include "tile.hpp"
// The cube's tile aliases (TileLeft, TileRight, TileAcc, ...), generated from the specs.
#if __has_include(<pto/common/pto_tile_aliases.hpp>)
#include <pto/common/pto_tile_aliases.hpp>
#endif
