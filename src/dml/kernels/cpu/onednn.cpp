// Every oneDNN call of the CPU kernels, in one file, so that a new oneDNN major version is a
// change to this file alone: GEMM's matmul and CONVOLUTION's convolution and deconvolution
// primitives, the recurrent layers' per-step products (how each is planned, how an owned weight is
// packed into oneDNN's layout at initialization, how the primitive runs), fused activations as oneDNN
// post-ops, the pooling primitive of the FLOAT32 average pools, and the integer GEMM of the
// quantized matrix multiplies, and the attention kernel's strided batched products. Built
// without oneDNN (FREEDML_ONEDNN=OFF), the kernels take their own reference paths and say why.
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/align.h"
#include "dml/kernels/cpu/batched_matmul.h"
#include "dml/kernels/cpu/cpu_isa.h"
#include "dml/kernels/cpu/float16.h"
#include "dml/kernels/cpu/float32_copy.h"
#include "dml/kernels/cpu/int8_gemm.h"
#include "dml/kernels/cpu/team_or_solo.h"
#include "dml/kernels/cpu/thread_pool.h"
#include "dml/kernels/cpu/transpose_avx512.h"
#include "dml/ops/convolution/cpu/convolution.h"
#include "dml/ops/matrix/cpu/gemm.h"
#include "dml/ops/pooling/cpu/pooling_onednn.h"
#include "dml/ops/recurrent/cpu/recurrent_matmul.h"

#ifdef FREEDML_HAVE_DNNL
#include <oneapi/dnnl/dnnl.hpp>
#if DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_OMP
#include <dlfcn.h>
#if defined(FREEDML_DNNL_LAZY)
extern "C" void* freedml_dnnl_symbol(const char* name);  // dnnl_lazy.cpp
#endif
#endif
#endif

namespace freedml::dml::cpu {

namespace {
std::atomic<uint64_t> teamRegionsOpened{0};  // OneDnnTeamRegionsOpened's count
}  // namespace

uint64_t OneDnnTeamRegionsOpened() { return teamRegionsOpened.load(std::memory_order_relaxed); }

#ifdef FREEDML_HAVE_DNNL

namespace {

constexpr uint64_t kAlign = 64;
uint64_t AlignUp(uint64_t v) { return ::freedml::AlignUp(v, kAlign); }

dnnl::engine& CpuEngine() {
    static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
    return engine;
}

// kOneThreadWork (team_or_solo.h) applies to oneDNN as follows: oneDNN sizes a primitive's
// parallelism when it creates it, from the creating thread's thread count, and runs one sized for a
// single thread on the calling thread with no parallel region.

// While alive, primitives created on this thread are sized for one thread (OpenMP runtime: the
// calling thread's own thread count, restored at the end; nothing elsewhere).
#if DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_OMP
// The OpenMP runtime oneDNN runs on, reached without building FreeDML with OpenMP: looked up once
// oneDNN is loaded (it may be loaded on first use, dnnl_lazy.cpp); null where there is none.
struct OpenMp {
    int (*getMaxThreads)() = nullptr;
    void (*setNumThreads)(int) = nullptr;
    // GNU OpenMP's entry points for a parallel region (what `#pragma omp parallel` compiles to);
    // null under another OpenMP runtime.
    void (*parallel)(void (*function)(void*), void* data, unsigned threads, unsigned flags) = nullptr;
    int (*threadNumber)() = nullptr;
    int (*teamSize)() = nullptr;
};
const OpenMp& OpenMpRuntime() {
    static const OpenMp runtime = [] {
        auto find = [](const char* name) -> void* {
#if defined(FREEDML_DNNL_LAZY)
            return freedml_dnnl_symbol(name);
#else
            return dlsym(RTLD_DEFAULT, name);
#endif
        };
        OpenMp r;
        r.getMaxThreads = reinterpret_cast<int (*)()>(find("omp_get_max_threads"));
        r.setNumThreads = reinterpret_cast<void (*)(int)>(find("omp_set_num_threads"));
        r.parallel = reinterpret_cast<void (*)(void (*)(void*), void*, unsigned, unsigned)>(find("GOMP_parallel"));
        r.threadNumber = reinterpret_cast<int (*)()>(find("omp_get_thread_num"));
        r.teamSize = reinterpret_cast<int (*)()>(find("omp_get_num_threads"));
        if (!r.parallel || !r.threadNumber || !r.teamSize) r.parallel = nullptr;
        if (!r.getMaxThreads || !r.setNumThreads) r = OpenMp{};
        return r;
    }();
    return runtime;
}

// Calls body(begin, end) over [0, count) on the calling thread's OpenMP team, one even share per
// thread and at least minChunk each; false (nothing run) where the runtime is not GNU OpenMP.
// The body must not throw (an exception cannot leave an OpenMP region).
bool ParallelForOnOpenMpTeam(uint64_t count, uint64_t minChunk,
                             const std::function<void(uint64_t, uint64_t)>& body) noexcept {
    const OpenMp& omp = OpenMpRuntime();
    if (!omp.parallel) return false;
    const uint64_t most = std::max<uint64_t>(1, count / std::max<uint64_t>(minChunk, 1));
    const unsigned threads = unsigned(std::min<uint64_t>(most, uint64_t(std::max(omp.getMaxThreads(), 1))));
    if (threads < 2) {
        if (count) body(0, count);
        return true;
    }
    teamRegionsOpened.fetch_add(1, std::memory_order_relaxed);
    struct Job {
        const OpenMp* omp;
        uint64_t count;
        const std::function<void(uint64_t, uint64_t)>* body;
    } job{&omp, count, &body};
    omp.parallel(
        [](void* data) {
            const Job& j = *static_cast<const Job*>(data);
            const uint64_t t = uint64_t(j.omp->threadNumber()), n = uint64_t(j.omp->teamSize());
            const uint64_t begin = j.count * t / n, end = j.count * (t + 1) / n;
            if (begin < end) (*j.body)(begin, end);
        },
        &job, threads, 0);
    return true;
}
#endif

class OneThreadScope {
public:
    explicit OneThreadScope(bool active) {
#if DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_OMP
        if (active && OpenMpRuntime().setNumThreads) {
            saved_ = OpenMpRuntime().getMaxThreads();
            OpenMpRuntime().setNumThreads(1);
        }
#else
        (void)active;
#endif
    }
    ~OneThreadScope() {
#if DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_OMP
        if (saved_ > 0) OpenMpRuntime().setNumThreads(saved_);
#endif
    }
    OneThreadScope(const OneThreadScope&) = delete;
    OneThreadScope& operator=(const OneThreadScope&) = delete;

private:
    int saved_ = 0;
};

// A primitive's argument memories, made once and pointed at each execution's buffers (making
// them costs about a microsecond and a few allocations per execution, a tenth of a 64 x 64 x 64
// matmul). An execution that finds them in use by another thread makes its own.
class Arguments {
public:
    void Add(int argument, const dnnl::memory::desc& md) { descs_.emplace_back(argument, md); }
    // Executes `primitive` with the arguments Add named at the first entries of `data`, in order.
    void Run(const dnnl::primitive& primitive, std::initializer_list<void*> data) const;

private:
    std::vector<std::pair<int, dnnl::memory::desc>> descs_;
    mutable std::mutex mutex_;
    mutable std::unordered_map<int, dnnl::memory> cached_;
};

void Arguments::Run(const dnnl::primitive& primitive, std::initializer_list<void*> data) const {
    dnnl::engine& engine = CpuEngine();
    dnnl::stream stream(engine);
    std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
    if (lock.owns_lock()) {
        if (cached_.empty()) {
            for (const auto& [argument, md] : descs_) cached_.emplace(argument, dnnl::memory(md, engine, nullptr));
        }
        auto pointer = data.begin();
        for (const auto& entry : descs_) cached_.at(entry.first).set_data_handle(*pointer++);
        primitive.execute(stream, cached_);
        stream.wait();
        return;
    }
    std::unordered_map<int, dnnl::memory> args;
    auto pointer = data.begin();
    for (const auto& [argument, md] : descs_) args.emplace(argument, dnnl::memory(md, engine, *pointer++));
    primitive.execute(stream, args);
    stream.wait();
}

// Whether oneDNN offers only its reference implementation (scalar loops) for a descriptor: our
// own paths, or another layout, do better.
bool IsReferenceImplementation(const dnnl::primitive_desc& pd) {
    return std::string(pd.impl_info_str()).find("ref") != std::string::npos;
}

// A primitive sized for oneDNN's team and, where it has one, its twin sized for one thread.
struct TeamPrimitive {
    dnnl::primitive team, solo;
    Arguments teamArgs, soloArgs;
    bool hasSolo = false;
    mutable TeamOrSolo chooser;

    // Which form an execution runs (team_or_solo.h) and, where the choice is measured, when it
    // started. The caller runs the primitive (Run) and whatever goes with it (reorders, the
    // activation pass) inside a OneThreadScope(solo), and reports the time it took with Record.
    using Choice = FormChoice;  // no twin: the team, unmeasured
    Choice Choose() const { return hasSolo ? ChooseForm(chooser) : Choice{}; }
    // Executes the twin (`runSolo`) or the team primitive, with the arguments Add named (each
    // Arguments in the same order) at `data`. The caller's OneThreadScope(runSolo) keeps the twin's
    // work on this thread: it was sized for one thread at creation, and the scope also holds
    // oneDNN's inner GEMM (the gemm-based convolutions size it when they run) there.
    void Run(bool runSolo, std::initializer_list<void*> data) const {
        if (runSolo) {
            soloArgs.Run(solo, data);
        } else {
            teamArgs.Run(team, data);
        }
    }
    void Record(const Choice& choice) const { RecordForm(chooser, choice); }
    // Makes the twin, for a problem of `work` multiply-adds between one thread's and kSoloTwinWork,
    // from `describe()` run for one thread on the team's layouts; `addArguments(args, scratchpad)`
    // names its arguments. None where oneDNN refuses or offers only its reference implementation.
    template <class Describe, class AddArguments>
    void MakeSolo(double work, Describe&& describe, AddArguments&& addArguments, uint64_t* scratchSize) {
        if (work <= kOneThreadWork || work > kSoloTwinWork) return;
        if (CpuContentionPolicy() == ContentionPolicy::AlwaysTeam) return;  // never run: not made
        try {
            const OneThreadScope oneThread(true);
            const dnnl::primitive_desc pd = describe();
            if (IsReferenceImplementation(pd)) return;
            solo = dnnl::primitive(pd);
            addArguments(soloArgs, pd.scratchpad_desc());
            *scratchSize = std::max<uint64_t>(*scratchSize, pd.scratchpad_desc().get_size());
            hasSolo = true;
        } catch (const dnnl::error&) {
            // No twin: the team runs whatever the load.
        }
    }
};

// A reorder beside a TeamPrimitive, and where that has a twin, the reorder's own one-thread twin:
// a reorder keeps the thread count it was created with (its jit implementation plans its split
// then, and opens a region of that many threads whatever the caller's OpenMP setting), so the
// team's reorders around a twin would wake the team's other thread for each, on the twin's core
// when the other one is busy.
//
// Between planar and channels-last FLOAT32 activations (the layout of oneDNN's brgemm
// convolutions) on a CPU with AVX-512, FreeDML's own transpose runs instead (transpose_avx512.h: three
// times the speed of oneDNN's generic reorder there), on the team or, for a twin, on this thread.
struct TeamReorder {
    dnnl::reorder team, solo;
    Arguments teamArgs, soloArgs;
    bool hasSolo = false;
    bool transpose = false;  // FreeDML's transpose of `batch` matrices of rows x columns instead
    uint64_t batch = 0, rows = 0, columns = 0;
    // Runs the twin where `runSolo` and there is one, the team's reorder otherwise; `data`: from,
    // to, scratchpad.
    void Run(bool runSolo, std::initializer_list<void*> data) const {
        if (transpose) {
            const ParallelForFunction onTeam = BesideOneDnn(nullptr);
            TransposeMatricesAvx512(static_cast<const float*>(data.begin()[0]), static_cast<float*>(data.begin()[1]),
                                    batch, rows, columns, runSolo ? nullptr : &onTeam);
        } else if (runSolo && hasSolo) {
            soloArgs.Run(solo, data);
        } else {
            teamArgs.Run(team, data);
        }
    }
};

// Whether `from` -> `to` turns dense planar FLOAT32 activations (NCW, NCHW, NCDHW) into their dense
// channels-last form (NWC, NHWC, NDHWC) or back: then the batch of matrices it transposes.
bool IsPlanarChannelsLastPair(const dnnl::memory::desc& from, const dnnl::memory::desc& to, uint64_t* batch,
                              uint64_t* rows, uint64_t* columns) {
    using tag = dnnl::memory::format_tag;
    const dnnl::memory::dims dims = from.dims();
    if (dims.size() < 3 || dims.size() > 5 || to.dims() != dims) return false;
    const tag planar = dims.size() == 3 ? tag::ncw : dims.size() == 4 ? tag::nchw : tag::ncdhw;
    const tag last = dims.size() == 3 ? tag::nwc : dims.size() == 4 ? tag::nhwc : tag::ndhwc;
    const auto f32 = dnnl::memory::data_type::f32;
    const dnnl::memory::desc planarMd(dims, f32, planar), lastMd(dims, f32, last);
    uint64_t pixels = 1;
    for (size_t d = 2; d < dims.size(); ++d) pixels *= uint64_t(dims[d]);
    *batch = uint64_t(dims[0]);
    if (from == planarMd && to == lastMd) {
        *rows = uint64_t(dims[1]), *columns = pixels;
        return true;
    }
    if (from == lastMd && to == planarMd) {
        *rows = pixels, *columns = uint64_t(dims[1]);
        return true;
    }
    return false;
}

dnnl::memory::desc Md(const std::vector<int64_t>& dims, const std::vector<int64_t>& strides,
                             dnnl::memory::data_type type = dnnl::memory::data_type::f32) {
    return dnnl::memory::desc(dnnl::memory::dims(dims.begin(), dims.end()), type,
                              dnnl::memory::dims(strides.begin(), strides.end()));
}

// Appends the activation as eltwise post-ops when oneDNN computes the same formula; returns
// false (appending nothing) when our own pass must apply it after the primitive.
bool AppendActivation(const FusedActivation& a, dnnl::post_ops& ops) {
    using alg = dnnl::algorithm;
    switch (a.type) {
        case DML_OPERATOR_INVALID:
        case DML_OPERATOR_ACTIVATION_IDENTITY:
            return true;
        case DML_OPERATOR_ACTIVATION_RELU:
            ops.append_eltwise(1.0f, alg::eltwise_relu, 0.0f, 0.0f);
            return true;
        case DML_OPERATOR_ACTIVATION_LEAKY_RELU:
            ops.append_eltwise(1.0f, alg::eltwise_relu, a.alpha, 0.0f);
            return true;
        case DML_OPERATOR_ACTIVATION_LINEAR:
            ops.append_eltwise(1.0f, alg::eltwise_linear, a.alpha, a.beta);
            return true;
        case DML_OPERATOR_ACTIVATION_SIGMOID:
            ops.append_eltwise(1.0f, alg::eltwise_logistic, 0.0f, 0.0f);
            return true;
        case DML_OPERATOR_ACTIVATION_TANH:
            ops.append_eltwise(1.0f, alg::eltwise_tanh, 0.0f, 0.0f);
            return true;
        case DML_OPERATOR_ACTIVATION_ELU:
            ops.append_eltwise(1.0f, alg::eltwise_elu, a.alpha, 0.0f);
            return true;
        case DML_OPERATOR_ACTIVATION_GELU:
            ops.append_eltwise(1.0f, alg::eltwise_gelu_erf, 0.0f, 0.0f);
            return true;
        default:
            return false;
    }
}

// Elements a thread of oneDNN's team takes at least in a pass beside a primitive: a fork of polling
// threads costs about a microsecond, what converting some thousands of FLOAT16 values takes.
constexpr uint64_t kTeamPassChunk = 8192;

// The activation pass after a primitive whose activation oneDNN cannot fuse, beside it.
void ApplyActivationBesideOneDnn(ThreadPool* threads, const FusedActivation& activation, TensorView tensor) {
    ApplyActivationOn(BesideOneDnn(threads), activation, tensor, kTeamPassChunk);
}

}  // namespace

ParallelForFunction BesideOneDnn(ThreadPool* threads) {
    return [threads](uint64_t count, uint64_t minChunk, const std::function<void(uint64_t, uint64_t)>& body) {
#if DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_OMP
        if (ParallelForOnOpenMpTeam(count, minChunk, body)) return;
#endif
        ParallelFor(threads, count, minChunk, body);
    };
}

void ConvertTensorBesideOneDnn(ThreadPool* threads, TensorView from, TensorView to) {
#if DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_OMP
    if (OpenMpRuntime().parallel) {
        ConvertTensorOn(BesideOneDnn(threads), from, to, kTeamPassChunk);
        return;
    }
#endif
    ConvertTensor(threads, from, to);
}

// ---- GEMM ---------------------------------------------------------------------------------------

struct GemmKernel::OneDnnState {
    TeamPrimitive matmul;  // arguments A, B, output, scratchpad[, C]
    dnnl::memory::desc aMd, bMd, bUserMd, cMd, oMd;
    uint64_t scratchSize = 0;  // the larger of the team's and the twin's scratchpads
    bool bPacked = false;      // B owned and reordered into oneDNN's layout at Initialize
    bool cBinary = false;      // C added by a binary post-op (Beta == 1)
    bool cSum = false;         // C copied into the output, then a sum post-op scales it by Beta
    bool activationPass = false;  // activation applied by our own pass after the primitive
    LoopPlan<2> cCopy;            // output <- C, for cSum
    // FLOAT16 of medium size: each thread of oneDNN's team converts its own rows of A, multiplies
    // them with a primitive sized for one thread and rounds its rows of the output, in one parallel
    // region (the conversions stay in that core's cache; no fork between them and the product).
    struct RowPanels {
        uint32_t threads = 0, rows = 0;                // panels and rows per panel (the last one has the rest)
        dnnl::primitive full, last;                    // for `rows` rows, for the last panel's
        std::vector<std::unique_ptr<Arguments>> args;  // each thread's: A, B, output, scratchpad[, C]
        uint64_t scratchSize = 0;                      // each thread's, aligned
        // The panels one after another on the calling thread are the one-thread form (each panel's
        // primitive is sized for one thread): chosen as a TeamPrimitive's twin is, so that a core
        // taken by another process does not hold every execution at the speed of its panel.
        mutable TeamOrSolo chooser;
    };
    std::unique_ptr<RowPanels> panels;
};

void GemmKernel::TryOneDnn() {
    oneDnn_.reset();
    const GemmParams& p = compute_;  // FLOAT16: the packed FLOAT32 copies
    const Geometry& g = computeG_;
    if (p.forceReference) {
        path_ = "reference (forced)";
        return;
    }
    if (p.output.dataType != DML_TENSOR_DATA_TYPE_FLOAT32) {
        path_ = "reference (oneDNN path is FLOAT32 only)";
        return;
    }
    auto matrixOk = [](int64_t rowStride, int64_t colStride) {
        return rowStride != 0 && colStride != 0 && (rowStride == 1 || colStride == 1);
    };
    if (!matrixOk(g.aM, g.aK) || !matrixOk(g.bK, g.bN) || !matrixOk(g.oM, g.oN)) {
        path_ = "reference (a matrix has no unit stride)";
        return;
    }
    for (uint32_t d = 0; d < g.batchRank; ++d) {
        if (g.batchSizes[d] != 1 && g.oBatch[d] == 0) {
            path_ = "reference (output batch stride 0)";
            return;
        }
    }
    // Logical oneDNN shapes: {batch..., rows, cols}; broadcast batch dimensions have size 1.
    // A dimension of size 1 gets the stride of a dense layout (that of the dimensions inside it):
    // oneDNN picks its implementation by the strides, and odd ones for size-1 dimensions (a 1 x K
    // row read as "cdab") send a plain matrix product to its slow reference kernel. A single
    // matrix is described as one (2-D): oneDNN packs B in its blocked layout only for those, and
    // leaves a batched B with "any" layout plain.
    const uint32_t batchRank = g.batchCount == 1 ? 0 : g.batchRank;
    auto shape = [&](const std::array<int64_t, kMaxTensorRank>& batch, uint32_t rows, uint32_t cols, int64_t rs,
                     int64_t cs, std::vector<int64_t>* dims, std::vector<int64_t>* strides) {
        for (uint32_t d = 0; d < batchRank; ++d) {
            bool broadcast = batch[d] == 0;
            dims->push_back(broadcast ? 1 : g.batchSizes[d]);
            strides->push_back(broadcast ? 1 : batch[d]);
        }
        dims->push_back(rows), dims->push_back(cols);
        strides->push_back(rs ? rs : 1), strides->push_back(cs ? cs : 1);
        for (size_t d = dims->size(); d-- > 0;) {
            if ((*dims)[d] != 1) continue;
            int64_t dense = 1;
            for (size_t inner = d + 1; inner < dims->size(); ++inner) {
                dense = std::max(dense, (*dims)[inner] * (*strides)[inner]);
            }
            (*strides)[d] = dense;
        }
    };
    std::vector<int64_t> ad, as, bd, bs, od, os, cd, cs;
    shape(g.aBatch, g.m, g.k, g.aM, g.aK, &ad, &as);
    shape(g.bBatch, g.k, g.n, g.bK, g.bN, &bd, &bs);
    shape(g.oBatch, g.m, g.n, g.oM, g.oN, &od, &os);
    const bool hasC = p.c && p.beta != 0.0f;
    if (hasC) shape(g.cBatch, g.cM ? g.m : 1, g.cN ? g.n : 1, g.cM, g.cN, &cd, &cs);

    auto state = std::make_unique<OneDnnState>();
    state->aMd = Md(ad, as);
    state->bUserMd = Md(bd, bs);
    state->oMd = Md(od, os);
    if (hasC) state->cMd = Md(cd, cs);
    const double work = double(g.m) * g.n * g.k * double(g.batchCount);
    // An owned B is packed, in the layout oneDNN chooses, where a team runs the product: there the
    // packed layout runs 2-6% faster (512 to 2048, AVX-512). A small product gains nothing from it,
    // and its B would grow to whole 16 x 64 blocks.
    const bool packB = p.b.OwnedByDml() && work > kOneThreadWork;
    dnnl::memory::desc bMd = packB ? dnnl::memory::desc(state->bUserMd.dims(), dnnl::memory::data_type::f32,
                                                        dnnl::memory::format_tag::any)
                                   : state->bUserMd;

    // Strategies for C, best first: a binary add post-op (Beta == 1), or C copied into the
    // output and a sum post-op with scale Beta.
    std::vector<int> strategies;
    if (!hasC) strategies = {0};
    else if (p.beta == 1.0f) strategies = {1, 2};
    else strategies = {2};
    std::string failure;
    const OneThreadScope oneThread(work <= kOneThreadWork);
    // The attributes of a strategy, C's binary operand described by `cMd`; `fused` receives whether
    // oneDNN applies the activation.
    auto attributes = [&](int strategy, const dnnl::memory::desc& cMd, bool* fused) {
        dnnl::primitive_attr attr;
        attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
        if (p.alpha != 1.0f) attr.set_output_scales(0, {p.alpha});
        dnnl::post_ops ops;
        if (strategy == 1) ops.append_binary(dnnl::algorithm::binary_add, cMd);
        if (strategy == 2) ops.append_sum(p.beta);
        dnnl::post_ops withActivation = ops;
        *fused = AppendActivation(p.activation, withActivation);
        attr.set_post_ops(*fused ? withActivation : ops);
        return attr;
    };
    // FLOAT16 row panels (OneDnnState::RowPanels) where they apply: one matrix (no batch), A not
    // transposed, C absent or added by the binary post-op, the activation fused, a problem of
    // medium size and GNU OpenMP's team to run them on.
    auto planRowPanels = [&](OneDnnState& st, int strategy) {
#if DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_OMP
        const unsigned team = OpenMpRuntime().parallel ? unsigned(std::max(OpenMpRuntime().getMaxThreads(), 1)) : 1;
#else
        const unsigned team = 1;  // the panels run on GNU OpenMP's team only
#endif
        if (!half_ || g.batchCount != 1 || p.transA != DML_MATRIX_TRANSFORM_NONE || strategy == 2 ||
            st.activationPass || team < 2 || g.m < 2 * 8 || work <= kOneThreadWork || work > kSoloTwinWork) {
            return;
        }
        auto panels = std::make_unique<OneDnnState::RowPanels>();
        panels->rows = (g.m + team - 1) / team;
        panels->threads = (g.m + panels->rows - 1) / panels->rows;
        const uint32_t lastRows = g.m - (panels->threads - 1) * panels->rows;
        try {
            const OneThreadScope solo(true);
            auto make = [&](uint32_t rows, dnnl::primitive* primitive, dnnl::memory::desc* scratchMd,
                            std::vector<dnnl::memory::desc>* mds) {
                std::vector<int64_t> pad, pas, pod, pos, pcd, pcs;
                shape(g.aBatch, rows, g.k, g.aM, g.aK, &pad, &pas);
                shape(g.oBatch, rows, g.n, g.oM, g.oN, &pod, &pos);
                const dnnl::memory::desc aMd = Md(pad, pas), oMd = Md(pod, pos);
                dnnl::memory::desc cMd;
                if (strategy == 1) {
                    shape(g.cBatch, g.cM ? rows : 1, g.cN ? g.n : 1, g.cM, g.cN, &pcd, &pcs);
                    cMd = Md(pcd, pcs);
                }
                bool fused = false;
                const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(aMd, st.bMd, oMd),
                                                      attributes(strategy, cMd, &fused), CpuEngine());
                if (!fused || IsReferenceImplementation(pd)) return false;
                *primitive = dnnl::matmul(pd);
                *scratchMd = pd.scratchpad_desc();
                *mds = {aMd, oMd, cMd};
                return true;
            };
            dnnl::memory::desc fullScratch, lastScratch;
            std::vector<dnnl::memory::desc> fullMds, lastMds;
            if (!make(panels->rows, &panels->full, &fullScratch, &fullMds) ||
                !make(lastRows, &panels->last, &lastScratch, &lastMds)) {
                return;
            }
            panels->scratchSize = AlignUp(std::max(fullScratch.get_size(), lastScratch.get_size()));
            for (uint32_t t = 0; t < panels->threads; ++t) {
                const bool isLast = t + 1 == panels->threads;
                const std::vector<dnnl::memory::desc>& mds = isLast ? lastMds : fullMds;
                auto args = std::make_unique<Arguments>();
                args->Add(DNNL_ARG_SRC, mds[0]);
                args->Add(DNNL_ARG_WEIGHTS, st.bMd);
                args->Add(DNNL_ARG_DST, mds[1]);
                args->Add(DNNL_ARG_SCRATCHPAD, isLast ? lastScratch : fullScratch);
                if (strategy == 1) args->Add(DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, mds[2]);
                panels->args.push_back(std::move(args));
            }
            st.scratchSize = std::max<uint64_t>(st.scratchSize, panels->threads * panels->scratchSize);
            st.panels = std::move(panels);
        } catch (const dnnl::error&) {
            // No panels: the conversions run around the team's primitive.
        }
    };
    for (int strategy : strategies) {
        try {
            bool fused = false;
            dnnl::primitive_attr attr = attributes(strategy, state->cMd, &fused);
            dnnl::matmul::desc desc(state->aMd, bMd, state->oMd);
            dnnl::matmul::primitive_desc pd(desc, attr, CpuEngine());
            state->matmul.team = dnnl::matmul(pd);
            state->bMd = pd.weights_desc();
            state->scratchSize = pd.scratchpad_desc().get_size();
            state->bPacked = packB;
            state->cBinary = strategy == 1;
            state->cSum = strategy == 2;
            state->activationPass = !fused;
            if (state->cSum) {
                std::array<uint32_t, kMaxTensorRank> cStrides{};
                const uint32_t r = p.output.rank;
                for (uint32_t d = 0; d < g.batchRank; ++d) cStrides[d] = uint32_t(g.cBatch[d]);
                cStrides[r - 2] = uint32_t(g.cM);
                cStrides[r - 1] = uint32_t(g.cN);
                state->cCopy = MakeLoopPlan<2>(p.output.sizes.data(), r, {p.output.strides.data(), cStrides.data()},
                                               {4u, 4u});
            }
            auto addArguments = [&](Arguments& args, const dnnl::memory::desc& scratchMd) {
                args.Add(DNNL_ARG_SRC, state->aMd);
                args.Add(DNNL_ARG_WEIGHTS, state->bMd);
                args.Add(DNNL_ARG_DST, state->oMd);
                args.Add(DNNL_ARG_SCRATCHPAD, scratchMd);
                if (state->cBinary) args.Add(DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, state->cMd);
            };
            addArguments(state->matmul.teamArgs, pd.scratchpad_desc());
            path_ = std::string("oneDNN matmul (") + pd.impl_info_str() + ")";
            if (packB && state->bMd != state->bUserMd) path_ += "; owned B packed in oneDNN's layout";
            // The one-thread twin, on the same layouts (B packed for the team included).
            state->matmul.MakeSolo(
                work,
                [&] {
                    return dnnl::matmul::primitive_desc(dnnl::matmul::desc(state->aMd, state->bMd, state->oMd), attr,
                                                        CpuEngine());
                },
                addArguments, &state->scratchSize);
            if (state->matmul.hasSolo) path_ += "; a one-thread twin for busy cores";
            planRowPanels(*state, strategy);
            if (state->panels) path_ += "; FLOAT16 in row panels (one after another on this thread for busy cores)";
            oneDnn_ = std::move(state);
            return;
        } catch (const dnnl::error& e) {
            failure = e.what();
        }
    }
    path_ = "reference (oneDNN refused: " + failure + ")";
}

uint64_t GemmKernel::OneDnnOwnedBSize(uint64_t plainSize) const {
    return oneDnn_->bPacked ? oneDnn_->bMd.get_size() : plainSize;
}

uint64_t GemmKernel::OneDnnScratchSize() const { return oneDnn_->scratchSize; }

bool GemmKernel::InitializeOneDnn(const std::byte* b, std::byte* persistent) const {
    if (!oneDnn_->bPacked) return false;
    dnnl::engine& engine = CpuEngine();
    dnnl::stream stream(engine);
    dnnl::memory user(oneDnn_->bUserMd, engine, const_cast<std::byte*>(b));
    dnnl::memory packed(oneDnn_->bMd, engine, persistent + bOffset_);
    dnnl::reorder(user, packed).execute(stream, user, packed);
    stream.wait();
    return true;
}

void GemmKernel::ExecuteOneDnn(ThreadPool* threads, const std::byte* aData, const std::byte* bData,
                               const std::byte* cData, TensorView output, std::byte* temporary) const {
    const OneDnnState& s = *oneDnn_;
    const TeamPrimitive::Choice choice = s.matmul.Choose();
    {
        // The twin, and the activation pass after either form, as Choose asks: on this thread for the twin.
        const OneThreadScope oneThread(choice.solo);
        RunMatmul(s, threads, aData, bData, cData, output, temporary, choice.solo);
    }
    s.matmul.Record(choice);
}

void GemmKernel::ExecuteOneDnnHalf(ThreadPool* threads, TensorView a, TensorView b, TensorView c, TensorView output,
                                   const std::array<const std::byte*, 3>& owned, std::byte* temporary) const {
    const OneDnnState& s = *oneDnn_;
    // The form first: beside the one-thread form (the twin, or the row panels one after another) the
    // conversions run on this thread too, where a pass on the team would wait for a thread that
    // shares its core with another process.
    TeamOrSolo& chooser = s.panels ? s.panels->chooser : s.matmul.chooser;
    const FormChoice choice = s.panels ? ChooseForm(chooser) : s.matmul.Choose();
    bool ranAsChosen = true;
    {
        const OneThreadScope oneThread(choice.solo);
        auto copy = [&](TensorView from, const TensorDesc& desc, uint64_t at) -> const std::byte* {
            ConvertTensorBesideOneDnn(threads, from, TensorView{&desc, temporary + at});
            return temporary + at;
        };
        const std::byte* bData = owned[1] ? owned[1] : copy(b, compute_.b, bTemp_);
        const std::byte* cData = !params_.c             ? nullptr
                                 : owned[2]             ? owned[2]
                                 : params_.beta != 0.0f ? copy(c, *compute_.c, cTemp_)
                                                        : c.data;
        if (s.panels) {
            ranAsChosen = RunHalfRowPanels(choice.solo, a, owned[0], bData, cData, output, temporary);
        } else {
            const std::byte* aData = owned[0] ? owned[0] : copy(a, compute_.a, aTemp_);
            const TensorView output32{&compute_.output, temporary + oTemp_};
            RunMatmul(s, threads, aData, bData, cData, output32, temporary, choice.solo);
            ConvertTensorBesideOneDnn(threads, output32, output);
        }
    }
    if (ranAsChosen) RecordForm(chooser, choice);  // the time of the form that was chosen
}

void GemmKernel::RunMatmul(const OneDnnState& s, ThreadPool* threads, const std::byte* aData, const std::byte* bData,
                           const std::byte* cData, TensorView output, std::byte* temporary, bool solo) const {
    if (s.cSum) {
        RunLoopRows(s.cCopy, {output.data, const_cast<std::byte*>(cData)}, 0, s.cCopy.OuterCount(),
                    [](const std::array<std::byte*, 2>& p, uint64_t n, const std::array<int64_t, 2>& st) {
                        if (st[0] == 4 && st[1] == 4) {
                            std::memcpy(p[0], p[1], n * 4);
                            return;
                        }
                        for (uint64_t i = 0; i < n; ++i) std::memcpy(p[0] + int64_t(i) * st[0], p[1] + int64_t(i) * st[1], 4);
                    });
    }
    s.matmul.Run(solo, {const_cast<std::byte*>(aData), const_cast<std::byte*>(bData), output.data, temporary,
                        const_cast<std::byte*>(cData)});
    if (s.activationPass) ApplyActivationBesideOneDnn(threads, params_.activation, output);
}

bool GemmKernel::RunHalfRowPanels(bool solo, TensorView a, const std::byte* aOwned, const std::byte* bData,
                                  const std::byte* cData, TensorView output, std::byte* temporary) const {
    const OneDnnState::RowPanels& panels = *oneDnn_->panels;
    const Geometry& g = computeG_;
    // Rows [r0, r1) of a matrix's tensor (its row dimension is the second last: A is not transposed).
    auto rows = [](const TensorDesc& desc, std::byte* data, uint32_t r0, uint32_t r1, TensorDesc* part) {
        *part = desc;
        part->sizes[desc.rank - 2] = r1 - r0;
        return TensorView{part, data + int64_t(r0) * desc.strides[desc.rank - 2] * ElementSizeInBytes(desc.dataType)};
    };
    std::mutex failureMutex;
    std::exception_ptr failure;  // the first panel's that threw, rethrown after the parallel region
    auto panel = [&](uint32_t t) {
        const uint32_t r0 = t * panels.rows, r1 = std::min(g.m, r0 + panels.rows);
        TensorDesc from, to;
        std::byte* a32 = temporary + aTemp_;
        if (aOwned) {
            a32 = const_cast<std::byte*>(aOwned);
        } else {
            ConvertTensor(nullptr, rows(a.Desc(), a.data, r0, r1, &from), rows(compute_.a, a32, r0, r1, &to));
        }
        std::byte* out32 = temporary + oTemp_;
        const TensorView product = rows(compute_.output, out32, r0, r1, &to);
        panels.args[t]->Run(t + 1 == panels.threads ? panels.last : panels.full,
                            {a32 + int64_t(r0) * g.aM * 4, const_cast<std::byte*>(bData), product.data,
                             temporary + t * panels.scratchSize,
                             cData ? const_cast<std::byte*>(cData) + int64_t(r0) * g.cM * 4 : nullptr});
        ConvertTensor(nullptr, product, rows(output.Desc(), output.data, r0, r1, &from));
    };
    bool ran = false;
#if DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_OMP
    if (!solo) {
        ran = ParallelForOnOpenMpTeam(panels.threads, 1, [&](uint64_t begin, uint64_t end) {
            for (uint64_t t = begin; t < end; ++t) {
                try {
                    panel(uint32_t(t));
                } catch (...) {
                    std::lock_guard<std::mutex> lock(failureMutex);
                    if (!failure) failure = std::current_exception();
                }
            }
        });
    }
#endif
    if (!ran) {
        const OneThreadScope oneThread(true);
        for (uint32_t t = 0; t < panels.threads; ++t) panel(t);
    }
    if (failure) std::rethrow_exception(failure);
    return ran || solo;
}

// ---- CONVOLUTION --------------------------------------------------------------------------------

namespace {

// True when no two elements share an address (strides of a dense or padded layout in any order):
// what a oneDNN memory descriptor can describe.
bool ElementsAreDistinct(const TensorDesc& d) {
    std::vector<std::pair<uint64_t, uint64_t>> dims;  // (stride, size) of the dimensions that step
    for (uint32_t i = 0; i < d.rank; ++i) {
        if (d.sizes[i] > 1) dims.emplace_back(d.strides[i], d.sizes[i]);
    }
    std::sort(dims.begin(), dims.end());
    uint64_t span = 1;  // elements the smaller dimensions cover
    for (const auto& [stride, size] : dims) {
        if (stride < span) return false;
        span = stride * size;
    }
    return true;
}

// Whether a convolution whose plain (NCHW) activations make oneDNN take its GEMM-based
// implementation runs faster on blocked activations, counting the reorders into and out of them.
// Measured on ResNet-50's layers (AVX-512, oneDNN 2.6): blocking wins every convolution whose
// window has more than one element (the GEMM form copies the input once per tap) and 1x1
// convolutions on small output planes (7x7: the plane is the GEMM's short N dimension). A 1x1
// convolution on a larger plane is one well-shaped GEMM, and the reorders of its activations cost
// more than blocking saves: on 14x14 with 1024 input channels the plain form runs 1.1x faster.
bool BlockedActivationsPay(uint64_t window, uint64_t outputPlane) { return window > 1 || outputPlane <= 64; }

}  // namespace

struct ConvolutionKernel::OneDnnState {
    TeamPrimitive convolution;  // arguments src, weights, dst, scratchpad[, bias]
    dnnl::memory::desc srcMd, dstMd, weightsSourceMd, weightsMd, biasMd;
    uint64_t scratchSize = 0;  // the largest of the primitives' scratchpads (they run one by one)
    bool activationPass = false;
    // The pass's view of the output: a 1-D run over its elements when they fill their span without
    // gaps (NCHW, NHWC or any other order of dense strides), so that the pass walks memory in
    // order whatever the dimension order; the output's own desc otherwise.
    TensorDesc activationView;
    // FLOAT16: input and output go through packed FLOAT32 copies, the filter through its dense
    // FLOAT32 form (flipped or not), as for CONVOLUTION mode in FLOAT32.
    bool half = false;
    bool denseFilter = false;  // the filter goes through DenseFilter before oneDNN's reorder
    TensorDesc input32, output32;
    // The filter's reorder into oneDNN's layout (none when the layouts agree).
    bool reorderWeights = false;
    TeamReorder weightsReorder;
    // Blocked activations: the input reordered from its own layout into srcMd, the output
    // computed in dstMd and reordered into the output's layout, both in the temporary resource.
    bool reorderSrc = false, reorderDst = false;
    TeamReorder srcReorder, dstReorder;
    // Accumulating onto a blocked output: the output's values reordered into it first.
    bool reorderDstIn = false;
    TeamReorder dstInReorder;
    // Temporary resource layout: scratchpad, an unowned filter (dense floats, then oneDNN's
    // layout) and bias, the FLOAT16 input and output copies, the blocked activations.
    uint64_t scratchOffset = 0, weightsOffset = 0, flipOffset = 0, biasOffset = 0, inputOffset = 0, outputOffset = 0,
             srcOffset = 0, dstOffset = 0;
};

void ConvolutionKernel::TryOneDnn() {
    oneDnn_.reset();
    const ConvolutionParams& p = params_;
    if (p.forceReference) {
        path_ = "reference (forced)";
        return;
    }
    // FLOAT16 runs on FLOAT32 copies, packed whatever the tensors' strides.
    const bool half = p.output.dataType == DML_TENSOR_DATA_TYPE_FLOAT16;
    const TensorDesc input = half ? PackedFloat32Like(p.input) : p.input;
    const TensorDesc output = half ? PackedFloat32Like(p.output) : p.output;
    if (!ElementsAreDistinct(input) || !ElementsAreDistinct(output)) {
        path_ = "reference (Input or Output has elements that share an address)";
        return;
    }
    const uint32_t dims = p.dimensionCount, groups = p.groupCount;
    const bool backward = p.direction == DML_CONVOLUTION_DIRECTION_BACKWARD;
    const TensorDesc& f = p.filter;
    auto toMd = [](const TensorDesc& d) {
        return Md(std::vector<int64_t>(d.sizes.begin(), d.sizes.begin() + d.rank),
                  std::vector<int64_t>(d.strides.begin(), d.strides.begin() + d.rank));
    };
    auto anyLayout = [](const dnnl::memory::desc& md) {
        return dnnl::memory::desc(md.dims(), dnnl::memory::data_type::f32, dnnl::memory::format_tag::any);
    };
    // oneDNN's logical weights: {[G,] OC/G, IC/G, spatial...} where OC are the output channels.
    auto weightsMd = [&](const std::array<uint32_t, kMaxTensorRank>& fs) {
        const int64_t icg = inChannels_ / groups, ocg = outChannels_ / groups;
        std::vector<int64_t> wd, ws;
        if (groups > 1) {
            wd.push_back(groups);
            ws.push_back(backward ? icg * fs[0] : ocg * fs[0]);
        }
        wd.push_back(ocg), ws.push_back(backward ? fs[1] : fs[0]);
        wd.push_back(icg), ws.push_back(backward ? fs[0] : fs[1]);
        for (uint32_t i = 0; i < dims; ++i) wd.push_back(f.sizes[2 + i]), ws.push_back(fs[2 + i]);
        return Md(wd, ws);
    };
    uint64_t window = 1, outputPlane = 1;
    for (uint32_t i = 0; i < dims; ++i) window *= f.sizes[2 + i], outputPlane *= output.sizes[2 + i];
    const uint64_t inPerGroup = inChannels_ / groups;
    const double work = double(output.ElementCount()) * double(inPerGroup) * double(window);
    std::string userFailure;  // outlives the try block: a dnnl::error keeps a pointer to its message
    try {
        auto state = std::make_unique<OneDnnState>();
        state->half = half;
        state->input32 = input;
        state->output32 = output;
        state->denseFilter = half || p.mode == DML_CONVOLUTION_MODE_CONVOLUTION;
        const dnnl::memory::desc srcUserMd = toMd(input), dstUserMd = toMd(output);
        state->weightsSourceMd = weightsMd(state->denseFilter ? PackedStrides(f.sizes, f.rank) : f.strides);
        const dnnl::memory::desc weightsAny = anyLayout(state->weightsSourceMd);
        if (p.bias) state->biasMd = Md({int64_t(outChannels_)}, {1});
        dnnl::memory::dims strides, dilations, padL, padR;
        for (uint32_t i = 0; i < dims; ++i) {
            strides.push_back(p.strides[i]);
            dilations.push_back(int64_t(p.dilations[i]) - 1);  // oneDNN counts the gaps
            padL.push_back(p.startPadding[i]);
            padR.push_back(int64_t(p.endPadding[i]) - (backward ? int64_t(p.outputPadding[i]) : 0));
        }
        dnnl::primitive_attr attr;
        attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
        dnnl::post_ops ops;
        if (p.accumulate) ops.append_sum(1.0f);  // before the activation, as accumulateOutput says
        const bool fused = AppendActivation(p.activation, ops);
        if (fused || p.accumulate) attr.set_post_ops(ops);
        auto& engine = CpuEngine();
        const auto inference = dnnl::prop_kind::forward_inference;
        auto describe = [&](const dnnl::memory::desc& src, const dnnl::memory::desc& dst,
                            const dnnl::memory::desc& weights) -> dnnl::primitive_desc {
            if (!backward) {
                auto desc = p.bias ? dnnl::convolution_forward::desc(inference, dnnl::algorithm::convolution_direct,
                                                                     src, weights, state->biasMd, dst, strides,
                                                                     dilations, padL, padR)
                                   : dnnl::convolution_forward::desc(inference, dnnl::algorithm::convolution_direct,
                                                                     src, weights, dst, strides, dilations, padL, padR);
                return dnnl::convolution_forward::primitive_desc(desc, attr, engine);
            }
            auto desc =
                p.bias ? dnnl::deconvolution_forward::desc(inference, dnnl::algorithm::deconvolution_direct, src,
                                                           weights, state->biasMd, dst, strides, dilations, padL, padR)
                       : dnnl::deconvolution_forward::desc(inference, dnnl::algorithm::deconvolution_direct, src,
                                                           weights, dst, strides, dilations, padL, padR);
            return dnnl::deconvolution_forward::primitive_desc(desc, attr, engine);
        };
        const OneThreadScope oneThread(work <= kOneThreadWork);
        // The activations' own layout when oneDNN runs it well; blocked ones (oneDNN's choice,
        // through reorders) where its implementation for them is the GEMM-based or reference one
        // and blocking pays.
        dnnl::primitive_desc pd;
        try {
            pd = describe(srcUserMd, dstUserMd, weightsAny);
        } catch (const dnnl::error& e) {
            userFailure = e.what();
        }
        auto gemmBased = [](const dnnl::primitive_desc& d) {
            return d && std::string(d.impl_info_str()).find("gemm") != std::string::npos;
        };
        const bool reference = pd && IsReferenceImplementation(pd);
        // A first layer's few input channels (an image's one to four): oneDNN's direct convolution
        // reads them as they are and writes blocked outputs, where a blocked copy of the input would
        // pad them to a vector's 16 (ResNet-50's conv1: 0.8-1.1 of oneDNN on blocked activations,
        // against 0.6-0.8 through the copy).
        if (gemmBased(pd) && BlockedActivationsPay(window, outputPlane) && inPerGroup <= 4) {
            try {
                dnnl::primitive_desc plainInput = describe(srcUserMd, anyLayout(dstUserMd), weightsAny);
                if (!gemmBased(plainInput) && !IsReferenceImplementation(plainInput)) pd = plainInput;
            } catch (const dnnl::error&) {
                // the blocked copy below
            }
        }
        if (!pd || reference || (gemmBased(pd) && BlockedActivationsPay(window, outputPlane))) {
            try {
                dnnl::primitive_desc blocked = describe(anyLayout(srcUserMd), anyLayout(dstUserMd), weightsAny);
                if (!pd || !IsReferenceImplementation(blocked)) pd = blocked;
            } catch (const dnnl::error&) {
                if (!pd) throw;
            }
        }
        if (!pd) throw dnnl::error(dnnl_unimplemented, userFailure.c_str());
        state->srcMd = pd.src_desc();
        state->dstMd = pd.dst_desc();
        state->weightsMd = pd.weights_desc();
        state->convolution.team = dnnl::primitive(pd);
        state->scratchSize = pd.scratchpad_desc().get_size();
        path_ = std::string(backward ? "oneDNN deconvolution_forward (" : "oneDNN convolution_forward (") +
                pd.impl_info_str() + ")";
        auto addArguments = [&](Arguments& args, const dnnl::memory::desc& scratchMd) {
            args.Add(DNNL_ARG_SRC, state->srcMd);
            args.Add(DNNL_ARG_WEIGHTS, state->weightsMd);
            args.Add(DNNL_ARG_DST, state->dstMd);
            args.Add(DNNL_ARG_SCRATCHPAD, scratchMd);
            if (p.bias) args.Add(DNNL_ARG_BIAS, state->biasMd);
        };
        addArguments(state->convolution.teamArgs, pd.scratchpad_desc());
        // The one-thread twin, on the layouts the team chose.
        state->convolution.MakeSolo(
            work, [&] { return describe(state->srcMd, state->dstMd, state->weightsMd); }, addArguments,
            &state->scratchSize);

        // The reorders around it, in the same scratchpad mode.
        dnnl::primitive_attr reorderAttr;
        reorderAttr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
        // `executed`: the reorder runs with each execution (an owned filter's runs once, at Initialize,
        // and needs no twin).
        auto makeReorder = [&](const dnnl::memory::desc& from, const dnnl::memory::desc& to, TeamReorder* reorder,
                               bool executed = true) {
            if (executed && UseAvx512() &&
                IsPlanarChannelsLastPair(from, to, &reorder->batch, &reorder->rows, &reorder->columns)) {
                reorder->transpose = true;
                return;
            }
            auto make = [&](dnnl::reorder* primitive, Arguments* args) {
                const dnnl::reorder::primitive_desc rpd(engine, from, engine, to, reorderAttr);
                *primitive = dnnl::reorder(rpd);
                state->scratchSize = std::max<uint64_t>(state->scratchSize, rpd.scratchpad_desc().get_size());
                args->Add(DNNL_ARG_FROM, from);
                args->Add(DNNL_ARG_TO, to);
                args->Add(DNNL_ARG_SCRATCHPAD, rpd.scratchpad_desc());
            };
            make(&reorder->team, &reorder->teamArgs);
            if (!state->convolution.hasSolo || !executed) return;
            const OneThreadScope forTheTwin(true);
            make(&reorder->solo, &reorder->soloArgs);
            reorder->hasSolo = true;
        };
        state->reorderSrc = state->srcMd != srcUserMd;
        state->reorderDst = state->dstMd != dstUserMd;
        state->reorderWeights = state->weightsMd != state->weightsSourceMd;
        if (state->reorderSrc) makeReorder(srcUserMd, state->srcMd, &state->srcReorder);
        if (state->reorderDst) makeReorder(state->dstMd, dstUserMd, &state->dstReorder);
        state->reorderDstIn = state->reorderDst && p.accumulate;
        if (state->reorderDstIn) makeReorder(dstUserMd, state->dstMd, &state->dstInReorder);
        if (state->reorderWeights) {
            makeReorder(state->weightsSourceMd, state->weightsMd, &state->weightsReorder, !p.filter.OwnedByDml());
        }
        if (state->reorderSrc) {
            path_ += " on blocked activations, reordered";
        } else if (state->reorderDst) {
            path_ += " reading the input as it is, on a blocked output, reordered";
        }
        if (state->srcReorder.transpose || state->dstReorder.transpose) {
            path_ += " (planar <-> channels-last by FreeDML's AVX-512 transpose)";
        }
        if (state->convolution.hasSolo) {
            path_ += "; a one-thread twin for busy cores";
            if (state->reorderSrc || state->reorderDst) path_ += ", with one-thread reorders";
        }
        state->activationPass = !fused;
        state->activationView = output;
        if (output.ElementCount() <= UINT32_MAX &&
            output.MinimumSizeInBytes() == output.ElementCount() * ElementSizeInBytes(output.dataType)) {
            state->activationView.rank = 1;
            state->activationView.sizes = {uint32_t(output.ElementCount())};
            state->activationView.strides = {1};
        }
        oneDnn_ = std::move(state);
    } catch (const dnnl::error& e) {
        path_ = std::string("reference (oneDNN refused: ") + e.what() + ")";
    }
}

uint64_t ConvolutionKernel::OneDnnOwnedFilterSize() const { return oneDnn_->weightsMd.get_size(); }

uint64_t ConvolutionKernel::PlanOneDnnTemporary() {
    OneDnnState& s = *oneDnn_;
    uint64_t t = 0;
    s.scratchOffset = t, t = AlignUp(t + s.scratchSize);
    if (!params_.filter.OwnedByDml()) {
        s.weightsOffset = t, t = AlignUp(t + s.weightsMd.get_size());
        if (s.denseFilter) s.flipOffset = t, t = AlignUp(t + params_.filter.ElementCount() * 4);
    }
    if (params_.bias && !params_.bias->OwnedByDml()) s.biasOffset = t, t = AlignUp(t + uint64_t(outChannels_) * 4);
    if (s.half) {
        s.inputOffset = t, t = AlignUp(t + s.input32.MinimumSizeInBytes());
        s.outputOffset = t, t = AlignUp(t + s.output32.MinimumSizeInBytes());
    }
    if (s.reorderSrc) s.srcOffset = t, t = AlignUp(t + s.srcMd.get_size());
    if (s.reorderDst) s.dstOffset = t, t = AlignUp(t + s.dstMd.get_size());
    return t;
}

void ConvolutionKernel::InitializeOneDnn(TensorView filter, TensorView bias, std::byte* persistent) const {
    const OneDnnState& s = *oneDnn_;
    if (filterOffset_ != UINT64_MAX) {
        std::vector<float> dense;
        void* source = filter.data;
        if (s.denseFilter) {
            dense.resize(params_.filter.ElementCount());
            DenseFilter(nullptr, filter, dense.data());
            source = dense.data();
        }
        if (s.reorderWeights) {
            std::vector<std::byte> scratch(s.scratchSize);
            s.weightsReorder.Run(false, {source, persistent + filterOffset_, scratch.data()});
        } else {
            std::memcpy(persistent + filterOffset_, source, s.weightsMd.get_size());
        }
    }
    if (biasOffset_ != UINT64_MAX) {
        LoadFloats(params_.bias->dataType, bias.data, BiasByteStride(),
                   reinterpret_cast<float*>(persistent + biasOffset_), outChannels_);
    }
}

void ConvolutionKernel::ExecuteOneDnn(ThreadPool* threads, TensorView input, TensorView filter, TensorView bias,
                                      TensorView output, const std::byte* filterData, const std::byte* biasData,
                                      std::byte* temporary) const {
    const OneDnnState& s = *oneDnn_;
    // The twin runs with the reorders around it on this thread too; the time of the whole goes to
    // the choice.
    const TeamPrimitive::Choice choice = s.convolution.Choose();
    const OneThreadScope oneThread(choice.solo);
    std::byte* scratch = temporary + s.scratchOffset;
    if (filterOffset_ == UINT64_MAX) {
        // Unowned filter: prepared in the temporary resource (dense floats, then oneDNN's layout).
        void* source = filter.data;
        if (s.denseFilter) {
            DenseFilter(threads, filter, reinterpret_cast<float*>(temporary + s.flipOffset));
            source = temporary + s.flipOffset;
        }
        if (s.reorderWeights) {
            s.weightsReorder.Run(choice.solo, {source, temporary + s.weightsOffset, scratch});
            filterData = temporary + s.weightsOffset;
        } else {
            filterData = static_cast<const std::byte*>(source);
        }
    }
    if (params_.bias && biasOffset_ == UINT64_MAX) {
        float* dense = reinterpret_cast<float*>(temporary + s.biasOffset);
        LoadFloats(params_.bias->dataType, bias.data, BiasByteStride(), dense, outChannels_);
        biasData = temporary + s.biasOffset;
    }
    // FLOAT16: FLOAT32 copies of the input and output.
    TensorView in = input, out = output;
    if (s.half) {
        in = TensorView{&s.input32, temporary + s.inputOffset};
        ConvertTensorBesideOneDnn(threads, input, in);
        out = TensorView{&s.output32, temporary + s.outputOffset};
        if (params_.accumulate) ConvertTensorBesideOneDnn(threads, output, out);
    }
    void* src = in.data;
    if (s.reorderSrc) {
        s.srcReorder.Run(choice.solo, {in.data, temporary + s.srcOffset, scratch});
        src = temporary + s.srcOffset;
    }
    void* dst = s.reorderDst ? temporary + s.dstOffset : out.data;
    if (s.reorderDstIn) s.dstInReorder.Run(choice.solo, {out.data, dst, scratch});
    s.convolution.Run(choice.solo,
                      {src, const_cast<std::byte*>(filterData), dst, scratch, const_cast<std::byte*>(biasData)});
    if (s.reorderDst) s.dstReorder.Run(choice.solo, {dst, out.data, scratch});
    if (s.activationPass) {
        ApplyActivationBesideOneDnn(threads, params_.activation, TensorView{&s.activationView, out.data});
    }
    s.convolution.Record(choice);
    if (s.half) ConvertTensorBesideOneDnn(threads, out, output);
}

// ---- POOLING ------------------------------------------------------------------------------------

struct OneDnnPooling::State {
    dnnl::memory::desc src, dst;
    dnnl::pooling_forward primitive;
};

std::unique_ptr<OneDnnPooling> OneDnnPooling::Make(const PoolPlan& plan, const TensorDesc& input,
                                                   const TensorDesc& output) {
    const uint32_t spatial = input.rank - 2, lead = 3 - spatial;
    std::vector<int64_t> inDims, outDims, inStrides, outStrides;
    for (uint32_t d = 0; d < input.rank; ++d) {
        inDims.push_back(input.sizes[d]);
        outDims.push_back(output.sizes[d]);
        inStrides.push_back(input.strides[d]);
        outStrides.push_back(output.strides[d]);
    }
    dnnl::memory::dims strides, kernel, padL, padR;
    for (uint32_t i = 0; i < spatial; ++i) {
        strides.push_back(plan.stride[lead + i]);
        kernel.push_back(plan.window[lead + i]);
        padL.push_back(plan.pad[lead + i]);
        // oneDNN wants the end padding that makes its output size ours.
        padR.push_back(int64_t(plan.out[lead + i] - 1) * plan.stride[lead + i] + plan.window[lead + i] -
                       plan.in[lead + i] - plan.pad[lead + i]);
    }
    const dnnl::algorithm algorithm = plan.kind == PoolKind::Max ? dnnl::algorithm::pooling_max
                                      : plan.includePadding     ? dnnl::algorithm::pooling_avg_include_padding
                                                                : dnnl::algorithm::pooling_avg_exclude_padding;
    try {
        auto state = std::make_unique<State>();
        state->src = Md(inDims, inStrides);
        state->dst = Md(outDims, outStrides);
        const dnnl::pooling_forward::desc op(dnnl::prop_kind::forward_inference, algorithm, state->src, state->dst,
                                             strides, kernel, padL, padR);
        state->primitive = dnnl::pooling_forward(dnnl::pooling_forward::primitive_desc(op, CpuEngine()));
        return std::unique_ptr<OneDnnPooling>(new OneDnnPooling(std::move(state)));
    } catch (const dnnl::error&) {
        return nullptr;  // the caller's own loops run it
    }
}

void OneDnnPooling::Run(const std::byte* input, std::byte* output) const {
    dnnl::engine& engine = CpuEngine();
    dnnl::stream stream(engine);
    state_->primitive.execute(
        stream, {{DNNL_ARG_SRC, dnnl::memory(state_->src, engine, const_cast<std::byte*>(input))},
                 {DNNL_ARG_DST, dnnl::memory(state_->dst, engine, output)}});
    stream.wait();
}

// ---- RNN, LSTM, GRU -----------------------------------------------------------------------------

bool MatMulAccumulateOneDnn(const float* a, int64_t lda, const float* b, int64_t bRow, int64_t bCol, float* c,
                            int64_t ldc, int64_t m, int64_t k, int64_t n) {
    if (m <= 0 || k <= 0 || n <= 0) return true;
    try {
        dnnl::engine& engine = CpuEngine();
        const auto aMd = Md({m, k}, {lda, 1});
        const auto bMd = Md({k, n}, {bRow, bCol});
        const auto cMd = Md({m, n}, {ldc, 1});
        dnnl::post_ops ops;
        ops.append_sum(1.0f);  // accumulate into c
        dnnl::primitive_attr attr;
        attr.set_post_ops(ops);
        // oneDNN's primitive cache makes the repeated creation of one shape cheap.
        const OneThreadScope oneThread(double(m) * double(n) * double(k) <= kOneThreadWork);
        const dnnl::matmul::desc desc(aMd, bMd, cMd);
        const dnnl::matmul::primitive_desc pd(desc, attr, engine);
        const dnnl::matmul primitive(pd);
        dnnl::stream stream(engine);
        primitive.execute(stream, {{DNNL_ARG_SRC, dnnl::memory(aMd, engine, const_cast<float*>(a))},
                                   {DNNL_ARG_WEIGHTS, dnnl::memory(bMd, engine, const_cast<float*>(b))},
                                   {DNNL_ARG_DST, dnnl::memory(cMd, engine, c)}});
        stream.wait();
        return true;
    } catch (const dnnl::error&) {
        return false;
    }
}

struct PackedMatMul::State {
    dnnl::matmul primitive;
    dnnl::memory::desc aMd, cMd;
    dnnl::memory packed;
};

bool PackedMatMul::Prepare(int64_t m, int64_t k, int64_t n, int64_t lda, int64_t ldc, const float* b, int64_t bRow,
                           int64_t bCol) {
    state_.reset();
    if (m <= 0 || k <= 0 || n <= 0) return false;
    try {
        dnnl::engine& engine = CpuEngine();
        auto state = std::make_unique<State>();
        state->aMd = Md({m, k}, {lda, 1});
        state->cMd = Md({m, n}, {ldc, 1});
        const dnnl::memory::desc anyB({k, n}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::any);
        dnnl::post_ops ops;
        ops.append_sum(1.0f);
        dnnl::primitive_attr attr;
        attr.set_post_ops(ops);
        const OneThreadScope oneThread(double(m) * double(n) * double(k) <= kOneThreadWork);
        const dnnl::matmul::desc desc(state->aMd, anyB, state->cMd);
        const dnnl::matmul::primitive_desc pd(desc, attr, engine);
        state->primitive = dnnl::matmul(pd);
        state->packed = dnnl::memory(pd.weights_desc(), engine);
        dnnl::memory user(Md({k, n}, {bRow, bCol}), engine, const_cast<float*>(b));
        dnnl::stream stream(engine);
        dnnl::reorder(user, state->packed).execute(stream, user, state->packed);
        stream.wait();
        state_ = std::move(state);
        return true;
    } catch (const dnnl::error&) {
        return false;
    }
}

void PackedMatMul::Run(const float* a, float* c) const {
    dnnl::engine& engine = CpuEngine();
    dnnl::stream stream(engine);
    state_->primitive.execute(stream, {{DNNL_ARG_SRC, dnnl::memory(state_->aMd, engine, const_cast<float*>(a))},
                                       {DNNL_ARG_WEIGHTS, state_->packed},
                                       {DNNL_ARG_DST, dnnl::memory(state_->cMd, engine, c)}});
    stream.wait();
}

// ---- Integer GEMM (quantized matrix multiplies) ----------------------------------------------------

bool Int8Gemm(bool aSigned, int64_t m, int64_t n, int64_t k, const void* a, int64_t lda, const int8_t* b, int64_t ldb,
              int32_t* c, int64_t ldc) {
    const int32_t zero = 0;
    dnnl::status status;
    if (aSigned) {
        status = dnnl::gemm_s8s8s32('N', 'N', 'F', m, n, k, 1.0f, static_cast<const int8_t*>(a), lda, 0, b, ldb, 0,
                                    0.0f, c, ldc, &zero);
    } else {
        status = dnnl::gemm_u8s8s32('N', 'N', 'F', m, n, k, 1.0f, static_cast<const uint8_t*>(a), lda, 0, b, ldb, 0,
                                    0.0f, c, ldc, &zero);
    }
    return status == dnnl::status::success;
}

// ---- Strided batched products (attention) ------------------------------------------------------

struct BatchedMatMul::State {
    dnnl::matmul primitive;
    dnnl::memory::desc aMd, bMd, cMd;
};

bool BatchedMatMul::Prepare(int64_t batch, int64_t m, int64_t k, int64_t n, float alpha, const MatrixStrides& a,
                            const MatrixStrides& b, bool broadcastB, const MatrixStrides& c) {
    state_.reset();
    if (batch <= 0 || m <= 0 || k <= 0 || n <= 0) return false;
    // oneDNN's GEMM-based matmul takes a batch dimension of size 1 only with a stride past the
    // matrix (a stride of 0 sends it to the reference implementation); its value is never used.
    const auto md = [&](int64_t count, int64_t rows, int64_t columns, const MatrixStrides& s) {
        const int64_t extent = std::abs(s.row) * rows + std::abs(s.column) * columns;
        return Md({count, rows, columns}, {count == 1 ? extent : s.batch, s.row, s.column});
    };
    try {
        dnnl::engine& engine = CpuEngine();
        auto state = std::make_unique<State>();
        state->aMd = md(batch, m, k, a);
        state->bMd = md(broadcastB ? 1 : batch, k, n, b);
        state->cMd = md(batch, m, n, c);
        dnnl::primitive_attr attr;
        if (alpha != 1.0f) attr.set_output_scales(0, {alpha});
        const dnnl::matmul::desc desc(state->aMd, state->bMd, state->cMd);
        const dnnl::matmul::primitive_desc pd(desc, attr, engine);
        // oneDNN's reference matmul is slower than no oneDNN at all: the caller's own loop runs then.
        if (std::string(pd.impl_info_str()).rfind("ref", 0) == 0) return false;
        state->primitive = dnnl::matmul(pd);
        state_ = std::move(state);
        return true;
    } catch (const dnnl::error&) {
        return false;
    }
}

bool BatchedMatMul::Run(const float* a, const float* b, float* c) const {
    try {
        dnnl::engine& engine = CpuEngine();
        dnnl::stream stream(engine);
        state_->primitive.execute(stream, {{DNNL_ARG_SRC, dnnl::memory(state_->aMd, engine, const_cast<float*>(a))},
                                           {DNNL_ARG_WEIGHTS, dnnl::memory(state_->bMd, engine, const_cast<float*>(b))},
                                           {DNNL_ARG_DST, dnnl::memory(state_->cMd, engine, c)}});
        stream.wait();
        return true;
    } catch (const dnnl::error&) {
        return false;
    }
}

#else  // built without oneDNN: TryOneDnn makes no OneDnnState, so the other members never run.

struct OneDnnPooling::State {};

std::unique_ptr<OneDnnPooling> OneDnnPooling::Make(const PoolPlan&, const TensorDesc&, const TensorDesc&) {
    return nullptr;
}

void OneDnnPooling::Run(const std::byte*, std::byte*) const {}

struct PackedMatMul::State {};
struct BatchedMatMul::State {};
bool BatchedMatMul::Prepare(int64_t, int64_t, int64_t, int64_t, float, const MatrixStrides&, const MatrixStrides&,
                            bool, const MatrixStrides&) {
    return false;
}
bool BatchedMatMul::Run(const float*, const float*, float*) const { return false; }
bool PackedMatMul::Prepare(int64_t, int64_t, int64_t, int64_t, int64_t, const float*, int64_t, int64_t) {
    return false;
}
void PackedMatMul::Run(const float*, float*) const {}

bool MatMulAccumulateOneDnn(const float*, int64_t, const float*, int64_t, int64_t, float*, int64_t, int64_t, int64_t,
                            int64_t) {
    return false;
}

bool Int8Gemm(bool, int64_t, int64_t, int64_t, const void*, int64_t, const int8_t*, int64_t, int32_t*, int64_t) {
    return false;
}

ParallelForFunction BesideOneDnn(ThreadPool* threads) { return OnPool(threads); }

void ConvertTensorBesideOneDnn(ThreadPool* threads, TensorView from, TensorView to) {
    ConvertTensor(threads, from, to);
}

struct GemmKernel::OneDnnState {};
struct ConvolutionKernel::OneDnnState {};

void GemmKernel::ExecuteOneDnnHalf(ThreadPool*, TensorView, TensorView, TensorView, TensorView,
                                   const std::array<const std::byte*, 3>&, std::byte*) const {}

void GemmKernel::TryOneDnn() {
    oneDnn_.reset();
    path_ = "reference (built without oneDNN)";
}
uint64_t GemmKernel::OneDnnOwnedBSize(uint64_t plainSize) const { return plainSize; }
uint64_t GemmKernel::OneDnnScratchSize() const { return 0; }
bool GemmKernel::InitializeOneDnn(const std::byte*, std::byte*) const { return false; }
void GemmKernel::ExecuteOneDnn(ThreadPool*, const std::byte*, const std::byte*, const std::byte*, TensorView,
                               std::byte*) const {}

void ConvolutionKernel::TryOneDnn() {
    oneDnn_.reset();
    path_ = "reference (built without oneDNN)";
}
uint64_t ConvolutionKernel::OneDnnOwnedFilterSize() const { return 0; }
uint64_t ConvolutionKernel::PlanOneDnnTemporary() { return 0; }
void ConvolutionKernel::InitializeOneDnn(TensorView, TensorView, std::byte*) const {}
void ConvolutionKernel::ExecuteOneDnn(ThreadPool*, TensorView, TensorView, TensorView, TensorView, const std::byte*,
                                      const std::byte*, std::byte*) const {}

#endif  // FREEDML_HAVE_DNNL

// The kernels' special members live here, where OneDnnState is complete.
OneDnnPooling::OneDnnPooling(std::unique_ptr<State> state) : state_(std::move(state)) {}
OneDnnPooling::~OneDnnPooling() = default;
BatchedMatMul::BatchedMatMul() = default;
BatchedMatMul::~BatchedMatMul() = default;
BatchedMatMul::BatchedMatMul(BatchedMatMul&&) noexcept = default;
BatchedMatMul& BatchedMatMul::operator=(BatchedMatMul&&) noexcept = default;
PackedMatMul::PackedMatMul() = default;
PackedMatMul::~PackedMatMul() = default;
GemmKernel::GemmKernel() = default;
GemmKernel::~GemmKernel() = default;
GemmKernel::GemmKernel(GemmKernel&&) noexcept = default;
GemmKernel& GemmKernel::operator=(GemmKernel&&) noexcept = default;
ConvolutionKernel::ConvolutionKernel() = default;
ConvolutionKernel::~ConvolutionKernel() = default;
ConvolutionKernel::ConvolutionKernel(ConvolutionKernel&&) noexcept = default;
ConvolutionKernel& ConvolutionKernel::operator=(ConvolutionKernel&&) noexcept = default;

}  // namespace freedml::dml::cpu
