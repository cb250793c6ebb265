// Housekeeping of an output directory before a writer fills it.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace pssim::output {

/// Removes, for each of `names`, the file dir/name and the temporaries AtomicFile leaves
/// when its process is killed before commit ("<name>.tmp.<pid>.<n>"); other files are
/// left alone. Call only while holding the directory's lock (directory_lock.hpp): a live
/// writer's temporaries look the same. Files are removed in the order given.
void remove_outputs(const std::filesystem::path& dir, const std::vector<std::string>& names);

/// Throws std::invalid_argument when `input` (a file the writer reads, such as the
/// scenario) is one of the files dir/name it is about to replace: `pssim run
/// DIR/scenario.yaml -o DIR` would otherwise overwrite its own scenario with the resolved
/// one. An input that does not exist, or an output not yet there, is no conflict.
void check_not_an_output(const std::filesystem::path& input, const std::filesystem::path& dir,
                         const std::vector<std::string>& names);

}  // namespace pssim::output
