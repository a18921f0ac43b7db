// The img2col configuration registers of the simulated core: two sets (A and B, chosen by a
// SetFmatrixMode), each with three groups that the configuration ops write in the MANUAL modes and
// TIMG2COL reads (in the AUTO modes TIMG2COL writes them itself from its source first):
//   FMATRIX (SETFMATRIX): the feature map's height and width and its four pad amounts
//       (left, right, top, bottom);
//   padding (SET_IMG2COL_PADDING): the pad value's bits (a one-byte value repeated in both bytes of
//       the low half, a two- or four-byte value as it is);
//   repeat (SET_IMG2COL_RPT): repeat stride, count and mode, destination stride and position.
// Each group remembers whether it has been written, so that a TIMG2COL reading a group no op has set
// stops with the name of the op that sets it.
#pragma once

#include <cstdint>
#include <cstring>

namespace pto::sim {

struct img2col_registers {
    bool fmatrix_set = false;
    std::uint16_t fmap_h = 0;
    std::uint16_t fmap_w = 0;
    std::uint8_t pad_list[4] = {0, 0, 0, 0};

    bool padding_set = false;
    std::uint32_t pad_bits = 0;

    bool repeat_set = false;
    std::uint16_t repeat_stride = 0;
    std::uint8_t repeat_time = 0;
    std::uint8_t repeat_mode = 0;
    std::uint16_t dst_stride = 0;
    std::uint16_t dst_mposition = 0;

    template <typename ConvT>
    void write_fmatrix(const ConvT& src) {
        fmap_h = src.GetFmapH();
        fmap_w = src.GetFmapW();
        for (int k = 0; k < 4; ++k)
            pad_list[k] = src.GetPadList(static_cast<std::uint8_t>(k));
        fmatrix_set = true;
    }

    template <typename ConvT>
    void write_padding(const ConvT& src) {
        using D = typename ConvT::DType;
        static_assert(sizeof(D) == 1 || sizeof(D) == 2 || sizeof(D) == 4, "img2col: a pad value of 1, 2 or 4 bytes");
        const D value = src.GetPadValue();
        if constexpr (sizeof(D) == 1) {
            std::uint8_t b;
            std::memcpy(&b, &value, 1);
            pad_bits = static_cast<std::uint32_t>(b) | (static_cast<std::uint32_t>(b) << 8);
        } else if constexpr (sizeof(D) == 2) {
            std::uint16_t b;
            std::memcpy(&b, &value, 2);
            pad_bits = b;
        } else {
            std::memcpy(&pad_bits, &value, 4);
        }
        padding_set = true;
    }

    template <typename ConvT>
    void write_repeat(const ConvT& src) {
        repeat_stride = src.GetRepeatStride();
        repeat_time = static_cast<std::uint8_t>(src.GetRepeatTime());
        repeat_mode = static_cast<std::uint8_t>(src.GetRepeatMode());
        dst_stride = src.GetDstStride();
        dst_mposition = src.GetDstMposition();
        repeat_set = true;
    }

    // The pad value as an element of type D: the low sizeof(D) bytes of the register.
    template <typename D>
    D pad_value() const {
        D value;
        std::memcpy(&value, &pad_bits, sizeof(D));
        return value;
    }
};

// Register set A (false) or B (true) of the calling simulated core (each core's thread has its own).
inline img2col_registers& img2col_set(bool b) {
    static thread_local img2col_registers sets[2];
    return sets[b ? 1 : 0];
}

// Back to the power-on state: no group of either set written.
inline void reset_img2col_registers() {
    img2col_set(false) = img2col_registers{};
    img2col_set(true) = img2col_registers{};
}

} // namespace pto::sim
