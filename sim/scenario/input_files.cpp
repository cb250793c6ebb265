#include "sim/scenario/input_files.hpp"

#include <sys/stat.h>

#include <ctime>
#include <filesystem>
#include <string_view>

#include <fmt/format.h>

#include "models/data/image_dataset.hpp"
#include "models/data/text_corpus.hpp"
#include "sim/scenario/sha256.hpp"

namespace pssim::scenario {
namespace {

namespace fs = std::filesystem;

const SourceLocation kWritten{"written by pssim", 0, 0};

// "path/to/file.py:function" -> "path/to/file.py".
std::string module_file(const std::string& reference) { return reference.substr(0, reference.rfind(':')); }

void add_hashed(std::vector<InputFile>& out, const char* key, const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return;
  InputFile f;
  f.key = key;
  f.path = path;
  f.sha256 = sha256_of_file(path);
  out.push_back(std::move(f));
}

struct Stamp {
  std::uintmax_t bytes = 0;
  timespec modified{};
};

bool stamp_of(const std::string& path, Stamp& s) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  s.bytes = static_cast<std::uintmax_t>(st.st_size);
  s.modified = st.st_mtim;
  return true;
}

std::string utc(const timespec& t) {
  std::tm tm{};
  ::gmtime_r(&t.tv_sec, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:09}Z", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                     tm.tm_hour, tm.tm_min, tm.tm_sec, t.tv_nsec);
}

bool later(const timespec& a, const timespec& b) {
  return a.tv_sec != b.tv_sec ? a.tv_sec > b.tv_sec : a.tv_nsec > b.tv_nsec;
}

// One entry for `files`, read as the data set at `path`.
void add_stamped(std::vector<InputFile>& out, const std::string& path, const std::vector<std::string>& files) {
  InputFile f;
  f.key = "data";
  f.path = path;
  f.files = 0;
  timespec newest{};
  for (const auto& file : files) {
    Stamp s;
    if (!stamp_of(file, s)) continue;
    f.bytes += s.bytes;
    ++f.files;
    if (later(s.modified, newest)) newest = s.modified;
  }
  if (f.files == 0) return;
  f.modified = utc(newest);
  out.push_back(std::move(f));
}

ConfigNode text(const std::string& value, bool quoted = false) { return ConfigNode::scalar(value, kWritten, quoted); }

}  // namespace

std::vector<InputFile> input_files(const Scenario& s, const ConfigNode& resolved) {
  std::vector<InputFile> out;
  if (const ConfigNode* events = resolved.find("events_file")) add_hashed(out, "events_file", events->text());
  if (s.model.torch && !s.model.torch->module.empty())
    add_hashed(out, "model.module", module_file(s.model.torch->module));
  if (!s.data.present) return out;
  const auto& data = s.data.spec;
  if (data.kind == "torch" && !data.path.empty()) {
    add_hashed(out, "data.module", module_file(data.path));
  } else if (data.kind == "fashion-mnist" || data.kind == "mnist") {
    for (const auto& file : models::mnist_dir_files(data.path)) add_stamped(out, file, {file});
  } else if (data.kind == "corpus") {
    const std::string path = data.corpus.path.empty() ? models::kDefaultCorpusDir : data.corpus.path;
    std::error_code ec;
    if (!fs::exists(path, ec)) return out;
    std::vector<std::string> files;
    for (const auto& f : models::corpus_files(data.corpus.path)) files.push_back(f.string());
    add_stamped(out, path, files);
  }
  return out;
}

ConfigNode inputs_node(const std::vector<InputFile>& files) {
  ConfigNode list = ConfigNode::sequence(kWritten);
  for (const auto& f : files) {
    ConfigNode entry = ConfigNode::map(kWritten);
    entry.set("key", kWritten, text(f.key));
    entry.set("path", kWritten, text(f.path, true));
    if (!f.sha256.empty()) {
      entry.set("sha256", kWritten, text(f.sha256, true));
    } else {
      if (f.files > 1) entry.set("files", kWritten, text(std::to_string(f.files)));
      entry.set("bytes", kWritten, text(std::to_string(f.bytes)));
      entry.set("modified", kWritten, text(f.modified, true));  // quoted: not a YAML timestamp
    }
    list.items().push_back(std::move(entry));
  }
  return list;
}

}  // namespace pssim::scenario
