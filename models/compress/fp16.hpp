// IEEE 754 binary16 <-> binary32 conversion in software, for the fp16 gradient compressor.
// Software, not F16C or _Float16, so the bytes on the simulated wire do not depend on the
// CPU or compiler (and the tests can check it against _Float16 where the compiler has it).
//
// float_to_half rounds to nearest, ties to even, as IEEE 754 requires:
//   |x| >= 65520 (halfway between 65504, the largest half, and 2^16) -> ±inf;
//   |x| < 2^-14 (below the smallest normal half) -> subnormal m * 2^-24, m rounded to even;
//   |x| <= 2^-25 -> ±0 (the sign is kept);  ±inf -> ±inf;
//   NaN -> quiet NaN with the sign and the top 9 payload bits kept (bit 9 set).
// half_to_float is exact (every half is a float). Relative error of float_to_half in the
// normal range [2^-14, 65504]: at most 2^-11 (half a unit in the last of 11 bits).
#pragma once

#include <bit>
#include <cstdint>

namespace pssim::models {

constexpr std::uint16_t float_to_half(float x) {
  const std::uint32_t f = std::bit_cast<std::uint32_t>(x);
  const auto sign = std::uint16_t((f >> 16) & 0x8000u);
  const std::uint32_t a = f & 0x7fffffffu;
  if (a >= 0x7f800000u) {  // inf or NaN
    if (a == 0x7f800000u) return std::uint16_t(sign | 0x7c00u);
    return std::uint16_t(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
  }
  if (a >= 0x477ff000u) return std::uint16_t(sign | 0x7c00u);  // rounds up past 65504
  if (a >= 0x38800000u) {                                      // normal half
    // Rebias the exponent (127 -> 15) and drop 13 mantissa bits; a carry out of the
    // mantissa correctly bumps the exponent.
    std::uint32_t h = (a >> 13) - ((127u - 15u) << 10);
    const std::uint32_t rem = a & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
    return std::uint16_t(sign | h);
  }
  // Subnormal half: value = mant * 2^(e - 150) = m * 2^-24  =>  m = mant >> (126 - e).
  const std::uint32_t e = a >> 23;
  if (e < 102) return sign;  // < 2^-25: rounds to zero
  const std::uint32_t mant = (a & 0x7fffffu) | 0x800000u;
  const std::uint32_t shift = 126u - e;  // 14 .. 24
  std::uint32_t m = mant >> shift;
  const std::uint32_t rem = mant & ((1u << shift) - 1u);
  const std::uint32_t half = 1u << (shift - 1u);
  if (rem > half || (rem == half && (m & 1u))) ++m;  // m == 0x400 is the smallest normal
  return std::uint16_t(sign | m);
}

constexpr float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
  const std::uint32_t e = (h >> 10) & 0x1fu;
  const std::uint32_t m = h & 0x3ffu;
  if (e == 0x1fu) return std::bit_cast<float>(sign | 0x7f800000u | (m << 13));
  if (e != 0) return std::bit_cast<float>(sign | ((e + 112u) << 23) | (m << 13));
  if (m == 0) return std::bit_cast<float>(sign);
  // Subnormal: m * 2^-24, exact in float (2^-24 is a power of two, m < 2^10).
  const float v = float(m) * 5.9604644775390625e-8f;
  return sign ? -v : v;
}

}  // namespace pssim::models
