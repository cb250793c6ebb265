#include "sim/scenario/yaml_writer.hpp"

#include <sstream>

#include <yaml-cpp/yaml.h>

namespace pssim::scenario {
namespace {

bool all_scalars(const ConfigNode& seq) {
  for (const auto& item : seq.items())
    if (!item.is_scalar()) return false;
  return true;
}

void emit(YAML::Emitter& out, const ConfigNode& node, bool flow = false) {
  switch (node.kind()) {
    case ConfigNode::Kind::Null: out << YAML::Null; break;
    case ConfigNode::Kind::Scalar:
      if (node.quoted()) out << YAML::DoubleQuoted;
      out << node.text();
      break;
    case ConfigNode::Kind::Sequence:
      if (flow || all_scalars(node)) out << YAML::Flow;
      out << YAML::BeginSeq;
      for (const auto& item : node.items()) emit(out, item, flow);
      out << YAML::EndSeq;
      break;
    case ConfigNode::Kind::Map:
      if (flow || node.entries().empty()) out << YAML::Flow;
      out << YAML::BeginMap;
      for (const auto& e : node.entries()) {
        out << YAML::Key << e.key << YAML::Value;
        emit(out, e.value, flow);
      }
      out << YAML::EndMap;
      break;
  }
}

}  // namespace

std::string to_flow_yaml(const ConfigNode& node) {
  YAML::Emitter out;
  emit(out, node, true);
  return out.c_str();
}

std::string to_yaml(const ConfigNode& root, const std::string& header) {
  YAML::Emitter out;
  emit(out, root);
  std::ostringstream text;
  std::istringstream lines(header);
  for (std::string line; std::getline(lines, line);) text << "# " << line << '\n';
  text << out.c_str() << '\n';
  return text.str();
}

}  // namespace pssim::scenario
