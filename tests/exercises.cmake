# SPDX-License-Identifier: Apache-2.0
# Exercises, beyond what course.json registers (graders, meta tests, speed tests, the solutions'
# SASS checks and sanitizer runs).
#
# test_exercises checks every exercises/exNN-slug against solutions/exNN-slug: TODO(exNN)
# regions well formed, a README, the same files, identical outside the regions; and that
# exercises/README.md lists every exercise. A student copy has no solutions/ to check against.
if(EXISTS ${PROJECT_SOURCE_DIR}/solutions)
  normlab_add_test(NAME test_exercises KIND cpu SOURCES cpu/test_exercises.cpp LABELS exercises)
  target_compile_definitions(test_exercises PRIVATE NORMLAB_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
endif()
