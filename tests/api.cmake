# SPDX-License-Identifier: Apache-2.0
# The public library (api/): the dispatcher's table on the CPU, run() on the GPU, and a project
# of its own built against the installed package.

# CPU: every rule at its boundary, the fallback, malformed calls refused by name, a Case planned
# as the NormCall the Workspace makes of it.
normlab_add_test(NAME test_dispatch KIND cpu SOURCES cpu/test_dispatch.cpp
  LIBRARIES normlab_api LABELS api)
