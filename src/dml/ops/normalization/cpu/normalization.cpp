// CPU kernel of the normalization family (norm_plan.h has the formulas). Groups run in parallel;
// within a group the mean and the variance take two passes over the reduced elements, summed in
// double, so that neither a large mean nor FLOAT16 storage loses precision. A group that is one
// row (layer normalization, LP along one axis, batch normalization's trailing dimensions joined by
// MergeGivenRows) runs on packed float copies of its rows; other groups walk their elements
// through the strides.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "dml/kernel.h"
#include "dml/kernels/cpu/activation.h"
#include "dml/kernels/cpu/float16.h"
#include "dml/kernels/cpu/float_io.h"
#include "dml/kernels/cpu/thread_pool.h"
#include "dml/ops/normalization/norm_args.h"

namespace freedml::dml {

namespace {

// Every operand's base address (inputs are only read); null where the operator has none.
struct Operands {
    std::byte* at[kNormOperands] = {};
};

using cpu::ReadFloat;
using cpu::WriteFloat;

// Adds the offsets of every operand for element `e` of the dimensions [first, last) of the plan.
inline void Offsets(const NormPlan& p, int first, int last, uint64_t e, int64_t (&off)[kNormOperands]) {
    if (last - first == 1) {  // one inner dimension (a row): no division
        for (int o = 0; o < kNormOperands; ++o) off[o] += int64_t(e) * p.strides[o][first];
        return;
    }
    for (int d = last; d-- > first;) {
        const uint64_t i = e % p.sizes[d];
        e /= p.sizes[d];
        for (int o = 0; o < kNormOperands; ++o) off[o] += int64_t(i) * p.strides[o][d];
    }
}

// Calls row(offsets, count) for each run of the group's innermost reduced dimension (or
// dimensions), the group at `base`: the other reduced coordinates are decoded once per run instead
// of once per element. Within a run every operand's element i is at offsets + i * its stride along
// the last dimension. Runs come in row-major order.
template <class Row>
inline void ForEachReducedRow(const NormPlan& p, const int64_t (&base)[kNormOperands], Row&& row) {
    if (p.rank == p.groupRank) {
        row(base, uint64_t(1));
        return;
    }
    // The run spans the trailing reduced dimensions that every operand walks as one (batch
    // normalization's H and W of a packed tensor): fewer, longer runs.
    const int last = p.rank - 1;
    int first = last;
    uint64_t count = p.sizes[last];
    while (first > p.groupRank) {
        bool joined = true;
        for (int o = 0; o < kNormOperands; ++o) {
            joined = joined && p.strides[o][first - 1] == p.strides[o][first] * int64_t(p.sizes[first]);
        }
        if (!joined) break;
        --first;
        count *= p.sizes[first];
    }
    if (count == 0) return;
    const uint64_t rows = p.groupSize / count;
    for (uint64_t r = 0; r < rows; ++r) {
        int64_t off[kNormOperands];
        std::copy(std::begin(base), std::end(base), off);
        Offsets(p, p.groupRank, first, r, off);
        row(off, count);
    }
}

// The sum of f(0) .. f(count - 1) in double, in four interleaved partial sums: four dependency
// chains the CPU overlaps instead of one add waiting on the previous.
template <class F>
inline double SumRun(uint64_t count, F&& f) {
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    uint64_t i = 0;
    for (; i + 4 <= count; i += 4) {
        s0 += f(i);
        s1 += f(i + 1);
        s2 += f(i + 2);
        s3 += f(i + 3);
    }
    for (; i < count; ++i) s0 += f(i);
    return (s0 + s1) + (s2 + s3);
}

// Element `i` of a run that starts at `start`: every operand's offset.
inline void RunOffsets(const NormPlan& p, const int64_t (&start)[kNormOperands], uint64_t i,
                       int64_t (&off)[kNormOperands]) {
    const int last = p.rank - 1;
    for (int o = 0; o < kNormOperands; ++o) off[o] = start[o] + int64_t(i) * p.strides[o][last];
}

// BATCH_NORMALIZATION_TRAINING's OutputMeanTensor and OutputVarianceTensor: one element per group
// (their strides over the reduced dimensions are 0).
template <bool Half>
inline void WriteStatistics(const NormPlan& p, const Operands& ops, const int64_t (&base)[kNormOperands], double mean,
                            double variance) {
    if (p.has[kNormOutMean]) WriteFloat<Half>(ops.at[kNormOutMean], base[kNormOutMean], float(mean));
    if (p.has[kNormOutVariance]) WriteFloat<Half>(ops.at[kNormOutVariance], base[kNormOutVariance], float(variance));
}

// A group that is one row (a single reduced or inner dimension): each operand's row is converted
// to packed floats once, the passes run over those, and the result is stored in one go.
template <bool Half>
void RunRows(const NormPlan& p, const cpu::FusedActivation& act, const Operands& ops, uint64_t first, uint64_t last) {
    const DML_TENSOR_DATA_TYPE type = Half ? DML_TENSOR_DATA_TYPE_FLOAT16 : DML_TENSOR_DATA_TYPE_FLOAT32;
    const int64_t size = Half ? 2 : 4;
    const size_t n = p.groupSize;
    const int inner = p.groupRank;
    std::vector<float> row[kNormOperands];
    for (int o = 0; o < kNormOperands; ++o) {
        if (o == kNormIn || o == kNormOut || (p.has[o] && !NormIsOutput(o))) row[o].resize(n);
    }
    int64_t loaded[kNormOperands];  // the row each operand buffer holds (broadcast rows repeat)
    std::fill(std::begin(loaded), std::end(loaded), int64_t(-1));
    for (uint64_t g = first; g < last; ++g) {
        int64_t base[kNormOperands] = {};
        Offsets(p, 0, p.groupRank, g, base);
        for (int o = kNormIn; o < kNormOperands; ++o) {
            if (NormIsOutput(o) || (o != kNormIn && !p.has[o])) continue;
            if (o != kNormIn && loaded[o] == base[o]) continue;
            // An operand broadcast along the row (stride 0: batch normalization's statistics, scale
            // and bias) is one value, read once; the loops below take its element 0.
            const size_t count = o != kNormIn && p.strides[o][inner] == 0 ? std::min<size_t>(n, 1) : n;
            cpu::LoadFloats(type, ops.at[o] + base[o] * size, p.strides[o][inner] * size, row[o].data(), count);
            loaded[o] = base[o];
        }
        const float* x = row[kNormIn].data();
        float* y = row[kNormOut].data();
        const auto constant = [&](int o) { return !p.has[o] || p.strides[o][inner] == 0; };
        if (p.mode == NormMode::GivenStatistics && constant(kNormMean) && constant(kNormVariance) &&
            constant(kNormScale) && constant(kNormBias) && !p.has[kNormAdd]) {
            // A spatial batch normalization: every operand but the input is one value along the
            // row. The formula below in one pass, each element's operations as there (the scale
            // and bias applied in float after the double quotient), the quotient taken as a
            // product with the reciprocal of the deviation (a division per element held the row
            // to a fraction of memory speed; the two differ by at most a unit of the double's last
            // place before the rounding to float).
            const double mean = row[kNormMean][0];
            const double inverse = 1.0 / std::sqrt(double(row[kNormVariance][0]) + p.epsilon);
            const float scale = p.has[kNormScale] ? row[kNormScale][0] : 1.0f;
            const float bias = p.has[kNormBias] ? row[kNormBias][0] : 0.0f;
            const bool hasScale = p.has[kNormScale], hasBias = p.has[kNormBias];
            for (size_t i = 0; i < n; ++i) {
                float t = float((double(x[i]) - mean) * inverse);
                if (hasScale) t *= scale;
                if (hasBias) t += bias;
                y[i] = t;
            }
            if (!act.IsNone()) cpu::ApplyActivation(act, y, n);
            cpu::StoreFloats(type, y, ops.at[kNormOut] + base[kNormOut] * size, p.strides[kNormOut][inner] * size, n);
            continue;
        }
        if (p.mode == NormMode::GivenStatistics) {
            const float* m = row[kNormMean].data();
            const float* v = row[kNormVariance].data();
            if (p.strides[kNormMean][inner] == 0 && p.strides[kNormVariance][inner] == 0) {
                // Statistics constant along the row (a spatial batch normalization): the same
                // arithmetic with the square root taken once.
                const double mean = m[0], deviation = std::sqrt(double(v[0]) + p.epsilon);
                for (size_t i = 0; i < n; ++i) y[i] = float((double(x[i]) - mean) / deviation);
            } else {
                const size_t mStep = p.strides[kNormMean][inner] != 0, vStep = p.strides[kNormVariance][inner] != 0;
                for (size_t i = 0; i < n; ++i) {
                    y[i] = float((double(x[i]) - m[i * mStep]) / std::sqrt(double(v[i * vStep]) + p.epsilon));
                }
            }
        } else {
            double mean = 0.0, factor = 1.0, variance = 0.0;
            if (p.useMean) {
                mean = SumRun(n, [&](uint64_t i) { return double(x[i]); }) / double(n);
            }
            if (p.p != 0 || p.useVariance) {
                double acc = 0.0;
                if (p.p == 1) {
                    acc = SumRun(n, [&](uint64_t i) { return std::fabs(double(x[i]) - mean); });
                    factor = 1.0 / std::max(acc, double(p.epsilon));
                } else {
                    acc = SumRun(n, [&](uint64_t i) {
                        const double v = double(x[i]) - mean;
                        return v * v;
                    });
                    variance = acc / double(n);
                    factor = p.p == 2 ? 1.0 / std::max(std::sqrt(acc), double(p.epsilon))
                                      : 1.0 / std::sqrt(acc / double(n) + double(p.epsilon));
                }
            }
            WriteStatistics<Half>(p, ops, base, mean, variance);
            const float fm = float(mean), ff = float(factor);
            for (size_t i = 0; i < n; ++i) y[i] = (x[i] - fm) * ff;
        }
        if (p.has[kNormScale]) {
            const float* sc = row[kNormScale].data();
            if (p.strides[kNormScale][inner] == 0) {
                for (size_t i = 0; i < n; ++i) y[i] *= sc[0];
            } else {
                for (size_t i = 0; i < n; ++i) y[i] *= sc[i];
            }
        }
        if (p.has[kNormBias]) {
            const float* b = row[kNormBias].data();
            if (p.strides[kNormBias][inner] == 0) {
                for (size_t i = 0; i < n; ++i) y[i] += b[0];
            } else {
                for (size_t i = 0; i < n; ++i) y[i] += b[i];
            }
        }
        if (p.has[kNormAdd]) {
            const float* a = row[kNormAdd].data();
            if (p.strides[kNormAdd][inner] == 0) {
                for (size_t i = 0; i < n; ++i) y[i] += a[0];
            } else {
                for (size_t i = 0; i < n; ++i) y[i] += a[i];
            }
        }
        if (!act.IsNone()) cpu::ApplyActivation(act, y, n);
        cpu::StoreFloats(type, y, ops.at[kNormOut] + base[kNormOut] * size, p.strides[kNormOut][inner] * size, n);
    }
}

template <bool Half>
void RunGroups(const NormPlan& p, const cpu::FusedActivation& act, const Operands& ops, uint64_t first,
               uint64_t last) {
    const std::byte* x = ops.at[kNormIn];
    const int64_t sx = p.rank > 0 ? p.strides[kNormIn][p.rank - 1] : 0;
    for (uint64_t g = first; g < last; ++g) {
        int64_t base[kNormOperands] = {};
        Offsets(p, 0, p.groupRank, g, base);
        double mean = 0.0, factor = 1.0, variance = 0.0;
        if (p.mode == NormMode::Statistics) {
            const double n = double(p.groupSize);
            if (p.useMean) {
                double sum = 0.0;
                ForEachReducedRow(p, base, [&](const int64_t (&at)[kNormOperands], uint64_t count) {
                    const std::byte* row = x + at[kNormIn] * (Half ? 2 : 4);
                    sum += SumRun(count, [&](uint64_t i) { return double(ReadFloat<Half>(row, int64_t(i) * sx)); });
                });
                mean = sum / n;
            }
            if (p.p == 1 || p.p == 2 || p.useVariance) {
                double acc = 0.0;
                ForEachReducedRow(p, base, [&](const int64_t (&at)[kNormOperands], uint64_t count) {
                    const std::byte* row = x + at[kNormIn] * (Half ? 2 : 4);
                    if (p.p == 1) {
                        acc += SumRun(count, [&](uint64_t i) {
                            return std::fabs(double(ReadFloat<Half>(row, int64_t(i) * sx)) - mean);
                        });
                    } else {
                        acc += SumRun(count, [&](uint64_t i) {
                            const double v = double(ReadFloat<Half>(row, int64_t(i) * sx)) - mean;
                            return v * v;
                        });
                    }
                });
                if (p.p == 1) {
                    factor = 1.0 / std::max(acc, double(p.epsilon));
                } else if (p.p == 2) {
                    factor = 1.0 / std::max(std::sqrt(acc), double(p.epsilon));
                } else {
                    variance = acc / n;
                    factor = 1.0 / std::sqrt(variance + double(p.epsilon));
                }
            }
        }
        if (p.mode == NormMode::Statistics) WriteStatistics<Half>(p, ops, base, mean, variance);
        if (p.mode == NormMode::Statistics) {
            // The common case (batch normalization training, MVN): each operand walked by its own
            // stride along the run, no per-element offsets of every operand.
            const int inner = p.rank > 0 ? p.rank - 1 : 0;
            const int64_t so = p.strides[kNormOut][inner], ss = p.strides[kNormScale][inner];
            const int64_t sb = p.strides[kNormBias][inner], sa = p.strides[kNormAdd][inner];
            const bool scale = p.has[kNormScale], bias = p.has[kNormBias], add = p.has[kNormAdd];
            const bool activate = !act.IsNone();  // ApplyActivation is a call: only where needed
            ForEachReducedRow(p, base, [&](const int64_t (&at)[kNormOperands], uint64_t count) {
                for (uint64_t i = 0; i < count; ++i) {
                    const int64_t e = int64_t(i);
                    double y = (double(ReadFloat<Half>(x, at[kNormIn] + e * sx)) - mean) * factor;
                    if (scale) y *= ReadFloat<Half>(ops.at[kNormScale], at[kNormScale] + e * ss);
                    if (bias) y += ReadFloat<Half>(ops.at[kNormBias], at[kNormBias] + e * sb);
                    if (add) y += ReadFloat<Half>(ops.at[kNormAdd], at[kNormAdd] + e * sa);
                    const float out = activate ? cpu::ApplyActivation(act, float(y)) : float(y);
                    WriteFloat<Half>(ops.at[kNormOut], at[kNormOut] + e * so, out);
                }
            });
            continue;
        }
        ForEachReducedRow(p, base, [&](const int64_t (&at)[kNormOperands], uint64_t count) {
            for (uint64_t i = 0; i < count; ++i) {
                int64_t off[kNormOperands];
                RunOffsets(p, at, i, off);
                double m = mean, f = factor;
                if (p.mode == NormMode::GivenStatistics) {
                    m = ReadFloat<Half>(ops.at[kNormMean], off[kNormMean]);
                    f = 1.0 / std::sqrt(double(ReadFloat<Half>(ops.at[kNormVariance], off[kNormVariance])) + p.epsilon);
                }
                double y = (double(ReadFloat<Half>(x, off[kNormIn])) - m) * f;
                if (p.has[kNormScale]) y *= ReadFloat<Half>(ops.at[kNormScale], off[kNormScale]);
                if (p.has[kNormBias]) y += ReadFloat<Half>(ops.at[kNormBias], off[kNormBias]);
                if (p.has[kNormAdd]) y += ReadFloat<Half>(ops.at[kNormAdd], off[kNormAdd]);
                WriteFloat<Half>(ops.at[kNormOut], off[kNormOut], cpu::ApplyActivation(act, float(y)));
            }
        });
    }
}

// BATCH_NORMALIZATION_GRAD: per group, the output gradient element by element and the two sums.
template <bool Half>
void RunGradient(const NormPlan& p, const Operands& ops, uint64_t first, uint64_t last) {
    const int inner = p.rank > 0 ? p.rank - 1 : 0;
    const int64_t sg = p.strides[kNormGradient][inner], sx = p.strides[kNormIn][inner];
    for (uint64_t g = first; g < last; ++g) {
        int64_t base[kNormOperands] = {};
        Offsets(p, 0, p.groupRank, g, base);
        const double mean = ReadFloat<Half>(ops.at[kNormMean], base[kNormMean]);
        const double k =
            1.0 / std::sqrt(double(ReadFloat<Half>(ops.at[kNormVariance], base[kNormVariance])) + p.epsilon);
        const double scale = ReadFloat<Half>(ops.at[kNormScale], base[kNormScale]);
        double sumGradient = 0.0, sumScaled = 0.0, sumInput = 0.0;
        ForEachReducedRow(p, base, [&](const int64_t (&at)[kNormOperands], uint64_t count) {
            const std::byte* dyRow = ops.at[kNormGradient] + at[kNormGradient] * (Half ? 2 : 4);
            const std::byte* xRow = ops.at[kNormIn] + at[kNormIn] * (Half ? 2 : 4);
            auto dy = [&](uint64_t i) { return double(ReadFloat<Half>(dyRow, int64_t(i) * sg)); };
            auto x = [&](uint64_t i) { return double(ReadFloat<Half>(xRow, int64_t(i) * sx)); };
            sumGradient += SumRun(count, dy);
            sumScaled += SumRun(count, [&](uint64_t i) { return dy(i) * (x(i) - mean) * k; });
            sumInput += SumRun(count, x);
        });
        const double n = double(p.groupSize);
        // Training: m(x), m(g) and m(g * (x - m(x))) = (sum(g * (x - mean)) + (mean - m(x)) * sum(g)) / n.
        const double meanInput = sumInput / n, meanGradient = sumGradient / n;
        const double meanCoef1 = (sumScaled / k + (mean - meanInput) * sumGradient) / n;
        const int64_t so = p.strides[kNormOut][inner];
        ForEachReducedRow(p, base, [&](const int64_t (&at)[kNormOperands], uint64_t count) {
            for (uint64_t i = 0; i < count; ++i) {
                const double dy = ReadFloat<Half>(ops.at[kNormGradient], at[kNormGradient] + int64_t(i) * sg);
                double out = dy * scale * k;
                if (p.training) {
                    const double x = ReadFloat<Half>(ops.at[kNormIn], at[kNormIn] + int64_t(i) * sx);
                    out = scale * k * ((dy - meanGradient) - (x - meanInput) * meanCoef1 * k * k);
                }
                WriteFloat<Half>(ops.at[kNormOut], at[kNormOut] + int64_t(i) * so, float(out));
            }
        });
        WriteFloat<Half>(ops.at[kNormOutScaleGradient], base[kNormOutScaleGradient], float(sumScaled));
        WriteFloat<Half>(ops.at[kNormOutBiasGradient], base[kNormOutBiasGradient], float(sumGradient));
    }
}

// LRN's denominator base at coordinates `c`: bias + alpha / LocalSize * the window's sum of squares.
template <bool Half>
double LrnBase(const NormPlan& p, const std::byte* x, const int64_t (&c)[4]) {
    const int64_t before = (int64_t(p.localSize) - 1) / 2, after = int64_t(p.localSize) / 2;
    const int64_t* s = p.strides[kNormIn];
    const int64_t origin = c[0] * s[0] + c[1] * s[1] + c[2] * s[2] + c[3] * s[3];
    double sum = 0.0;
    if (p.crossChannel) {
        const int64_t lo = std::max<int64_t>(0, c[1] - before), hi = std::min<int64_t>(p.sizes[1] - 1, c[1] + after);
        for (int64_t k = lo; k <= hi; ++k) {
            const double v = ReadFloat<Half>(x, origin + (k - c[1]) * s[1]);
            sum += v * v;
        }
    } else {
        const int64_t h0 = std::max<int64_t>(0, c[2] - before), h1 = std::min<int64_t>(p.sizes[2] - 1, c[2] + after);
        const int64_t w0 = std::max<int64_t>(0, c[3] - before), w1 = std::min<int64_t>(p.sizes[3] - 1, c[3] + after);
        for (int64_t h = h0; h <= h1; ++h) {
            for (int64_t w = w0; w <= w1; ++w) {
                const double v = ReadFloat<Half>(x, origin + (h - c[2]) * s[2] + (w - c[3]) * s[3]);
                sum += v * v;
            }
        }
    }
    return double(p.bias) + double(p.alpha) / p.localSize * sum;
}

inline int64_t At(const int64_t* s, const int64_t (&c)[4]) { return c[0] * s[0] + c[1] * s[1] + c[2] * s[2] + c[3] * s[3]; }

// LRN, one element at a time in double; with an InputGradient operand, its gradient:
//     dx_j = g_j * D_j^-beta - 2 * alpha * beta / LocalSize * x_j * sum over the i whose window holds j
//            of g_i * x_i * D_i^(-beta-1)
// (D the denominator base of LrnBase; i runs over the window reflected about j).
template <bool Half>
void RunLocalResponse(const NormPlan& p, const Operands& ops, uint64_t first, uint64_t last) {
    const std::byte* x = ops.at[kNormIn];
    const std::byte* g = ops.at[kNormGradient];
    const int64_t before = (int64_t(p.localSize) - 1) / 2, after = int64_t(p.localSize) / 2;
    const int64_t* s = p.strides[kNormIn];
    const int64_t* sg = p.strides[kNormGradient];
    const double beta = p.beta;
    for (uint64_t e = first; e < last; ++e) {
        int64_t c[4];
        uint64_t rest = e;
        for (int d = 4; d-- > 0;) {
            c[d] = int64_t(rest % p.sizes[d]);
            rest /= p.sizes[d];
        }
        const double v = ReadFloat<Half>(x, At(s, c));
        const double base = LrnBase<Half>(p, x, c);
        double y = v / std::pow(base, beta);
        if (g) {
            double acc = 0.0;
            auto add = [&](const int64_t(&ci)[4]) {
                acc += double(ReadFloat<Half>(g, At(sg, ci))) * ReadFloat<Half>(x, At(s, ci)) *
                       std::pow(LrnBase<Half>(p, x, ci), -beta - 1.0);
            };
            if (p.crossChannel) {
                const int64_t lo = std::max<int64_t>(0, c[1] - after), hi = std::min<int64_t>(p.sizes[1] - 1, c[1] + before);
                for (int64_t k = lo; k <= hi; ++k) add({c[0], k, c[2], c[3]});
            } else {
                const int64_t h0 = std::max<int64_t>(0, c[2] - after), h1 = std::min<int64_t>(p.sizes[2] - 1, c[2] + before);
                const int64_t w0 = std::max<int64_t>(0, c[3] - after), w1 = std::min<int64_t>(p.sizes[3] - 1, c[3] + before);
                for (int64_t h = h0; h <= h1; ++h) {
                    for (int64_t w = w0; w <= w1; ++w) add({c[0], c[1], h, w});
                }
            }
            y = double(ReadFloat<Half>(g, At(sg, c))) * std::pow(base, -beta) -
                2.0 * double(p.alpha) * beta / p.localSize * v * acc;
        }
        WriteFloat<Half>(ops.at[kNormOut], At(p.strides[kNormOut], c), float(y));
    }
}

class NormalizationKernel final : public Kernel {
public:
    NormalizationKernel(DML_OPERATOR_TYPE type, const NormPlan& plan, const cpu::FusedActivation& act)
        : plan_(plan), act_(act) {
        NormSlots(type, slots_);
    }
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}
    void Execute(const KernelBindings& b) override {
        Operands ops;
        for (int o = 0; o < kNormOperands; ++o) {
            if (plan_.has[o]) ops.at[o] = (NormIsOutput(o) ? b.outputs : b.inputs)[size_t(slots_[o])];
        }
        const NormPlan& p = plan_;
        if (p.mode == NormMode::LocalResponse) {
            const uint64_t count = uint64_t(p.sizes[0]) * p.sizes[1] * p.sizes[2] * p.sizes[3];
            cpu::ParallelFor(cpu::HostThreads(b), count, 1024, [&](uint64_t first, uint64_t last) {
                p.half ? RunLocalResponse<true>(p, ops, first, last) : RunLocalResponse<false>(p, ops, first, last);
            });
            return;
        }
        if (p.mode == NormMode::Gradient) {
            const uint64_t minGroups = std::max<uint64_t>(1, (uint64_t(1) << 14) / std::max<uint64_t>(1, p.groupSize));
            cpu::ParallelFor(cpu::HostThreads(b), p.groups, minGroups, [&](uint64_t first, uint64_t last) {
                p.half ? RunGradient<true>(p, ops, first, last) : RunGradient<false>(p, ops, first, last);
            });
            return;
        }
        const uint64_t minGroups = std::max<uint64_t>(1, (uint64_t(1) << 14) / std::max<uint64_t>(1, p.groupSize));
        if (p.rank - p.groupRank == 1) {
            cpu::ParallelFor(cpu::HostThreads(b), p.groups, minGroups, [&](uint64_t first, uint64_t last) {
                p.half ? RunRows<true>(p, act_, ops, first, last) : RunRows<false>(p, act_, ops, first, last);
            });
            return;
        }
        cpu::ParallelFor(cpu::HostThreads(b), p.groups, minGroups, [&](uint64_t first, uint64_t last) {
            p.half ? RunGroups<true>(p, act_, ops, first, last) : RunGroups<false>(p, act_, ops, first, last);
        });
    }
private:
    int slots_[kNormOperands] = {};
    NormPlan plan_;
    cpu::FusedActivation act_;
};

// GivenStatistics reduces nothing, so its row (the plan's last dimension) may span every trailing
// dimension that each operand walks as one: batch normalization's H x W plane of a packed NCHW
// tensor becomes one row of H * W (its statistics broadcast, stride 0, along both) instead of H
// rows of W, each paying a row's setup. Rows stop growing at kMaxMergedRow elements, so that
// groups remain to spread over the threads and the row buffers stay in cache.
void MergeGivenRows(NormPlan& p) {
    constexpr uint64_t kMaxMergedRow = uint64_t(1) << 14;
    if (p.mode != NormMode::GivenStatistics || p.rank < 2 || p.rank - p.groupRank != 1) return;
    while (p.rank >= 2) {
        const int outer = p.rank - 2, inner = p.rank - 1;
        const uint64_t merged = uint64_t(p.sizes[outer]) * p.sizes[inner];
        if (merged > kMaxMergedRow && p.sizes[outer] != 1) break;
        bool joined = true;
        for (int o = 0; o < kNormOperands; ++o) {
            if (!p.has[o] || p.sizes[outer] == 1) continue;  // a dimension of 1 is never walked
            joined = joined && p.strides[o][outer] == p.strides[o][inner] * int64_t(p.sizes[inner]);
        }
        if (!joined) break;
        p.groups /= std::max<uint64_t>(1, p.sizes[outer]);
        p.groupSize = merged;
        p.sizes[outer] = uint32_t(merged);
        for (int o = 0; o < kNormOperands; ++o) p.strides[o][outer] = p.strides[o][inner];
        p.sizes[inner] = 0;
        for (int o = 0; o < kNormOperands; ++o) p.strides[o][inner] = 0;
        --p.rank;
        --p.groupRank;
    }
}

}  // namespace

namespace cpu {

Status CreateCpuNormalization(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* kernel) {
    NormPlan plan;
    const DML_OPERATOR_DESC* fused = nullptr;
    FREEDML_TRY(BuildNormPlan(args, &plan, &fused));
    FusedActivation act;
    FREEDML_TRY(DecodeFusedActivation(fused, &act));
    MergeGivenRows(plan);
    *kernel = std::make_unique<NormalizationKernel>(args.schema.type, plan, act);
    return {};
}

}  // namespace cpu

}  // namespace freedml::dml
