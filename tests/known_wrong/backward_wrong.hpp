// SPDX-License-Identifier: Apache-2.0
// Known wrong for chapter 08: four backward kernels, each wrong in one way the chapter warns
// about, and three of their wrong steps on top of chapter 10's wide backward. Not in the
// registry; test_known_wrong_ch08.cpp and test_known_wrong_ch10_backward.cpp check that the
// harness fails each.
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

/// Chapter 10's row over a cluster for @p op (the registry's ch10_<op>) followed by the same wrong
/// step: its capabilities (sm_90, rows up to 512 KiB) but fp32 or bf16 activations with
/// parameters of the same dtype, and dx not over dy (the wrong step reads dy after the base
/// wrote dx); its scratch. The cluster kernel leaves one partial row a cluster in scratch,
/// dweight's first, so one_partial sums the rows of cluster 0 only. racy_atomicless redoes the
/// sums with chapter 08's row kernel, which holds no row this wide: refused, std::invalid_argument
/// naming bug.
KernelEntry cluster_backward(Op op, BackwardBug bug);

}  // namespace normlab::known_wrong
