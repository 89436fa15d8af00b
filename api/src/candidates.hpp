// SPDX-License-Identifier: Apache-2.0
/// @file candidates.hpp
/// @brief What the tuner times and the tuned chooser picks from: every kernel that can serve a
/// call, named by its family (the technique) and its configuration within it.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "dispatcher.hpp"
#include "normlab/kernel.hpp"

namespace normlab::dispatch {

/// One kernel the chooser may pick, for one op. Families of the forward ops: "general" (chapter
/// 07's launcher: any alignment, rows too wide for registers streamed), "lanes" (a group of lanes
/// a row, chapter 09's narrow configurations), "block" (a row a block with a register cap,
/// chapter 09's block configurations), "slim" (a row a block, little kept beside it: chapter 09's
/// slim configurations), "cluster", "whole_gpu" and "split" (chapter 10's paths; the cluster's by
/// its rule, "default", and with <threads>x4 configurations), "cluster_row" (a row a cluster for
/// few rows, chapter 10's <threads>x<vectors> configurations). Of the backward
/// ops: "persistent" (chapter 08's deterministic kernel: a row a block or a warp in a persistent
/// grid) and "cluster" (chapter 10's row over a cluster, its <threads>x<vectors>
/// configurations). A family of one configuration calls it "default".
struct Candidate {
  const char* family = "";
  std::string config;  ///< its name within the family
  std::string key;     ///< "family/config": what the tuned tables name it by, beside the op
  const KernelEntry* kernel = nullptr;  ///< what runs it
  int config_index = -1;                ///< chapter 09's kConfigs index, or -1
};

/// Every candidate of every op, the registry's and chapter 09's configuration entries, built
/// once; the pointers stay valid for the life of the process.
std::span<const Candidate> candidates();

/// The candidate of @p op keyed @p key ("lanes/narrow8x4"), or nullptr.
const Candidate* candidate_keyed(Op op, std::string_view key);

/// The candidate whose kernel is called @p kernel_name ("ch09_rmsnorm@narrow8x4"), or nullptr.
const Candidate* candidate_named(std::string_view kernel_name);

/// Empty when @p candidate can run the call @p facts describe; else why not (its kernel's
/// refusal, then for chapter 09's configurations whether the row's chunks fit).
std::string refusal_of(const Candidate& candidate, const Facts& facts);

}  // namespace normlab::dispatch
