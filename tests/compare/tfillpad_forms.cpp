// TFILLPAD's forms and variants against an independent element walk (tests/opkinds/test_fillpad.py): the
// in-place variant on one storage, the one-type form on an NZ Mat tile with its PadVal argument, a Vec
// tile in the one-type form (the destination's own PadVal), a custom pad value, the expanding variant,
// and a destination without valid rows, which stays as it was. Exit code 1 and a line per mismatch.
#include <pto/pto-inst.hpp>
#include <pto/common/constants.hpp>

#include <cstdio>
#include <cstring>
#include <limits>

using namespace pto;

static int failures = 0;

template <typename D, typename S>
void fill_source(S& src, int salt) {
    for (int r = 0; r < S::Rows; ++r)
        for (int c = 0; c < S::Cols; ++c)
            src.SetElement(r, c, static_cast<typename S::DType>((r * 31 + c * 7 + salt) % 101));
}

// Element (r, c) of `dst` must be `src`'s (r, c) inside [vr, vc) and `pad` elsewhere.
template <typename D, typename S, typename T>
void expect(const char* what, D& dst, const S& copy, int vr, int vc, T pad) {
    for (int r = 0; r < D::Rows; ++r)
        for (int c = 0; c < D::Cols; ++c) {
            const T want = r < vr && c < vc ? static_cast<T>(copy.GetElement(r, c)) : pad;
            const T got = static_cast<T>(dst.GetElement(r, c));
            if (std::memcmp(&want, &got, sizeof(T)) != 0) {
                std::printf("%s: (%d, %d) differs\n", what, r, c);
                ++failures;
                return;
            }
        }
}

int main() {
    {  // in place: both tiles on the same bytes
        using Dst = Tile<TileType::Vec, float, 16, 16, BLayout::RowMajor, 16, 16, SLayout::NoneBox, 512, PadValue::Min>;
        using Src = Tile<TileType::Vec, float, 16, 16, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
        Dst dst;
        Src src(9, 5);
        TASSIGN(dst, 0x0);
        TASSIGN(src, 0x0);
        Src copy(9, 5);
        fill_source<Dst>(src, 1);
        std::memcpy(copy.data(), src.data(), sizeof(float) * 256);
        TFILLPAD_INPLACE(dst, src);
        expect("in place", dst, copy, 9, 5, -std::numeric_limits<float>::infinity());
    }
    {  // the one-type form on an NZ Mat tile: its PadVal argument, Zero by default
        using Mat = Tile<TileType::Mat, half, 32, 32, BLayout::ColMajor, DYNAMIC, DYNAMIC, SLayout::RowMajor, 512>;
        Mat src(17, 9);
        Mat dst(32, 32);
        fill_source<Mat>(src, 2);
        TFILLPAD(dst, src);
        expect("Mat, PadValue::Zero", dst, src, 17, 9, half(0.0f));
        TFILLPAD<Mat, PadValue::Max>(dst, src);
        expect("Mat, PadValue::Max", dst, src, 17, 9, half(std::numeric_limits<float>::infinity()));
    }
    {  // a Vec tile in the one-type form pads with its own PadVal, as upstream's Vec form does
        using V = Tile<TileType::Vec, int16_t, 8, 16, BLayout::RowMajor, DYNAMIC, DYNAMIC, SLayout::NoneBox, 512, PadValue::Max>;
        V src(3, 4);
        V dst(8, 16);
        fill_source<V>(src, 3);
        TFILLPAD(dst, src);
        expect("Vec, one type", dst, src, 3, 4, std::numeric_limits<int16_t>::max());
    }
    {  // a custom pad value, and the expanding variant into a larger tile
        using Src = Tile<TileType::Vec, float, 8, 8, BLayout::RowMajor, 6, 7>;
        using Dst = Tile<TileType::Vec, float, 16, 24, BLayout::RowMajor, 16, 24, SLayout::NoneBox, 512, PadValueCustom(-1.0f)>;
        Src src;
        Dst dst;
        fill_source<Src>(src, 4);
        TFILLPAD_EXPAND(dst, src);
        expect("expand, custom -1.0f", dst, src, 6, 7, -1.0f);
        TFILLPAD<TFillPadMode::Expand>(dst, src);
        expect("TFILLPAD<Expand>", dst, src, 6, 7, -1.0f);
    }
    {  // a destination without valid rows is left as it was
        using Dst = Tile<TileType::Vec, uint8_t, 4, 32, BLayout::RowMajor, DYNAMIC, DYNAMIC, SLayout::NoneBox, 512, PadValue::Max>;
        using Src = Tile<TileType::Vec, uint8_t, 4, 32, BLayout::RowMajor, 2, 3>;
        Dst dst(0, 32);
        Src src;
        fill_source<Src>(src, 5);
        std::memset(dst.data(), 7, 128);
        TFILLPAD(dst, src);
        for (int i = 0; i < 128; ++i)
            if (dst.data()[i] != 7) {
                std::printf("empty destination: byte %d written\n", i);
                ++failures;
                break;
            }
    }
    std::printf("%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
