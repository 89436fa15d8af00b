// SPDX-License-Identifier: Apache-2.0
/// @file tuned_table.hpp
/// @brief The tables `normlab tune` writes and the chooser reads: for one GPU, per op, dtype,
/// rows and cols of a grid, every candidate kernel that passed its float64 check, fastest first,
/// with its time.
///
/// A table is a text file, one grid point a line, tab-separated:
///   op  dtype  rows  cols  family/config=ms family/config=ms ...   (fastest first)
/// after header lines "# key<TAB>value" (device, copy_roof_gbps, date, ...). Its name is the
/// device's and its copy roof's: nvidia-h200.4400GBps.tsv.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "normlab/dtype.hpp"
#include "normlab/ops.hpp"

namespace normlab::dispatch {

struct TunedTime {
  std::string candidate;  ///< a candidate's key, "family/config" (candidates.hpp)
  double ms = 0.0;        ///< its median time at the grid point
};

struct TunedEntry {
  Op op = Op::rmsnorm;
  DType dtype = DType::bf16;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::vector<TunedTime> ranking;  ///< fastest first
};

struct TunedTable {
  std::string name;    ///< the file's name, e.g. nvidia-h200.4400GBps.tsv
  std::string device;  ///< the GPU's name as CUDA reports it
  double copy_roof_gbps = 0.0;
  std::vector<std::pair<std::string, std::string>> header;  ///< every "# key value" line
  std::vector<TunedEntry> entries;

  /// The value of header line @p key, or empty.
  std::string header_value(std::string_view key) const;
};

/// Parses a table's text. Throws std::runtime_error naming @p name and the line when a line is
/// malformed (an unknown op or dtype, a bad number, a ranking not fastest first).
TunedTable parse_tuned_table(std::string_view text, std::string name);

/// The text of @p table, as parse_tuned_table reads it.
std::string format_tuned_table(const TunedTable& table);

/// "NVIDIA H200" -> "nvidia-h200": lower case, every run of other characters one '-'.
std::string device_slug(std::string_view device_name);

/// The file name of a table for @p device_name with copy roof @p copy_roof_gbps (rounded to
/// 100 GB/s): "nvidia-h200.4400GBps.tsv".
std::string tuned_table_file_name(std::string_view device_name, double copy_roof_gbps);

/// Grid points this far apart in log2 of the columns are too far apart to stand for each other.
inline constexpr double kFarthestColumnOctaves = 1.0;

/// The chooser's pick from @p table for an @p op call in @p dtype of @p rows x @p cols: the
/// nearest entry of that op and dtype (columns count four times rows, in log2; entries more
/// than kFarthestColumnOctaves away in columns are not near) in whose ranking some candidate
/// @p takes the call, and the first such candidate of its ranking (@p takes is given its key).
/// Nullopt when no near entry has one.
struct TunedPick {
  const TunedEntry* entry = nullptr;
  std::size_t index = 0;  ///< into entry->ranking
};
std::optional<TunedPick> nearest_pick(const TunedTable& table, Op op, DType dtype,
                                      std::int64_t rows, std::int64_t cols,
                                      const std::function<bool(const std::string&)>& takes);

/// Where `normlab tune` writes and the chooser looks first: $NORMLAB_TUNED_DIR, else
/// $XDG_CACHE_HOME/normlab/tuned, else $HOME/.cache/normlab/tuned (empty when none is set).
std::string user_tuned_directory();

/// The path of the table for a GPU called @p device_name in directory @p dir: the first by name
/// that starts with its slug and a '.' and ends in .tsv; empty when there is none (or no @p dir).
std::string tuned_table_file_in(const std::string& dir, std::string_view device_name);

/// The tables compiled into the library (kernels/tuned/*.tsv), as (file name, text).
struct EmbeddedTable {
  const char* name;
  const char* text;
};
std::span<const EmbeddedTable> embedded_tuned_tables();

/// The table for a GPU called @p device_name: tuned_table_file_in(user_tuned_directory()), else
/// the first compiled into the library whose name starts with its slug and a '.', else null. Read
/// once per device name and kept. Throws std::runtime_error when that file cannot be parsed (naming
/// it).
const TunedTable* tuned_table_for(const std::string& device_name);

/// The table in the file @p path (normlab explain --table). Throws std::runtime_error.
TunedTable read_tuned_table(const std::string& path);

}  // namespace normlab::dispatch
