// The scheme registry: every training scheme a scenario can name, in one table.
//
// Each entry (scheme.hpp) is defined in the scheme's own file and listed once in
// registry.cpp, in documentation order. The schema of the `protocol` section and the
// reference page come from the entries' keys; the scenario layer checks settings against
// their capabilities; the experiment builds the entry's protocol and rules. The switch on
// a scheme's name happens here only: an unknown name is an error, never another scheme.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "sim/schemes/scheme.hpp"

namespace pssim::schemes {

/// Every scheme, in documentation order.
const std::vector<Scheme>& all();
/// The scheme called `name`; throws std::invalid_argument listing the names.
const Scheme& find(const std::string& name);
/// The scheme a scenario without protocol.mode runs.
const Scheme& default_scheme();

/// "async and ssp": the names of the schemes for which `has` holds, joined for a message
/// (`last` joins the last two: "and", "or").
std::string names_where(const std::function<bool(const Scheme&)>& has, const char* last = "and");

/// The schema of the scenario's `protocol` section: a variant on `mode`.
scenario::SchemaPtr protocol_schema();

/// The schemes as JSON for tools (`pssim schema --schemes`, analysis/schemes.py): the
/// default's name and, per scheme, its name, label, layout and capabilities.
std::string schemes_json();

/// The scheme's protocol: the entry's factory, with has_rounds set from the entry.
std::unique_ptr<protocol::TrainingProtocol> build(const Scheme& scheme, BuildContext context);

/// Where the parameters live under `scheme`: shards and their hosts, and the all-reduced
/// part. Throws std::invalid_argument when the model cannot be laid out so (more shards
/// than parameters, layers or table rows; no embedding table for a hybrid).
ps::PsLayout make_layout(const Scheme& scheme, const protocol::ProtocolConfig& protocol, const LayoutInputs& in);

}  // namespace pssim::schemes
