// GEMM and convolution through FreeDML's public API against raw oneDNN (the library FreeDML's CPU
// kernels call, used directly with its best layouts: FreeDML's own best case), and the machine's
// peak FLOP/s, in one process with interleaved rounds (bench_common.h).
//
//   peak:        an FMA loop (AVX-512 or AVX2, picked at run time) on 1 thread and on every core;
//   gemm:        square M = N = K GEMMs, FLOAT32 and FLOAT16 (each size in both types, one after
//                the other). FreeDML with B OWNED_BY_DML (packed at initialization, the inference
//                case) and with B bound as an input; oneDNN matmul with pre-packed weights and with
//                plain B (in FLOAT16 where oneDNN has a FLOAT16 matmul for this CPU);
//   int8:        square MATRIX_MULTIPLY_INTEGER and QUANTIZED_LINEAR_MATRIX_MULTIPLY (UINT8 x INT8),
//                every tensor an input (value: GOP/s), against ONNX Runtime in references.py;
//   conv:        the ResNet-50 convolution layers at batch 1 (bench/resnet50_convs.csv), with bias.
//                FreeDML with an owned filter and bias, and with them bound as inputs; oneDNN
//                convolution_forward with blocked layouts chosen by oneDNN ("best") and with plain
//                NCHW input and output (the layout a DirectML tensor has).
// For FreeDML the oneDNN primitives that ran are captured from oneDNN's verbose output (the note
// of each FreeDML result names them; none means one of FreeDML's own kernels ran: the 1x1
// convolution kernel on planar activations, or a reference kernel).
//
// OpenMP's wait policy: this binary links oneDNN itself (for the references), so GNU OpenMP starts
// with the process and reads its wait policy before FreeDML could choose one. In a user's process
// without OpenMP of its own, FreeDML's loader chooses a short spin (GOMP_SPINCOUNT=600, dnnl_lazy.cpp's
// kSpinCount); to measure what that user gets, dense_bench starts itself again under it unless the
// caller chose a policy (OMP_WAIT_POLICY or GOMP_SPINCOUNT set), and the oneDNN references run under
// the same policy. dense_bench_alone (no oneDNN of its own) needs no such step.
//
// Prints RESULT lines; value = GFLOP/s. Usage:
//   dense_bench [--gemm] [--conv] [--peak] [--int8] [--sizes 64,128,...] [--layers FILE] [--rounds R]
//               [--sample-seconds S] [--fp16-max-seconds T] [--no-onednn] [--suffix TEXT]
#include "bench_common.h"

#ifdef FREEDML_BENCH_HAVE_DNNL
#include <oneapi/dnnl/dnnl.hpp>
#endif

#include <immintrin.h>
#include <unistd.h>

#include <fstream>
#include <random>
#include <sstream>
#include <thread>
#include <unordered_map>

using namespace freedml_bench;

namespace {

TimingOptions gOptions;
double gFp16MaxSeconds = 20;  // FLOAT16 cases predicted slower than this per iteration are skipped
bool gOneDnn = true;
std::string gSuffix;  // appended to FreeDML's implementation names (--suffix), to tell runs apart

// ---- Peak FLOP/s ---------------------------------------------------------------------------------

constexpr int kAccumulators = 12;  // independent FMA chains: enough to cover latency x throughput

__attribute__((target("avx512f"))) float FmaLoop512(long iterations) {
    __m512 acc[kAccumulators];
    for (int j = 0; j < kAccumulators; ++j) acc[j] = _mm512_set1_ps(float(j) * 1e-3f);
    const __m512 b = _mm512_set1_ps(0.9999f), c = _mm512_set1_ps(1e-4f);
    for (long i = 0; i < iterations; ++i) {
        for (int j = 0; j < kAccumulators; ++j) acc[j] = _mm512_fmadd_ps(acc[j], b, c);
    }
    __m512 sum = acc[0];
    for (int j = 1; j < kAccumulators; ++j) sum = _mm512_add_ps(sum, acc[j]);
    float lanes[16];
    _mm512_storeu_ps(lanes, sum);
    float total = 0;
    for (float lane : lanes) total += lane;
    return total;
}

__attribute__((target("avx2,fma"))) float FmaLoop256(long iterations) {
    __m256 acc[kAccumulators];
    for (int j = 0; j < kAccumulators; ++j) acc[j] = _mm256_set1_ps(float(j) * 1e-3f);
    const __m256 b = _mm256_set1_ps(0.9999f), c = _mm256_set1_ps(1e-4f);
    for (long i = 0; i < iterations; ++i) {
        for (int j = 0; j < kAccumulators; ++j) acc[j] = _mm256_fmadd_ps(acc[j], b, c);
    }
    __m256 sum = acc[0];
    for (int j = 1; j < kAccumulators; ++j) sum = _mm256_add_ps(sum, acc[j]);
    float lanes[8];
    _mm256_storeu_ps(lanes, sum);
    return lanes[0] + lanes[1] + lanes[2] + lanes[3] + lanes[4] + lanes[5] + lanes[6] + lanes[7];
}

void Peak() {
    const bool avx512 = __builtin_cpu_supports("avx512f");
    const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (!avx512 && !avx2) {
        std::fprintf(stderr, "dense_bench: no AVX2/FMA: no peak measured\n");
        return;
    }
    const int lanes = avx512 ? 16 : 8;
    const char* isa = avx512 ? "AVX-512 FMA loop" : "AVX2 FMA loop";
    volatile float sink = 0;
    auto loop = [&](long n) { sink = sink + (avx512 ? FmaLoop512(n) : FmaLoop256(n)); };
    const long iterations = 20'000'000;  // ~0.1-0.2 s per thread
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    std::vector<double> one, all;
    for (int r = 0; r < 11; ++r) {
        double t0 = Now();
        loop(iterations);
        one.push_back(Now() - t0);
        t0 = Now();
        std::vector<std::thread> threads;
        for (unsigned t = 0; t < cores; ++t) threads.emplace_back([&] { loop(iterations); });
        for (auto& thread : threads) thread.join();
        all.push_back(Now() - t0);
    }
    const double flops = double(iterations) * kAccumulators * lanes * 2;
    // The best round: the peak is what the machine can do, not what noise left of it.
    Result("peak", "FMA loop 1 thread", "FLOAT32", "machine", flops / *std::min_element(one.begin(), one.end()) / 1e9,
           "GFLOP/s", std::string(isa) + "; " + Spread(one));
    Result("peak", "FMA loop " + std::to_string(cores) + " threads", "FLOAT32", "machine",
           flops * cores / *std::min_element(all.begin(), all.end()) / 1e9, "GFLOP/s", std::string(isa) + "; " + Spread(all));
}

// ---- oneDNN's verbose log: which primitives ran -------------------------------------------------

// Runs `body` once with oneDNN's verbose mode on and standard output sent to a file; returns
// "kind:implementation" of every primitive executed, joined by '+' ("" when none ran).
std::string OneDnnPrimitivesOf(const std::function<void()>& body) {
#ifndef FREEDML_BENCH_HAVE_DNNL
    (void)body;
    return "(primitives not recorded: built without raw oneDNN)";
#else
    char path[] = "/tmp/freedml_dense_bench_XXXXXX";
    const int file = mkstemp(path);
    if (file < 0) return "";
    std::fflush(stdout);
    const int saved = dup(1);
    dup2(file, 1);
    dnnl::set_verbose(1);
    body();
    dnnl::set_verbose(0);
    std::fflush(stdout);
    dup2(saved, 1);
    close(saved);
    close(file);
    std::ifstream log(path);
    std::string line, joined;
    while (std::getline(log, line)) {
        if (line.find(",exec,") == std::string::npos) continue;
        std::vector<std::string> fields;
        std::stringstream stream(line);
        std::string field;
        while (std::getline(stream, field, ',')) fields.push_back(field);
        if (fields.size() > 4) joined += (joined.empty() ? "" : "+") + fields[3] + ":" + fields[4];
    }
    unlink(path);
    return joined;
#endif
}

std::string FreeDmlNote(const std::string& primitives, const std::vector<double>& samples) {
    return (primitives.empty() ? std::string("FreeDML's own kernel (no oneDNN primitive ran)")
                               : "oneDNN " + primitives) +
           "; " + Spread(samples);
}

// ---- Data ----------------------------------------------------------------------------------------

std::vector<float> RandomFloats(size_t n, uint32_t seed) {
    std::mt19937 random(seed);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::vector<float> v(n);
    for (auto& x : v) x = uniform(random);
    return v;
}

// The bytes of `values` in `type` (FLOAT16 rounds each value).
std::vector<unsigned char> AsBytes(const std::vector<float>& values, DML_TENSOR_DATA_TYPE type) {
    std::vector<unsigned char> bytes(values.size() * (type == DML_TENSOR_DATA_TYPE_FLOAT16 ? 2 : 4));
    if (type == DML_TENSOR_DATA_TYPE_FLOAT32) {
        std::memcpy(bytes.data(), values.data(), bytes.size());
    } else {
        for (size_t i = 0; i < values.size(); ++i) {
            const uint16_t h = ToHalf(values[i]);
            std::memcpy(&bytes[i * 2], &h, 2);
        }
    }
    return bytes;
}

std::vector<float> AsFloats(const std::vector<unsigned char>& bytes, DML_TENSOR_DATA_TYPE type) {
    std::vector<float> values(bytes.size() / (type == DML_TENSOR_DATA_TYPE_FLOAT16 ? 2 : 4));
    if (type == DML_TENSOR_DATA_TYPE_FLOAT32) {
        std::memcpy(values.data(), bytes.data(), values.size() * 4);
    } else {
        for (size_t i = 0; i < values.size(); ++i) {
            uint16_t h;
            std::memcpy(&h, &bytes[i * 2], 2);
            values[i] = FromHalf(h);
        }
    }
    return values;
}

// Largest |a - b| over the largest |b|: how far FreeDML's output is from oneDNN's.
double RelativeError(const std::vector<float>& a, const std::vector<float>& b) {
    double worst = 0, scale = 1e-30;
    for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
        worst = std::max(worst, double(std::fabs(a[i] - b[i])));
        scale = std::max(scale, double(std::fabs(b[i])));
    }
    return a.size() == b.size() ? worst / scale : INFINITY;
}

ComPtr<ID3D12Resource> UploadTensor(Api& api, const std::vector<float>& values, DML_TENSOR_DATA_TYPE type,
                                    UINT64 bytes) {
    auto buffer = api.Buffer(bytes);
    auto data = AsBytes(values, type);
    data.resize(bytes, 0);  // DMLCalcBufferTensorSize rounds up to 4 bytes
    api.Upload(buffer.Get(), data.data(), data.size());
    return buffer;
}

#ifdef FREEDML_BENCH_HAVE_DNNL
dnnl::engine& Engine() {
    static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
    return engine;
}

// One oneDNN primitive with its arguments, ready to execute; user-layout inputs are reordered
// into the primitive's layouts once, outside the timing.
struct OneDnnRun {
    dnnl::primitive primitive;
    std::unordered_map<int, dnnl::memory> args;
    dnnl::memory dst, userDst;  // userDst: plain layout, for the correctness check
    std::string impl;

    void Run(dnnl::stream& stream) {
        primitive.execute(stream, args);
        stream.wait();
    }
    std::vector<float> Output(dnnl::stream& stream) {
        dnnl::memory plain = dst;
        if (dst.get_desc() != userDst.get_desc()) {
            dnnl::reorder(dst, userDst).execute(stream, dst, userDst);
            stream.wait();
            plain = userDst;
        }
        const size_t n = plain.get_desc().get_size() / 4;
        const float* p = static_cast<const float*>(plain.get_data_handle());
        return std::vector<float>(p, p + n);
    }
};

// A memory in `desc` holding `user` (plain, in `userDesc`), reordered when the layouts differ.
dnnl::memory Prepared(const dnnl::memory::desc& desc, const dnnl::memory::desc& userDesc, std::vector<float>& user,
                      dnnl::stream& stream) {
    dnnl::memory source(userDesc, Engine(), user.data());
    if (desc == userDesc) return source;
    dnnl::memory target(desc, Engine());
    dnnl::reorder(source, target).execute(stream, source, target);
    stream.wait();
    return target;
}
#endif

// The name of a FLOAT16 case's FLOAT32 twin: the same operator in FLOAT32 on the same values, timed in
// the same interleaved rounds as the FLOAT16 one, so that the FLOAT16 / FLOAT32 ratio compares
// figures of the same seconds (two cases run apart can meet a burst of the host's other load on one
// side only). "FreeDML FLOAT32 twin owned B" / "... owned filter", reported under FLOAT16.
constexpr const char* kSameRounds = "FreeDML FLOAT32 twin";

// ---- GEMM ----------------------------------------------------------------------------------------

void GemmCase(Api& api, uint32_t size, DML_TENSOR_DATA_TYPE type, double* predictedFp16Seconds) {
    const uint32_t m = size, n = size, k = size;
    const double flops = 2.0 * m * n * k;
    const std::string name = std::to_string(size);
    const bool fp16 = type == DML_TENSOR_DATA_TYPE_FLOAT16;
    if (fp16 && *predictedFp16Seconds > gFp16MaxSeconds) {
        Result("gemm", name, TypeName(type), "FreeDML owned B", 0, "GFLOP/s",
               "skipped: predicted " + std::to_string(int(*predictedFp16Seconds)) + " s per GEMM");
        *predictedFp16Seconds *= 8;
        return;
    }
    auto aValues = RandomFloats(size_t(m) * k, 1), bValues = RandomFloats(size_t(k) * n, 2);
    Tensor a(type, {1, 1, m, k}), b(type, {1, 1, k, n}), bOwned(type, {1, 1, k, n}, DML_TENSOR_FLAG_OWNED_BY_DML),
        out(type, {1, 1, m, n});
    auto aBuffer = UploadTensor(api, aValues, type, a.Bytes()), bBuffer = UploadTensor(api, bValues, type, b.Bytes());
    auto outOwned = api.Buffer(out.Bytes()), outPlain = api.Buffer(out.Bytes());
    DML_BUFFER_BINDING aBinding{aBuffer.Get(), 0, a.Bytes()}, bBinding{bBuffer.Get(), 0, b.Bytes()},
        o1{outOwned.Get(), 0, out.Bytes()}, o2{outPlain.Get(), 0, out.Bytes()};

    DML_GEMM_OPERATOR_DESC ownedDesc{&a.desc, &bOwned.desc, nullptr, &out.desc, DML_MATRIX_TRANSFORM_NONE,
                                     DML_MATRIX_TRANSFORM_NONE, 1.0f, 0.0f, nullptr};
    DML_GEMM_OPERATOR_DESC plainDesc = ownedDesc;
    plainDesc.BTensor = &b.desc;
    BoundOperator owned, plain;
    const bool ownedOk = owned.Prepare(api, api.Compile(DML_OPERATOR_GEMM, &ownedDesc),
                                       {{nullptr, 0, 0}, bBinding, {nullptr, 0, 0}},
                                       {Bind(&aBinding), NoBinding(), NoBinding()}, {Bind(&o1)});
    const bool plainOk = plain.Prepare(api, api.Compile(DML_OPERATOR_GEMM, &plainDesc), {},
                                       {Bind(&aBinding), Bind(&bBinding), NoBinding()}, {Bind(&o2)});
    if (!ownedOk || !plainOk) {
        std::fprintf(stderr, "dense_bench: GEMM %u %s did not prepare\n", size, TypeName(type));
        return;
    }
    const std::string ownedPath = OneDnnPrimitivesOf([&] { owned.Run(); });
    const std::string plainPath = OneDnnPrimitivesOf([&] { plain.Run(); });

    std::vector<std::function<void()>> bodies{[&] { owned.Run(); }, [&] { plain.Run(); }};
    // FLOAT16: the FLOAT32 operator on the same values, timed in the same rounds (kSameRounds).
    BoundOperator owned32;
    Tensor a32(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, m, k}), b32(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, k, n}),
        b32Owned(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, k, n}, DML_TENSOR_FLAG_OWNED_BY_DML),
        out32(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, m, n});
    size_t sameRounds = 0;
    ComPtr<ID3D12Resource> a32Buffer, b32Buffer, out32Buffer;  // bound: alive as long as owned32
    if (fp16) {
        a32Buffer = UploadTensor(api, aValues, DML_TENSOR_DATA_TYPE_FLOAT32, a32.Bytes());
        b32Buffer = UploadTensor(api, bValues, DML_TENSOR_DATA_TYPE_FLOAT32, b32.Bytes());
        out32Buffer = api.Buffer(out32.Bytes());
        DML_BUFFER_BINDING a32Binding{a32Buffer.Get(), 0, a32.Bytes()}, b32Binding{b32Buffer.Get(), 0, b32.Bytes()},
            o32{out32Buffer.Get(), 0, out32.Bytes()};
        DML_GEMM_OPERATOR_DESC desc32 = ownedDesc;
        desc32.ATensor = &a32.desc, desc32.BTensor = &b32Owned.desc, desc32.OutputTensor = &out32.desc;
        if (owned32.Prepare(api, api.Compile(DML_OPERATOR_GEMM, &desc32),
                            {{nullptr, 0, 0}, b32Binding, {nullptr, 0, 0}},
                            {Bind(&a32Binding), NoBinding(), NoBinding()}, {Bind(&o32)})) {
            sameRounds = bodies.size();
            bodies.push_back([&] { owned32.Run(); });
        } else {
            std::fprintf(stderr,
                         "dense_bench: the FLOAT32 twin of GEMM %u did not prepare (the report compares "
                         "FLOAT16 with the FLOAT32 case instead)\n",
                         size);
        }
    }
#ifdef FREEDML_BENCH_HAVE_DNNL
    dnnl::stream stream(Engine());
    OneDnnRun packed, plainB;
    bool haveOneDnn = false;
    std::string oneDnnFailure;
    std::vector<float> aUser = aValues, bUser = bValues;
    if (gOneDnn) {
        using tag = dnnl::memory::format_tag;
        const auto dt = fp16 ? dnnl::memory::data_type::f16 : dnnl::memory::data_type::f32;
        try {
            // oneDNN works on the same values; FLOAT16 inputs are converted by reorders, untimed.
            dnnl::memory::desc aF32({m, k}, dnnl::memory::data_type::f32, tag::ab),
                bF32({k, n}, dnnl::memory::data_type::f32, tag::ab), aMd({m, k}, dt, tag::ab),
                bPlainMd({k, n}, dt, tag::ab), bAny({k, n}, dt, tag::any), oMd({m, n}, dt, tag::ab),
                oF32({m, n}, dnnl::memory::data_type::f32, tag::ab);
            for (int variant = 0; variant < 2; ++variant) {
                OneDnnRun& run = variant == 0 ? packed : plainB;
                dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(aMd, variant == 0 ? bAny : bPlainMd, oMd), Engine());
                run.primitive = dnnl::matmul(pd);
                run.impl = pd.impl_info_str();
                run.args[DNNL_ARG_SRC] = Prepared(aMd, aF32, aUser, stream);
                run.args[DNNL_ARG_WEIGHTS] = Prepared(pd.weights_desc(), bF32, bUser, stream);
                run.dst = dnnl::memory(oMd, Engine());
                run.args[DNNL_ARG_DST] = run.dst;
                run.userDst = dnnl::memory(oF32, Engine());
            }
            haveOneDnn = true;
        } catch (const dnnl::error& e) {
            oneDnnFailure = e.what();
        }
    }
    if (haveOneDnn) {
        bodies.push_back([&] { packed.Run(stream); });
        bodies.push_back([&] { plainB.Run(stream); });
    }
#endif
    TimingOptions options = gOptions;
    if (fp16 && *predictedFp16Seconds > 1) options.rounds = std::min(options.rounds, 3);
    auto samples = MeasureInterleaved(bodies, options);
    if (api.Removed()) {
        std::fprintf(stderr, "dense_bench: the device was removed\n");
        std::exit(1);
    }
    const double ownedSeconds = Median(samples[0]);
    if (fp16) *predictedFp16Seconds = ownedSeconds * 8;  // the next size has 8x the work
    std::string check;
#ifdef FREEDML_BENCH_HAVE_DNNL
    if (haveOneDnn) {
        // FreeDML's result against oneDNN's on the same values.
        const auto reference = plainB.Output(stream);
        const double error = RelativeError(AsFloats(api.Readback(outOwned.Get(), out.Bytes()), type), reference);
        check = "; max error vs oneDNN " + std::to_string(error);
        if (error > (fp16 ? 1e-2 : 1e-4)) std::fprintf(stderr, "dense_bench: GEMM %u %s differs from oneDNN (%g)\n", size,
                                                     TypeName(type), error);
    }
#endif
    Result("gemm", name, TypeName(type), "FreeDML owned B" + gSuffix, flops / ownedSeconds / 1e9, "GFLOP/s",
           FreeDmlNote(ownedPath, samples[0]) + check);
    Result("gemm", name, TypeName(type), "FreeDML B input" + gSuffix, flops / Median(samples[1]) / 1e9, "GFLOP/s",
           FreeDmlNote(plainPath, samples[1]));
    if (sameRounds) {
        Result("gemm", name, TypeName(type), std::string(kSameRounds) + " owned B" + gSuffix,
               flops / Median(samples[sameRounds]) / 1e9, "GFLOP/s", Spread(samples[sameRounds]));
    }
    const size_t next = sameRounds ? 3 : 2;
#ifdef FREEDML_BENCH_HAVE_DNNL
    if (haveOneDnn) {
        Result("gemm", name, TypeName(type), "oneDNN packed B", flops / Median(samples[next]) / 1e9, "GFLOP/s",
               packed.impl + "; " + Spread(samples[next]));
        Result("gemm", name, TypeName(type), "oneDNN plain B", flops / Median(samples[next + 1]) / 1e9, "GFLOP/s",
               plainB.impl + "; " + Spread(samples[next + 1]));
    } else if (gOneDnn) {
        Result("gemm", name, TypeName(type), "oneDNN packed B", 0, "GFLOP/s", "unavailable: " + oneDnnFailure);
    }
#endif
}

// ---- Integer matrix multiplies -------------------------------------------------------------------

// MATRIX_MULTIPLY_INTEGER (UINT8 A, INT8 B, per-tensor zero points, INT32 out) and
// QUANTIZED_LINEAR_MATRIX_MULTIPLY (UINT8 A, INT8 B, UINT8 out, per-tensor scales and zero points),
// square, every tensor an input: the shapes and types of ONNX Runtime's MatMulInteger and
// QLinearMatMul in references.py --what int8. Value: GOP/s (2 M N K integer operations).
// What runs (oneDNN's integer GEMM API, not a primitive, so its verbose log names nothing).
const char* const kInt8Path = "gemm_u8s8s32 (BLAS-like API) + FreeDML's zero-point and requantization pass";

void Int8Case(Api& api, uint32_t size) {
    const uint32_t m = size, n = size, k = size;
    const double ops = 2.0 * m * n * k;
    const std::string name = std::to_string(size);
    std::mt19937 random(7);
    std::vector<unsigned char> aBytes(size_t(m) * k), bBytes(size_t(k) * n);
    for (auto& v : aBytes) v = static_cast<unsigned char>(random());
    for (auto& v : bBytes) v = static_cast<unsigned char>(random());
    Tensor a(DML_TENSOR_DATA_TYPE_UINT8, {1, 1, m, k}), b(DML_TENSOR_DATA_TYPE_INT8, {1, 1, k, n});
    Tensor azp(DML_TENSOR_DATA_TYPE_UINT8, {1, 1, 1, 1}), bzp(DML_TENSOR_DATA_TYPE_INT8, {1, 1, 1, 1});
    Tensor scale(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 1, 1}), ozp(DML_TENSOR_DATA_TYPE_UINT8, {1, 1, 1, 1});
    Tensor out32(DML_TENSOR_DATA_TYPE_INT32, {1, 1, m, n}), out8(DML_TENSOR_DATA_TYPE_UINT8, {1, 1, m, n});
    auto upload = [&](const void* data, UINT64 bytes) {
        auto buffer = api.Buffer(bytes);
        std::vector<unsigned char> padded(static_cast<const unsigned char*>(data),
                                          static_cast<const unsigned char*>(data) + bytes);
        api.Upload(buffer.Get(), padded.data(), padded.size());
        return buffer;
    };
    const unsigned char zeroPoints[4] = {128, 0, 0, 0};
    const float scaleValue = 0.01f;
    auto aBuffer = upload(aBytes.data(), a.Bytes()), bBuffer = upload(bBytes.data(), b.Bytes());
    auto zpBuffer = upload(zeroPoints, 4), scaleBuffer = upload(&scaleValue, 4);
    auto o32 = api.Buffer(out32.Bytes()), o8 = api.Buffer(out8.Bytes());
    DML_BUFFER_BINDING aB{aBuffer.Get(), 0, a.Bytes()}, bB{bBuffer.Get(), 0, b.Bytes()}, zpB{zpBuffer.Get(), 0, 4},
        sB{scaleBuffer.Get(), 0, 4}, o32B{o32.Get(), 0, out32.Bytes()}, o8B{o8.Get(), 0, out8.Bytes()};
    DML_MATRIX_MULTIPLY_INTEGER_OPERATOR_DESC mmi{&a.desc, &azp.desc, &b.desc, &bzp.desc, &out32.desc};
    DML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC qlmm{&a.desc,     &scale.desc, &azp.desc, &b.desc,   &scale.desc,
                                                            &bzp.desc,   &scale.desc, &ozp.desc, &out8.desc};
    BoundOperator integer, quantized;
    const bool ok1 = integer.Prepare(api, api.Compile(DML_OPERATOR_MATRIX_MULTIPLY_INTEGER, &mmi), {},
                                     {Bind(&aB), Bind(&zpB), Bind(&bB), Bind(&zpB)}, {Bind(&o32B)});
    const bool ok2 = quantized.Prepare(api, api.Compile(DML_OPERATOR_QUANTIZED_LINEAR_MATRIX_MULTIPLY, &qlmm), {},
                                       {Bind(&aB), Bind(&sB), Bind(&zpB), Bind(&bB), Bind(&sB), Bind(&zpB), Bind(&sB),
                                        Bind(&zpB)},
                                       {Bind(&o8B)});
    if (!ok1 || !ok2) {
        std::fprintf(stderr, "dense_bench: integer matrix multiply %u did not prepare\n", size);
        return;
    }
    auto samples = MeasureInterleaved({[&] { integer.Run(); }, [&] { quantized.Run(); }}, gOptions);
    Result("int8", name, "UINT8xINT8", "FreeDML MATRIX_MULTIPLY_INTEGER" + gSuffix, ops / Median(samples[0]) / 1e9,
           "GOP/s", FreeDmlNote(kInt8Path, samples[0]));
    Result("int8", name, "UINT8xINT8", "FreeDML QUANTIZED_LINEAR_MATRIX_MULTIPLY" + gSuffix,
           ops / Median(samples[1]) / 1e9, "GOP/s", FreeDmlNote(kInt8Path, samples[1]));
}

// ---- Convolution --------------------------------------------------------------------------------

struct ConvLayer {
    std::string name;
    uint32_t count = 1, cin = 0, h = 0, w = 0, cout = 0, kernel = 1, stride = 1, pad = 0;
    uint32_t OutH() const { return (h + 2 * pad - kernel) / stride + 1; }
    uint32_t OutW() const { return (w + 2 * pad - kernel) / stride + 1; }
    double Flops() const { return 2.0 * cout * OutH() * OutW() * cin * kernel * kernel; }
};

std::vector<ConvLayer> ReadLayers(const std::string& path) {
    std::vector<ConvLayer> layers;
    std::ifstream file(path);
    std::string line;
    std::getline(file, line);  // header
    while (std::getline(file, line)) {
        if (line.empty()) continue;
        std::stringstream stream(line);
        ConvLayer l;
        std::string field;
        std::getline(stream, l.name, ',');
        uint32_t* targets[] = {&l.count, &l.cin, &l.h, &l.w, &l.cout, &l.kernel, &l.stride, &l.pad};
        for (uint32_t* target : targets) {
            std::getline(stream, field, ',');
            *target = uint32_t(std::strtoul(field.c_str(), nullptr, 10));
        }
        layers.push_back(l);
    }
    return layers;
}

void ConvCase(Api& api, const ConvLayer& l, DML_TENSOR_DATA_TYPE type) {
    const bool fp16 = type == DML_TENSOR_DATA_TYPE_FLOAT16;
    const uint32_t oh = l.OutH(), ow = l.OutW();
    auto xValues = RandomFloats(size_t(l.cin) * l.h * l.w, 3),
         wValues = RandomFloats(size_t(l.cout) * l.cin * l.kernel * l.kernel, 4), bValues = RandomFloats(l.cout, 5);
    Tensor x(type, {1, l.cin, l.h, l.w}), w(type, {l.cout, l.cin, l.kernel, l.kernel}),
        wOwned(type, {l.cout, l.cin, l.kernel, l.kernel}, DML_TENSOR_FLAG_OWNED_BY_DML), b(type, {1, l.cout, 1, 1}),
        bOwned(type, {1, l.cout, 1, 1}, DML_TENSOR_FLAG_OWNED_BY_DML), y(type, {1, l.cout, oh, ow});
    auto xBuffer = UploadTensor(api, xValues, type, x.Bytes()), wBuffer = UploadTensor(api, wValues, type, w.Bytes()),
         bBuffer = UploadTensor(api, bValues, type, b.Bytes());
    auto yOwned = api.Buffer(y.Bytes()), yPlain = api.Buffer(y.Bytes());
    DML_BUFFER_BINDING xBinding{xBuffer.Get(), 0, x.Bytes()}, wBinding{wBuffer.Get(), 0, w.Bytes()},
        bBinding{bBuffer.Get(), 0, b.Bytes()}, y1{yOwned.Get(), 0, y.Bytes()}, y2{yPlain.Get(), 0, y.Bytes()};
    const UINT strides[2] = {l.stride, l.stride}, dilations[2] = {1, 1}, pads[2] = {l.pad, l.pad}, zero[2] = {0, 0};
    DML_CONVOLUTION_OPERATOR_DESC ownedDesc{&x.desc, &wOwned.desc, &bOwned.desc, &y.desc,
                                            DML_CONVOLUTION_MODE_CROSS_CORRELATION, DML_CONVOLUTION_DIRECTION_FORWARD,
                                            2, strides, dilations, pads, pads, zero, 1, nullptr};
    DML_CONVOLUTION_OPERATOR_DESC plainDesc = ownedDesc;
    plainDesc.FilterTensor = &w.desc;
    plainDesc.BiasTensor = &b.desc;
    BoundOperator owned, plain;
    const bool ownedOk = owned.Prepare(api, api.Compile(DML_OPERATOR_CONVOLUTION, &ownedDesc),
                                       {{nullptr, 0, 0}, wBinding, bBinding}, {Bind(&xBinding), NoBinding(), NoBinding()},
                                       {Bind(&y1)});
    const bool plainOk = plain.Prepare(api, api.Compile(DML_OPERATOR_CONVOLUTION, &plainDesc), {},
                                       {Bind(&xBinding), Bind(&wBinding), Bind(&bBinding)}, {Bind(&y2)});
    if (!ownedOk || !plainOk) {
        std::fprintf(stderr, "dense_bench: convolution %s %s did not prepare\n", l.name.c_str(), TypeName(type));
        return;
    }
    const std::string ownedPath = OneDnnPrimitivesOf([&] { owned.Run(); });
    const std::string plainPath = OneDnnPrimitivesOf([&] { plain.Run(); });
    std::vector<std::function<void()>> bodies{[&] { owned.Run(); }, [&] { plain.Run(); }};
    // FLOAT16: the FLOAT32 operator on the same values, timed in the same rounds (kSameRounds).
    constexpr auto f32Type = DML_TENSOR_DATA_TYPE_FLOAT32;
    BoundOperator owned32;
    Tensor x32(f32Type, {1, l.cin, l.h, l.w}), w32(f32Type, {l.cout, l.cin, l.kernel, l.kernel}),
        w32Owned(f32Type, {l.cout, l.cin, l.kernel, l.kernel}, DML_TENSOR_FLAG_OWNED_BY_DML),
        b32(f32Type, {1, l.cout, 1, 1}), b32Owned(f32Type, {1, l.cout, 1, 1}, DML_TENSOR_FLAG_OWNED_BY_DML),
        y32(f32Type, {1, l.cout, oh, ow});
    size_t sameRounds = 0;
    ComPtr<ID3D12Resource> x32Buffer, w32Buffer, b32Buffer, y32Buffer;  // bound: alive as long as owned32
    if (fp16) {
        x32Buffer = UploadTensor(api, xValues, f32Type, x32.Bytes());
        w32Buffer = UploadTensor(api, wValues, f32Type, w32.Bytes());
        b32Buffer = UploadTensor(api, bValues, f32Type, b32.Bytes());
        y32Buffer = api.Buffer(y32.Bytes());
        DML_BUFFER_BINDING x32Binding{x32Buffer.Get(), 0, x32.Bytes()}, w32Binding{w32Buffer.Get(), 0, w32.Bytes()},
            b32Binding{b32Buffer.Get(), 0, b32.Bytes()}, y32Binding{y32Buffer.Get(), 0, y32.Bytes()};
        DML_CONVOLUTION_OPERATOR_DESC desc32 = ownedDesc;
        desc32.InputTensor = &x32.desc, desc32.FilterTensor = &w32Owned.desc, desc32.BiasTensor = &b32Owned.desc;
        desc32.OutputTensor = &y32.desc;
        if (owned32.Prepare(api, api.Compile(DML_OPERATOR_CONVOLUTION, &desc32),
                            {{nullptr, 0, 0}, w32Binding, b32Binding}, {Bind(&x32Binding), NoBinding(), NoBinding()},
                            {Bind(&y32Binding)})) {
            sameRounds = bodies.size();
            bodies.push_back([&] { owned32.Run(); });
        } else {
            std::fprintf(stderr,
                         "dense_bench: the FLOAT32 twin of convolution %s did not prepare (the report "
                         "compares FLOAT16 with the FLOAT32 case instead)\n",
                         l.name.c_str());
        }
    }
#ifdef FREEDML_BENCH_HAVE_DNNL
    dnnl::stream stream(Engine());
    OneDnnRun best, nchw;
    bool haveOneDnn = false;
    std::string oneDnnFailure;
    std::vector<float> xUser = xValues, wUser = wValues, bUser = bValues;
    if (gOneDnn) {
        using tag = dnnl::memory::format_tag;
        const auto dt = fp16 ? dnnl::memory::data_type::f16 : dnnl::memory::data_type::f32;
        const auto f32 = dnnl::memory::data_type::f32;
        const dnnl::memory::dims xDims{1, l.cin, l.h, l.w}, wDims{l.cout, l.cin, l.kernel, l.kernel}, bDims{l.cout},
            yDims{1, l.cout, oh, ow};
        try {
            for (int variant = 0; variant < 2; ++variant) {
                OneDnnRun& run = variant == 0 ? best : nchw;
                const tag activations = variant == 0 ? tag::any : tag::nchw;
                dnnl::convolution_forward::desc desc(
                    dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                    dnnl::memory::desc(xDims, dt, activations), dnnl::memory::desc(wDims, dt, tag::any),
                    dnnl::memory::desc(bDims, dt, tag::x), dnnl::memory::desc(yDims, dt, activations), {l.stride, l.stride},
                    {0, 0}, {l.pad, l.pad}, {l.pad, l.pad});
                dnnl::convolution_forward::primitive_desc pd(desc, Engine());
                run.primitive = dnnl::convolution_forward(pd);
                run.impl = pd.impl_info_str();
                run.args[DNNL_ARG_SRC] = Prepared(pd.src_desc(), dnnl::memory::desc(xDims, f32, tag::nchw), xUser, stream);
                run.args[DNNL_ARG_WEIGHTS] =
                    Prepared(pd.weights_desc(), dnnl::memory::desc(wDims, f32, tag::oihw), wUser, stream);
                run.args[DNNL_ARG_BIAS] = Prepared(pd.bias_desc(), dnnl::memory::desc(bDims, f32, tag::x), bUser, stream);
                run.dst = dnnl::memory(pd.dst_desc(), Engine());
                run.args[DNNL_ARG_DST] = run.dst;
                run.userDst = dnnl::memory(dnnl::memory::desc(yDims, f32, tag::nchw), Engine());
            }
            haveOneDnn = true;
        } catch (const dnnl::error& e) {
            oneDnnFailure = e.what();
        }
    }
    if (haveOneDnn) {
        bodies.push_back([&] { best.Run(stream); });
        bodies.push_back([&] { nchw.Run(stream); });
    }
#endif
    auto samples = MeasureInterleaved(bodies, gOptions);
    if (api.Removed()) {
        std::fprintf(stderr, "dense_bench: the device was removed\n");
        std::exit(1);
    }
    const double flops = l.Flops();
    const char* dtype = TypeName(type);
    std::string check;
#ifdef FREEDML_BENCH_HAVE_DNNL
    if (haveOneDnn) {
        const auto reference = nchw.Output(stream);
        const double error = RelativeError(AsFloats(api.Readback(yOwned.Get(), y.Bytes()), type), reference);
        check = "; max error vs oneDNN " + std::to_string(error);
        if (error > (fp16 ? 1e-2 : 1e-4)) {
            std::fprintf(stderr, "dense_bench: convolution %s %s differs from oneDNN (%g)\n", l.name.c_str(), dtype, error);
        }
    }
#endif
    Result("conv", l.name, dtype, "FreeDML owned filter" + gSuffix, flops / Median(samples[0]) / 1e9, "GFLOP/s",
           FreeDmlNote(ownedPath, samples[0]) + check);
    Result("conv", l.name, dtype, "FreeDML filter input" + gSuffix, flops / Median(samples[1]) / 1e9, "GFLOP/s",
           FreeDmlNote(plainPath, samples[1]));
    if (sameRounds) {
        Result("conv", l.name, dtype, std::string(kSameRounds) + " owned filter" + gSuffix,
               flops / Median(samples[sameRounds]) / 1e9, "GFLOP/s", Spread(samples[sameRounds]));
    }
    const size_t next = sameRounds ? 3 : 2;
#ifdef FREEDML_BENCH_HAVE_DNNL
    if (haveOneDnn) {
        Result("conv", l.name, dtype, "oneDNN blocked", flops / Median(samples[next]) / 1e9, "GFLOP/s",
               best.impl + "; " + Spread(samples[next]));
        Result("conv", l.name, dtype, "oneDNN NCHW", flops / Median(samples[next + 1]) / 1e9, "GFLOP/s",
               nchw.impl + "; " + Spread(samples[next + 1]));
    } else if (gOneDnn) {
        Result("conv", l.name, dtype, "oneDNN blocked", 0, "GFLOP/s", "unavailable: " + oneDnnFailure);
    }
#endif
}

std::vector<uint32_t> ParseList(const std::string& text) {
    std::vector<uint32_t> values;
    std::stringstream stream(text);
    std::string item;
    while (std::getline(stream, item, ',')) values.push_back(uint32_t(std::strtoul(item.c_str(), nullptr, 10)));
    return values;
}

}  // namespace

int main(int argc, char** argv) {
#ifdef FREEDML_BENCH_HAVE_DNNL
    if (!std::getenv("OMP_WAIT_POLICY") && !std::getenv("GOMP_SPINCOUNT")) {
        setenv("GOMP_SPINCOUNT", FREEDML_OMP_SPIN_COUNT, 1);  // what dnnl_lazy.cpp asks for
        execv("/proc/self/exe", argv);
        std::perror("dense_bench: cannot start itself again under GOMP_SPINCOUNT=" FREEDML_OMP_SPIN_COUNT);
        return 1;
    }
    std::fprintf(stderr, "dense_bench: OpenMP wait policy from OMP_WAIT_POLICY=%s GOMP_SPINCOUNT=%s\n",
                 std::getenv("OMP_WAIT_POLICY") ? std::getenv("OMP_WAIT_POLICY") : "(unset)",
                 std::getenv("GOMP_SPINCOUNT") ? std::getenv("GOMP_SPINCOUNT") : "(unset)");
#endif
    bool gemm = false, conv = false, peak = false, int8 = false;
    std::vector<uint32_t> sizes{64, 128, 256, 512, 1024, 2048};
    std::string layersPath = FREEDML_BENCH_RESNET50_LAYERS;
    std::string types = "FLOAT32,FLOAT16";
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
        if (arg == "--gemm") gemm = true;
        else if (arg == "--conv") conv = true;
        else if (arg == "--peak") peak = true;
        else if (arg == "--int8") int8 = true;
        else if (arg == "--sizes") sizes = ParseList(value());
        else if (arg == "--layers") layersPath = value();
        else if (arg == "--types") types = value();
        else if (arg == "--rounds") gOptions.rounds = std::max(1, std::atoi(value().c_str()));
        else if (arg == "--sample-seconds") gOptions.sampleSeconds = std::atof(value().c_str());
        else if (arg == "--fp16-max-seconds") gFp16MaxSeconds = std::atof(value().c_str());
        else if (arg == "--no-onednn") gOneDnn = false;
        else if (arg == "--suffix") gSuffix = value();
        else {
            std::fprintf(stderr,
                         "usage: %s [--gemm] [--conv] [--peak] [--int8] [--sizes 64,128] [--layers FILE] [--types FLOAT32,FLOAT16]\n"
                         "          [--rounds R] [--sample-seconds S] [--fp16-max-seconds T] [--no-onednn] [--suffix TEXT]\n",
                         argv[0]);
            return 2;
        }
    }
    if (!gemm && !conv && !peak && !int8) gemm = conv = peak = true;
#ifndef FREEDML_BENCH_HAVE_DNNL
    gOneDnn = false;
#endif
    std::vector<DML_TENSOR_DATA_TYPE> dataTypes;
    if (types.find("FLOAT32") != std::string::npos) dataTypes.push_back(DML_TENSOR_DATA_TYPE_FLOAT32);
    if (types.find("FLOAT16") != std::string::npos) dataTypes.push_back(DML_TENSOR_DATA_TYPE_FLOAT16);

    if (peak) Peak();
    Api api;
    if ((gemm || conv || int8) && !api.ok) {
        std::fprintf(stderr, "dense_bench: the D3D12/DirectML device did not start\n");
        return 1;
    }
    // Each size (layer) in every type before the next, so that FLOAT16's figure and FLOAT32's are
    // measured moments apart on a shared machine.
    if (gemm) {
        std::vector<double> predicted(dataTypes.size(), 0.0);
        for (uint32_t size : sizes) {
            for (size_t t = 0; t < dataTypes.size(); ++t) GemmCase(api, size, dataTypes[t], &predicted[t]);
        }
    }
    if (int8) {
        for (uint32_t size : sizes) Int8Case(api, size);
    }
    if (conv) {
        const auto layers = ReadLayers(layersPath);
        if (layers.empty()) std::fprintf(stderr, "dense_bench: no layers in %s\n", layersPath.c_str());
        for (const auto& layer : layers) {
            for (auto type : dataTypes) ConvCase(api, layer, type);
        }
    }
    return 0;
}
