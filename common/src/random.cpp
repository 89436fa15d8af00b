#include "normlab/random.hpp"

#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

namespace normlab {

namespace {

double draw(const InputSpec& spec, std::mt19937_64& engine) {
  switch (spec.distribution) {
    case Distribution::normal:
      return std::normal_distribution<double>(spec.mean, spec.scale)(engine);
    case Distribution::uniform: {
      const double half_width = spec.scale * std::sqrt(3.0);  // std of U(-a, a) is a / sqrt(3)
      return std::uniform_real_distribution<double>(spec.mean - half_width,
                                                    spec.mean + half_width)(engine);
    }
    case Distribution::heavy_tailed: {
      const double value = std::normal_distribution<double>(0.0, spec.scale)(engine);
      const bool outlier = std::uniform_real_distribution<double>(0.0, 1.0)(engine) < 0.01;
      const double factor =
          outlier ? std::uniform_real_distribution<double>(20.0, 100.0)(engine) : 1.0;
      return spec.mean + value * factor;
    }
  }
  throw std::invalid_argument("fill_random: unknown distribution");
}

}  // namespace

void fill_random(HostMatrix& matrix, const InputSpec& spec) {
  std::mt19937_64 engine(spec.seed);
  for (std::int64_t r = 0; r < matrix.rows(); ++r) {
    bool all_zero = true;
    for (std::int64_t c = 0; c < matrix.cols(); ++c) {
      matrix.set(r, c, draw(spec, engine));
      all_zero = all_zero && matrix.at(r, c) == 0.0;
    }
    // A row of zeros would let a kernel that writes nothing but zeros pass: never hand one out.
    if (all_zero && matrix.cols() > 0) matrix.set(r, 0, spec.scale == 0.0 ? 1.0 : spec.scale);
  }
}

Distribution parse_distribution(const char* text) {
  const std::string name(text);
  if (name == "normal") return Distribution::normal;
  if (name == "uniform") return Distribution::uniform;
  if (name == "heavy" || name == "heavy_tailed") return Distribution::heavy_tailed;
  throw std::invalid_argument("argument 'distribution': unknown '" + name +
                              "' (expected normal, uniform or heavy)");
}

}  // namespace normlab
