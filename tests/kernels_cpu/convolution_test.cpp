// CONVOLUTION against a float64 reference written here (straight loops over the definition: forward
// out[n, oc, o] = bias[oc] + sum in[n, ic, o * stride + k * dilation - startPad] * w[oc, ic, k];
// backward (transposed) scatters the same products the other way; CONVOLUTION mode reverses k in
// the filter). Tolerance: (taps + 4) FLOAT32 ULPs of sum|x * w| + |bias|, carried through the
// activation, plus one rounding to the output type. Each case runs on the default path (oneDNN where
// it applies) and on the forced reference path, with the filter and bias owned or not.
#include <gtest/gtest.h>

#include "dml/kernels/cpu/cpu_isa.h"
#include "dml/kernels/cpu/team_or_solo.h"
#include "dml/ops/convolution/cpu/convolution.h"
#include "test_util.h"

namespace freedml::dml::cpu::test {
namespace {

struct ConvCase {
    DML_TENSOR_DATA_TYPE type = DML_TENSOR_DATA_TYPE_FLOAT32;
    bool backward = false;
    bool convolutionMode = false;  // CONVOLUTION (flipped filter) instead of CROSS_CORRELATION
    uint32_t batch = 2, cin = 3, cout = 4, groups = 1;
    std::vector<uint32_t> in{7, 6};   // spatial input sizes (1 to 3 entries)
    std::vector<uint32_t> kernel{3, 2};
    std::vector<uint32_t> strides{1, 1}, dilations{1, 1}, startPad{0, 0}, endPad{0, 0}, outPad{0, 0};
    bool bias = true;
    bool channelsLastInput = false;   // input stored N, spatial..., C
    bool channelsLastOutput = false;  // output stored so
    std::vector<uint32_t> inputStrides, outputStrides;  // explicit strides (padded layouts), where given
    bool expectPointwise = false;                       // FreeDML's 1x1 kernel runs it where the CPU has AVX-512
    bool expectNoReorder = false;     // oneDNN runs on the activations as they are laid out
    bool expectInputAsItIs = false;   // oneDNN reads the input as it is and writes a blocked output
    bool expectTranspose = false;     // FreeDML's transpose turns planar activations channels-last and back
    bool expectSoloTwin = false;      // oneDNN's primitive has a one-thread twin (team_or_solo.h)
    bool expectPoolUnused = false;    // oneDNN's path wakes no thread of FreeDML's pool
    FusedActivation activation;
    bool accumulate = false;  // the result is added to the output's previous values (before the activation)
    int expectOneDnn = -1;
};

// The output's previous values in accumulate cases, by element number in ForEach order.
double PreviousOutput(size_t e) { return double(int(e * 37 % 23) - 11) * 0.0625; }

void RunConv(const ConvCase& c) {
    const uint32_t dims = uint32_t(c.in.size());
    std::vector<uint32_t> outSpatial(dims);
    for (uint32_t d = 0; d < dims; ++d) {
        const uint32_t extent = (c.kernel[d] - 1) * c.dilations[d] + 1;
        outSpatial[d] = c.backward ? (c.in[d] - 1) * c.strides[d] + extent - c.startPad[d] - c.endPad[d] + c.outPad[d]
                                   : (c.in[d] + c.startPad[d] + c.endPad[d] - extent) / c.strides[d] + 1;
    }
    std::vector<uint32_t> inSizes{c.batch, c.cin}, outSizes{c.batch, c.cout};
    std::vector<uint32_t> fSizes = c.backward ? std::vector<uint32_t>{c.cin, c.cout / c.groups}
                                              : std::vector<uint32_t>{c.cout, c.cin / c.groups};
    std::vector<uint32_t> biasSizes{1, c.cout};
    for (uint32_t d = 0; d < dims; ++d) {
        inSizes.push_back(c.in[d]), outSizes.push_back(outSpatial[d]), fSizes.push_back(c.kernel[d]);
        biasSizes.push_back(1);
    }
    // N, spatial..., C order in memory.
    auto channelsLast = [&](const std::vector<uint32_t>& sizes) {
        std::vector<uint32_t> strides(dims + 2, 0);
        uint32_t stride = 1;
        strides[1] = stride, stride *= sizes[1];
        for (uint32_t d = dims; d-- > 0;) strides[2 + d] = stride, stride *= sizes[2 + d];
        strides[0] = stride;
        return strides;
    };
    std::vector<uint32_t> inStrides, outStrides;
    if (c.channelsLastInput) inStrides = channelsLast(inSizes);
    if (c.channelsLastOutput) outStrides = channelsLast(outSizes);
    if (!c.inputStrides.empty()) inStrides = c.inputStrides;
    if (!c.outputStrides.empty()) outStrides = c.outputStrides;
    std::mt19937 rng(99);
    Tensor input(Desc(c.type, inSizes, inStrides));
    input.Fill(rng);
    const Tensor shape(Desc(c.type, outSizes, outStrides));

    const uint32_t cig = c.cin / c.groups, cog = c.cout / c.groups;
    const bool flip = c.convolutionMode;
    for (bool ownFilter : {false, true}) {
        Tensor filter(Desc(c.type, fSizes, {}, ownFilter)), bias(Desc(c.type, biasSizes, {}, ownFilter));
        std::mt19937 weightsRng(7);
        filter.Fill(weightsRng);
        bias.Fill(weightsRng);

        std::vector<double> ref, tol;
        shape.ForEach([&](const std::vector<uint32_t>& o) {
            const uint32_t n = o[0], oc = o[1], g = oc / cog, ocg = oc % cog;
            double sum = 0;
            if (c.bias) {
                std::vector<uint32_t> bi(biasSizes.size(), 0);
                bi[1] = oc;
                sum = bias.Get(bi);
            }
            double magnitude = std::fabs(sum);
            uint64_t taps = 0;
            std::vector<uint32_t> k(dims, 0);
            for (uint32_t icg = 0; icg < cig; ++icg) {
                const uint32_t ic = g * cig + icg;
                for (bool more = true; more;) {
                    std::vector<uint32_t> inIndex{n, ic}, fIndex = c.backward ? std::vector<uint32_t>{ic, ocg}
                                                                               : std::vector<uint32_t>{oc, icg};
                    bool inside = true;
                    for (uint32_t d = 0; d < dims && inside; ++d) {
                        int64_t pos;
                        if (!c.backward) {
                            pos = int64_t(o[2 + d]) * c.strides[d] + int64_t(k[d]) * c.dilations[d] - c.startPad[d];
                        } else {
                            int64_t t = int64_t(o[2 + d]) + c.startPad[d] - int64_t(k[d]) * c.dilations[d];
                            if (t % int64_t(c.strides[d]) != 0) inside = false;
                            pos = t / int64_t(c.strides[d]);
                            if (t < 0) inside = false;
                        }
                        if (pos < 0 || pos >= int64_t(c.in[d])) inside = false;
                        inIndex.push_back(uint32_t(pos));
                        fIndex.push_back(flip ? c.kernel[d] - 1 - k[d] : k[d]);
                    }
                    if (inside) {
                        double x = input.Get(inIndex), w = filter.Get(fIndex);
                        sum += x * w;
                        magnitude += std::fabs(x * w);
                        ++taps;
                    }
                    more = false;  // next kernel position (odometer)
                    for (uint32_t d = dims; d-- > 0;) {
                        if (++k[d] < c.kernel[d]) {
                            more = true;
                            break;
                        }
                        k[d] = 0;
                    }
                }
            }
            if (c.accumulate) {
                sum += PreviousOutput(ref.size());
                magnitude += std::fabs(PreviousOutput(ref.size()));
            }
            ref.push_back(RefActivation(c.activation, sum));
            tol.push_back(ActivatedTolerance(c.activation, sum, (taps + 4) * kEps32 * magnitude + 1e-30, c.type));
        });

        for (bool forceReference : {false, true}) {
            ConvolutionParams p;
            p.input = input.desc, p.filter = filter.desc, p.output = shape.desc;
            if (c.bias) p.bias = bias.desc;
            p.mode = c.convolutionMode ? DML_CONVOLUTION_MODE_CONVOLUTION : DML_CONVOLUTION_MODE_CROSS_CORRELATION;
            p.direction = c.backward ? DML_CONVOLUTION_DIRECTION_BACKWARD : DML_CONVOLUTION_DIRECTION_FORWARD;
            p.dimensionCount = dims;
            for (uint32_t d = 0; d < dims; ++d) {
                p.strides[d] = c.strides[d], p.dilations[d] = c.dilations[d];
                p.startPadding[d] = c.startPad[d], p.endPadding[d] = c.endPad[d], p.outputPadding[d] = c.outPad[d];
            }
            p.groupCount = c.groups;
            p.activation = c.activation;
            p.accumulate = c.accumulate;
            p.forceReference = forceReference;
            ConvolutionKernel kernel;
            Status status = kernel.Create(p);
            ASSERT_TRUE(status.ok()) << status.FullMessage();
            SCOPED_TRACE(testing::Message() << kernel.PathDescription() << (ownFilter ? ", owned filter" : ""));
            const bool pointwise = c.expectPointwise && UseAvx512();
            if (!forceReference) {
                EXPECT_EQ(kernel.UsesPointwiseKernel(), pointwise);
            }
#ifdef FREEDML_HAVE_DNNL
            if (!forceReference && c.expectOneDnn >= 0) {
                EXPECT_EQ(kernel.UsesOneDnn(), c.expectOneDnn == 1 && !pointwise);
            }
            if (!forceReference && c.expectNoReorder) {
                EXPECT_EQ(kernel.PathDescription().find("reordered"), std::string::npos);
            }
            if (!forceReference && c.expectTranspose) {
                EXPECT_NE(kernel.PathDescription().find("FreeDML's AVX-512 transpose"), std::string::npos);
            }
            if (!forceReference && c.expectInputAsItIs) {
                EXPECT_NE(kernel.PathDescription().find("reading the input as it is"), std::string::npos);
            }
            if (!forceReference && c.expectSoloTwin) {
                EXPECT_NE(kernel.PathDescription().find("one-thread twin"), std::string::npos);
                // The reorders keep the thread count they were made with: the twin needs its own.
                if (kernel.PathDescription().find("reordered") != std::string::npos) {
                    EXPECT_NE(kernel.PathDescription().find("with one-thread reorders"), std::string::npos);
                }
            }
#endif
            Buffer persistent(kernel.PersistentSizeInBytes()), temporary(kernel.TemporarySizeInBytes());
            kernel.Initialize(filter.view(), bias.view(), persistent.ptr);
            TensorView fv = filter.view(), bv = bias.view();
            if (ownFilter) fv.data = nullptr, bv.data = nullptr;  // not bound at execution
            Tensor out(shape.desc);
            if (c.accumulate) {
                size_t k = 0;
                out.ForEach([&](const std::vector<uint32_t>& i) { out.Set(i, PreviousOutput(k++)); });
            }
            const uint64_t poolJobs = Threads()->JobsShared();
            kernel.Execute(Threads(), input.view(), fv, c.bias ? bv : TensorView{}, out.view(), persistent.ptr,
                           temporary.ptr);
#ifdef FREEDML_HAVE_DNNL
            if (!forceReference && c.expectPoolUnused) {
                EXPECT_EQ(Threads()->JobsShared(), poolJobs) << "oneDNN's path shared a pass out on FreeDML's pool";
            }
#endif
            size_t e = 0, failures = 0;
            out.ForEach([&](const std::vector<uint32_t>& i) {
                double got = out.Get(i);
                if (!(std::fabs(got - ref[e]) <= tol[e]) && failures++ < 5) {
                    ADD_FAILURE() << "element " << e << ": got " << got << ", expected " << ref[e] << " +- " << tol[e];
                }
                ++e;
            });
        }
    }
}

TEST(Convolution, Forward2D) {
    ConvCase c;
    c.expectOneDnn = 1;
    RunConv(c);
    c.bias = false;
    RunConv(c);
}

TEST(Convolution, ConvolutionModeFlipsTheFilter) {
    ConvCase c;
    c.convolutionMode = true;
    c.expectOneDnn = 1;
    RunConv(c);
    c.backward = true;
    RunConv(c);
}

TEST(Convolution, StridesDilationsAsymmetricPadding) {
    ConvCase c;
    c.in = {11, 9};
    c.kernel = {3, 3};
    c.strides = {2, 3};
    c.dilations = {2, 1};
    c.startPad = {1, 2};
    c.endPad = {2, 0};
    RunConv(c);
}

TEST(Convolution, GroupsAndDepthwise) {
    ConvCase c;
    c.cin = 6, c.cout = 4, c.groups = 2;
    RunConv(c);
    ConvCase dw;  // depthwise: one group per channel
    dw.cin = 8, dw.cout = 8, dw.groups = 8;
    dw.startPad = {1, 1}, dw.endPad = {1, 1};
    dw.activation = {DML_OPERATOR_ACTIVATION_RELU, 0, 0, 0};
    RunConv(dw);
}

TEST(Convolution, Backward) {
    ConvCase c;
    c.backward = true;
    c.cin = 4, c.cout = 6, c.groups = 2;
    c.in = {4, 5};
    c.strides = {2, 2};
    c.startPad = {1, 0};
    c.endPad = {0, 1};
    c.outPad = {1, 1};
    RunConv(c);
    c.dilations = {2, 1};
    c.outPad = {0, 1};
    c.bias = false;
    RunConv(c);
}

TEST(Convolution, ThreeAndOneDimensions) {
    ConvCase c3;
    c3.in = {4, 5, 6};
    c3.kernel = {2, 3, 2};
    c3.strides = {1, 2, 1};
    c3.dilations = {1, 1, 2};
    c3.startPad = {1, 0, 1};
    c3.endPad = {0, 1, 1};
    c3.outPad = {0, 0, 0};
    RunConv(c3);
    c3.backward = true;
    c3.outPad = {0, 1, 0};
    RunConv(c3);
    ConvCase c1;
    c1.in = {10};
    c1.kernel = {3};
    c1.strides = {2};
    c1.dilations = {1};
    c1.startPad = {1};
    c1.endPad = {1};
    c1.outPad = {0};
    RunConv(c1);
}

TEST(Convolution, FusedActivations) {
    for (FusedActivation act : {FusedActivation{DML_OPERATOR_ACTIVATION_SIGMOID, 0, 0, 0},
                                FusedActivation{DML_OPERATOR_ACTIVATION_LEAKY_RELU, 0.2f, 0, 0},
                                FusedActivation{DML_OPERATOR_ACTIVATION_SOFTPLUS, 1.0f, 0, 0},
                                FusedActivation{DML_OPERATOR_ACTIVATION_HARD_SIGMOID, 0.2f, 0.5f, 0}}) {
        ConvCase c;
        c.activation = act;
        RunConv(c);
    }
}

TEST(Convolution, Float16) {
    ConvCase c;
    c.type = DML_TENSOR_DATA_TYPE_FLOAT16;
    c.cin = 4, c.cout = 4, c.groups = 2;
    c.startPad = {1, 1};
    c.expectOneDnn = 1;  // through FLOAT32 copies
    RunConv(c);
    c.backward = true;
    c.strides = {2, 1};
    c.convolutionMode = true;
    RunConv(c);
    c.backward = false;  // forward CONVOLUTION mode: the filter flipped while it is converted
    c.activation = {DML_OPERATOR_ACTIVATION_SOFTSIGN, 0, 0, 0};
    RunConv(c);
}

TEST(Convolution, Float16ChannelsLastInputReachesOneDnn) {
    ConvCase c;
    c.type = DML_TENSOR_DATA_TYPE_FLOAT16;
    c.channelsLastInput = true;
    c.expectOneDnn = 1;  // the FLOAT32 copy of the input is packed
    RunConv(c);
}

TEST(Convolution, ChannelsLastInputReachesOneDnn) {
    ConvCase c;
    c.channelsLastInput = true;
    c.expectOneDnn = 1;  // oneDNN reads the strides as they are (or reorders them)
    RunConv(c);
    c.backward = true;
    c.strides = {2, 1};
    RunConv(c);
    c.cin = 4, c.cout = 4, c.groups = 2;
    c.activation = {DML_OPERATOR_ACTIVATION_SOFTSIGN, 0, 0, 0};
    RunConv(c);
}

TEST(Convolution, ChannelsLastActivationsNeedNoReorder) {
    ConvCase c;
    c.batch = 1, c.cin = 16, c.cout = 32;
    c.in = {9, 8};
    c.channelsLastInput = c.channelsLastOutput = true;
    c.expectOneDnn = 1;
    c.expectNoReorder = true;  // oneDNN's channels-last kernels read DirectML's strides directly
    RunConv(c);
    c.kernel = {1, 1};
    RunConv(c);
}

TEST(Convolution, ChannelsLastOutputWithTheKernelsOwnActivationPass) {
    // SOFTSIGN is no oneDNN post-op: the kernel's own pass walks the NHWC output as one run.
    ConvCase c;
    c.batch = 2, c.cin = 16, c.cout = 32;
    c.in = {9, 8};
    c.kernel = {1, 1};
    c.channelsLastInput = c.channelsLastOutput = true;
    c.activation = {DML_OPERATOR_ACTIVATION_SOFTSIGN, 0, 0, 0};
    c.expectOneDnn = 1;
    RunConv(c);
    c.cout = 16, c.groups = 16;  // depthwise 3x3
    c.kernel = {3, 3};
    c.startPad = {1, 1}, c.endPad = {1, 1};
    RunConv(c);
    c.channelsLastInput = false;  // NCHW in, NHWC out
    RunConv(c);
}

TEST(Convolution, AccumulatesOntoTheOutput) {
    // A folded residual ADD: NHWC (oneDNN's sum post-op on the output itself), NCHW with a 3x3
    // window (blocked copies: the output reordered in first), an activation after the sum, FLOAT16.
    ConvCase c;
    c.batch = 1, c.cin = 16, c.cout = 16;
    c.in = {7, 6};
    c.kernel = {1, 1};
    c.channelsLastInput = c.channelsLastOutput = true;
    c.accumulate = true;
    c.expectOneDnn = 1;
    RunConv(c);
    c.channelsLastInput = c.channelsLastOutput = false;
    c.kernel = {3, 3};
    c.startPad = {1, 1}, c.endPad = {1, 1};
    c.activation = {DML_OPERATOR_ACTIVATION_RELU, 0, 0, 0};
    RunConv(c);
    c.activation = {DML_OPERATOR_ACTIVATION_SOFTSIGN, 0, 0, 0};  // the kernel's own pass, after the sum
    RunConv(c);
    c.type = DML_TENSOR_DATA_TYPE_FLOAT16;
    RunConv(c);
}

TEST(Convolution, BlockedActivationsThroughTheTemporaryResource) {
    // Plain NCHW activations with a 3x3 window: oneDNN runs on blocked copies, reordered in and
    // out; 1x1 on a large plane and a single output channel plane of 1: each layout's result must
    // be the definition's.
    ConvCase c;
    c.batch = 2, c.cin = 24, c.cout = 40;
    c.in = {12, 10};
    c.kernel = {3, 3};
    c.startPad = {1, 1}, c.endPad = {1, 1};
    c.expectOneDnn = 1;
    // oneDNN's brgemm convolution (AVX-512) runs channels-last: FreeDML transposes into and out of it.
    c.expectTranspose = UseAvx512();
    RunConv(c);
    c.activation = {DML_OPERATOR_ACTIVATION_SOFTSIGN, 0, 0, 0};  // applied after the output's reorder
    c.accumulate = true;                                         // the output transposed in first
    RunConv(c);
    c.expectTranspose = false;
    c.accumulate = false;
    c.kernel = {1, 1};
    c.startPad = {0, 0}, c.endPad = {0, 0};
    c.in = {20, 20};
    c.expectPointwise = true;  // on a CPU without AVX-512, oneDNN on the plain activations
    RunConv(c);
    c.type = DML_TENSOR_DATA_TYPE_FLOAT16;
    c.kernel = {3, 3};
    c.expectPointwise = false;
    RunConv(c);
}

TEST(Convolution, FirstLayerReadsItsFewInputChannelsAsTheyAre) {
    // Three input channels and a 7x7 window of stride 2 (ResNet-50's conv1, smaller): where oneDNN
    // has a direct convolution for a plain input and a blocked output, only the output is reordered.
    ConvCase c;
    c.batch = 1, c.cin = 3, c.cout = 16;
    c.in = {30, 30};
    c.kernel = {7, 7};
    c.strides = {2, 2};
    c.startPad = {3, 3}, c.endPad = {3, 3};
    c.expectOneDnn = 1, c.expectInputAsItIs = UseAvx512();
    RunConv(c);
    c.type = DML_TENSOR_DATA_TYPE_FLOAT16;  // through its FLOAT32 copy, plain too
    c.activation = {DML_OPERATOR_ACTIVATION_RELU, 0, 0, 0};
    RunConv(c);
}

TEST(Convolution, OneThreadTwinRunsWhileTheCoresAreContended) {
    // Problems of medium size get a twin primitive sized for one thread on the team's layouts (the
    // owned filter packed once for both); forced to run it, each layout must give the definition's
    // result, blocked activations and FLOAT16 copies included.
    const ScopedCpuContentionPolicyForTesting alwaysSolo(ContentionPolicy::AlwaysSolo);
    ConvCase c;
    c.batch = 2, c.cin = 32, c.cout = 48;
    c.in = {20, 18};
    c.kernel = {3, 3};
    c.startPad = {1, 1}, c.endPad = {1, 1};
    c.activation = {DML_OPERATOR_ACTIVATION_RELU, 0, 0, 0};
    c.expectOneDnn = 1, c.expectSoloTwin = true;
    RunConv(c);
    c.kernel = {1, 1}, c.startPad = {0, 0}, c.endPad = {0, 0};
    c.in = {40, 40};
    c.channelsLastInput = c.channelsLastOutput = true;
    RunConv(c);
    c.type = DML_TENSOR_DATA_TYPE_FLOAT16;
    c.accumulate = true;
    RunConv(c);
}

TEST(Convolution, OwnActivationPassRunsOnOneDnnsTeam) {
    // An activation oneDNN cannot fuse (SOFTSIGN, and CLIP, which keeps NaN) is applied by the
    // kernel's own pass right after the primitive, on oneDNN's OpenMP team, whose threads are still
    // polling then: on FreeDML's pool it woke a second set of threads, and oneDNN's fell asleep and
    // paid a wake-up at the next primitive. Outputs large enough to be shared out; plain and
    // blocked activations, FLOAT16, and the one-thread twin (the pass then on this thread).
    ConvCase c;
    c.batch = 1, c.cin = 16, c.cout = 32;
    c.in = {40, 40};
    c.kernel = {1, 1};
    c.activation = {DML_OPERATOR_ACTIVATION_SOFTSIGN, 0, 0, 0};
    c.expectOneDnn = 1, c.expectPoolUnused = true;
    c.expectPointwise = true;  // FreeDML's 1x1 kernel, on the same team, where the CPU has AVX-512
    RunConv(c);
    c.expectPointwise = false;
    c.kernel = {3, 3};
    c.startPad = {1, 1}, c.endPad = {1, 1};
    RunConv(c);
    c.activation = {DML_OPERATOR_ELEMENT_WISE_CLIP, -0.25f, 0.5f, 0};  // a graph's fused CLIP: Min, Max
    RunConv(c);
    c.type = DML_TENSOR_DATA_TYPE_FLOAT16;
    RunConv(c);
    const ScopedCpuContentionPolicyForTesting alwaysSolo(ContentionPolicy::AlwaysSolo);
    c.type = DML_TENSOR_DATA_TYPE_FLOAT32;
    c.expectSoloTwin = true;
    RunConv(c);
}

TEST(Convolution, PointwiseKernelOnPlanarActivations) {
    // FreeDML's 1x1 kernel: 260 input channels (a depth chunk of 256 and one of 4, summed in the
    // output between them), 13 output channels (a panel of 8 and one of 5), 135 pixels (the last
    // panel 39 wide: two full vectors and a masked one), three batch items, enough work for oneDNN's
    // team; the bias, the sum with the output's values, RELU in the registers and SOFTSIGN by a pass
    // over the rows; FLOAT16 converted on the way in and out.
    ConvCase c;
    c.batch = 3, c.cin = 260, c.cout = 13;
    c.in = {9, 15};
    c.kernel = {1, 1};
    c.expectOneDnn = 1, c.expectPointwise = true, c.expectPoolUnused = true;
    RunConv(c);
    c.bias = false;
    c.accumulate = true;
    c.activation = {DML_OPERATOR_ACTIVATION_RELU, 0, 0, 0};
    RunConv(c);
    c.bias = true;
    c.activation = {DML_OPERATOR_ACTIVATION_SOFTSIGN, 0, 0, 0};
    RunConv(c);
    c.type = DML_TENSOR_DATA_TYPE_FLOAT16;
    RunConv(c);  // the sums kept in floats until the row pass has run
    c.accumulate = false;
    c.activation = {DML_OPERATOR_ACTIVATION_RELU, 0, 0, 0};
    RunConv(c);  // RELU and the conversion in the registers
}

TEST(Convolution, PointwiseKernelStridesAndLayouts) {
    // Strides (each pixel's input gathered), 1-D and 3-D planes, padded rows and channels in the
    // input and output, CONVOLUTION mode (a 1x1 window flips to itself), FLOAT32 and FLOAT16.
    ConvCase c;
    c.batch = 2, c.cin = 40, c.cout = 24;
    c.in = {29, 40};
    c.kernel = {1, 1};
    c.strides = {2, 3};  // 15 x 14 output pixels
    c.expectPointwise = true;
    for (DML_TENSOR_DATA_TYPE type : {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16}) {
        c.type = type;
        RunConv(c);
    }
    c.type = DML_TENSOR_DATA_TYPE_FLOAT32;
    c.strides = {1, 1};
    c.in = {9, 11};
    // Input rows 11 of 14, channels 9 x 14 + 3 apart; output channels 99 + 5 apart.
    const uint32_t inChannel = 9 * 14 + 3, outChannel = 99 + 5;
    c.inputStrides = {c.cin * inChannel, inChannel, 14, 1};
    c.outputStrides = {c.cout * outChannel, outChannel, 11, 1};
    c.convolutionMode = true;
    for (DML_TENSOR_DATA_TYPE type : {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16}) {
        c.type = type;
        c.accumulate = type == DML_TENSOR_DATA_TYPE_FLOAT16;
        RunConv(c);
    }
    c.type = DML_TENSOR_DATA_TYPE_FLOAT32;
    c.accumulate = false;
    c.convolutionMode = false;
    c.inputStrides.clear(), c.outputStrides.clear();
    ConvCase c1 = c;  // 1-D
    c1.in = {200};
    c1.kernel = {1}, c1.strides = {1}, c1.dilations = {1}, c1.startPad = {0}, c1.endPad = {0}, c1.outPad = {0};
    RunConv(c1);
    ConvCase c3 = c;  // 3-D, strided along the middle dimension
    c3.in = {4, 6, 10};
    c3.kernel = {1, 1, 1}, c3.strides = {1, 2, 1}, c3.dilations = {1, 1, 1};
    c3.startPad = {0, 0, 0}, c3.endPad = {0, 0, 0}, c3.outPad = {0, 0, 0};
    RunConv(c3);
}

TEST(Convolution, PointwiseKernelLeavesOtherShapesToOneDnn) {
    // A small plane (oneDNN's blocked form fills its vectors there), padding, groups and a
    // channels-last output go elsewhere.
    ConvCase c;
    c.cin = 16, c.cout = 16;
    c.in = {8, 8};
    c.kernel = {1, 1};
    c.expectOneDnn = 1;
    RunConv(c);
    c.in = {12, 12};
    c.startPad = {1, 0};
    RunConv(c);
    c.startPad = {0, 0};
    c.groups = 2;
    RunConv(c);
    c.groups = 1;
    c.channelsLastOutput = true;
    RunConv(c);
}

TEST(Convolution, PointwiseKernelOneThreadTwin) {
    // Medium work gets the choice between oneDNN's team and the calling thread alone; forced to
    // the latter, every item runs on this thread and wakes no other.
    const ScopedCpuContentionPolicyForTesting alwaysSolo(ContentionPolicy::AlwaysSolo);
    ConvCase c;
    c.batch = 1, c.cin = 64, c.cout = 40;
    c.in = {30, 30};
    c.kernel = {1, 1};
    c.activation = {DML_OPERATOR_ACTIVATION_LEAKY_RELU, 0.25f, 0, 0};
    c.expectOneDnn = 1, c.expectPointwise = true;
    c.expectSoloTwin = UseAvx512(), c.expectPoolUnused = true;
    RunConv(c);
    c.type = DML_TENSOR_DATA_TYPE_FLOAT16;
    RunConv(c);
}

TEST(Convolution, OverlappingInputTakesTheReferencePath) {
    // An input whose rows share their elements (a zero stride): no oneDNN descriptor says that.
    ConvolutionParams p;
    p.input = Desc(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 2, 4, 4}, {16, 16, 0, 1});
    p.filter = Desc(DML_TENSOR_DATA_TYPE_FLOAT32, {3, 2, 1, 1});
    p.output = Desc(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 3, 4, 4});
    ConvolutionKernel k;
    ASSERT_TRUE(k.Create(p).ok());
    EXPECT_FALSE(k.UsesOneDnn()) << k.PathDescription();
}

TEST(Convolution, RefusesBadGroups) {
    ConvolutionParams p;
    p.input = Desc(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 3, 5, 5});
    p.filter = Desc(DML_TENSOR_DATA_TYPE_FLOAT32, {4, 1, 3, 3});
    p.output = Desc(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 4, 3, 3});
    p.groupCount = 2;
    ConvolutionKernel k;
    EXPECT_FALSE(k.Create(p).ok());
}

}  // namespace
}  // namespace freedml::dml::cpu::test
