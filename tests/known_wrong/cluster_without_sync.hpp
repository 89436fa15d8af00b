// SPDX-License-Identifier: Apache-2.0
// Known wrong for chapter 10: a cluster RMSNorm whose blocks read each other's partial sums
// through distributed shared memory without the cluster.sync() that makes them visible. Not in
// the registry; test_known_wrong_ch10.cpp checks that the grader rejects it.
#pragma once

#include "normlab/kernel.hpp"

namespace normlab::known_wrong {

/// fp32 RMSNorm of rows up to 2048 wide, each split over a cluster of 4 blocks, the blocks'
/// partial sums of squares read from their shared memory as soon as the reader has written its
/// own: often before the neighbour has. Needs sm_90.
KernelEntry rmsnorm_cluster_without_sync();

/// The same kernel with a cluster.sync() between writing the partials and reading them: the
/// control, which must pass.
KernelEntry rmsnorm_cluster_with_sync();

}  // namespace normlab::known_wrong
