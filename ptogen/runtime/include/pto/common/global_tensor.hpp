// GlobalTensor: a typed view of global (host) memory that TLOAD reads and TSTORE writes.
// Five dimensions, each with an extent (Shape) and a distance in elements between neighbours along
// it (Stride); every extent and stride is a template argument, or DYNAMIC and given at run time.
// Element (i0, i1, i2, i3, i4) lives at data() + i0*s0 + i1*s1 + i2*s2 + i3*s3 + i4*s4.
// The transfer ops see the tensor as a matrix, its indices folded as the layout says:
//   ND (rows contiguous, s4 == 1): row i runs over (i0, i1, i2, i3), column j is i4;
//   DN (columns usually contiguous, s3 == 1): row i is i3, column j runs over (i0, i1, i2, i4);
//   NZ (fractal, s4 == 1): row i runs over (i2, i3), column j over (i0, i1, i4): a matrix stored
//       as column blocks of d4 elements (32 bytes), each block d2 x d3 rows of d4 contiguous elements.
// The first index listed is the outermost (i = ((i0 * d1 + i1) * d2 + i2) * d3 + i3 for ND).
// The MX scale layouts hold e8m0 scales in pairs along k (d4 == 2, the pair contiguous):
//   MX_A_ZZ: row i over (i1, i3), column j over (i2, i4)  (16-row blocks of pairs, blocks along k);
//   MX_A_ND: row i is i2, column j over (i3, i4);   MX_A_DN: row i is i3, column j over (i2, i4);
//   MX_B_NN: row i over (i2, i4), column j over (i1, i3)  (16-column blocks of pairs along k);
//   MX_B_ND: row i over (i2, i4), column j is i3;   MX_B_DN: row i over (i3, i4), column j is i2.
// The conv feature-map layouts, as a store of a Tile sees them (an accumulator written out as a
// feature map; upstream's CPU simulator maps them so):
//   NC1HWC0 (n, c1, h, w, c0): row i over (i0, i2, i3), column j over (i1, i4);
//   NDC1HWC0 (the channel block of C0 = 32 bytes of elements lies beyond the five dimensions, at
//       stride 1): row i over (i0, i3, i4), column j over (i1, i2) and the channel block.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <type_traits>

#include "sim_support.hpp"
#include "tile.hpp"

namespace pto {

// Every layout a GlobalTensor or a ConvTile may name, in upstream's order (pto/common/type.hpp), so
// that a kernel built against either include tree sees the same enumerator values.
//   ND, DN, NZ: the matrix layouts TLOAD and TSTORE move to and from a Tile (above);
//   SCALE, MX_*, HIF4_*: the MX and HiF4 scale layouts of the cube's scale operands;
//   NC1HWC0, NDC1HWC0, FRACTAL_Z (and their grouped/3-D/s16s8 variants): the convolution layouts,
//       which TLOAD and TSTORE move to and from a ConvTile of the same layout (conv_tile.hpp);
//   NCHW, NHWC, NCDHW (and GNCHW): the image layouts A5's accumulator stores write, which kernels
//       may name but the simulator does not move (nor does upstream's).
enum class Layout {
    ND,
    DN,
    NZ,
    SCALE,
    MX_A_ND,
    MX_A_DN,
    MX_A_ZZ,
    MX_B_ND,
    MX_B_DN,
    MX_B_NN,
    HIF4_A_ZZ,
    HIF4_B_NN,
    NC1HWC0,
    GNC1HWC0,
    NCHW,
    GNCHW,
    NHWC,
    NDC1HWC0,
    NCDHW,
    FRACTAL_Z,
    FRACTAL_Z_S16S8,
    FRACTAL_Z_3D,
    MAX,
};

namespace sim {

// Five run-time extents, filled from the template arguments where they are static.
template <int64_t... N>
struct dims5 {
    static_assert(sizeof...(N) == 5, "PTO GlobalTensor: five dimensions");
    static constexpr int64_t fixed[5] = {N...};
    static constexpr int dynamic_count = ((N == DYNAMIC ? 1 : 0) + ...);

    int64_t value[5] = {N...};

    dims5() = default;
    // All five given: static positions must agree with their template argument.
    dims5(int64_t a, int64_t b, int64_t c, int64_t d, int64_t e) : value{a, b, c, d, e} {
        for (int k = 0; k < 5; ++k)
            check(fixed[k] == DYNAMIC || fixed[k] == value[k], "GlobalTensor",
                  "a static extent or stride cannot be changed at run time");
    }
};

// The address arithmetic of every GlobalTensor of one layout. It needs only the run-time extents and
// strides, so it is compiled once per layout instead of once per tensor type: per type it was most of
// a memory-op test kernel's code, and so of its compile time.
template <Layout L, int64_t C0 = 1>
struct tensor_geometry {
    // What a constructed tensor must satisfy.
    static void check(const int64_t* d, const int64_t* st) {
        for (int k = 0; k < 5; ++k)
            sim::check(d[k] != DYNAMIC && st[k] != DYNAMIC, "GlobalTensor",
                       "every DYNAMIC extent and stride must be given at construction");
        sim::check(L != Layout::ND || st[4] == 1, "GlobalTensor",
                   "Layout::ND keeps rows contiguous (stride of dimension 4 must be 1)");
        sim::check(L != Layout::NZ || st[4] == 1, "GlobalTensor",
                   "Layout::NZ keeps a block row contiguous (stride of dimension 4 must be 1)");
    }

    static int64_t offset_of(const int64_t* st, const int64_t (&k)[5]) {
        return k[0] * st[0] + k[1] * st[1] + k[2] * st[2] + k[3] * st[3] + k[4] * st[4];
    }

    // Rows and columns of the matrix the transfer ops see (see the top of this file).
    static int64_t matrix_rows(const int64_t* d) {
        switch (L) {
        case Layout::MX_A_ZZ: return d[1] * d[3];
        case Layout::MX_A_ND: return d[2];
        case Layout::MX_A_DN: return d[3];
        case Layout::MX_B_NN:
        case Layout::MX_B_ND: return d[2] * d[4];
        case Layout::MX_B_DN: return d[3] * d[4];
        case Layout::NC1HWC0: return d[0] * d[2] * d[3];
        case Layout::NDC1HWC0: return d[0] * d[3] * d[4];
        default: return L == Layout::ND ? d[0] * d[1] * d[2] * d[3] : L == Layout::DN ? d[3] : d[2] * d[3];
        }
    }
    static int64_t matrix_cols(const int64_t* d) {
        switch (L) {
        case Layout::MX_A_ZZ:
        case Layout::MX_A_DN: return d[2] * d[4];
        case Layout::MX_A_ND: return d[3] * d[4];
        case Layout::MX_B_NN: return d[1] * d[3];
        case Layout::MX_B_ND: return d[3];
        case Layout::MX_B_DN: return d[2];
        case Layout::NC1HWC0: return d[1] * d[4];
        case Layout::NDC1HWC0: return d[1] * d[2] * C0;
        default: return L == Layout::ND ? d[4] : d[0] * d[1] * (L == Layout::DN ? d[2] : 1) * d[4];
        }
    }

    // The five indices of matrix element (i, j): each matrix index splits over its dimensions,
    // innermost (last listed) first.
    static int64_t matrix_offset(const int64_t* d, const int64_t* st, int64_t i, int64_t j) {
        int64_t k[5] = {0, 0, 0, 0, 0};
        if constexpr (L == Layout::ND) {
            split(d, k, i, {0, 1, 2, 3});
            k[4] = j;
        } else if constexpr (L == Layout::DN) {
            k[3] = i;
            split(d, k, j, {0, 1, 2, 4});
        } else if constexpr (L == Layout::MX_A_ZZ) {
            split(d, k, i, {1, 3});
            split(d, k, j, {2, 4});
        } else if constexpr (L == Layout::MX_A_ND) {
            k[2] = i;
            split(d, k, j, {3, 4});
        } else if constexpr (L == Layout::MX_A_DN) {
            k[3] = i;
            split(d, k, j, {2, 4});
        } else if constexpr (L == Layout::MX_B_NN) {
            split(d, k, i, {2, 4});
            split(d, k, j, {1, 3});
        } else if constexpr (L == Layout::MX_B_ND) {
            split(d, k, i, {2, 4});
            k[3] = j;
        } else if constexpr (L == Layout::MX_B_DN) {
            split(d, k, i, {3, 4});
            k[2] = j;
        } else if constexpr (L == Layout::NC1HWC0) {
            split(d, k, i, {0, 2, 3});
            split(d, k, j, {1, 4});
        } else if constexpr (L == Layout::NDC1HWC0) {
            split(d, k, i, {0, 3, 4});
            split(d, k, j / C0, {1, 2});
            return offset_of(st, k) + j % C0;
        } else if constexpr (L != Layout::NZ) {
            static_assert(L == Layout::NZ, "GlobalTensor: TLOAD and TSTORE of a Tile move ND, DN, NZ, NC1HWC0 "
                                           "and NDC1HWC0 tensors (FRACTAL_Z moves with a ConvTile)");
        } else {
            split(d, k, i, {2, 3});
            split(d, k, j, {0, 1, 4});
        }
        return offset_of(st, k);
    }

    // Elements from data() that the extents and strides cover: one past the largest offset.
    static int64_t span(const int64_t* d, const int64_t* st) {
        int64_t last = 0;
        for (int k = 0; k < 5; ++k) {
            if (d[k] <= 0)
                return 0;
            last += (d[k] - 1) * st[k];
        }
        return last + (L == Layout::NDC1HWC0 ? C0 : 1);
    }

    static bool covers(const int64_t* d, const int64_t* st, int64_t rows, int64_t cols) {
        const int64_t end = span(d, st);
        for (int64_t i = 0; i < rows; ++i)
            for (int64_t j = 0; j < cols; ++j) {
                const int64_t at = matrix_offset(d, st, i, j);
                if (at < 0 || at >= end)
                    return false;
            }
        return true;
    }

  private:
    static void split(const int64_t* d, int64_t (&k)[5], int64_t v, std::initializer_list<int> dims) {
        for (auto it = std::rbegin(dims); it != std::rend(dims); ++it) {
            k[*it] = v % d[*it];
            v /= d[*it];
        }
    }
};

} // namespace sim

// Extents of dimensions 0..4. Shape(n...) sets the DYNAMIC ones: pass either one value per DYNAMIC
// dimension (in order) or all five. Not explicit, so a braced list converts, as kernels write it:
// `GlobalTensor<T, Shape<1, 1, 1, 1, DYNAMIC>, ...> g(ptr, {n})`.
template <int64_t N1 = DYNAMIC, int64_t N2 = DYNAMIC, int64_t N3 = DYNAMIC, int64_t N4 = DYNAMIC,
          int64_t N5 = DYNAMIC>
struct Shape {
    static constexpr int64_t staticShape[5] = {N1, N2, N3, N4, N5};
    int64_t shape[5] = {N1, N2, N3, N4, N5};

    Shape() = default;
    template <typename... I>
    Shape(I... given) {
        static_assert(sizeof...(I) == 5 || sizeof...(I) == sim::dims5<N1, N2, N3, N4, N5>::dynamic_count,
                      "Shape: give every dimension or exactly the DYNAMIC ones");
        const int64_t v[] = {static_cast<int64_t>(given)...};
        fill(v, sizeof...(I));
    }

  private:
    void fill(const int64_t* v, std::size_t n) {
        int at = 0;
        for (int k = 0; k < 5; ++k) {
            if (n == 5) {
                sim::check(staticShape[k] == DYNAMIC || staticShape[k] == v[k], "Shape",
                           "a static extent cannot be changed at run time");
                shape[k] = v[k];
            } else if (staticShape[k] == DYNAMIC) {
                shape[k] = v[at++];
            }
        }
    }
};

// Element distances of dimensions 0..4, set like Shape.
template <int64_t SN1 = DYNAMIC, int64_t SN2 = DYNAMIC, int64_t SN3 = DYNAMIC, int64_t SN4 = DYNAMIC,
          int64_t SN5 = DYNAMIC>
struct Stride {
    static constexpr int64_t staticStride[5] = {SN1, SN2, SN3, SN4, SN5};
    int64_t stride[5] = {SN1, SN2, SN3, SN4, SN5};

    Stride() = default;
    template <typename... I>
    Stride(I... given) {
        static_assert(sizeof...(I) == 5 || sizeof...(I) == sim::dims5<SN1, SN2, SN3, SN4, SN5>::dynamic_count,
                      "Stride: give every dimension or exactly the DYNAMIC ones");
        const int64_t v[] = {static_cast<int64_t>(given)...};
        int at = 0;
        for (int k = 0; k < 5; ++k) {
            if (sizeof...(I) == 5) {
                sim::check(staticStride[k] == DYNAMIC || staticStride[k] == v[k], "Stride",
                           "a static stride cannot be changed at run time");
                stride[k] = v[k];
            } else if (staticStride[k] == DYNAMIC) {
                stride[k] = v[at++];
            }
        }
    }
};

template <typename Element_, typename Shape_, typename Stride_, Layout Layout_ = Layout::ND>
struct GlobalTensor {
    using Shape = Shape_;
    using Stride = Stride_;
    using DType = Element_;
    static constexpr Layout layout = Layout_;
    static constexpr int64_t staticShape[5] = {Shape_::staticShape[0], Shape_::staticShape[1], Shape_::staticShape[2],
                                               Shape_::staticShape[3], Shape_::staticShape[4]};
    static constexpr int64_t staticStride[5] = {Stride_::staticStride[0], Stride_::staticStride[1],
                                                Stride_::staticStride[2], Stride_::staticStride[3],
                                                Stride_::staticStride[4]};

    static_assert(Layout_ != Layout::NZ || staticStride[4] == DYNAMIC || staticStride[4] == 1,
                  "GlobalTensor: Layout::NZ keeps a block row contiguous (Stride dimension 4 must be 1)");
    static_assert(Layout_ != Layout::ND || staticStride[4] == DYNAMIC || staticStride[4] == 1,
                  "GlobalTensor: Layout::ND keeps rows contiguous (Stride dimension 4 must be 1)");
    // Layout::DN usually keeps columns contiguous (s3 == 1), but no stride is demanded of it: the
    // simulator reads every layout through its strides, as upstream's does, and upstream's own CPU
    // tests declare DN tensors with row-major strides.

    GlobalTensor() = default;
    explicit GlobalTensor(DType* data, const Shape_& shape = Shape_{}, const Stride_& stride = Stride_{})
        : data_(data), shape_(shape), stride_(stride) {
        Geometry::check(shape_.shape, stride_.stride);
    }

    DType* data() {
        return data_;
    }
    const DType* data() const {
        return data_;
    }
    // Points the tensor at other global memory (TASSIGN of a GlobalTensor).
    void SetAddr(DType* data) {
        data_ = data;
    }
    int64_t GetShape(int dim) const {
        return shape_.shape[dim];
    }
    int64_t GetStride(int dim) const {
        return stride_.stride[dim];
    }

    // Static extents and strides by dimension, for code that sizes things at compile time.
    template <int Dim>
    static constexpr int64_t GetShape() {
        static_assert(Dim >= 0 && Dim < 5, "GlobalTensor::GetShape<Dim>: Dim must be 0..4");
        static_assert(staticShape[Dim] != DYNAMIC, "GlobalTensor::GetShape<Dim>: that extent is DYNAMIC");
        return staticShape[Dim];
    }
    template <int Dim>
    static constexpr int64_t GetStride() {
        static_assert(Dim >= 0 && Dim < 5, "GlobalTensor::GetStride<Dim>: Dim must be 0..4");
        static_assert(staticStride[Dim] != DYNAMIC, "GlobalTensor::GetStride<Dim>: that stride is DYNAMIC");
        return staticStride[Dim];
    }

    // Host-side element access: by element offset from data(), or by five indices through the strides.
    // (A twin type's offsets count elements, two to a byte.)
    DType GetElement(std::size_t offset) const {
        return GetProperDataPart(data_, offset);
    }
    DType GetElement(int64_t i0, int64_t i1, int64_t i2, int64_t i3, int64_t i4) const {
        return GetProperDataPart(data_, static_cast<std::size_t>(offset_of(i0, i1, i2, i3, i4)));
    }
    void SetElement(std::size_t offset, const DType& value) {
        SetProperDataPart(data_, offset, value);
    }
    void SetElement(int64_t i0, int64_t i1, int64_t i2, int64_t i3, int64_t i4, const DType& value) {
        SetProperDataPart(data_, static_cast<std::size_t>(offset_of(i0, i1, i2, i3, i4)), value);
    }

    // Rows and columns of the matrix the transfer ops see (see the top of this file).
    int64_t matrix_rows() const {
        return Geometry::matrix_rows(shape_.shape);
    }
    int64_t matrix_cols() const {
        return Geometry::matrix_cols(shape_.shape);
    }

    // Elements from data() that the Shape and Stride cover: one past the largest offset of an element.
    int64_t span() const {
        return Geometry::span(shape_.shape, stride_.stride);
    }

    // Whether every element of the rows x cols region of the matrix lies within the span. The
    // region may reach past an extent (a DN tensor's rows beyond d3, say) as long as its elements
    // stay within the memory the tensor covers, as upstream's simulator and tests allow.
    bool covers(int64_t rows, int64_t cols) const {
        return Geometry::covers(shape_.shape, stride_.stride, rows, cols);
    }

    // Element (i, j) of that matrix, by reference (not for twin types) or by value.
    DType& at(int64_t i, int64_t j) {
        static_assert(!IsTwinType<DType>(), "GlobalTensor::at: a twin type's element is half a byte; use get/set");
        return data_[matrix_offset(i, j)];
    }
    const DType& at(int64_t i, int64_t j) const {
        static_assert(!IsTwinType<DType>(), "GlobalTensor::at: a twin type's element is half a byte; use get/set");
        return data_[matrix_offset(i, j)];
    }
    DType get(int64_t i, int64_t j) const {
        return GetProperDataPart(data_, static_cast<std::size_t>(matrix_offset(i, j)));
    }
    void set(int64_t i, int64_t j, const DType& value) {
        SetProperDataPart(data_, static_cast<std::size_t>(matrix_offset(i, j)), value);
    }

  private:
    // NDC1HWC0's channel block is 32 bytes of elements beyond the five dimensions.
    using Geometry = sim::tensor_geometry<Layout_, Layout_ == Layout::NDC1HWC0 ? 32 / sizeof(Element_) : 1>;

    int64_t offset_of(int64_t i0, int64_t i1, int64_t i2, int64_t i3, int64_t i4) const {
        return Geometry::offset_of(stride_.stride, {i0, i1, i2, i3, i4});
    }
    int64_t matrix_offset(int64_t i, int64_t j) const {
        return Geometry::matrix_offset(shape_.shape, stride_.stride, i, j);
    }

    DType* data_ = nullptr;
    Shape_ shape_{};
    Stride_ stride_{};
};

template <typename T>
struct is_global_tensor : std::false_type {};
template <typename E, typename S, typename D, Layout L>
struct is_global_tensor<GlobalTensor<E, S, D, L>> : std::true_type {};

template <typename T>
inline constexpr bool is_global_tensor_v = is_global_tensor<std::remove_cvref_t<T>>::value;
// Upstream's name for the same trait.
template <typename T>
inline constexpr bool is_global_data_v = is_global_tensor_v<T>;

namespace sim {

// The five extents (`shape`) or strides of a rows x cols matrix stored densely in layout L, as
// upstream's TileShape2D and BaseShape2D give them (ND, DN and the MX scale layouts, whose pairs
// along k are contiguous and whose ZZ/NN blocks hold 16 rows or columns of pairs).
constexpr std::array<int64_t, 5> dense2d(Layout L, int64_t r, int64_t c, bool shape) {
    const int64_t all = r * c;
    switch (L) {
    case Layout::ND:
        return shape ? std::array<int64_t, 5>{1, 1, 1, r, c} : std::array<int64_t, 5>{all, all, all, c, 1};
    case Layout::DN:
        return shape ? std::array<int64_t, 5>{1, 1, 1, r, c} : std::array<int64_t, 5>{all, all, all, 1, r};
    case Layout::MX_A_ZZ:
        return shape ? std::array<int64_t, 5>{1, r / 16, c / 2, 16, 2} : std::array<int64_t, 5>{all, c * 16, 32, 2, 1};
    case Layout::MX_A_ND:
        return shape ? std::array<int64_t, 5>{1, 1, r, c / 2, 2} : std::array<int64_t, 5>{all, all, c, 2, 1};
    case Layout::MX_A_DN:
        return shape ? std::array<int64_t, 5>{1, 1, c / 2, r, 2} : std::array<int64_t, 5>{all, all, r * 2, 2, 1};
    case Layout::MX_B_NN:
        return shape ? std::array<int64_t, 5>{1, c / 16, r / 2, 16, 2} : std::array<int64_t, 5>{all, r * 16, 32, 2, 1};
    case Layout::MX_B_ND:
        return shape ? std::array<int64_t, 5>{1, 1, r / 2, c, 2} : std::array<int64_t, 5>{all, all, c * 2, 2, 1};
    case Layout::MX_B_DN:
        return shape ? std::array<int64_t, 5>{1, 1, c, r / 2, 2} : std::array<int64_t, 5>{all, all, r, 2, 1};
    default:
        return {0, 0, 0, 0, 0};
    }
}

template <Layout L, int64_t R, int64_t C, bool S, int K>
inline constexpr int64_t dense2d_at = (R == DYNAMIC || C == DYNAMIC) ? DYNAMIC : dense2d(L, R, C, S)[K];

inline constexpr bool has_dense2d(Layout L) {
    return L == Layout::ND || L == Layout::DN || L == Layout::MX_A_ZZ || L == Layout::MX_A_ND ||
           L == Layout::MX_A_DN || L == Layout::MX_B_NN || L == Layout::MX_B_ND || L == Layout::MX_B_DN;
}

}  // namespace sim

// The Shape of a rows x cols matrix in layout L (rows, cols DYNAMIC: given to the constructor).
template <typename T, int64_t R = DYNAMIC, int64_t C = DYNAMIC, Layout L = Layout::ND>
struct TileShape2D
    : Shape<sim::dense2d_at<L, R, C, true, 0>, sim::dense2d_at<L, R, C, true, 1>, sim::dense2d_at<L, R, C, true, 2>,
            sim::dense2d_at<L, R, C, true, 3>, sim::dense2d_at<L, R, C, true, 4>> {
    static_assert(sim::has_dense2d(L), "TileShape2D: ND, DN and the MX layouts only");
    using Parent = Shape<sim::dense2d_at<L, R, C, true, 0>, sim::dense2d_at<L, R, C, true, 1>,
                         sim::dense2d_at<L, R, C, true, 2>, sim::dense2d_at<L, R, C, true, 3>,
                         sim::dense2d_at<L, R, C, true, 4>>;
    TileShape2D() = default;
    TileShape2D(int64_t rows, int64_t cols) : Parent(make(rows, cols)) {}

  private:
    static Parent make(int64_t rows, int64_t cols) {
        const auto v = sim::dense2d(L, rows, cols, true);
        return Parent(v[0], v[1], v[2], v[3], v[4]);
    }
};

// The Stride of a dense rows x cols matrix in layout L.
template <typename T, int64_t R = DYNAMIC, int64_t C = DYNAMIC, Layout L = Layout::ND>
struct BaseShape2D
    : Stride<sim::dense2d_at<L, R, C, false, 0>, sim::dense2d_at<L, R, C, false, 1>,
             sim::dense2d_at<L, R, C, false, 2>, sim::dense2d_at<L, R, C, false, 3>,
             sim::dense2d_at<L, R, C, false, 4>> {
    static_assert(sim::has_dense2d(L), "BaseShape2D: ND, DN and the MX layouts only");
    using Parent = Stride<sim::dense2d_at<L, R, C, false, 0>, sim::dense2d_at<L, R, C, false, 1>,
                          sim::dense2d_at<L, R, C, false, 2>, sim::dense2d_at<L, R, C, false, 3>,
                          sim::dense2d_at<L, R, C, false, 4>>;
    BaseShape2D() = default;
    BaseShape2D(int64_t rows, int64_t cols) : Parent(make(rows, cols)) {}

  private:
    static Parent make(int64_t rows, int64_t cols) {
        const auto v = sim::dense2d(L, rows, cols, false);
        return Parent(v[0], v[1], v[2], v[3], v[4]);
    }
};

} // namespace pto
