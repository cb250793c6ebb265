#include "sim/scenario/units.hpp"

#include <charconv>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "sim/scenario/suggest.hpp"

namespace pssim::scenario {
namespace {

struct Unit {
  std::string_view name;
  double scale;  // multiply the number by this to get the base unit
};

struct Quantity {
  double number;
  std::string_view unit;  // may be empty
};

std::string shown(std::string_view text) { return fmt::format("'{}'", text); }

// Splits "12.5 Gbps" into 12.5 and "Gbps". The number must come first.
Quantity split_number(std::string_view text, std::string_view what, std::string_view example) {
  std::string_view s = text;
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  if (s.empty()) throw UnitError(fmt::format("empty value; expected {} such as {}", what, example));
  std::string_view digits = s;
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
  double value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec == std::errc::result_out_of_range)
    throw UnitError(fmt::format("{} is out of range; expected {} such as {}", shown(text), what, example));
  if (ec != std::errc() || !std::isfinite(value))
    throw UnitError(fmt::format("{} is not {}; write it like {}", shown(text), what, example));
  std::string_view unit(end, static_cast<std::size_t>(digits.data() + digits.size() - end));
  while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  return {value, unit};
}

// `implied_unit`: the unit of a bare number (empty: a bare number is an error).
double with_unit(std::string_view text, std::string_view what, std::string_view example,
                 const std::vector<Unit>& units, std::string_view implied_unit = {}) {
  Quantity q = split_number(text, what, example);
  if (q.unit.empty() && implied_unit.empty())
    throw UnitError(fmt::format("{} has no unit; write {} with its unit, such as {}", shown(text), what, example));
  if (q.unit.empty()) q.unit = implied_unit;
  for (const Unit& u : units)
    if (u.name == q.unit) {
      if (q.number < 0) throw UnitError(fmt::format("{} is negative; {} cannot be", shown(text), what));
      const double value = q.number * u.scale;
      if (!std::isfinite(value)) throw UnitError(fmt::format("{} is out of range", shown(text)));
      return value;
    }
  std::vector<std::string> names;
  std::string list;
  for (const Unit& u : units) {
    names.emplace_back(u.name);
    list += (list.empty() ? "" : ", ") + std::string(u.name);
  }
  std::string message = fmt::format("unknown unit '{}' in {} (expected {}: {})", q.unit, shown(text), what, list);
  if (auto near = nearest_name(q.unit, names)) message += fmt::format("; did you mean '{}'?", *near);
  throw UnitError(message);
}

const std::vector<Unit>& duration_units() {
  static const std::vector<Unit> units = {{"ns", 1e-9}, {"us", 1e-6}, {"\xC2\xB5s", 1e-6}, {"\xCE\xBCs", 1e-6},
                                          {"ms", 1e-3}, {"s", 1.0},   {"min", 60.0},        {"h", 3600.0}};
  return units;
}

const std::vector<Unit>& bandwidth_units() {
  static const std::vector<Unit> units = {
      {"bps", 1.0 / 8},    {"Kbps", 1e3 / 8},   {"kbps", 1e3 / 8},          {"Mbps", 1e6 / 8},
      {"Gbps", 1e9 / 8},   {"Tbps", 1e12 / 8},  {"Kbit/s", 1e3 / 8},        {"Mbit/s", 1e6 / 8},
      {"Gbit/s", 1e9 / 8}, {"B/s", 1.0},        {"KB/s", 1e3},              {"kB/s", 1e3},
      {"MB/s", 1e6},       {"GB/s", 1e9},       {"TB/s", 1e12},             {"KiB/s", 1024.0},
      {"MiB/s", 1048576.0}, {"GiB/s", 1073741824.0}};
  return units;
}

const std::vector<Unit>& byte_units() {
  static const std::vector<Unit> units = {{"B", 1.0},           {"KB", 1e3},           {"kB", 1e3},
                                          {"MB", 1e6},          {"GB", 1e9},           {"TB", 1e12},
                                          {"KiB", 1024.0},      {"MiB", 1048576.0},    {"GiB", 1073741824.0},
                                          {"TiB", 1099511627776.0}};
  return units;
}

const std::vector<Unit>& flop_units() {
  static const std::vector<Unit> units = {
      {"FLOP", 1.0},   {"KFLOP", 1e3},   {"MFLOP", 1e6},   {"GFLOP", 1e9},   {"TFLOP", 1e12},   {"PFLOP", 1e15},
      {"FLOPs", 1.0},  {"KFLOPs", 1e3},  {"MFLOPs", 1e6},  {"GFLOPs", 1e9},  {"TFLOPs", 1e12},  {"PFLOPs", 1e15}};
  return units;
}

const std::vector<Unit>& flop_rate_units() {
  static const std::vector<Unit> units = {
      {"FLOPS", 1.0},   {"KFLOPS", 1e3},   {"MFLOPS", 1e6},   {"GFLOPS", 1e9},   {"TFLOPS", 1e12},   {"PFLOPS", 1e15},
      {"FLOP/s", 1.0},  {"KFLOP/s", 1e3},  {"MFLOP/s", 1e6},  {"GFLOP/s", 1e9},  {"TFLOP/s", 1e12},  {"PFLOP/s", 1e15}};
  return units;
}

}  // namespace

double parse_number(std::string_view text) {
  const Quantity q = split_number(text, "a number", "0.5");
  if (!q.unit.empty()) throw UnitError(fmt::format("{} is not a plain number (unexpected '{}')", shown(text), q.unit));
  return q.number;
}

std::int64_t parse_count(std::string_view text) {
  const Quantity q = split_number(text, "a whole number", "16 or 25M");
  double scale = 1;
  if (q.unit == "K" || q.unit == "k") scale = 1e3;
  else if (q.unit == "M") scale = 1e6;
  else if (q.unit == "G") scale = 1e9;
  else if (q.unit == "T") scale = 1e12;
  else if (!q.unit.empty())
    throw UnitError(fmt::format("unknown suffix '{}' in {} (a count takes K, M, G or T, as in 25M)", q.unit, shown(text)));
  const double value = q.number * scale;
  if (std::abs(value) > 4.6e18) throw UnitError(fmt::format("{} is out of range", shown(text)));
  if (value != std::floor(value)) throw UnitError(fmt::format("{} is not a whole number", shown(text)));
  return static_cast<std::int64_t>(value);
}

double parse_ratio(std::string_view text) {
  const Quantity q = split_number(text, "a fraction", "0.01 or 1%");
  if (q.unit.empty()) return q.number;
  if (q.unit == "%") return q.number / 100.0;
  throw UnitError(fmt::format("{} is not a fraction (write 0.01 or 1%)", shown(text)));
}

bool parse_bool(std::string_view text) {
  for (std::string_view t : {"true", "True", "TRUE", "yes", "Yes", "on", "On"})
    if (text == t) return true;
  for (std::string_view f : {"false", "False", "FALSE", "no", "No", "off", "Off"})
    if (text == f) return false;
  throw UnitError(fmt::format("{} is not a boolean; write true or false", shown(text)));
}

namespace {
TimeNs duration_ns(std::string_view text, std::string_view implied_unit) {
  const double seconds = with_unit(text, "a duration", "50us, 2ms or 120s", duration_units(), implied_unit);
  if (seconds * 1e9 >= 9.2e18) throw UnitError(fmt::format("{} is beyond the simulator's range (292 years)", shown(text)));
  const TimeNs ns = seconds_to_ns(seconds);
  if (ns == 0 && seconds > 0)
    throw UnitError(fmt::format("{} is below the simulator's 1 ns resolution", shown(text)));
  return ns;
}
}  // namespace

TimeNs parse_duration(std::string_view text) { return duration_ns(text, {}); }

TimeNs parse_seconds_or_duration(std::string_view text) { return duration_ns(text, "s"); }

double parse_fine_duration(std::string_view text) {
  return with_unit(text, "a duration", "0.5ns or 2us", duration_units());
}

double parse_bandwidth(std::string_view text) {
  // Zero needs no unit (a failed link is `bandwidth: 0`); ranges reject it where a
  // capacity must be positive.
  if (text == "0") return 0.0;
  return with_unit(text, "a bandwidth", "10Gbps or 1.25GB/s", bandwidth_units());
}

double parse_bytes(std::string_view text) { return with_unit(text, "a size", "4.8MB or 512KiB", byte_units()); }

double parse_flops(std::string_view text) {
  return with_unit(text, "an operation count", "4GFLOP", flop_units());
}

double parse_flop_rate(std::string_view text) {
  return with_unit(text, "a compute throughput", "2TFLOPS", flop_rate_units());
}

}  // namespace pssim::scenario
