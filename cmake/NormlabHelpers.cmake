# SPDX-License-Identifier: Apache-2.0
# Helpers shared by every CMakeLists.txt of normlab.
#   normlab_target_defaults(target)          warnings, ptxas spill warnings, line info
#   normlab_add_chapter(NUMBER nn SLUG s [APART] [KERNELS lib] SOURCES ...)  chapter library +
#                                            chapter program
#   normlab_add_test(NAME n KIND cpu|gpu|multigpu SOURCES ... LIBRARIES ... LABELS ...)
#   normlab_add_grader(EXERCISE nn SLUG s [KIND cpu] GRADER g.cpp ... SOURCES ...)  exercise, solution and
#                                            pristine-skeleton graders
#   normlab_add_sanitizer_tests(PROGRAM target [NAME_SUFFIX s] [SYNCCHECK] [NCCL] [NO_RACECHECK]
#                               LABELS ... ARGS ...)
#                                            memcheck + racecheck (+ synccheck)
#   normlab_add_sass_test(NAME n TARGET lib FUNCTION regex REQUIRE ... FORBID ... LABELS ...)

option(NORMLAB_WERROR "Treat host and device compiler warnings as errors" OFF)
# OFF: with NORMLAB_WERROR, only the C++ sources' warnings are errors. The preset older-gpus
# (CI): a kernel tuned on sm_90 may spill on an older GPU, while its C++ sources compile with
# the default preset's command, so that ccache gives them the objects the default build made.
option(NORMLAB_WERROR_CUDA "With NORMLAB_WERROR, treat the CUDA sources' warnings as errors too" ON)

# Exit code with which a GPU test says "skipped: no GPU" (see tests/support/catch_main.cpp).
set(NORMLAB_SKIP_CODE 77)

function(normlab_target_defaults target)
  target_compile_options(${target} PRIVATE
    # Designated initializers may leave members at their defaults on purpose.
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wshadow -Wno-missing-field-initializers>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra,-Wno-missing-field-initializers -Xptxas=-warn-spills,-warn-lmem-usage
                               -lineinfo>)
  if(NORMLAB_WERROR)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
  endif()
  if(NORMLAB_WERROR AND NORMLAB_WERROR_CUDA)
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings -Xcompiler=-Werror>)
  endif()
endfunction()

# APART: a chapter whose library needs what the installed package does not carry (chapter 12:
# NCCL) stays out of the registry's link and the package; its tests link it themselves.
# KERNELS: the library a chapter teaches from (normlab_kernels for 07 to 10): the chapter's
# library links it and holds the rest (its registry entries, or nothing: then it is an interface
# library), and the chapter's SASS checks read it instead.
function(normlab_add_chapter)
  cmake_parse_arguments(CH "APART" "NUMBER;SLUG;KERNELS" "SOURCES" ${ARGN})
  set(lib normlab_ch${CH_NUMBER})
  if(CH_SOURCES)
    add_library(${lib} STATIC ${CH_SOURCES})
    target_include_directories(${lib} PUBLIC $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}>)
    target_link_libraries(${lib} PUBLIC normlab_common ${CH_KERNELS})
    normlab_target_defaults(${lib})
  else()
    add_library(${lib} INTERFACE)
    target_link_libraries(${lib} INTERFACE normlab_common ${CH_KERNELS})
  endif()
  if(CH_KERNELS)
    set_target_properties(${lib} PROPERTIES NORMLAB_SASS_TARGET ${CH_KERNELS})
  else()
    set_target_properties(${lib} PROPERTIES NORMLAB_SASS_TARGET ${lib})
  endif()

  string(REPLACE "-" "_" program "ch${CH_NUMBER}_${CH_SLUG}")
  add_executable(${program} main.cpp)
  target_link_libraries(${program} PRIVATE ${lib})
  normlab_target_defaults(${program})
  if(NOT CH_APART)
    set_property(GLOBAL APPEND PROPERTY NORMLAB_CHAPTER_LIBRARIES ${lib})
  endif()
  # The library alone builds what normlab::normlab links: no chapter program, no chapter apart.
  if(NORMLAB_LIBRARY_ONLY)
    set_target_properties(${program} PROPERTIES EXCLUDE_FROM_ALL ON)
    if(CH_APART)
      set_target_properties(${lib} PROPERTIES EXCLUDE_FROM_ALL ON)
    endif()
  endif()
  set_property(GLOBAL APPEND PROPERTY NORMLAB_CHAPTER_PROGRAMS ${program})
endfunction()

function(_normlab_set_test_kind test kind labels)
  if(kind STREQUAL "multigpu")
    # Chapter 12's NCCL tests: at least 2 GPUs, NVLink multicast off (the shared hosts' rule).
    list(APPEND labels gpu multigpu)
    set_tests_properties(${test} PROPERTIES ENVIRONMENT "NCCL_NVLS_ENABLE=0")
    if(NOT NORMLAB_REQUIRE_GPUS)
      set_tests_properties(${test} PROPERTIES SKIP_RETURN_CODE ${NORMLAB_SKIP_CODE})
    endif()
  elseif(kind STREQUAL "gpu")
    list(APPEND labels gpu)
    if(NOT NORMLAB_REQUIRE_GPU)
      set_tests_properties(${test} PROPERTIES SKIP_RETURN_CODE ${NORMLAB_SKIP_CODE})
    endif()
  else()
    list(APPEND labels cpu)
  endif()
  set_tests_properties(${test} PROPERTIES LABELS "${labels}")
endfunction()

function(normlab_add_test)
  cmake_parse_arguments(T "" "NAME;KIND" "SOURCES;LIBRARIES;LABELS;ARGS" ${ARGN})
  add_executable(${T_NAME} ${T_SOURCES})
  target_link_libraries(${T_NAME} PRIVATE ${T_LIBRARIES} normlab_catch_${T_KIND}_main)
  normlab_target_defaults(${T_NAME})
  add_test(NAME ${T_NAME} COMMAND ${T_NAME} ${T_ARGS})
  _normlab_set_test_kind(${T_NAME} ${T_KIND} "${T_LABELS}")
endfunction()

# The skeletons as the course hands them out, for the meta tests: exercises/ taken from git at
# NORMLAB_SKELETON_REF, so that a student who solves (and commits) an exercise in place does not
# turn meta_exNN_skeleton_rejected red. The ref defaults to the tag normlab-skeleton (set by
# scripts/student-copy), else origin/HEAD (the course as cloned), else HEAD. scripts/grade
# --reset restores from the same ref (scripts/course.py skeleton-ref).
function(_normlab_skeleton_ref out)
  if(NOT DEFINED NORMLAB_SKELETON_REF)
    execute_process(COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/course.py skeleton-ref
                    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                    OUTPUT_VARIABLE ref OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    set(NORMLAB_SKELETON_REF "${ref}" CACHE STRING "git ref of the pristine exercise skeletons")
  endif()
  set(${out} "${NORMLAB_SKELETON_REF}" PARENT_SCOPE)
endfunction()

# The directory holding exercises/<name> as committed at the skeleton ref; the working copy
# when there is no git history to take it from.
function(_normlab_pristine_skeleton out name)
  _normlab_skeleton_ref(ref)
  set(dir ${PROJECT_BINARY_DIR}/pristine)
  set(archive ${dir}/${name}.tar)
  file(MAKE_DIRECTORY ${dir})
  if(ref)
    execute_process(COMMAND git archive --format=tar -o ${archive} ${ref} exercises/${name}
                    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} RESULT_VARIABLE status
                    OUTPUT_QUIET ERROR_QUIET)
  endif()
  if(ref AND status EQUAL 0)
    file(ARCHIVE_EXTRACT INPUT ${archive} DESTINATION ${dir})
    set(${out} ${dir}/exercises/${name} PARENT_SCOPE)
  else()
    message(STATUS "normlab: no git history for exercises/${name}; its meta test grades the working copy")
    set(${out} ${PROJECT_SOURCE_DIR}/exercises/${name} PARENT_SCOPE)
  endif()
endfunction()

# One grader, up to three executables: grade_exNN builds the student's copy in exercises/,
# grade_exNN_solution builds solutions/ (absent from a student copy), grade_exNN_pristine the
# skeleton as committed (see above). meta_exNN_skeleton_rejected checks that the pristine
# skeleton is rejected by its grader (label meta: it speaks of the repository, not of a
# student's work). GRADER: the grader's sources (tests/graders/exNN.cpp and helpers). KIND: gpu
# (the default) or cpu, for an exercise of host code, graded without a GPU.
function(normlab_add_grader)
  cmake_parse_arguments(G "" "EXERCISE;SLUG;KIND" "GRADER;SOURCES;LIBRARIES" ${ARGN})
  if(NOT G_KIND)
    set(G_KIND gpu)
  endif()
  set(name ex${G_EXERCISE})
  set(variants exercise pristine)
  if(EXISTS ${PROJECT_SOURCE_DIR}/solutions/${name}-${G_SLUG})
    list(APPEND variants solution)
  endif()
  foreach(variant IN LISTS variants)
    set(dir ${PROJECT_SOURCE_DIR}/exercises/${name}-${G_SLUG})
    set(target grade_${name})
    set(labels ${name} exercise)
    if(variant STREQUAL "solution")
      set(dir ${PROJECT_SOURCE_DIR}/solutions/${name}-${G_SLUG})
      set(target grade_${name}_solution)
      set(labels ${name} solutions)
    elseif(variant STREQUAL "pristine")
      _normlab_pristine_skeleton(dir ${name}-${G_SLUG})
      set(target grade_${name}_pristine)
    endif()
    list(TRANSFORM G_SOURCES PREPEND ${dir}/ OUTPUT_VARIABLE sources)
    add_executable(${target} ${G_GRADER} ${sources})
    target_include_directories(${target} PRIVATE ${dir})
    target_link_libraries(${target} PRIVATE normlab_grading ${G_LIBRARIES}
                          normlab_catch_${G_KIND}_main)
    normlab_target_defaults(${target})
    if(variant STREQUAL "pristine")
      add_test(NAME meta_${name}_skeleton_rejected COMMAND ${target})
      set_tests_properties(meta_${name}_skeleton_rejected PROPERTIES WILL_FAIL TRUE)
      _normlab_set_test_kind(meta_${name}_skeleton_rejected ${G_KIND} "${name};meta")
    else()
      add_test(NAME ${target} COMMAND ${target})
      _normlab_set_test_kind(${target} ${G_KIND} "${labels}")
      if(G_KIND STREQUAL "cpu")
        # A grader's 77 means "skipped" whatever its kind (scripts/scorecard.py reads it so); a
        # CPU grader never returns it, a stand-in for one may (script_grade_builds_exercise_tests).
        set_tests_properties(${target} PROPERTIES SKIP_RETURN_CODE ${NORMLAB_SKIP_CODE})
      endif()
    endif()
  endforeach()
endfunction()

# compute-sanitizer memcheck and racecheck over a program on a small problem, and synccheck
# too with SYNCCHECK (kernels with cluster or grid barriers). NAME_SUFFIX tells apart several
# runs of one program (other shapes, other code paths). NO_RACECHECK leaves racecheck out, for a
# run racecheck cannot judge (course.json says why, in no_racecheck_because).
function(normlab_add_sanitizer_tests)
  cmake_parse_arguments(S "SYNCCHECK;NCCL;NO_RACECHECK" "PROGRAM;NAME_SUFFIX" "LABELS;ARGS" ${ARGN})
  set(tools memcheck)
  if(NOT S_NO_RACECHECK)
    list(APPEND tools racecheck)
  endif()
  if(S_SYNCCHECK)
    list(APPEND tools synccheck)
  endif()
  foreach(tool IN LISTS tools)
    set(test sanitize_${tool}_${S_PROGRAM})
    if(S_NAME_SUFFIX)
      string(APPEND test _${S_NAME_SUFFIX})
    endif()
    add_test(NAME ${test}
             COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/sanitize.sh ${tool}
                     $<TARGET_FILE:${S_PROGRAM}> ${S_ARGS})
    set(environment "NORMLAB_REQUIRE_GPU=$<BOOL:${NORMLAB_REQUIRE_GPU}>")
    if(S_NCCL)  # scripts/sanitize.sh says why; multicast off, as on the shared hosts
      list(APPEND environment NORMLAB_SANITIZER_API_ERRORS=no NCCL_NVLS_ENABLE=0)
    endif()
    set_tests_properties(${test} PROPERTIES ENVIRONMENT "${environment}")
    _normlab_set_test_kind(${test} gpu "sanitizer;${S_LABELS}")
  endforeach()
endfunction()

# Reads the SASS of a library's kernels (cuobjdump, CPU only) and checks instructions, e.g.
# REQUIRE "LDG\\.E\\.128" FORBID "LDL|STL", with MOST_REGISTERS the registers a thread, with
# MOST_BARRIERS the block barriers, and with LOADS_BEFORE a pattern no global load may follow.
# See scripts/check_sass.py.
# The checks of one library share its SASS, printed once into build's sass-cache/.
function(normlab_add_sass_test)
  cmake_parse_arguments(S "" "NAME;TARGET;FUNCTION;MOST_REGISTERS;MOST_BARRIERS;LOADS_BEFORE"
                        "REQUIRE;FORBID;LABELS" ${ARGN})
  set(checks)
  if(S_MOST_REGISTERS)
    list(APPEND checks --most-registers ${S_MOST_REGISTERS})
  endif()
  if(NOT "${S_MOST_BARRIERS}" STREQUAL "")
    list(APPEND checks --most-barriers ${S_MOST_BARRIERS})
  endif()
  if(S_LOADS_BEFORE)
    list(APPEND checks --loads-before ${S_LOADS_BEFORE})
  endif()
  foreach(pattern IN LISTS S_REQUIRE)
    list(APPEND checks --require ${pattern})
  endforeach()
  foreach(pattern IN LISTS S_FORBID)
    list(APPEND checks --forbid ${pattern})
  endforeach()
  add_test(NAME ${S_NAME}
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/check_sass.py
                   --cuobjdump ${NORMLAB_CUOBJDUMP} --library $<TARGET_FILE:${S_TARGET}>
                   --function ${S_FUNCTION} ${checks} --cache ${CMAKE_BINARY_DIR}/sass-cache)
  get_filename_component(tools_dir ${NORMLAB_CUOBJDUMP} DIRECTORY)
  # cuobjdump runs nvdisasm from PATH to print SASS.
  set_tests_properties(${S_NAME} PROPERTIES
    LABELS "cpu;sass;${S_LABELS}" ENVIRONMENT "PATH=${tools_dir}:$ENV{PATH}")
endfunction()
