// SPDX-License-Identifier: Apache-2.0
// Launcher argument checks name the argument that is wrong.
#include "normlab_catch.hpp"

#include <cmath>
#include <stdexcept>

#include "normlab/arguments.hpp"

TEST_CASE("bad shapes, pointers, strides and eps are refused by name", "[arguments]") {
  float storage[8];
  CHECK_THROWS_WITH(normlab::validate_shape("f", 4, 0), "f: argument 'cols' must be >= 1 (got 0)");
  CHECK_THROWS_WITH(normlab::validate_shape("f", -1, 4), Catch::Contains("'rows'"));
  CHECK_NOTHROW(normlab::validate_shape("f", 0, 4));
  CHECK_THROWS_WITH(normlab::validate_tensor("f", "x", nullptr, 2, 4, 4),
                    Catch::Contains("'x' is null"));
  CHECK_NOTHROW(normlab::validate_tensor("f", "x", nullptr, 0, 4, 4));
  CHECK_THROWS_WITH(normlab::validate_tensor("f", "y", storage, 2, 4, 3),
                    Catch::Contains("'y_stride'"));
  CHECK_THROWS_WITH(normlab::validate_eps("f", -1.0f), Catch::Contains("'eps'"));
  CHECK_THROWS_WITH(normlab::validate_eps("f", std::nanf("")), Catch::Contains("'eps'"));
  CHECK_THROWS_AS(normlab::validate_vector("f", "weight", nullptr), std::invalid_argument);
  CHECK_THROWS_WITH(normlab::validate_alignment("f", "x", storage + 1, 4, 4, 16),
                    Catch::Contains("'x'"));
  CHECK_THROWS_WITH(normlab::validate_alignment("f", "x", storage, 3, 4, 16),
                    Catch::Contains("'x_stride'"));
}

TEST_CASE("register-row, in-place, (1 + w) and alignment checks", "[arguments]") {
  using normlab::kMaxRowsOneBlockPerRow;
  CHECK_THROWS_WITH(normlab::validate_register_rows("f", 4, 17, 16), Catch::Contains("'cols'"));
  CHECK_THROWS_WITH(normlab::validate_register_rows("f", kMaxRowsOneBlockPerRow + 1, 16, 16),
                    Catch::Contains("'rows'"));
  CHECK_NOTHROW(normlab::validate_register_rows("f", kMaxRowsOneBlockPerRow, 16, 16));
  float storage[8];
  CHECK_THROWS_WITH(normlab::validate_in_place("f", storage, 8, storage, 4, "y_stride"),
                    Catch::Contains("'y_stride'"));
  CHECK_NOTHROW(normlab::validate_in_place("f", storage, 8, storage, 8, "y_stride"));
  CHECK_NOTHROW(normlab::validate_in_place("f", storage, 8, storage + 4, 4, "y_stride"));
  CHECK_THROWS_WITH(normlab::validate_no_weight_plus_one("f", true),
                    Catch::Contains("'weight_plus_one'"));
  CHECK_NOTHROW(normlab::validate_no_weight_plus_one("f", false));
  alignas(16) float aligned[8];
  CHECK(normlab::rows_are_16_byte_aligned({aligned, nullptr}, {4, 8}));
  CHECK_FALSE(normlab::rows_are_16_byte_aligned({aligned + 1}, {4}));
  CHECK_FALSE(normlab::rows_are_16_byte_aligned({aligned}, {6}));
}
