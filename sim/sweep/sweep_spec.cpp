#include "sim/sweep/sweep_spec.hpp"

#include <fmt/format.h>

#include "sim/scenario/overrides.hpp"
#include "sim/scenario/suggest.hpp"
#include "sim/scenario/validate.hpp"
#include "sim/scenario/yaml_loader.hpp"
#include "sim/scenario/yaml_writer.hpp"

namespace pssim::sweep {
namespace {

using scenario::ConfigNode;
using scenario::ScenarioError;

struct Axis {
  std::string key;
  scenario::SourceLocation key_location;
  std::vector<ConfigNode> values;
};

// A value as a sweep.csv cell: scalars as written, anything else as flow-style YAML.
std::string value_text(const ConfigNode& v) { return v.is_scalar() ? v.text() : scenario::to_flow_yaml(v); }

std::vector<Axis> read_axes(const ConfigNode& node, const char* section) {
  std::vector<Axis> axes;
  if (!node.is_map())
    throw ScenarioError(node.location(), fmt::format("{} maps scenario keys to lists of values, e.g. "
                                                     "{{cluster.workers.count: [16, 64]}}",
                                                     section));
  for (const auto& e : node.entries()) {
    if (!e.value.is_sequence() || e.value.items().empty())
      throw ScenarioError(e.value.location(),
                          fmt::format("{}.{} needs a non-empty list of values, e.g. [1, 2, 4]", section, e.key));
    axes.push_back({e.key, e.key_location, e.value.items()});
  }
  return axes;
}

}  // namespace

SweepSpec load_sweep(const std::filesystem::path& file) {
  const ConfigNode root = scenario::load_yaml_file(file.string());
  if (!root.is_map()) throw ScenarioError(root.location(), "a sweep file is a mapping with name, base, grid/zip, seeds");
  const std::vector<std::string> known = {"name", "description", "base", "set", "grid", "zip", "seeds", "repetitions"};
  for (const auto& e : root.entries()) {
    bool ok = false;
    for (const auto& k : known) ok = ok || k == e.key;
    if (ok) continue;
    std::string message = fmt::format("unknown key '{}' in a sweep file", e.key);
    if (auto near = scenario::nearest_name(e.key, known)) message += fmt::format("; did you mean '{}'?", *near);
    throw ScenarioError(e.key_location, message);
  }
  SweepSpec spec;
  spec.file = file;
  const ConfigNode* name = root.find("name");
  if (!name) throw ScenarioError(root.location(), "missing required key 'name' in the sweep file");
  spec.name = scenario::as_text(*name);
  if (!scenario::is_valid_name(spec.name))
    throw ScenarioError(name->location(), fmt::format("sweep name '{}' is not a valid name (letters, digits, '.', '_', "
                                                      "'-')",
                                                      spec.name));
  const ConfigNode* base = root.find("base");
  if (!base || !base->is_scalar())
    throw ScenarioError(base ? base->location() : root.location(), "missing 'base': the path of the base scenario");
  const std::filesystem::path base_path = file.parent_path() / base->text();
  const ConfigNode base_tree = [&] {
    try {
      return scenario::load_yaml_file(base_path.string());
    } catch (const ScenarioError& e) {
      if (e.diagnostics().front().location.line > 0) throw;
      throw ScenarioError(base->location(), fmt::format("base scenario {}: {}", base_path.string(),
                                                        e.diagnostics().front().message));
    }
  }();

  std::vector<Axis> grid, zip, fixed;
  if (const ConfigNode* g = root.find("grid")) grid = read_axes(*g, "grid");
  if (const ConfigNode* z = root.find("zip")) zip = read_axes(*z, "zip");
  for (const auto& a : zip)
    if (a.values.size() != zip.front().values.size())
      throw ScenarioError(a.key_location, fmt::format("zip.{} has {} values but zip.{} has {}: zipped lists must be "
                                                      "equally long",
                                                      a.key, a.values.size(), zip.front().key,
                                                      zip.front().values.size()));
  if (const ConfigNode* set = root.find("set")) {
    if (!set->is_map()) throw ScenarioError(set->location(), "set maps scenario keys to values");
    for (const auto& e : set->entries()) fixed.push_back({e.key, e.key_location, {e.value}});
  }
  std::vector<std::uint64_t> seeds;
  if (const ConfigNode* s = root.find("seeds")) {
    if (root.find("repetitions")) throw ScenarioError(s->location(), "give seeds or repetitions, not both");
    if (!s->is_sequence() || s->items().empty()) throw ScenarioError(s->location(), "seeds is a list, e.g. [1, 2, 3]");
    for (const auto& v : s->items()) {
      const std::int64_t seed = scenario::as_count(v);
      if (seed < 0) throw ScenarioError(v.location(), "a seed is a whole number >= 0");
      seeds.push_back(static_cast<std::uint64_t>(seed));
    }
  } else if (const ConfigNode* r = root.find("repetitions")) {
    const std::int64_t n = scenario::as_count(*r);
    if (n < 1 || n > 10'000) throw ScenarioError(r->location(), "repetitions is between 1 and 10000");
    for (std::int64_t i = 1; i <= n; ++i) seeds.push_back(static_cast<std::uint64_t>(i));
  }

  for (const auto& a : grid) spec.axes.push_back(a.key);
  for (const auto& a : zip) spec.axes.push_back(a.key);

  // Count first: a typo such as [1..1000000] must not allocate a billion points.
  double total = seeds.empty() ? 1.0 : static_cast<double>(seeds.size());
  for (const auto& a : grid) total *= static_cast<double>(a.values.size());
  if (!zip.empty()) total *= static_cast<double>(zip.front().values.size());
  if (total > static_cast<double>(kMaxPoints))
    throw ScenarioError(root.location(), fmt::format("the sweep has {:.0f} points; at most {} are supported", total,
                                                     kMaxPoints));

  const std::size_t zip_rows = zip.empty() ? 1 : zip.front().values.size();
  std::vector<std::size_t> odometer(grid.size(), 0);
  std::vector<scenario::Diagnostic> problems;
  for (bool more = true; more;) {
    for (std::size_t row = 0; row < zip_rows; ++row) {
      const std::size_t seed_count = seeds.empty() ? 1 : seeds.size();
      for (std::size_t k = 0; k < seed_count; ++k) {
        SweepPoint p;
        p.index = spec.points.size();
        ConfigNode tree = base_tree;
        try {
          for (const auto& a : fixed) scenario::set_at_path(tree, a.key, a.values[0], a.key_location);
          for (std::size_t g = 0; g < grid.size(); ++g) {
            const ConfigNode& v = grid[g].values[odometer[g]];
            scenario::set_at_path(tree, grid[g].key, v, grid[g].key_location);
            p.values.push_back(value_text(v));
          }
          for (const auto& a : zip) {
            scenario::set_at_path(tree, a.key, a.values[row], a.key_location);
            p.values.push_back(value_text(a.values[row]));
          }
          scenario::Overrides overrides;
          if (!seeds.empty()) overrides.seed = seeds[k];
          p.scenario = scenario::resolve_scenario(std::move(tree), overrides);
          p.seed = p.scenario.scenario.seed;
        } catch (const ScenarioError& e) {
          for (const auto& d : e.diagnostics())
            problems.push_back({d.location, fmt::format("sweep point {}: {}", p.index, d.message)});
          if (problems.size() >= 20) throw ScenarioError(std::move(problems));
        }
        spec.points.push_back(std::move(p));
      }
    }
    // Next grid combination, last key fastest.
    more = false;
    for (std::size_t g = grid.size(); g-- > 0;) {
      if (++odometer[g] < grid[g].values.size()) {
        more = true;
        break;
      }
      odometer[g] = 0;
    }
  }
  if (!problems.empty()) throw ScenarioError(std::move(problems));
  for (const auto& p : spec.points) spec.dynamics = spec.dynamics || scenario::has_dynamics(p.scenario.scenario);
  return spec;
}

}  // namespace pssim::sweep
