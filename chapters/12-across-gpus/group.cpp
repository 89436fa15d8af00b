// SPDX-License-Identifier: Apache-2.0
// Chapter 12's plumbing: NCCL's errors, the GPUs of the process and their communicators, and
// which columns each GPU holds.
#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "ch12.hpp"
#include "normlab/check.hpp"

namespace normlab::ch12 {

void check_nccl(ncclResult_t result, const char* expression, const char* file, int line) {
  if (result == ncclSuccess) return;
  throw std::runtime_error(std::string(expression) + " failed at " + file + ":" +
                           std::to_string(line) + ": " + ncclGetErrorString(result));
}

int visible_gpus() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();  // no driver or no GPU: clear the error, report none
    return 0;
  }
  return count;
}

Group::Group(int gpus) {
  const int visible = visible_gpus();
  check_argument(gpus >= 1, "ch12::Group", "gpus", "must be at least 1");
  check_argument(
      gpus <= visible, "ch12::Group", "gpus",
      "asks for " + std::to_string(gpus) + " GPUs; this process sees " + std::to_string(visible));
  // Multicast over NVLink (NVLS) can take a shared host's GPUs out of service; keep it off
  // unless whoever runs this chose otherwise.
  setenv("NCCL_NVLS_ENABLE", "0", /*overwrite=*/0);
  comms_.resize(gpus);
  NORMLAB_CHECK_NCCL(ncclCommInitAll(comms_.data(), gpus, nullptr));  // devices 0 .. gpus - 1
  streams_.resize(gpus);
  for (int rank = 0; rank < gpus; ++rank) {
    use(rank);
    NORMLAB_CHECK(cudaStreamCreateWithFlags(&streams_[rank], cudaStreamNonBlocking));
  }
}

Group::~Group() {
  for (int rank = 0; rank < size(); ++rank) {
    (void)cudaSetDevice(rank);
    (void)cudaStreamSynchronize(streams_[rank]);
    (void)cudaStreamDestroy(streams_[rank]);
    (void)ncclCommDestroy(comms_[rank]);
  }
}

void Group::use(int rank) const {
  check_argument(rank >= 0 && rank < size(), "ch12::Group::use", "rank", "is not in the group");
  NORMLAB_CHECK(cudaSetDevice(rank));
}

void Group::synchronize() const {
  for (int rank = 0; rank < size(); ++rank) {
    use(rank);
    NORMLAB_CHECK(cudaStreamSynchronize(streams_[rank]));
  }
}

Columns columns_of(std::int64_t cols, int ranks, int rank) {
  const char* fn = "ch12::columns_of";
  check_argument(ranks >= 1, fn, "ranks", "must be at least 1");
  check_argument(rank >= 0 && rank < ranks, fn, "rank", "must lie in [0, ranks)");
  check_argument(cols >= ranks, fn, "cols",
                 "must give every rank a column (" + std::to_string(cols) + " columns, " +
                     std::to_string(ranks) + " ranks)");
  const std::int64_t share = cols / ranks, extra = cols % ranks;
  return {rank * share + std::min<std::int64_t>(rank, extra), share + (rank < extra ? 1 : 0)};
}

}  // namespace normlab::ch12
