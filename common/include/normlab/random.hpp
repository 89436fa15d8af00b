/// @file random.hpp
/// @brief Seeded random inputs. Never all zeros: zeros hide unwritten outputs and bad indexing.
#pragma once

#include <cstdint>

#include "normlab/host_matrix.hpp"

namespace normlab {

enum class Distribution {
  normal,        ///< N(mean, scale^2)
  uniform,       ///< uniform with mean @p mean and standard deviation @p scale (shifted rows)
  heavy_tailed,  ///< N(mean, scale^2) with about 1% outliers of 20 to 100 times the scale
};

/// What to fill a tensor with.
struct InputSpec {
  Distribution distribution = Distribution::normal;
  double mean = 0.0;
  double scale = 1.0;
  std::uint64_t seed = 1;
};

/// Fills the rows x cols elements of @p matrix (not its guard bands), rounded to its dtype.
/// The same spec and shape always give the same values; no row comes out all zeros.
void fill_random(HostMatrix& matrix, const InputSpec& spec);

/// Parses "normal", "uniform" or "heavy"; throws std::invalid_argument otherwise.
Distribution parse_distribution(const char* text);

}  // namespace normlab
