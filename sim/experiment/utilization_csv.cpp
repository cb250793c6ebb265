#include "sim/experiment/utilization_csv.hpp"

#include <string>
#include <vector>

#include "sim/output/csv_writer.hpp"

namespace pssim::experiment {

void write_link_utilization(const std::filesystem::path& path, const net::FlowNetwork& network) {
  output::CsvWriter csv(path, {"time_s", "link", "utilization"});
  const auto& recorded = network.recorded_resources();
  const auto& series = network.link_utilization();
  std::vector<std::string> names;
  for (net::ResourceId r : recorded) names.push_back(output::CsvWriter::format_text(network.topology().resource_name(r)));
  for (std::size_t b = 0; b < series.bins(); ++b) {
    const std::string start = output::CsvWriter::format(to_seconds(series.bin_start(b)));
    for (std::size_t i = 0; i < recorded.size(); ++i) {
      csv.formatted_cell(start).formatted_cell(names[i]).cell(static_cast<double>(series.at(b, i)));
      csv.end_row();
    }
  }
  csv.commit();
}

}  // namespace pssim::experiment
