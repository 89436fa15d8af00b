# Exercises: the structure test (CPU) and one grader per exercise (GPU).
#
# test_exercises checks every exercises/exNN-slug against solutions/exNN-slug: TODO(exNN)
# regions well formed, a README, the same files, identical outside the regions; and that
# exercises/README.md lists every exercise.
normlab_add_test(NAME test_exercises KIND cpu SOURCES cpu/test_exercises.cpp LABELS exercises)
target_compile_definitions(test_exercises PRIVATE NORMLAB_SOURCE_DIR="${PROJECT_SOURCE_DIR}")

# Each grader builds twice (grade_exNN: the student's copy, grade_exNN_solution) and the
# untouched skeleton must be rejected (meta_exNN_skeleton_rejected).
normlab_add_grader(EXERCISE 01 SLUG layernorm-thread-per-row
  GRADER ${CMAKE_CURRENT_SOURCE_DIR}/graders/ex01.cpp SOURCES ex01.cu)
normlab_add_grader(EXERCISE 02 SLUG block-tree-moments
  GRADER ${CMAKE_CURRENT_SOURCE_DIR}/graders/ex02.cpp SOURCES ex02.cu)
normlab_add_grader(EXERCISE 03 SLUG warp-reductions
  GRADER ${CMAKE_CURRENT_SOURCE_DIR}/graders/ex03.cpp SOURCES ex03.cu)
# ex03's grader also runs warp_sum and block_sum directly, in its own test kernels.
foreach(target grade_ex03 grade_ex03_solution)
  target_sources(${target} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/graders/ex03_probes.cu)
endforeach()
normlab_add_grader(EXERCISE 04 SLUG vector-tail
  GRADER ${CMAKE_CURRENT_SOURCE_DIR}/graders/ex04.cpp SOURCES ex04.cu)

# The solutions compile to what their chapters teach: shuffles (ex03); 16-byte accesses with
# the row in registers, not in local memory (ex04).
normlab_add_sass_test(NAME sass_ex03_solution TARGET grade_ex03_solution
  FUNCTION rmsnorm_warp_shuffle REQUIRE "SHFL\\.BFLY" FORBID "LDL|STL" LABELS ex03 solutions)
normlab_add_sass_test(NAME sass_ex04_solution TARGET grade_ex04_solution
  FUNCTION rmsnorm_vector_tail REQUIRE "LDG\\.E\\.128" "STG\\.E\\.128" FORBID "LDL|STL"
  LABELS ex04 solutions)

# compute-sanitizer memcheck and racecheck on the solutions, on a few small odd shapes (the
# graders' hidden test cases tagged [.sanitize]).
foreach(exercise 01 02 03 04)
  normlab_add_sanitizer_tests(PROGRAM grade_ex${exercise}_solution
    LABELS ex${exercise} solutions ARGS [sanitize])
endforeach()
