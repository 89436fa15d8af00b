# SPDX-License-Identifier: Apache-2.0
# The course manifest, course.json at the repository root, read once at configure time.
#   NORMLAB_CHAPTERS    chapter numbers in course order (00 01 ...)
#   NORMLAB_EXERCISES   exercise numbers (01 02 ...)
#   normlab_chapter_field(out NN field)     a chapter's field (slug, title, ...)
#   normlab_exercise_field(out NN field)    an exercise's field; "" when absent
#   normlab_add_chapter_tests(NN)           its GPU test, sanitizer runs and SASS checks
#   normlab_add_exercise_tests(NN)          its graders, meta test, speed test and solution checks
set(NORMLAB_COURSE_FILE ${PROJECT_SOURCE_DIR}/course.json)
set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             ${NORMLAB_COURSE_FILE})
file(READ ${NORMLAB_COURSE_FILE} NORMLAB_COURSE)

set(NORMLAB_CHAPTERS)
set(NORMLAB_EXERCISES)
foreach(kind chapters exercises)
  string(JSON count LENGTH "${NORMLAB_COURSE}" ${kind})
  math(EXPR last "${count} - 1")
  foreach(i RANGE ${last})
    string(JSON number GET "${NORMLAB_COURSE}" ${kind} ${i} number)
    string(TOUPPER ${kind} upper)
    list(APPEND NORMLAB_${upper} ${number})
    set(_normlab_${kind}_${number} ${i})
  endforeach()
endforeach()

# A field of entry NN of `kind` (chapters or exercises), "" when absent; further arguments
# descend into it (e.g. sanitize 0 args).
function(_normlab_course_get out kind number)
  set(index ${_normlab_${kind}_${number}})
  if(index STREQUAL "")
    message(FATAL_ERROR "course.json has no ${kind} entry ${number}")
  endif()
  string(JSON value ERROR_VARIABLE missing GET "${NORMLAB_COURSE}" ${kind} ${index} ${ARGN})
  if(missing)
    set(value "")
  endif()
  set(${out} "${value}" PARENT_SCOPE)
endfunction()

function(normlab_chapter_field out number)
  _normlab_course_get(value chapters ${number} ${ARGN})
  set(${out} "${value}" PARENT_SCOPE)
endfunction()

function(normlab_exercise_field out number)
  _normlab_course_get(value exercises ${number} ${ARGN})
  set(${out} "${value}" PARENT_SCOPE)
endfunction()

# The JSON array at `kind` NN `field` as a CMake list.
function(_normlab_course_list out kind number)
  _normlab_course_get(array ${kind} ${number} ${ARGN})
  set(items)
  if(NOT array STREQUAL "")
    string(JSON count LENGTH "${array}")
    if(count GREATER 0)
      math(EXPR last "${count} - 1")
      foreach(i RANGE ${last})
        string(JSON item GET "${array}" ${i})
        list(APPEND items "${item}")
      endforeach()
    endif()
  endif()
  set(${out} "${items}" PARENT_SCOPE)
endfunction()

# SASS checks listed under `kind` NN: each {name, function, require, forbid, most_registers,
# most_barriers, loads_before}
# on TARGET.
function(_normlab_course_sass kind number target test_prefix labels)
  _normlab_course_get(checks ${kind} ${number} sass)
  if(checks STREQUAL "")
    return()
  endif()
  string(JSON count LENGTH "${checks}")
  math(EXPR last "${count} - 1")
  foreach(i RANGE ${last})
    _normlab_course_get(name ${kind} ${number} sass ${i} name)
    _normlab_course_get(function ${kind} ${number} sass ${i} function)
    _normlab_course_list(require ${kind} ${number} sass ${i} require)
    _normlab_course_list(forbid ${kind} ${number} sass ${i} forbid)
    _normlab_course_get(most_registers ${kind} ${number} sass ${i} most_registers)
    _normlab_course_get(most_barriers ${kind} ${number} sass ${i} most_barriers)
    _normlab_course_get(loads_before ${kind} ${number} sass ${i} loads_before)
    set(test ${test_prefix})
    if(name)
      string(APPEND test _${name})
    endif()
    normlab_add_sass_test(NAME ${test} TARGET ${target} FUNCTION "${function}"
      REQUIRE ${require} FORBID ${forbid} MOST_REGISTERS "${most_registers}"
      MOST_BARRIERS "${most_barriers}" LOADS_BEFORE "${loads_before}" LABELS ${labels})
  endforeach()
endfunction()

function(normlab_add_chapter_tests number)
  set(tag ch${number})
  normlab_chapter_field(slug ${number} slug)
  string(REPLACE "-" "_" program "${tag}_${slug}")

  if(NOT TARGET normlab_${tag})
    # The chapter was not built here (chapter 12 without NCCL): one test says so, skipped.
    add_test(NAME test_${tag} COMMAND ${CMAKE_COMMAND} -E echo
             "SKIPPED: chapter ${number} was not built (see the configure output)")
    set_tests_properties(test_${tag} PROPERTIES LABELS "${tag};gpu")
    if(NORMLAB_REQUIRE_GPU)
      set_tests_properties(test_${tag} PROPERTIES WILL_FAIL TRUE)  # required: a failure
    else()
      set_tests_properties(test_${tag} PROPERTIES SKIP_RETURN_CODE 0)
    endif()
    return()
  endif()

  # GPU: the chapter's kernels against the float64 references (tests/gpu/test_chNN.cpp).
  normlab_add_test(NAME test_${tag} KIND gpu SOURCES gpu/test_${tag}.cpp
    LIBRARIES normlab_registry normlab_grading LABELS ${tag})
  target_include_directories(test_${tag} PRIVATE gpu)

  # GPU: compute-sanitizer memcheck and racecheck of the chapter's program (or another).
  _normlab_course_get(runs chapters ${number} sanitize)
  if(NOT runs STREQUAL "")
    string(JSON count LENGTH "${runs}")
    math(EXPR last "${count} - 1")
    foreach(i RANGE ${last})
      _normlab_course_get(args chapters ${number} sanitize ${i} args)
      _normlab_course_get(suffix chapters ${number} sanitize ${i} suffix)
      _normlab_course_get(run_program chapters ${number} sanitize ${i} program)
      _normlab_course_get(synccheck chapters ${number} sanitize ${i} synccheck)
      _normlab_course_get(no_racecheck chapters ${number} sanitize ${i} no_racecheck_because)
      _normlab_course_get(nccl chapters ${number} sanitize ${i} nccl)
      if(run_program STREQUAL "")
        set(run_program ${program})
      endif()
      separate_arguments(args UNIX_COMMAND "${args}")
      set(suffix_args)
      if(suffix)
        set(suffix_args NAME_SUFFIX ${suffix})
      endif()
      if(synccheck)
        list(APPEND suffix_args SYNCCHECK)
      endif()
      if(NOT no_racecheck STREQUAL "")
        list(APPEND suffix_args NO_RACECHECK)
      endif()
      if(nccl)
        list(APPEND suffix_args NCCL)
      endif()
      normlab_add_sanitizer_tests(PROGRAM ${run_program} ${suffix_args} LABELS ${tag} ARGS ${args})
    endforeach()
  endif()

  # CPU: what the compiler made of the chapter's kernels (in kernels/ for the chapters that teach
  # the library: normlab_add_chapter's KERNELS).
  get_target_property(sass_target normlab_${tag} NORMLAB_SASS_TARGET)
  _normlab_course_sass(chapters ${number} ${sass_target} sass_${tag} ${tag})
endfunction()

function(normlab_add_exercise_tests number)
  set(tag ex${number})
  normlab_exercise_field(slug ${number} slug)
  _normlab_course_list(sources exercises ${number} sources)
  _normlab_course_list(grader_sources exercises ${number} grader_sources)
  list(TRANSFORM grader_sources PREPEND ${PROJECT_SOURCE_DIR}/tests/graders/)
  # "grader": "cpu" marks an exercise of host code: graded on any machine, with no speed bar.
  normlab_exercise_field(kind ${number} grader)
  if(NOT kind)
    set(kind gpu)
  endif()
  normlab_add_grader(EXERCISE ${number} SLUG ${slug} KIND ${kind}
    GRADER ${PROJECT_SOURCE_DIR}/tests/graders/${tag}.cpp ${grader_sources} SOURCES ${sources})
  if(NOT TARGET grade_${tag}_solution)
    return()  # a student copy: no solutions/
  endif()

  # GPU: the solution reaches the speed the manifest asks of it (scripts/scorecard.py).
  normlab_exercise_field(threshold ${number} speed_threshold)
  if(threshold STREQUAL "")
    return()  # host code: nothing to time, sanitize or disassemble
  endif()
  add_test(NAME speed_${tag}_solution
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/scorecard.py
                   --exercise ${number} --require-speed -- $<TARGET_FILE:grade_${tag}_solution>)
  _normlab_set_test_kind(speed_${tag}_solution gpu "${tag};solutions")
  # Alone on the GPU: under ctest -j the other tests' kernels share it, and a timing taken beside
  # them measures them too, and a solution near its bar can fall below it.
  set_tests_properties(speed_${tag}_solution PROPERTIES RUN_SERIAL TRUE)

  # GPU: compute-sanitizer on the solution, over the grader's hidden cases of that tag.
  normlab_exercise_field(sanitize ${number} sanitize)
  if(sanitize)
    normlab_add_sanitizer_tests(PROGRAM grade_${tag}_solution LABELS ${tag} solutions
      ARGS ${sanitize})
  endif()

  # CPU: the solution compiles to what its chapter teaches.
  _normlab_course_sass(exercises ${number} grade_${tag}_solution sass_${tag}_solution
    "${tag};solutions")
endfunction()
