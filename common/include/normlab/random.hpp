// SPDX-License-Identifier: Apache-2.0
/// @file random.hpp
/// @brief Seeded random inputs. Never all zeros: zeros hide unwritten outputs and bad indexing.
#pragma once

#include <cstdint>

#include "normlab/host_matrix.hpp"

namespace normlab {

enum class Distribution {
  normal,        ///< N(mean, scale^2); mean 0 and scale 1 unless the spec says otherwise
  shifted,       ///< N(mean, scale^2) with every value near a large mean (kShiftedMean by default):
                 ///< E[x^2] - E[x]^2 then cancels in fp32, chapter 05's failure
  uniform,       ///< uniform with mean @p mean and standard deviation @p scale (weights near 1)
  heavy_tailed,  ///< N(mean, scale^2) with about 1% outliers of 20 to 100 times the scale
};

/// The mean a "shifted" input gets when none is given: 1e4 with scale 1 leaves fp32's
/// E[x^2] - E[x]^2 (about 1e8 - 1e8) with no correct digit of the variance (1).
inline constexpr double kShiftedMean = 1e4;

/// What to fill a tensor with.
struct InputSpec {
  Distribution distribution = Distribution::normal;
  double mean = 0.0;
  double scale = 1.0;
  std::uint64_t seed = 1;
};

/// Fills the rows x cols elements of @p matrix (not its guard bands), rounded to its dtype, on
/// every CPU core. Each block of kRowsPerSeed rows draws from its own engine seeded by the
/// spec's seed and the block's index, so the values depend only on the spec and the shape,
/// never on the number of threads. No row comes out all zeros.
void fill_random(HostMatrix& matrix, const InputSpec& spec);

/// Rows that share one random engine in fill_random.
inline constexpr std::int64_t kRowsPerSeed = 64;

/// Parses "normal", "shifted" or "heavy"; throws std::invalid_argument naming @p argument
/// otherwise.
Distribution parse_distribution(const char* text, const char* argument = "distribution");
/// "normal", "shifted", "uniform" or "heavy".
const char* name_of(Distribution distribution);

}  // namespace normlab
