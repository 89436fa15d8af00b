# SPDX-License-Identifier: Apache-2.0
# Picks the compute capability of the first visible GPU (nvidia-smi), or 90 when none is visible.
function(normlab_detect_cuda_architecture out_var)
  set(arch 90)
  find_program(NORMLAB_NVIDIA_SMI nvidia-smi)
  if(NORMLAB_NVIDIA_SMI)
    execute_process(
      COMMAND ${NORMLAB_NVIDIA_SMI} --query-gpu=compute_cap --format=csv,noheader
      OUTPUT_VARIABLE caps RESULT_VARIABLE status ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(status EQUAL 0 AND caps MATCHES "^([0-9]+)\\.([0-9]+)")
      set(arch "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
    endif()
  endif()
  message(STATUS "normlab: CUDA architecture ${arch} (override with -DCMAKE_CUDA_ARCHITECTURES=NN)")
  set(${out_var} ${arch} CACHE STRING "CUDA architectures to build for")
endfunction()
