// SPDX-License-Identifier: Apache-2.0
// The tuned tables (tuned_table.hpp): reading, writing, finding the one for a GPU, and the
// nearest grid point that has a kernel for a call.
#include "tuned_table.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include "normlab/command_line.hpp"

namespace normlab::dispatch {

namespace {

[[noreturn]] void refuse_line(const std::string& name, int line, const std::string& why) {
  throw std::runtime_error("tuned table " + name + ", line " + std::to_string(line) + ": " + why);
}

std::int64_t whole_number(std::string_view text, const char* field, const std::string& name,
                          int line) {
  try {
    return parse_integer(text, field, 1);
  } catch (const std::invalid_argument& error) {
    refuse_line(name, line, error.what());
  }
}

double milliseconds(std::string_view text, const std::string& name, int line) {
  const std::string copy(text);
  char* end = nullptr;
  const double value = std::strtod(copy.c_str(), &end);
  if (copy.empty() || end != copy.c_str() + copy.size() || !std::isfinite(value) || value <= 0)
    refuse_line(name, line, "'" + copy + "' is not a positive time in milliseconds");
  return value;
}

TunedEntry entry_of(std::string_view text, const std::string& name, int line) {
  const std::vector<std::string_view> fields = split(text, '\t');
  if (fields.size() != 5) refuse_line(name, line, "expected 5 tab-separated fields");
  TunedEntry entry;
  try {
    entry.op = parse_op(fields[0]);
    entry.dtype = parse_dtype(fields[1]);
  } catch (const std::invalid_argument& error) {
    refuse_line(name, line, error.what());
  }
  if (entry.op == Op::copy) refuse_line(name, line, "not a norm op");
  entry.rows = whole_number(fields[2], "rows", name, line);
  entry.cols = whole_number(fields[3], "cols", name, line);
  for (const std::string_view timed : split(fields[4], ' ')) {
    const std::size_t equals = timed.find('=');
    if (equals == std::string_view::npos || equals == 0)
      refuse_line(name, line, "expected family/config=ms, got '" + std::string(timed) + "'");
    entry.ranking.push_back(
        {std::string(timed.substr(0, equals)), milliseconds(timed.substr(equals + 1), name, line)});
    if (entry.ranking.size() > 1 && entry.ranking.back().ms < entry.ranking.end()[-2].ms)
      refuse_line(name, line, "the ranking is not fastest first");
  }
  return entry;
}

std::string text_of_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read tuned table " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string getenv_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

}  // namespace

std::string TunedTable::header_value(std::string_view key) const {
  for (const auto& [k, v] : header) {
    if (k == key) return v;
  }
  return {};
}

TunedTable parse_tuned_table(std::string_view text, std::string name) {
  TunedTable table;
  table.name = std::move(name);
  int number = 0;
  for (std::string_view line : split(text, '\n')) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    if (line.front() == '#') {
      line.remove_prefix(1);
      while (!line.empty() && line.front() == ' ')
        line.remove_prefix(1);
      const std::size_t tab = line.find('\t');
      if (tab == std::string_view::npos) continue;  // a comment
      table.header.emplace_back(std::string(line.substr(0, tab)),
                                std::string(line.substr(tab + 1)));
      continue;
    }
    table.entries.push_back(entry_of(line, table.name, number));
  }
  table.device = table.header_value("device");
  if (table.device.empty()) refuse_line(table.name, 1, "no '# device' header line");
  if (const std::string roof = table.header_value("copy_roof_gbps"); !roof.empty())
    table.copy_roof_gbps = milliseconds(roof, table.name, 1);  // any positive number
  return table;
}

std::string format_tuned_table(const TunedTable& table) {
  std::string text;
  for (const auto& [key, value] : table.header)
    text += "# " + key + "\t" + value + "\n";
  for (const TunedEntry& entry : table.entries) {
    text += std::string(name_of(entry.op)) + "\t" + name_of(entry.dtype) + "\t" +
            std::to_string(entry.rows) + "\t" + std::to_string(entry.cols) + "\t";
    for (std::size_t i = 0; i < entry.ranking.size(); ++i) {
      char ms[32];
      std::snprintf(ms, sizeof ms, "%.5g", entry.ranking[i].ms);
      text += (i == 0 ? "" : " ") + entry.ranking[i].candidate + "=" + ms;
    }
    text += "\n";
  }
  return text;
}

std::string device_slug(std::string_view device_name) {
  std::string slug;
  for (const char c : device_name) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      slug += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!slug.empty() && slug.back() != '-') {
      slug += '-';
    }
  }
  while (!slug.empty() && slug.back() == '-')
    slug.pop_back();
  return slug.empty() ? "gpu" : slug;
}

std::string tuned_table_file_name(std::string_view device_name, double copy_roof_gbps) {
  const long hundreds = std::lround(copy_roof_gbps / 100.0);
  return device_slug(device_name) + "." + std::to_string(hundreds * 100) + "GBps.tsv";
}

// [nearest]
std::optional<TunedPick> nearest_pick(const TunedTable& table, Op op, DType dtype,
                                      std::int64_t rows, std::int64_t cols,
                                      const std::function<bool(const std::string&)>& takes) {
  struct Near {
    double distance;
    const TunedEntry* entry;
  };
  std::vector<Near> near;
  const auto octaves = [](std::int64_t a, std::int64_t b) {
    return std::abs(std::log2(static_cast<double>(std::max<std::int64_t>(a, 1)) /
                              static_cast<double>(std::max<std::int64_t>(b, 1))));
  };
  for (const TunedEntry& entry : table.entries) {
    if (entry.op != op || entry.dtype != dtype) continue;
    const double column_octaves = octaves(entry.cols, cols);
    if (column_octaves > kFarthestColumnOctaves) continue;
    near.push_back({column_octaves + octaves(entry.rows, rows) / 4.0, &entry});
  }
  std::stable_sort(near.begin(), near.end(),
                   [](const Near& a, const Near& b) { return a.distance < b.distance; });
  for (const Near& n : near) {
    for (std::size_t i = 0; i < n.entry->ranking.size(); ++i) {
      if (takes(n.entry->ranking[i].candidate)) return TunedPick{n.entry, i};
    }
  }
  return std::nullopt;
}
// [nearest]

std::string user_tuned_directory() {
  if (std::string dir = getenv_or_empty("NORMLAB_TUNED_DIR"); !dir.empty()) return dir;
  if (std::string cache = getenv_or_empty("XDG_CACHE_HOME"); !cache.empty())
    return cache + "/normlab/tuned";
  if (std::string home = getenv_or_empty("HOME"); !home.empty())
    return home + "/.cache/normlab/tuned";
  return {};
}

std::string tuned_table_file_in(const std::string& dir, std::string_view device_name) {
  const std::string prefix = device_slug(device_name) + ".";
  std::error_code error;
  if (dir.empty() || !std::filesystem::is_directory(dir, error)) return {};
  std::vector<std::string> found;
  for (const auto& file : std::filesystem::directory_iterator(dir, error)) {
    const std::string name = file.path().filename().string();
    if (name.starts_with(prefix) && name.ends_with(".tsv")) found.push_back(file.path().string());
  }
  std::sort(found.begin(), found.end());
  return found.empty() ? std::string() : found.front();
}

TunedTable read_tuned_table(const std::string& path) {
  return parse_tuned_table(text_of_file(path), std::filesystem::path(path).filename().string());
}

const TunedTable* tuned_table_for(const std::string& device_name) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<const TunedTable>> kept;
  const std::lock_guard<std::mutex> lock(mutex);
  if (const auto found = kept.find(device_name); found != kept.end()) return found->second.get();
  const std::string prefix = device_slug(device_name) + ".";
  std::unique_ptr<const TunedTable> table;
  if (const std::string path = tuned_table_file_in(user_tuned_directory(), device_name);
      !path.empty()) {
    table = std::make_unique<const TunedTable>(read_tuned_table(path));
  }
  if (table == nullptr) {
    for (const EmbeddedTable& embedded : embedded_tuned_tables()) {
      if (std::string_view(embedded.name).starts_with(prefix)) {
        table = std::make_unique<const TunedTable>(parse_tuned_table(embedded.text, embedded.name));
        break;
      }
    }
  }
  return kept.emplace(device_name, std::move(table)).first->second.get();
}

}  // namespace normlab::dispatch
