#include "sim/schemes/ps_schemes.hpp"

#include <fmt/format.h>

#include "sim/ps/ps_protocol.hpp"
#include "sim/scenario/validate.hpp"

namespace pssim::schemes {

std::unique_ptr<protocol::TrainingProtocol> make_ps(BuildContext& c, std::unique_ptr<ps::SchemePolicy> policy) {
  return std::make_unique<ps::PsProtocol>(c.sim, c.transport, c.compute, std::move(c.config), std::move(c.layout),
                                          std::move(policy), c.observer, c.math);
}

std::vector<scenario::Field> overlap_fields(std::vector<scenario::Field> fields, std::string_view no_full) {
  using scenario::enumeration;
  using scenario::omittable;
  using scenario::optional;
  fields.push_back(optional(
      "overlap", enumeration({"none", "backward", "full"}), "none",
      std::string("When messages leave relative to the computation, which runs forward through the layers, then "
                  "backward from the last (each layer's step takes its share of the iteration's FLOPs: "
                  "`model.layer_flops`, or counted from a real network's shapes). `none`: the whole iteration, then "
                  "every push. `backward` (wait-free backpropagation, Poseidon / TensorFlow): each layer's gradient "
                  "leaves as soon as its backward step ends. `full`: besides, layer l's forward step starts as soon "
                  "as every piece of layer l's parameters has arrived") +
          (no_full.empty() ? std::string() : fmt::format(" (not modelled here: it {})", no_full)) +
          ". The math is the same in every mode."));
  fields.push_back(optional(
      "schedule", enumeration({"fifo", "priority"}), "fifo",
      "How messages in flight share the network. `fifo`: every piece leaves when it is produced and shares each "
      "link max-min fairly with all others (a fluid model: a small piece produced late is not stuck behind a large "
      "one, as it would be in one TCP connection's queue). `priority` (P3, ByteScheduler): strict priority by layer, the input "
      "layer first: at a link shared by pieces of several layers, the nearest the input take all the bandwidth "
      "they can use, the rest share what is left (max-min within a layer). Strict priority rather than weights "
      "because the next forward pass needs the first layers first and weights would still share the bandwidth "
      "with the last ones; with partition_bytes it is close to the preemptive per-piece order of those systems."));
  fields.push_back(omittable(
      "partition_bytes", scenario::scalar_above(scenario::ValueType::Bytes, 0, 1e15),
      "Cut each layer's part of a shard's message into pieces of at most this size (BytePS: 4MB), each a flow of "
      "its own. Absent: one piece per layer and shard. With overlap none and schedule fifo, absent means whole "
      "messages (as before)."));
  return fields;
}

void read_overlap(const scenario::ConfigNode& node, protocol::ProtocolConfig& out, std::string_view no_full) {
  if (const scenario::ConfigNode* overlap = node.find("overlap")) {
    const std::string& mode = scenario::as_text(*overlap);
    out.overlap = mode == "full"       ? protocol::Overlap::Full
                  : mode == "backward" ? protocol::Overlap::Backward
                                       : protocol::Overlap::None;
    if (out.overlap == protocol::Overlap::Full && !no_full.empty())
      throw scenario::ScenarioError(overlap->location(),
                                    fmt::format("overlap full {}: protocol {} supports overlap none or backward",
                                                no_full, scenario::as_text(node.at("mode"))));
  }
  if (const scenario::ConfigNode* schedule = node.find("schedule"))
    out.schedule = scenario::as_text(*schedule) == "priority" ? protocol::Schedule::Priority : protocol::Schedule::Fifo;
  if (const scenario::ConfigNode* bytes = node.find("partition_bytes")) out.partition_bytes = scenario::as_bytes(*bytes);
}

}  // namespace pssim::schemes
