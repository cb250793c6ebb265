// libFuzzer target: the events CSV reader (events_file) and the timeline checks.
//
// Input: one byte of options (workers, servers, scheme, pull compression: what the checks
// of an event look at), then the trace. Every input must be read into a timeline or fail
// with a ScenarioError located in the trace (file and line); anything else (another
// exception, a crash, a sanitizer report, a timeout) is a bug. A trace that reads must
// hold its lines in time order, pass or fail check_timeline the same way, and write back
// (write_events_file) to a trace that reads to as many events of the same kinds.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/memory_file.hpp"
#include "sim/scenario/events.hpp"

namespace {

using namespace pssim::scenario;
using pssim::fuzz::MemoryFile;

void check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "events invariant broken: %s\n", what);
  std::abort();
}

EventFacts facts_of(std::uint8_t options) {
  static const char* const kSchemes[] = {"sync", "async", "ssp", "allreduce", "hybrid", "local-sgd", "sync", "async"};
  EventFacts f;
  f.workers = 1 + (options & 7);
  f.scheme = kSchemes[options >> 5];
  f.has_servers = f.scheme != "allreduce";
  f.servers = f.has_servers ? (options >> 3) & 3 : 0;
  f.pull_compression = options == 0xff;
  f.switches = {"switch"};
  return f;
}

// Reads `path`: true with the timeline, false after a ScenarioError that names the file.
bool read(const std::string& path, const EventFacts& facts, Timeline& timeline) {
  try {
    read_events_file(path, facts, timeline);
    return true;
  } catch (const ScenarioError& e) {
    check(!e.diagnostics().empty(), "a ScenarioError says what is wrong");
    for (const auto& d : e.diagnostics()) {
      check(!d.message.empty(), "a diagnostic has a message");
      check(d.location.source == path, "a diagnostic names the trace");
      check(d.message.find('\0') == std::string::npos, "a message holds no NUL");
    }
    return false;
  }
}

bool timeline_ok(const Timeline& t) {
  try {
    check_timeline(t);
    return true;
  } catch (const ScenarioError&) {
    return false;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const EventFacts facts = facts_of(data[0]);
  const MemoryFile file(std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1));
  try {
    Timeline timeline;
    if (!read(file.path(), facts, timeline)) return 0;
    std::vector<EventSpec> events;
    for (std::size_t i = 0; i < timeline.size(); ++i) {
      events.push_back(timeline.entry(i));
      check(i == 0 || timeline.at(i - 1) <= timeline.at(i), "lines are in time order");
      check(events.back().where.line >= 2, "an event is on a line after the header");
    }
    const bool ok = timeline_ok(timeline);
    // What a trace reads to, written out, reads back to as many events of the same kinds.
    std::ostringstream out;
    write_events_file(events, out);
    const MemoryFile again(out.str());
    Timeline back;
    check(read(again.path(), facts, back), "a written trace reads back");
    check(back.size() == timeline.size(), "a written trace keeps every event");
    for (std::size_t i = 0; i < back.size(); ++i) {
      const EventSpec b = back.entry(i);
      check(b.kind == events[i].kind && b.target == events[i].target, "a written trace keeps kinds and targets");
    }
    check(timeline_ok(back) == ok, "a written trace checks as the original");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "unexpected exception: %s\n", e.what());
    std::abort();
  }
  return 0;
}
