// SPDX-License-Identifier: Apache-2.0
#include "normlab/random.hpp"

#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

#include "normlab/parallel.hpp"

namespace normlab {

namespace {

// Draws the values of one block of rows. The distributions live as long as the engine: a
// normal distribution makes its values in pairs and keeps the second for the next call.
class Sampler {
 public:
  Sampler(const InputSpec& spec, std::uint64_t seed) : spec_(spec), engine_(seed) {}

  double next() {
    switch (spec_.distribution) {
      case Distribution::normal:
      case Distribution::shifted:
        return spec_.mean + spec_.scale * normal_(engine_);
      case Distribution::uniform: {
        const double half_width = spec_.scale * std::sqrt(3.0);  // std of U(-a, a): a / sqrt(3)
        return spec_.mean + half_width * (2.0 * uniform_(engine_) - 1.0);
      }
      case Distribution::heavy_tailed: {
        const double value = spec_.scale * normal_(engine_);
        const bool outlier = uniform_(engine_) < 0.01;
        const double factor = outlier ? 20.0 + 80.0 * uniform_(engine_) : 1.0;
        return spec_.mean + value * factor;
      }
    }
    throw std::invalid_argument("fill_random: unknown distribution");
  }

 private:
  InputSpec spec_;
  std::mt19937_64 engine_;
  std::normal_distribution<double> normal_{0.0, 1.0};
  std::uniform_real_distribution<double> uniform_{0.0, 1.0};
};

// The seed of one block of rows: the spec's seed and the block index mixed (splitmix64's
// finaliser), so neighbouring blocks and neighbouring seeds give unrelated streams.
std::uint64_t block_seed(std::uint64_t seed, std::int64_t block) {
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ull * (static_cast<std::uint64_t>(block) + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

void fill_random(HostMatrix& matrix, const InputSpec& spec) {
  const std::int64_t blocks = (matrix.rows() + kRowsPerSeed - 1) / kRowsPerSeed;
  parallel_for(blocks, [&](std::int64_t block) {
    Sampler sampler(spec, block_seed(spec.seed, block));
    const std::int64_t end = std::min(matrix.rows(), (block + 1) * kRowsPerSeed);
    for (std::int64_t r = block * kRowsPerSeed; r < end; ++r) {
      bool all_zero = true;
      for (std::int64_t c = 0; c < matrix.cols(); ++c) {
        matrix.set(r, c, sampler.next());
        all_zero = all_zero && matrix.at(r, c) == 0.0;
      }
      // A row of zeros would let a kernel that writes nothing but zeros pass: never hand one
      // out.
      if (all_zero && matrix.cols() > 0) matrix.set(r, 0, spec.scale == 0.0 ? 1.0 : spec.scale);
    }
  });
}

Distribution parse_distribution(const char* text, const char* argument) {
  const std::string name(text);
  if (name == "normal") return Distribution::normal;
  if (name == "shifted") return Distribution::shifted;
  if (name == "heavy") return Distribution::heavy_tailed;
  throw std::invalid_argument(std::string("argument '") + argument + "': unknown distribution '" +
                              name + "' (expected normal, shifted or heavy)");
}

const char* name_of(Distribution distribution) {
  switch (distribution) {
    case Distribution::normal:
      return "normal";
    case Distribution::shifted:
      return "shifted";
    case Distribution::uniform:
      return "uniform";
    case Distribution::heavy_tailed:
      return "heavy";
  }
  return "unknown";
}

}  // namespace normlab
