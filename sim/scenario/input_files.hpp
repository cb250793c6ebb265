// The files a scenario reads besides its own text, with what identifies their content.
//
// The resolved scenario records them under `inputs` (load_scenario.hpp), so a result says
// which trace, module source and data it came from, and a sweep point whose files changed
// runs again (a point's identity is its resolved scenario).
//
//   events_file, model.module, data.module   `sha256`: the SHA-256 of the file, as
//                                            `sha256sum` prints it
//   data sets (key `data`): the IDX files of data.path or of Debian's Fashion-MNIST, the
//   text of data.corpus                      `bytes` and `modified` (the modification time,
//                                            UTC): hashing tens of megabytes on every run
//                                            and every sweep point would cost about 0.2 s
//                                            each; a fortune directory is one entry, with
//                                            the `files` read, their total bytes and the
//                                            latest modification
// A file that does not exist is left out: reading it reports the error.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/scenario/config_node.hpp"
#include "sim/scenario/scenario.hpp"

namespace pssim::scenario {

struct InputFile {
  std::string key;           ///< events_file, model.module, data.module or data
  std::string path;          ///< as the scenario names it (data: as read)
  std::string sha256;        ///< empty: identified by size and modification time
  std::uintmax_t bytes = 0;  ///< with `modified`
  std::size_t files = 1;     ///< more than 1: a directory of this many files read
  std::string modified;      ///< latest modification, ISO 8601 UTC with nanoseconds
};

/// The files `s` reads (`resolved`: its resolved tree, for events_file), fingerprinted now.
/// Throws std::runtime_error naming a file that exists but cannot be read.
std::vector<InputFile> input_files(const Scenario& s, const ConfigNode& resolved);

/// The resolved scenario's `inputs` list.
ConfigNode inputs_node(const std::vector<InputFile>& files);

}  // namespace pssim::scenario
