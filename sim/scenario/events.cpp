#include "sim/scenario/events.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <ostream>
#include <sstream>
#include <unordered_map>

#include <fmt/format.h>

#include "sim/scenario/units.hpp"
#include "sim/scenario/validate.hpp"

namespace pssim::scenario {
namespace {

using Kind = EventSpec::Kind;

[[noreturn]] void fail(const SourceLocation& at, std::string message) { throw ScenarioError(at, std::move(message)); }

bool is_worker_event(Kind k) { return k == Kind::WorkerCrash || k == Kind::WorkerRecover || k == Kind::WorkerSpeed; }
bool is_server_event(Kind k) { return k == Kind::ServerCrash || k == Kind::ServerRecover; }
bool is_crash(Kind k) { return k == Kind::WorkerCrash || k == Kind::ServerCrash; }

// "worker-12" -> 12 when `name` is prefix-<n>, n written without leading zeros (the
// names pssim gives: "worker-01" would be a second name for worker-1); -1 otherwise.
std::int64_t indexed(const std::string& name, const std::string& prefix) {
  if (name.rfind(prefix, 0) != 0 || name.size() == prefix.size() || name.size() > prefix.size() + 12) return -1;
  if (name.find_first_not_of("0123456789", prefix.size()) != std::string::npos) return -1;
  if (name[prefix.size()] == '0' && name.size() > prefix.size() + 1) return -1;
  return std::stoll(name.substr(prefix.size()));
}

// " (workers are worker-0 .. worker-3)", with "did you mean 'worker-1'?" for "worker-01".
std::string name_hint(const std::string& name, const std::string& prefix, std::int64_t count, const char* plural) {
  std::string hint = fmt::format(" ({} are {}0 .. {}{})", plural, prefix, prefix, count - 1);
  const auto digits = name.find_first_not_of('0', prefix.size());
  if (name.rfind(prefix, 0) == 0 && digits != prefix.size() && name.size() > prefix.size()) {
    const std::string plain = prefix + (digits == std::string::npos ? "0" : name.substr(digits));
    const auto i = indexed(plain, prefix);
    if (i >= 0 && i < count) hint += fmt::format("; did you mean '{}'?", plain);
  }
  return hint;
}

// The checks every event passes, wherever it was written.
void check_event(const EventSpec& e, const EventFacts& f) {
  const char* kind = to_string(e.kind);
  if (!f.all_excluded_by.empty())
    fail(e.where, fmt::format("{} with {} is not modelled: failures and speed changes cancel and re-time whole "
                              "computations, not per-layer steps",
                              kind, f.all_excluded_by));
  if (!f.network_excluded_by.empty() && e.kind != Kind::WorkerSpeed)
    fail(e.where, fmt::format("{} with {} is not modelled: failures and link changes cancel and re-time whole "
                              "messages under max-min sharing, not pieces or per-flow tcp or priority progress",
                              kind, f.network_excluded_by));
  if (is_worker_event(e.kind)) {
    const auto i = indexed(e.target, "worker-");
    if (i < 0 || i >= f.workers)
      fail(e.where, fmt::format("{} of '{}': no such worker{}", kind, e.target,
                                name_hint(e.target, "worker-", f.workers, "workers")));
  }
  if (is_server_event(e.kind)) {
    if (!f.has_servers || f.servers == 0)
      fail(e.where, fmt::format("{}: protocol {} with these servers has no server hosts to fail (all-reduce keeps "
                                "no servers; colocated shards live on the worker hosts)",
                                kind, f.scheme));
    const auto j = indexed(e.target, "server-");
    if (j < 0 || j >= f.servers)
      fail(e.where, fmt::format("{} of '{}': no such server{}", kind, e.target,
                                name_hint(e.target, "server-", f.servers, "servers")));
    if (!f.no_server_crashes.empty())
      fail(e.where, fmt::format("{} with protocol {} is not modelled: {}; use {}", kind, f.scheme,
                                f.no_server_crashes, f.server_crash_schemes));
    if (f.pull_compression)
      fail(e.where, fmt::format("{} with compression.pull is not modelled: a restored shard would not know the "
                                "workers' copies its deltas are taken against",
                                kind));
  }
  if ((e.kind == Kind::WorkerCrash || e.kind == Kind::WorkerRecover) && !f.no_worker_crashes.empty())
    fail(e.where, fmt::format("{} with protocol {} is not modelled: {}; use {}", kind, f.scheme,
                              f.no_worker_crashes, f.worker_crash_schemes));
  if ((e.kind == Kind::WorkerRecover || (e.kind == Kind::WorkerCrash && e.recover_after)) && f.pull_compression)
    fail(e.where, "a worker that recovers with compression.pull is not modelled: it lost the copy the shards' "
                  "deltas are taken against");
  if (e.kind == Kind::Link) {
    if (!e.bandwidth && !e.latency) fail(e.where, "a link event needs bandwidth, latency or both");
    const auto listed = [](const std::vector<std::string>& names, const std::string& n) {
      return std::find(names.begin(), names.end(), n) != names.end();
    };
    const auto numbered_host = [&](const std::string& n) {
      const auto w = indexed(n, "worker-"), s = indexed(n, "server-");
      return (w >= 0 && w < f.workers) || (s >= 0 && s < f.servers);
    };
    const auto known = [&](const std::string& n) {
      return listed(f.switches, n) || listed(f.hosts, n) || (f.numbered_hosts && numbered_host(n));
    };
    const auto sep = e.target.find("--");
    if (sep != std::string::npos) {
      const std::string a = e.target.substr(0, sep), b = e.target.substr(sep + 2);
      for (const auto* end : {&a, &b})
        if (!known(*end)) fail(e.where, fmt::format("link '{}': no node named '{}'", e.target, *end));
    } else {
      if (!listed(f.hosts, e.target) && !numbered_host(e.target))
        fail(e.where, fmt::format("link '{}': no such host; a link target is a host (its NIC), e.g. worker-0, or "
                                  "a link between two nodes, a--b",
                                  e.target));
    }
  }
  if (e.every && e.rate) fail(e.where, "an event is recurring (every) or Poisson-random (rate), not both");
  if (e.until && !e.recurring()) fail(e.where, "until applies to recurring (every) or Poisson (rate) events");
  if (e.until && *e.until < e.at) fail(e.where, "until is before the event's first time (at)");
}

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, ',')) out.push_back(trim(cell));
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

// A text file's lines hold no control characters (a NUL would also cut the messages that
// quote the line): the first one's column, or 0.
std::size_t control_character(const std::string& line) {
  for (std::size_t i = 0; i < line.size(); ++i) {
    const auto c = static_cast<unsigned char>(line[i]);
    if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f) return i + 1;
  }
  return 0;
}

}  // namespace

const char* to_string(EventSpec::Kind kind) {
  switch (kind) {
    case Kind::WorkerCrash: return "worker_crash";
    case Kind::WorkerRecover: return "worker_recover";
    case Kind::ServerCrash: return "server_crash";
    case Kind::ServerRecover: return "server_recover";
    case Kind::Link: return "link";
    case Kind::WorkerSpeed: return "worker_speed";
  }
  return "?";
}

EventSpec::Kind parse_event_kind(const std::string& text) {
  for (Kind k : {Kind::WorkerCrash, Kind::WorkerRecover, Kind::ServerCrash, Kind::ServerRecover, Kind::Link,
                 Kind::WorkerSpeed})
    if (text == to_string(k)) return k;
  throw UnitError(fmt::format("'{}' is not an event kind (worker_crash, worker_recover, server_crash, "
                              "server_recover, link, worker_speed)",
                              text));
}

std::vector<EventSpec> read_events(const ConfigNode& list, const EventFacts& facts) {
  std::vector<EventSpec> out;
  for (const auto& item : list.items()) {
    EventSpec e;
    e.where = item.location();
    e.kind = parse_event_kind(as_text(item.at("kind")));
    e.target = as_text(item.at("target"));
    if (const ConfigNode* n = item.find("every")) e.every = as_duration(*n);
    if (const ConfigNode* n = item.find("rate")) e.rate = as_real(*n);
    if (const ConfigNode* n = item.find("until")) e.until = as_duration(*n);
    if (const ConfigNode* n = item.find("at")) e.at = as_duration(*n);
    else if (e.every) e.at = *e.every;
    else if (!e.rate) fail(e.where, "an event needs a time: at, every (recurring) or rate (Poisson)");
    if (const ConfigNode* n = item.find("recover_after")) e.recover_after = as_duration(*n);
    if (const ConfigNode* n = item.find("bandwidth")) e.bandwidth = as_bandwidth(*n);
    if (const ConfigNode* n = item.find("latency")) e.latency = as_duration(*n);
    if (const ConfigNode* n = item.find("factor")) e.factor = as_real(*n);
    check_event(e, facts);
    out.push_back(std::move(e));
  }
  return out;
}

namespace {

// Lines of a file (a last one without a newline included): what a trace may hold.
std::size_t count_lines(std::istream& in) {
  std::size_t lines = 0;
  char last = '\n';
  std::vector<char> chunk(1 << 16);
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    const auto n = static_cast<std::size_t>(in.gcount());
    lines += static_cast<std::size_t>(std::count(chunk.begin(), chunk.begin() + static_cast<std::ptrdiff_t>(n), '\n'));
    if (n > 0) last = chunk[n - 1];
  }
  return lines + (last == '\n' ? 0 : 1);
}

}  // namespace

void read_events_file(const std::string& path, const EventFacts& facts, Timeline& into) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ScenarioError(SourceLocation{path, 0, 0}, fmt::format("cannot read the events file '{}'", path));
  into.reserve_trace(count_lines(in));
  in.clear();
  in.seekg(0);
  std::string line;
  int number = 0;
  bool header = false, latency_column = false;
  TimeNs last = 0;
  while (std::getline(in, line)) {
    ++number;
    const SourceLocation where{path, number, 1};
    // A UTF-8 byte order mark (spreadsheets write one) is not part of the header.
    if (number == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);
    if (const std::size_t column = control_character(line))
      fail({path, number, static_cast<int>(column)},
           fmt::format("control character 0x{:02x} in column {}: an events file is text (time,kind,target,value)",
                       static_cast<unsigned char>(line[column - 1]), column));
    if (trim(line).empty() || trim(line)[0] == '#') continue;
    const auto cells = split(line);
    if (!header) {
      const bool plain = cells == std::vector<std::string>{"time", "kind", "target", "value"};
      latency_column = cells == std::vector<std::string>{"time", "kind", "target", "value", "latency"};
      if (!plain && !latency_column)
        fail(where, fmt::format("the header must be time,kind,target,value (optionally ,latency), not '{}'", trim(line)));
      header = true;
      continue;
    }
    const std::size_t columns = latency_column ? 5 : 4;
    // The latency column may be left off a line that has none (4 values).
    if (cells.size() != columns && !(latency_column && cells.size() == 4))
      fail(where, fmt::format("{} values where the header has {} columns", cells.size(), columns));
    EventSpec e;
    e.where = where;
    try {
      e.at = parse_seconds_or_duration(cells[0]);
      e.kind = parse_event_kind(cells[1]);
    } catch (const std::exception& x) {
      fail(where, x.what());
    }
    if (e.at < last)
      fail(where, fmt::format("time {} s is in the past: the line before is at {} s (times must not decrease)",
                              to_seconds(e.at), to_seconds(last)));
    last = e.at;
    e.target = cells[2];
    const std::string& value = cells[3];
    const std::string latency = cells.size() > 4 ? cells[4] : std::string();
    try {
      switch (e.kind) {
        case Kind::WorkerCrash:
        case Kind::ServerCrash:
          if (!value.empty()) e.recover_after = parse_seconds_or_duration(value);
          if (e.recover_after == 0)  // as in the YAML list: a host cannot be back at once
            fail(where, fmt::format("{}: recover_after = {} is out of range: must be greater than 0s (empty: it "
                                    "does not come back)",
                                    cells[1], value));
          break;
        case Kind::WorkerRecover:
        case Kind::ServerRecover:
          if (!value.empty()) fail(where, fmt::format("{} takes no value", cells[1]));
          break;
        case Kind::Link:
          if (!value.empty()) e.bandwidth = value == "0" ? 0.0 : parse_bandwidth(value);
          if (!latency.empty()) e.latency = parse_seconds_or_duration(latency);
          break;
        case Kind::WorkerSpeed:
          e.factor = parse_number(value);
          if (!(e.factor > 0)) fail(where, "worker_speed needs a factor above 0");
          break;
      }
    } catch (const UnitError& x) {
      fail(where, fmt::format("{}: {}", cells[1], x.what()));
    }
    if (!latency.empty() && e.kind != Kind::Link) fail(where, "latency applies to link events only");
    check_event(e, facts);
    into.add_trace_line(e);
  }
  if (!header) fail(SourceLocation{path, std::max(number, 1), 1}, "the events file has no header (time,kind,target,value)");
}

void write_events_file(const std::vector<EventSpec>& events, std::ostream& out) {
  out << "time,kind,target,value,latency\n";
  for (const auto& e : events) {
    if (e.recurring()) throw std::invalid_argument("a trace holds one-shot events only");
    std::string value, latency;
    switch (e.kind) {
      case Kind::WorkerCrash:
      case Kind::ServerCrash:
        if (e.recover_after) value = fmt::format("{}", to_seconds(*e.recover_after));
        break;
      case Kind::Link:
        if (e.bandwidth) value = *e.bandwidth == 0 ? "0" : fmt::format("{}B/s", *e.bandwidth);
        if (e.latency) latency = fmt::format("{}", to_seconds(*e.latency));
        break;
      case Kind::WorkerSpeed: value = fmt::format("{}", e.factor); break;
      default: break;
    }
    out << fmt::format("{},{},{},{},{}\n", to_seconds(e.at), to_string(e.kind), e.target, value, latency);
  }
}

void check_timeline(const Timeline& timeline) {
  // Targets by number, so that a step is small (a trace may hold millions of crashes).
  std::unordered_map<std::string, std::uint32_t> target_of;
  const auto target = [&](const std::string& name) {
    return target_of.try_emplace(name, static_cast<std::uint32_t>(target_of.size())).first->second;
  };
  std::vector<bool> random_crashes;  // per target: it has recurring or Poisson crashes
  // One-shot crashes and recoveries in time order (ties: as written); a crash with
  // recover_after brings its recovery along, at its own time, ordered among ties as if
  // written right after the crash.
  struct Step {  // 24 bytes
    TimeNs time;
    std::uint32_t order;  // 2 x entry, + 1 for a crash's automatic recovery
    std::uint32_t target;
    bool crash;
  };
  if (timeline.size() >= (std::size_t{1} << 31)) throw std::length_error("more than 2^31 events");
  std::vector<Step> steps;
  for (std::size_t i = 0; i < timeline.size(); ++i) {
    const EventSpec e = timeline.entry(i);
    const bool crash = is_crash(e.kind);
    if (!crash && e.kind != Kind::WorkerRecover && e.kind != Kind::ServerRecover) continue;
    const std::uint32_t t = target(e.target);
    if (e.recurring()) {
      if (crash) random_crashes.resize(std::max<std::size_t>(random_crashes.size(), t + 1)), random_crashes[t] = true;
      continue;
    }
    const auto order = static_cast<std::uint32_t>(2 * i);
    steps.push_back({e.at, order, t, crash});
    if (crash && e.recover_after) steps.push_back({e.at + *e.recover_after, order + 1, t, false});
  }
  std::sort(steps.begin(), steps.end(),
            [](const Step& a, const Step& b) { return a.time != b.time ? a.time < b.time : a.order < b.order; });
  std::vector<int> down(target_of.size(), 0);  // per target: crashes not yet recovered
  random_crashes.resize(target_of.size());
  for (const Step& s : steps) {
    if (s.crash) {
      ++down[s.target];
    } else if (down[s.target] > 0) {
      --down[s.target];
    } else if (s.order % 2 == 0 && !random_crashes[s.target]) {  // a written recovery
      const EventSpec e = timeline.entry(s.order / 2);
      fail(e.where, fmt::format("{} of '{}' at {} s: it has not crashed (no crash of it before this time)",
                                to_string(e.kind), e.target, to_seconds(e.at)));
    }
  }
}

}  // namespace pssim::scenario
