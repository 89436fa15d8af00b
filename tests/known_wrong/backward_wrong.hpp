// SPDX-License-Identifier: Apache-2.0
// Known wrong for chapter 08: four backward kernels, each wrong in one way the chapter warns
// about. Not in the registry; test_known_wrong_ch08.cpp checks that the harness fails each.
#pragma once

#include "normlab/kernel.hpp"

namespace normlab::known_wrong {

/// What a wrong backward gets wrong.
enum class BackwardBug {
  no_projection,    ///< dx without the term - x_hat * mean(g * x_hat)
  bf16_dweight,     ///< dweight (and dbias) summed over rows in a bf16 accumulator
  one_partial,      ///< dweight from the partial row of block 0 only
  racy_atomicless,  ///< every block adds into one row with a plain +=, not atomicAdd
};

/// Chapter 08's default kernel for @p op (rmsnorm_backward or layernorm_backward) followed by
/// the one wrong step of @p bug, which overwrites dx or dweight (and dbias). fp32 or bf16
/// activations with parameters of the same dtype, rows 16-byte aligned, cols a multiple of 8
/// and at most 4096.
KernelEntry backward(Op op, BackwardBug bug);

}  // namespace normlab::known_wrong
