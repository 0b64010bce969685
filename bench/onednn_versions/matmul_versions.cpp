// oneDNN's f32 matmul (B packed in the layout oneDNN picks, as FreeDML's owned B) on square sizes,
// compiled against whichever oneDNN the include and library paths name: run.sh builds it against
// Debian's 2.x and PyPI's 3.x to compare the two releases on this machine. Prints one line per
// size: the median and best GFLOP/s of 9 rounds of 0.1 s.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <oneapi/dnnl/dnnl.hpp>
#include <vector>

int main(int argc, char** argv) {
    using dnnl::memory;
    dnnl::engine engine(dnnl::engine::kind::cpu, 0);
    dnnl::stream stream(engine);
    for (int i = 1; i < argc; ++i) {
        const int n = std::atoi(argv[i]);
        const memory::desc plain({n, n}, memory::data_type::f32, memory::format_tag::ab);
        const memory::desc chosen({n, n}, memory::data_type::f32, memory::format_tag::any);
#if DNNL_VERSION_MAJOR >= 3
        const dnnl::matmul::primitive_desc pd(engine, plain, chosen, plain);
#else
        const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(plain, chosen, plain), engine);
#endif
        std::vector<float> a(size_t(n) * n, 0.5f), b(size_t(n) * n, 0.25f), out(size_t(n) * n);
        memory aMem(plain, engine, a.data()), bMem(plain, engine, b.data()), outMem(plain, engine, out.data());
        memory packed(pd.weights_desc(), engine);
        dnnl::reorder(bMem, packed).execute(stream, bMem, packed);
        const dnnl::matmul matmul(pd);
        std::vector<double> rates;
        for (int round = 0; round < 9; ++round) {
            int runs = 0;
            double seconds = 0;
            const auto start = std::chrono::steady_clock::now();
            do {
                matmul.execute(stream, {{DNNL_ARG_SRC, aMem}, {DNNL_ARG_WEIGHTS, packed}, {DNNL_ARG_DST, outMem}});
                stream.wait();
                ++runs;
                seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            } while (seconds < 0.1);
            rates.push_back(2.0 * n * n * double(n) * runs / seconds / 1e9);
        }
        std::sort(rates.begin(), rates.end());
        std::printf("oneDNN %d.%d matmul %d: %.1f GFLOP/s median, %.1f best (%s)\n", DNNL_VERSION_MAJOR,
                    DNNL_VERSION_MINOR, n, rates[4], rates[8], pd.impl_info_str());
    }
}
