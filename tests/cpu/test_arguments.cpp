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
