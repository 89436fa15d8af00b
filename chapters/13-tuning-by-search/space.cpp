// SPDX-License-Identifier: Apache-2.0
// Chapter 13's configuration space (space.hpp): chapter 09's configure() asked of every
// configuration, so that what the chapter lists as pruned is what the launcher refuses.
#include "space.hpp"

#include "chunk_grid.hpp"

namespace normlab::ch13 {

namespace configured = kernels::configured;

kernels::configured::Problem contiguous_problem(Op op, std::int64_t rows, std::int64_t cols,
                                                DType dtype) {
  const auto element = static_cast<std::int64_t>(size_of(dtype));
  // Rows follow one another (stride = cols) from an aligned base: the base's address is 0 here.
  const bool aligned = cols * element % kernels::kChunkBytes == 0;
  return {.rows = rows,
          .cols = cols,
          .element_bytes = static_cast<int>(element),
          .aligned = aligned,
          .chunks = kernels::most_chunks(nullptr, cols, cols, element),
          .add = is_add(op),
          .centre = is_layernorm(op)};
}

// [space]
std::vector<Place> space_at(const configured::Problem& p) {
  constexpr std::string_view kRefused = "refused: ";
  std::vector<Place> places;
  for (int i = 0; i < configured::kConfigCount; ++i) {
    Place place{.config = i, .held = configured::chunks_held(configured::kConfigs[i])};
    const std::string why = configured::configure(i, p).why;
    if (!why.empty())
      place.pruned_why = why.substr(why.rfind(kRefused, 0) == 0 ? kRefused.size() : 0);
    places.push_back(std::move(place));
  }
  return places;
}
// [space]

std::string rules_pick(const configured::Problem& p) {
  const configured::Choice choice = configured::choose(p);
  return std::string(configured::kConfigs[choice.config].name) + " (" + choice.why + ")";
}

}  // namespace normlab::ch13
