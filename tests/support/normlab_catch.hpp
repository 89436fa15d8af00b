// SPDX-License-Identifier: Apache-2.0
// Catch2 for normlab's tests, whichever generation the distribution ships: 2.13 (Debian 12,
// Ubuntu 22.04: one header) or 3.x (Debian 13, Ubuntu 24.04: a library). tests/CMakeLists.txt
// finds one and defines NORMLAB_CATCH2_MAJOR. The tests are written against this header and
// use, beyond the macros both generations share, only the names mapped below:
//   Approx                 a floating-point comparison (Catch::Approx in 3)
//   Catch::Contains(text)  a string matcher for CHECK_THAT / REQUIRE_THROWS_WITH
//                          (Catch::Matchers::ContainsSubstring in 3)
//   Catch::StartsWith(text) a string matcher (Catch::Matchers::StartsWith in 3)
//   Catch::Session         the test runner, for tests/support/catch_main.cpp, which defines
//                          NORMLAB_CATCH_MAIN before including this header.
#pragma once

#if NORMLAB_CATCH2_MAJOR == 2
#ifdef NORMLAB_CATCH_MAIN
#define CATCH_CONFIG_RUNNER
#endif
#include <catch2/catch.hpp>

#elif NORMLAB_CATCH2_MAJOR == 3
#include <catch2/catch_all.hpp>

#include <string>

using Catch::Approx;

namespace Catch {
inline Matchers::StringContainsMatcher Contains(const std::string& text) {
  return Matchers::ContainsSubstring(text);
}
inline Matchers::StartsWithMatcher StartsWith(const std::string& text) {
  return Matchers::StartsWith(text);
}
}  // namespace Catch

#else
#error "NORMLAB_CATCH2_MAJOR must be 2 or 3 (set by tests/CMakeLists.txt)"
#endif
