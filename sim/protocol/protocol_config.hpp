// The protocol section of a scenario, typed: which scheme, its own settings, and the
// timing keys of the parameter-server machinery that several schemes take.
#pragma once

#include <any>
#include <optional>
#include <string>

namespace pssim::protocol {

/// When a worker's messages leave, relative to its computation (protocol.overlap).
enum class Overlap {
  None,      ///< pull everything, compute the whole iteration, then push everything
  Backward,  ///< push each layer's gradient pieces as its backward step ends
  Full,      ///< Backward, and layer l's forward starts once every piece of layer l has arrived
};
/// How pieces in flight share the links (protocol.schedule).
enum class Schedule {
  Fifo,      ///< in the order they are produced, max-min fair among all in flight
  Priority,  ///< strict priority by layer, nearest the input first (P3, ByteScheduler)
};

struct ProtocolConfig {
  std::string scheme;  ///< protocol.mode: a name of the scheme registry (sim/schemes/registry.hpp)
  /// The scheme's own settings, of a type its file defines (sim/schemes/<name>.cpp), stored
  /// by its entry's read function; empty for a scheme without any. Read them with
  /// schemes::settings_as<T>().
  std::any settings;
  // Timing of the machinery the schemes share; each key is read by the schemes whose
  // entries list it (the defaults send whole messages after the whole computation).
  Overlap overlap = Overlap::None;        ///< messages relative to the computation
  Schedule schedule = Schedule::Fifo;     ///< how pieces share the links
  std::optional<double> partition_bytes;  ///< largest piece of a tensor; none: whole
  std::optional<double> bucket_bytes;     ///< an overlapped all-reduce's gradient buckets; none: 25 MiB
};

}  // namespace pssim::protocol
