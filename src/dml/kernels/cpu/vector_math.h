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
// ExpF, SigmoidF and TanhF are float arithmetic throughout, for the functions whose float argument
// is exact and whose result is the output (EXP, SIGMOID, TANH): twice the lanes of the double
// forms, which keeps them near memory speed, for errors of up to 1.3, 2.5 and 1.1 ulp (the
// conformance cases allow 4, 3 and 2). Functions of a scaled argument or built further on an
// exponential (expm1, softplus, SCALED_TANH, SWISH, softmax) go through the double forms.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace freedml::dml::cpu::vmath {

#define FREEDML_VMATH_INLINE [[gnu::always_inline]] inline

// |x| as one select (a test of the form `x < a && x > -a` would branch and stop vectorization).
FREEDML_VMATH_INLINE double Magnitude(double x) { return x < 0.0 ? -x : x; }

// e^x. x = k ln2 + r, |r| <= ln2/2 (ln2 in two parts, so that k * kLn2Hi is exact), e^r by its
// Taylor series to r^10 (truncation 2e-13), times 2^k built in the exponent field. Outside
// [-708, 709], where 2^k would leave double's normal range, the result is 0 or infinity (what a
// float makes of it anyway; exactly 0 at -infinity, so that x * e^-inf stays NaN for x infinite).
// NaN fails every comparison and stays NaN.
FREEDML_VMATH_INLINE double Exp(double x) {
    constexpr double kLog2e = 1.4426950408889634;
    constexpr double kLn2Hi = 6.93147180369123816490e-01;  // 32 significant bits
    constexpr double kLn2Lo = 1.90821492927058770002e-10;
    constexpr double kShift = 6755399441055744.0;  // 1.5 * 2^52: adding it rounds to an integer
    const double xc = x < -708.0 ? -708.0 : (x > 709.0 ? 709.0 : x);
    double t = xc * kLog2e;
    t = t + kShift;
    const double k = t - kShift;
    // k as a two's complement integer in the low bits (unsigned: defined for any bits, NaN's too).
    const uint64_t kBits = std::bit_cast<uint64_t>(t) - std::bit_cast<uint64_t>(kShift);
    double r = xc - k * kLn2Hi;
    r = r - k * kLn2Lo;
    double p = 1.0 / 3628800.0;
    p = p * r + 1.0 / 362880.0;
    p = p * r + 1.0 / 40320.0;
    p = p * r + 1.0 / 5040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = p * r + 1.0;
    p = p * r + 1.0;
    const double scale = std::bit_cast<double>((kBits + 1023u) << 52);
    const double e = p * scale;
    return x < -708.0 ? 0.0 : (x > 709.0 ? std::numeric_limits<double>::infinity() : e);
}

// e^x in float: the same reduction as Exp's (ln2 in two parts of 16 and 24 bits), e^r by its
// Taylor series to r^7 (truncation below 0.1 ulp), times 2^k in two steps so that subnormal
// results round once and 2^128 needs no special case. Within 1.3 ulp; 0 below -104 (where e^x
// rounds to 0), infinity above 89, NaN stays NaN.
FREEDML_VMATH_INLINE float ExpF(float x) {
    constexpr float kLog2e = 1.44269504088896341f;
    constexpr float kLn2Hi = 0.693145751953125f;
    constexpr float kLn2Lo = 1.428606765330187e-6f;
    constexpr float kShift = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
    const float xc = x < -104.0f ? -104.0f : (x > 89.0f ? 89.0f : x);
    float t = xc * kLog2e;
    t = t + kShift;
    const float k = t - kShift;
    const uint32_t kBits = std::bit_cast<uint32_t>(t) - std::bit_cast<uint32_t>(kShift);
    float r = xc - k * kLn2Hi;
    r = r - k * kLn2Lo;
    float p = 1.0f / 5040.0f;
    p = p * r + 1.0f / 720.0f;
    p = p * r + 1.0f / 120.0f;
    p = p * r + 1.0f / 24.0f;
    p = p * r + 1.0f / 6.0f;
    p = p * r + 0.5f;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    // 2^k = 2^k1 * 2^k2 with k1 = k >> 1 (arithmetic, on the two's complement bits).
    const uint32_t k1 = (kBits >> 1) | (kBits & 0x80000000u), k2 = kBits - k1;
    const float s1 = std::bit_cast<float>((k1 + 127u) << 23);
    const float s2 = std::bit_cast<float>((k2 + 127u) << 23);
    const float e = p * s1 * s2;
    return x < -104.0f ? 0.0f : e;
}

// 1 / (1 + e^-x) in float: 0 at -infinity, 1 at +infinity.
FREEDML_VMATH_INLINE float SigmoidF(float x) { return 1.0f / (1.0f + ExpF(-x)); }

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

// 1 / (1 + e^-x): 0 at -infinity, 1 at +infinity.
FREEDML_VMATH_INLINE double Sigmoid(double x) { return 1.0 / (1.0 + Exp(-x)); }

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

#undef FREEDML_VMATH_INLINE

}  // namespace freedml::dml::cpu::vmath
