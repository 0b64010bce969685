// Elementary functions for the CPU kernels' float rows (unary.cpp, activation.cpp,
// activation_ops.cpp), written as straight-line arithmetic with selects instead of branches and
// calls, so that a loop over them vectorizes. Each file inlines them into rows it compiles twice
// (baseline x86-64 and AVX2+FMA, picked at run time: cpu_isa.h), so the math exists once.
//
// Most take and return double: a float argument widens exactly, the function is evaluated to
// about 1e-13 relative (series and range reductions sized for that, not for full double
// precision), and the caller rounds once to float. A float result is therefore within 0.5 ulp
// plus a negligible fraction of the exact value, whichever instruction set ran it, and FLOAT16
// (computed in float blocks) rounds a second time only from there. Arguments of float magnitude
// never reach double's subnormals, so none of the reductions needs a subnormal case.
//
// ExpF, SigmoidF, TanhF, ErfF and GeluF are float arithmetic (ErfF with one double
// polynomial), for the functions whose float argument is exact and whose result is the output
// (EXP, SIGMOID, TANH, ERF, GELU): twice the lanes of the double forms, which keeps them near
// memory speed, for errors of up to 1.3, 2.5, 1.1, 2.3 and 1.8 ulp (the conformance cases allow 4,
// 3, 2, 4 and 4; GELU's also 1e-7 absolute, and below 1/2 its error is absolute: 8.8e-8).
// GeluF and GeluH take kFma: the rows for CPUs with fused multiply-adds evaluate their polynomials
// with them (MulAdd), a quarter faster and more accurate (GeluF: 1.4 ulp, 6.4e-8); those rows then
// round differently from the baseline rows, each within its bound.
// EXP, SIGMOID and GELU have faster rows again on AVX-512 (exp_avx512.h: the same series, 2^k and
// the rounding of k in one instruction each; 0.87, 2.47 and 1.2 ulp measured).
// Functions of a scaled argument or built further on an exponential (expm1, softplus,
// SCALED_TANH, SWISH, softmax) go through the double forms (softmax's terms through ExpForFloat).
#pragma once

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace freedml::dml::cpu::vmath {

#define FREEDML_VMATH_INLINE [[gnu::always_inline]] inline

// |x| as one select (a test of the form `x < a && x > -a` would branch and stop vectorization).
FREEDML_VMATH_INLINE double Magnitude(double x) { return x < 0.0 ? -x : x; }

// a b + c for a polynomial step: one fused multiply-add where kFma (the rows compiled for CPUs that
// have it: one rounding, half the instructions), otherwise a product and a sum, as the files of
// float_rows.h compile every expression.
template <bool kFma>
FREEDML_VMATH_INLINE float MulAdd(float a, float b, float c) {
    if constexpr (kFma) {
        return std::fma(a, b, c);
    } else {
        return a * b + c;
    }
}

// What e^x needs to know of its floating type. Taylor degrees: the truncation |r|^(n+1) / (n+1)!
// at |r| = ln2/2 is below 0.1 float ulp for float (7) and 2e-13 for double (10). Below kLow e^x is
// 0 (it rounds to 0 there), above kHigh infinite; between, 2^k in two factors stays normal.
template <class T>
struct ExpTraits;

template <>
struct ExpTraits<float> {
    using Bits = uint32_t;
    static constexpr int kDegree = 7, kMantissaBits = 23;
    static constexpr Bits kBias = 127;
    static constexpr float kLow = -104.0f, kHigh = 89.0f;
    static constexpr float kLn2Hi = 0.693145751953125f;  // 16 significant bits
    static constexpr float kLn2Lo = 1.428606765330187e-6f;
    static constexpr float kShift = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
};

template <>
struct ExpTraits<double> {
    using Bits = uint64_t;
    static constexpr int kDegree = 10, kMantissaBits = 52;
    static constexpr Bits kBias = 1023;
    static constexpr double kLow = -746.0, kHigh = 710.0;
    static constexpr double kLn2Hi = 6.93147180369123816490e-01;  // 32 significant bits
    static constexpr double kLn2Lo = 1.90821492927058770002e-10;
    static constexpr double kShift = 6755399441055744.0;  // 1.5 * 2^52
};

constexpr double InverseFactorial(int n) {
    double f = 1.0;
    for (int i = 2; i <= n; ++i) f *= i;
    return 1.0 / f;
}

// sum over n = kFrom..kTo of r^(n - kFrom) / n!, by Horner's rule, unrolled at compile time (a
// loop here would be an inner loop that stops the caller's loop from vectorizing).
template <class T, int kFrom, int kTo>
FREEDML_VMATH_INLINE T TaylorOfExp(T r) {
    if constexpr (kFrom == kTo) {
        return T(InverseFactorial(kTo));
    } else {
        return TaylorOfExp<T, kFrom + 1, kTo>(r) * r + T(InverseFactorial(kFrom));
    }
}

// e^x in float or double arithmetic: x = k ln2 + r, |r| <= ln2/2 (Cody-Waite, ln2 in two parts so
// that k * kLn2Hi is exact), e^r by its Taylor series, times 2^k built in the exponent field in two
// factors, so that a subnormal result rounds once and an overflowing one becomes infinity. Exactly
// 0 at -infinity (x * e^-inf stays NaN for x infinite); NaN fails every comparison and stays NaN.
template <class T>
FREEDML_VMATH_INLINE T ExpOf(T x) {
    using E = ExpTraits<T>;
    using Bits = typename E::Bits;
    const T xc = x < E::kLow ? E::kLow : (x > E::kHigh ? E::kHigh : x);
    T t = xc * T(1.4426950408889634);  // log2 e
    t = t + E::kShift;
    const T k = t - E::kShift;
    // k as a two's complement integer in the low bits (unsigned: defined for any bits, NaN's too).
    const Bits kBits = std::bit_cast<Bits>(t) - std::bit_cast<Bits>(E::kShift);
    T r = xc - k * E::kLn2Hi;
    r = r - k * E::kLn2Lo;
    const T p = TaylorOfExp<T, 0, E::kDegree>(r);
    constexpr Bits kSign = Bits(1) << (sizeof(T) * 8 - 1);
    const Bits k1 = (kBits >> 1) | (kBits & kSign), k2 = kBits - k1;  // k1 = k >> 1, arithmetic
    const T s1 = std::bit_cast<T>((k1 + E::kBias) << E::kMantissaBits);
    const T s2 = std::bit_cast<T>((k2 + E::kBias) << E::kMantissaBits);
    const T e = p * s1 * s2;
    return x < E::kLow ? T(0) : e;
}

// e^x for x <= 0 in double to 2e-9 relative, for results rounded to float once (softmax's terms,
// whose sum must not take float's rounding): x = k ln2 + r, |r| <= ln2/2, e^r by a polynomial of
// degree 6 (minimax relative error over [-ln2/2, ln2/2], fitted at authoring time against 40-digit
// exp), 2^k built in the exponent field. Below -88 (e^-88 is half of FLT_MIN) the result is 0,
// exactly 0 at -infinity; NaN stays NaN. A third less work than Exp, whose 1e-13 a float result
// cannot show.
FREEDML_VMATH_INLINE double ExpForFloat(double x) {
    const double xc = x < -88.0 ? -88.0 : x;
    const double t = xc * 1.4426950408889634 + 6755399441055744.0;  // 1.5 * 2^52: rounds to an integer k
    const double k = t - 6755399441055744.0;
    const uint64_t kBits = std::bit_cast<uint64_t>(t) - std::bit_cast<uint64_t>(6755399441055744.0);
    const double r = xc - k * 0.6931471805599453;  // k ln2's rounding, below 1e-14, is far below 2e-9
    double p = 0.001384365366822257;
    p = p * r + 0.008374155376017605;
    p = p * r + 0.04166800203642894;
    p = p * r + 0.16666431261893516;
    p = p * r + 0.4999999420903203;
    p = p * r + 1.0000000321651936;
    p = p * r + 1.0;
    const double e = p * std::bit_cast<double>((kBits + 1023) << 52);  // k >= -127: a normal 2^k
    return x < -88.0 ? 0.0 : e;
}

// 1 / (1 + e^-x): 0 at -infinity, 1 at +infinity.
template <class T>
FREEDML_VMATH_INLINE T SigmoidOf(T x) {
    return T(1) / (T(1) + ExpOf(-x));
}

// The two precisions by name, so that a call site says which it computes in.
FREEDML_VMATH_INLINE double Exp(double x) { return ExpOf(x); }
FREEDML_VMATH_INLINE float ExpF(float x) { return ExpOf(x); }
FREEDML_VMATH_INLINE double Sigmoid(double x) { return SigmoidOf(x); }
FREEDML_VMATH_INLINE float SigmoidF(float x) { return SigmoidOf(x); }

// tanh in float. |x| < 1: x + x u P(u), u = x^2, P of degree 6 fitted at authoring time for the
// relative error of tanh (weighted least squares on Chebyshev nodes of [0, 1], iterated toward
// minimax, against 40-digit tanh; 5e-9 relative with the coefficients rounded to float). |x| >= 1:
// 1 - 2 / (e^2|x| + 1), the sign put back. Within 1.1 ulp; +-1 at +-infinity, NaN stays NaN.
FREEDML_VMATH_INLINE float TanhF(float x) {
    const float magnitude = x < 0.0f ? -x : x;
    const float u = x * x;
    float p = -0.000358450022758916f;
    p = p * u + 0.002301357686519623f;
    p = p * u - 0.007946096360683441f;
    p = p * u + 0.02148665115237236f;
    p = p * u - 0.05387980118393898f;
    p = p * u + 0.13332344591617584f;
    p = p * u - 0.33333295583724976f;
    const float small = x + x * (u * p);
    const float e = ExpF(magnitude + magnitude);
    const float large = std::copysign(1.0f - 2.0f / (e + 1.0f), x);
    return magnitude < 1.0f ? small : large;
}

// e^x - 1 without the cancellation near 0: the Taylor series where |x| < 1/32 (truncation below
// 1e-15 relative), e^x - 1 elsewhere (then |e^x - 1| > 0.03, so Exp's error stays relative).
FREEDML_VMATH_INLINE double Expm1(double x) {
    double s = 1.0 / 5040.0;
    s = s * x + 1.0 / 720.0;
    s = s * x + 1.0 / 120.0;
    s = s * x + 1.0 / 24.0;
    s = s * x + 1.0 / 6.0;
    s = s * x + 0.5;
    s = s * x + 1.0;
    s = s * x;
    const double e = Exp(x) - 1.0;
    return Magnitude(x) < 0.03125 ? s : e;
}

// ln x for x a positive normal double (every float is one), +inf, 0 (-inf), negative (NaN) or
// NaN. x = 2^e m with m in [sqrt(1/2), sqrt(2)), ln m = 2 atanh(s), s = (m - 1) / (m + 1),
// |s| < 0.172, by its odd series to s^17 (truncation 1e-15).
FREEDML_VMATH_INLINE double Log(double x) {
    constexpr uint64_t kSqrtHalf = 0x3FE6A09E667F3BCDull;  // sqrt(1/2)
    constexpr uint64_t kOne = 0x3FF0000000000000ull;
    constexpr double kLn2 = 0.6931471805599453;
    // Rebase the exponent at sqrt(1/2): the biased exponent of `shifted` is e, its mantissa m's.
    const uint64_t shifted = std::bit_cast<uint64_t>(x) + (kOne - kSqrtHalf);
    // e as a double without an integer conversion (AVX2 has none for 64 bits): 2^52 + n, less 2^52.
    constexpr uint64_t kTwo52 = 0x4330000000000000ull;
    const double e = std::bit_cast<double>((shifted >> 52) | kTwo52) - (4503599627370496.0 + 1023.0);
    const double m = std::bit_cast<double>((shifted & 0x000FFFFFFFFFFFFFull) + kSqrtHalf);
    const double f = m - 1.0;  // exact
    const double s = f / (2.0 + f);
    const double z = s * s;
    double p = 2.0 / 17.0;
    p = p * z + 2.0 / 15.0;
    p = p * z + 2.0 / 13.0;
    p = p * z + 2.0 / 11.0;
    p = p * z + 2.0 / 9.0;
    p = p * z + 2.0 / 7.0;
    p = p * z + 2.0 / 5.0;
    p = p * z + 2.0 / 3.0;
    p = p * z + 2.0;
    double r = e * kLn2;
    r = r + s * p;
    constexpr double kInf = std::numeric_limits<double>::infinity();
    r = x > 0.0 ? r : (x == 0.0 ? -kInf : std::numeric_limits<double>::quiet_NaN());
    return x == kInf ? kInf : r;
}

// ln(1 + y) for y > -1 without the cancellation near 0: the series where |y| < 2^-13 (truncation
// below 1e-16 relative), ln(1 + y) elsewhere (its rounding error, 1e-16, is then small against
// ln(1 + y) itself).
FREEDML_VMATH_INLINE double Log1p(double y) {
    double s = -0.25;
    s = s * y + 1.0 / 3.0;
    s = s * y - 0.5;
    s = s * y + 1.0;
    s = s * y;
    const double l = Log(1.0 + y);
    return Magnitude(y) < 1.0 / 8192.0 ? s : l;
}

// tanh x = (e^2x - 1) / (e^2x + 1), from Expm1 so that small x keeps its digits. |x| is clamped
// to 20 first (tanh 20 is 1 to 17 digits), so that infinities give +-1, not inf / inf.
FREEDML_VMATH_INLINE double Tanh(double x) {
    const double xc = x < -20.0 ? -20.0 : (x > 20.0 ? 20.0 : x);
    const double em = Expm1(xc + xc);
    return em / (em + 2.0);
}

// ln(1 + e^v) = max(v, 0) + ln(1 + e^-|v|): no overflow for large v, no loss for very negative v.
FREEDML_VMATH_INLINE double Softplus(double v) {
    return (v > 0.0 ? v : 0.0) + Log1p(Exp(-Magnitude(v)));
}

// erf(z) / z for |z| < 1: the Taylor series of erf in u = z^2, to z^33 (truncation below 2e-16).
FREEDML_VMATH_INLINE double ErfOverZ(double u) {
    double p = 1.6342614095367152e-15;
    p = p * u - 2.7835162072109215e-14;
    p = p * u + 4.4632242632864775e-13;
    p = p * u - 6.7113668551641105e-12;
    p = p * u + 9.4227590646504113e-11;
    p = p * u - 1.2290555301717928e-09;
    p = p * u + 1.4807192815879218e-08;
    p = p * u - 1.6365844691234924e-07;
    p = p * u + 1.6462114365889248e-06;
    p = p * u - 1.492565035840625e-05;
    p = p * u + 0.00012055332981789664;
    p = p * u - 0.00085483270234508533;
    p = p * u + 0.0052239776254421879;
    p = p * u - 0.026866170645131252;
    p = p * u + 0.11283791670955126;
    p = p * u - 0.37612638903183754;
    return p * u + 1.1283791670955126;  // 2 / sqrt(pi)
}

// erfc(a) for a >= 1 (NaN stays NaN): e^(-a^2) R(a), R(a) = erfc(a) e^(a^2) as a Chebyshev series
// of degree 12 in t = 1 / (2 + a) over [1, 10] (coefficients fitted at authoring time against
// 50-digit erfc; 5e-12 relative), summed by Clenshaw's recurrence. 0 beyond 10 (erfc 10 = 2e-45).
FREEDML_VMATH_INLINE double ErfcTail(double a) {
    const double ac = a > 10.0 ? 10.0 : a;
    const double s = 8.0 / (2.0 + ac) - 5.0 / 3.0;  // t over [1/12, 1/3] mapped onto [-1, 1]
    const double s2 = s + s;
    double b1 = 2.9096572472851788e-13, b2 = 0.0, b;
    b = 1.7513532347388566e-11 + s2 * b1 - b2, b2 = b1, b1 = b;
    b = -8.098126844426331e-11 + s2 * b1 - b2, b2 = b1, b1 = b;
    b = -1.0519221400238191e-09 + s2 * b1 - b2, b2 = b1, b1 = b;
    b = 8.7483960375586672e-09 + s2 * b1 - b2, b2 = b1, b1 = b;
    b = 8.0364134161980123e-08 + s2 * b1 - b2, b2 = b1, b1 = b;
    b = -8.4928892701421801e-07 + s2 * b1 - b2, b2 = b1, b1 = b;
    b = -1.0357497974060011e-05 + s2 * b1 - b2, b2 = b1, b1 = b;
    b = 6.5485243908632617e-05 + s2 * b1 - b2, b2 = b1, b1 = b;
    b = 0.002279885144269969 + s2 * b1 - b2, b2 = b1, b1 = b;
    b = 0.025657551749804192 + s2 * b1 - b2, b2 = b1, b1 = b;
    b = 0.18345168473025517 + s2 * b1 - b2, b2 = b1, b1 = b;
    const double r = 0.21614008807730831 + s * b1 - b2;
    const double tail = Exp(-(ac * ac)) * r;
    return a > 10.0 ? 0.0 : tail;
}

// erf z: the series below |z| = 1, 1 - erfc |z| (sign put back) above, where erfc < 0.16 keeps the
// subtraction exact enough. +-1 at +-infinity, NaN stays NaN.
FREEDML_VMATH_INLINE double Erf(double z) {
    const double a = Magnitude(z);
    const double small = z * ErfOverZ(z * z);
    const double large = 1.0 - ErfcTail(a);
    return a < 1.0 ? small : (z < 0.0 ? -large : large);
}

// erfc z with its relative accuracy in the right tail (GELU's 1 + erf of a negative argument):
// 1 - erf z below |z| = 1 (erfc is at least 0.15 there), the tail above, 2 - tail for z <= -1.
// 0 at +infinity, 2 at -infinity, NaN stays NaN.
FREEDML_VMATH_INLINE double Erfc(double z) {
    const double a = Magnitude(z);
    const double small = 1.0 - z * ErfOverZ(z * z);
    const double tail = ErfcTail(a);
    return a < 1.0 ? small : (z < 0.0 ? 2.0 - tail : tail);
}

// erf(z) / z for |z| <= 1 in float, u = z^2: a polynomial of degree 5 in u fitted at authoring time
// (weighted least squares on Chebyshev nodes iterated toward minimax relative error, against
// 40-digit erf, the coefficients rounded to float one by one from the highest, each rounding
// compensated by refitting the lower ones): 5e-8 relative.
FREEDML_VMATH_INLINE float ErfOverZF(float u) {
    float p = -0.0005625396f;
    p = p * u + 0.0049160235f;
    p = p * u - 0.02670995f;
    p = p * u + 0.112801306f;
    p = p * u - 0.3761232f;
    return p * u + 1.1283791f;
}

// erfc(z) e^(z^2) for z in [0.5, 10.75] (NaN stays NaN): a polynomial of degree 9 in
// s = (t - c) / h, t = 1 / (2 + z) over [1/12.75, 2/5] mapped onto [-1, 1] (fitted as
// ErfOverZF's, against 40-digit erfc; 2e-9 relative). In double: in float, the rounding of 2 + z
// and of the quotient alone would cost 2 to 3 ulps, amplified by the steep dependence on t.
FREEDML_VMATH_INLINE double ErfcScaled(double z) {
    const double t = 1.0 / (2.0 + z);
    const double s = (t - 0.23921568627450981) * 6.2195121951219505;
    double p = -2.6917995317586424e-06;
    p = p * s + 3.5377742196776247e-06;
    p = p * s + 4.2645836652805524e-05;
    p = p * s - 8.08798889510672e-05;
    p = p * s - 0.0007412361291038984;
    p = p * s + 0.0008924244197578591;
    p = p * s + 0.020804060018776827;
    p = p * s + 0.09574796239213008;
    p = p * s + 0.26161311355155636;
    return p * s + 0.2374114091841551;
}

// erf x in float: x ErfOverZF(x^2) below |x| = 1, 1 - e^(-x^2) ErfcScaled(|x|) above (the sign put
// back), where the tail is at most 0.16 and its error shrinks by as much against erf's; |x| is
// clamped to 4, where 1 - tail rounds to 1. Within 2.3 ulp (the conformance cases allow 4); +-1 at
// +-infinity, NaN stays NaN.
FREEDML_VMATH_INLINE float ErfF(float x) {
    const float a = x < 0.0f ? -x : x;
    const float small = x * ErfOverZF(x * x);
    const float ac = a > 4.0f ? 4.0f : (a < 1.0f ? 1.0f : a);  // NaN stays NaN
    const float tail = ExpF(-(ac * ac)) * float(ErfcScaled(ac));
    const float large = std::copysign(1.0f - tail, x);
    return a < 1.0f ? small : large;
}

// GeluF's constants, which its AVX-512 row (exp_avx512.h) evaluates too. Polynomials are listed
// from the highest coefficient.
struct GeluFConstants {
    static constexpr float kCentral[6] = {-6.056958682165714e-06f, 0.00010776030831038952f,
                                          -0.0011786873219534755f, 0.009968802332878113f,
                                          -0.06648927181959152f,   0.3989422023296356f};  // C(v)
    static constexpr float kTwoToThe[6] = {0.001326472731307149f, 0.009671512991189957f, 0.05550733581185341f,
                                           0.24022242426872253f,  0.6931470036506653f,   1.0f};  // 2^f
    static constexpr float kTail[5] = {-0.00038699229480698705f, 0.0007840067846700549f, 0.01786872185766697f,
                                       0.09082259982824326f, 0.10470343381166458f};           // S(s)
    static constexpr float kTailScale = 8.84069538116455f, kTailShift = 1.5893796682357788f;  // s of |x|
    static constexpr float kMinusHalfLog2e = -0.72134752f;
    static constexpr float kCentralBelow = 1.41421356f;  // |x| below it: the central form
    static constexpr float kTailBeyond = 13.0f;          // |x| above it: q taken as 0
    static constexpr float kSquareAtMost = 169.0f;       // x^2 clamped, so that w >= -122
};

// p[0] z^(N-1) + ... + p[N-1] by Horner's rule, unrolled at compile time (a loop here would be an
// inner loop that stops the caller's loop from vectorizing).
template <bool kFma, size_t kN, size_t kI = 1>
FREEDML_VMATH_INLINE float Horner(const float (&p)[kN], float z, float sum) {
    if constexpr (kI == kN) {
        return sum;
    } else {
        return Horner<kFma, kN, kI + 1>(p, z, MulAdd<kFma>(sum, z, p[kI]));
    }
}
template <bool kFma, size_t kN>
FREEDML_VMATH_INLINE float Horner(const float (&p)[kN], float z) {
    return Horner<kFma, kN, 1>(p, z, p[0]);
}

// GELU, x Phi(x) with Phi the normal distribution function, in float arithmetic only, for a
// result within 4 ulp or 1e-7 (the conformance cases' tolerance): within 1.8 ulp, or 8.8e-8
// absolute where the result is below 1/2 in magnitude (every x < 0), checked over every float.
// Two forms, both computed for every lane, one selected:
// - |x| < sqrt 2: x (1/2 + x C(x^2)), C(v) = erf(x / sqrt 2) / 2x of degree 5 fitted at authoring
//   time (weighted least squares on Chebyshev nodes iterated toward minimax, against 30-digit erf,
//   coefficients rounded to float one by one from the highest and the rest refitted) for 3e-8
//   relative to Phi where x > 0 and 3e-8 / |x| absolute where x < 0, where 1/2 + x C cancels.
// - |x| >= sqrt 2: q = Phi(-|x|) = 2^w S(|x|), w = -x^2 log2(e) / 2, S = Phi(-|x|) e^(x^2/2) a
//   polynomial of degree 4 in s = 8.84 / (2 + |x|) - 1.59 (s over [-1, 1] on [sqrt 2, 13]; fitted
//   as C, weighted by how much of q's error reaches the result: relative q / (1 - q) of it for
//   x > 0, absolute |x| q for x < 0), 2^w as 2^k 2^f, |f| <= 1/2, 2^f of degree 5 (1e-7). The
//   result is x q for x < 0 and x - x q for x > 0 (no cancellation: q < 0.08 there). Beyond
//   |x| = 13, q (below 1e-38) is taken as 0: x for x > 0, -0 for x < 0.
// +inf gives +inf, -inf gives -inf * 0 = NaN as the formula does, NaN stays NaN. Lanes of the form
// not selected may hold any value (the tail's arguments are clamped only where x^2 is huge).
template <bool kFma = false>
FREEDML_VMATH_INLINE float GeluF(float x) {
    using G = GeluFConstants;
    const float v = x * x;
    const float central = x * MulAdd<kFma>(x, Horner<kFma>(G::kCentral, v), 0.5f);

    const float a = x < 0.0f ? -x : x;
    const float w = (v > G::kSquareAtMost ? G::kSquareAtMost : v) * G::kMinusHalfLog2e;  // -x^2 log2(e) / 2
    const float t = w + 12582912.0f;  // 1.5 * 2^23: rounds w to an integer k
    const float k = t - 12582912.0f;
    const uint32_t kBits = std::bit_cast<uint32_t>(t) - std::bit_cast<uint32_t>(12582912.0f);
    const float f = w - k;  // exact
    const float gauss = Horner<kFma>(G::kTwoToThe, f) * std::bit_cast<float>((kBits + 127u) << 23);  // 2^k stays normal
    const float s = G::kTailScale / (2.0f + a) - G::kTailShift;
    const float q = a > G::kTailBeyond ? 0.0f : gauss * Horner<kFma>(G::kTail, s);
    const float xq = x * q;
    const float upper = a > G::kTailBeyond ? x : x - xq;
    const float tail = x < 0.0f ? xq : upper;
    return a < G::kCentralBelow ? central : tail;
}

// ---- Forms for FLOAT16 results -----------------------------------------------------------------
// A FLOAT16 result keeps 11 significant bits. Computed to 1e-4 relative (under half of its
// half-spacing, 2.4e-4 at worst) and rounded once, it lands within the 1 ulp the conformance cases
// allow, for about half the work of the float forms: lower degrees (fitted as ErfOverZF's, to
// FLOAT16's needs) and arguments clamped to where FLOAT16 saturates, so that no subnormal case
// remains.

// 2^t for |t| <= 27 (or NaN, which stays NaN), for the FLOAT16 results below: t = k + f, |f| <= 1/2,
// 2^f by a polynomial of degree 3 (minimax relative error, fitted at authoring time: 7.5e-5, a
// thirteenth of FLOAT16's spacing), 2^k put in by a product. Beyond 27 the value is garbage: the
// callers select over it.
FREEDML_VMATH_INLINE float Exp2H(float t) {
    const float shifted = t + 12582912.0f;  // 1.5 * 2^23: rounds t to an integer k
    const float k = shifted - 12582912.0f;
    const uint32_t kBits = std::bit_cast<uint32_t>(shifted) - std::bit_cast<uint32_t>(12582912.0f);
    const float f = t - k;  // exact
    float p = 0.055171672254800797f;
    p = p * f + 0.24261115491390228f;
    p = p * f + 0.6932609677314758f;
    p = p * f + 0.9999280571937561f;
    return p * std::bit_cast<float>((kBits + 127u) << 23);
}

// e^x for a FLOAT16 result, as 2^(x log2(e)) (the product's rounding, 1e-6 relative at most for any
// x FLOAT16 holds, is far below FLOAT16's spacing). Infinity above ln 65520 (where e^x rounds to
// FLOAT16's infinity: exactly there, so that a result near the edge rounds as e^x does), 0 below
// -18.5 (e^-18.5 rounds to FLOAT16's 0), selected after the arithmetic.
FREEDML_VMATH_INLINE float ExpH(float x) {
    const float e = Exp2H(x * 1.44269504f);
    return x > 11.0901098f ? std::numeric_limits<float>::infinity() : (x < -18.5f ? 0.0f : e);
}

// 1 / (1 + e^-x), e^-x finite up to e^18.5 (where the result rounds to FLOAT16's 0).
FREEDML_VMATH_INLINE float SigmoidH(float x) {
    const float e = Exp2H(x * -1.44269504f);
    const float en = x < -18.5f ? std::numeric_limits<float>::infinity() : (x > 18.5f ? 0.0f : e);
    return 1.0f / (1.0f + en);
}

// tanh for a FLOAT16 result: x + x u P(u), u = x^2, P of degree 2 below |x| = 0.625 (1e-5
// relative), 1 - 2 / (e^2|x| + 1) above (the sign put back).
FREEDML_VMATH_INLINE float TanhH(float x) {
    const float magnitude = x < 0.0f ? -x : x;
    const float u = x * x;
    float p = -0.04306111f;
    p = p * u + 0.13179801f;
    p = p * u - 0.33329964f;
    const float small = x + x * (u * p);
    const float large = std::copysign(1.0f - 2.0f / (ExpH(magnitude + magnitude) + 1.0f), x);
    return magnitude < 0.625f ? small : large;
}

// erf for a FLOAT16 result: x P(x^2), P of degree 3 below |x| = 1 (3e-5 relative); above,
// 1 - e^(-a^2) R(a), R(a) = erfc(a) e^(a^2) by a degree-5 polynomial in a - 2 (1e-4 relative, on a
// tail of at most 0.16), a clamped to 3 (erf 3 rounds to FLOAT16's 1).
FREEDML_VMATH_INLINE float ErfH(float x) {
    const float a = x < 0.0f ? -x : x;
    const float u = x * x;
    float p = -0.018332262f;
    p = p * u + 0.10777963f;
    p = p * u - 0.37511548f;
    p = p * u + 1.1283462f;
    const float small = x * p;
    const float ac = a > 3.0f ? 3.0f : (a < 1.0f ? 1.0f : a);  // NaN stays NaN
    const float c = ac - 2.0f;
    float r = -0.0020434759f;
    r = r * c + 0.0064131385f;
    r = r * c - 0.015458511f;
    r = r * c + 0.041438278f;
    r = r * c - 0.10677532f;
    r = r * c + 0.25541487f;
    const float large = std::copysign(1.0f - ExpH(-(ac * ac)) * r, x);
    return a < 1.0f ? small : large;
}

// GELU for a FLOAT16 result, x Phi(x) as GeluF's tail for every x: q = Phi(-|x|) = 2^w S(|x|),
// w = -x^2 log2(e) / 2 (Exp2H), S = Phi(-|x|) e^(x^2/2) a polynomial of degree 4 in
// s = 6.98 / (2.5 + |x|) - 1.79 over [0, 6.32] (fitted as ErfOverZF's: 2.5e-5 relative, more only
// where |x| q < 1.2e-4 and FLOAT16's absolute allowance takes over); x q for x < 0, x - x q for
// x >= 0 (no cancellation: q <= 1/2), so 1e-4 relative in all.
// Beyond |x| = 6.32 q is 0 (x Phi(x) is below FLOAT16's smallest half-spacing there): x for x > 0,
// -0 for x < 0, and -inf * 0 = NaN at -inf, as the formula has it; NaN stays NaN.
template <bool kFma = false>
FREEDML_VMATH_INLINE float GeluH(float x) {
    const float v = x * x;
    const float a = x < 0.0f ? -x : x;
    const float gauss = Exp2H((v > 40.0f ? 40.0f : v) * -0.72134752f);
    const float s = 6.977848052978516f / (2.5f + a) - 1.7911392450332642f;
    float r = -0.002029919298365712f;
    r = MulAdd<kFma>(r, s, 0.005991999059915543f);
    r = MulAdd<kFma>(r, s, 0.06720419228076935f);
    r = MulAdd<kFma>(r, s, 0.21325576305389404f);
    r = MulAdd<kFma>(r, s, 0.2155906856060028f);
    const float q = a > 6.32f ? 0.0f : gauss * r;
    const float xq = x * q;
    const float upper = a > 6.32f ? x : x - xq;
    return x < 0.0f ? xq : upper;
}

#undef FREEDML_VMATH_INLINE

}  // namespace freedml::dml::cpu::vmath
