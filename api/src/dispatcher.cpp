// SPDX-License-Identifier: Apache-2.0
// The dispatcher: what it reads of a call, and its decision table between the chapters.
#include "dispatcher.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "call_tensors.hpp"
#include "candidates.hpp"
#include "chunk_grid.hpp"
#include "normlab/op_tensors.hpp"
#include "normlab/registry.hpp"
#include "tuned_table.hpp"

namespace normlab::dispatch {

namespace configured = kernels::configured;

namespace {

// The configured launcher's description of a forward call (its problem_of in
// kernels/configured.cu): whether every row
// of every tensor is a whole number of aligned 16-byte vectors, and how many 16-byte chunks a
// row of x spans (chapter 07's count, from x's address and stride).
configured::Problem problem_of(const Shape& s, Op op, bool rows_aligned, const void* x,
                               std::int64_t x_stride, std::int64_t x_group_rows,
                               std::int64_t x_group_stride) {
  const auto element = static_cast<std::int64_t>(size_of(s.dtype));
  return {
      .rows = s.rows,
      .cols = s.cols,
      .element_bytes = static_cast<int>(element),
      .aligned = rows_aligned && s.cols % (kernels::kChunkBytes / element) == 0,
      .chunks = kernels::most_chunks(x, x_stride, s.cols, element, x_group_rows, x_group_stride),
      .add = is_add(op),
      .centre = is_layernorm(op)};
}

Facts with_configured_choice(const Requirements& needs, const configured::Problem& problem) {
  Facts facts{.needs = needs, .problem = problem};
  if (!is_backward(needs.op)) facts.configured_choice = configured::choose(problem);
  return facts;
}

}  // namespace

Facts facts_of(const NormCall& call, int compute_capability) {
  Requirements needs{
      .op = call.op,
      .shape = {.rows = call.rows,
                .cols = call.cols,
                .dtype = call.dtype,
                .weight_dtype = call.weight_dtype,
                .weight = call.weight != nullptr,
                .bias = false,
                .dy_dtype = is_backward(call.op) ? call.dy_dtype : std::nullopt,
                .residual_dtype = is_add(call.op) ? call.residual_dtype : std::nullopt},
      .weight_plus_one = call.weight_plus_one,
      .compute_capability = compute_capability};
  bool parameters_aligned = true;
  for (const TensorSpec& spec : tensors_of(call.op)) {
    if (!given(spec, call)) continue;
    const TensorField b = field_of(call, spec.tensor);
    const auto address = reinterpret_cast<std::uintptr_t>(b.data);
    needs.shape.bias = needs.shape.bias || spec.presence == Presence::bias;
    needs.statistics = needs.statistics || spec.presence == Presence::statistics;
    needs.residual_gradient = needs.residual_gradient || spec.tensor == Tensor::dresidual;
    if (spec.extent == Extent::row_vector && spec.role == Role::input)
      parameters_aligned = parameters_aligned && address % kernels::kChunkBytes == 0;
    if (spec.extent != Extent::matrix) continue;
    needs.strided = needs.strided || b.stride != call.cols;
    needs.base_alignment = std::min(needs.base_alignment, alignment_of(address));
    needs.pitch_alignment =
        std::min(needs.pitch_alignment,
                 alignment_of(static_cast<std::uint64_t>(b.stride * element_bytes(spec, call))));
    if (spec.tensor == Tensor::x && call.x_group_rows > 1) {  // two-level rows: both strides
      needs.strided = needs.two_level_rows = true;
      needs.pitch_alignment =
          std::min(needs.pitch_alignment, alignment_of(static_cast<std::uint64_t>(
                                              call.x_group_stride * element_bytes(spec, call))));
    }
    if (spec.in_place_over && b.data != nullptr)
      needs.in_place = needs.in_place || b.data == field_of(call, *spec.in_place_over).data;
  }
  const bool rows_aligned = needs.base_alignment >= kernels::kChunkBytes &&
                            needs.pitch_alignment >= kernels::kChunkBytes && parameters_aligned;
  Facts facts = with_configured_choice(
      needs, problem_of(needs.shape, needs.op, rows_aligned, call.x, call.x_stride,
                        call.x_group_rows, call.x_group_stride));
  facts.parameters_aligned = parameters_aligned;
  return facts;
}

Facts facts_of(const Case& c, int compute_capability) {
  Requirements needs = requirements_of(c);
  needs.compute_capability = compute_capability;
  // The Workspace places every activation misalign elements past a 256-byte boundary and the
  // parameters at one.
  const auto element = static_cast<std::int64_t>(size_of(c.shape.dtype));
  const bool rows_aligned =
      needs.base_alignment >= kernels::kChunkBytes && needs.pitch_alignment >= kernels::kChunkBytes;
  const auto* x = reinterpret_cast<const void*>(static_cast<std::uintptr_t>(c.misalign * element));
  return with_configured_choice(
      needs, problem_of(c.shape, needs.op, rows_aligned, x, activation_stride(c), c.group_rows,
                        group_stride(c)));
}

namespace {

// The decision table: the first rule that matches names a chapter, whose kernel for the op runs
// the call (its default_for_op one where it has several, or the one the rule's path names).
// Each rule's kernel was compared with chapter 07's in the same run (chapter 09's and chapter
// 10's pages and worklogs have the figures):
//  1. backward: chapter 08's deterministic kernel. Its dweight and dbias are partial sums added
//     in a fixed order, so a training step gives the same bits on every run.
//  2. narrow rows: when chapter 09's own table picks one of its narrow kernels (cols <= 1024, a
//     group of lanes per row, reductions by shuffles alone), where chapter 07's block per row
//     leaves a quarter of its threads idle and waits at barriers.
//  3. few rows (<= 64): when chapter 09's table splits each row over a block of up to 1024
//     threads. The time is latency, not bandwidth, and a row split over more threads finishes
//     sooner than in chapter 07's block.
//  4. few rows (<= 64) wider than chapter 07's registers hold (more than 3072 chunks of 16
//     bytes, 2048 off the 16-byte grid): chapter 10. Chapter 07 streams such a row through one
//     block, so a few of them leave most SMs idle; chapter 10 spreads a row over them. With
//     many such rows chapter 07's blocks fill the GPU and it stays, until rules 6 and 7.
//  5. many rows of at most 1024 aligned 16-byte chunks (8192 bf16 columns): chapter 09's block
//     per row with its register cap sized to the block (its table's rules 3 and 4): ahead of or
//     level with chapter 07's, far ahead with a residual. And 16-bit LayerNorm rows of up to 2048
//     chunks that whole warps of its block4 fill (its rule 7); 16-bit RMSNorm and LayerNorm rows
//     of up to 2048 chunks where a 4-vector block fits an SM once (its rule 5, block8_256x2, two
//     rows an SM); and add + norm rows of exactly 2048 chunks (its rule 6, block2). configs.cpp
//     gives each rule's reason.
//  6. many rows on the 16-byte grid of a MiB or more (65536 chunks: 262144 fp32 or 524288
//     16-bit columns, wider than a cluster holds): chapter 10, whose chooser takes the whole GPU
//     or the split row, ahead of chapter 07 on every op from a MiB a row (chapter 10's worklog,
//     "Many wide rows"). Narrower, chapter 07 can win, so rows between a cluster and a MiB stay
//     with it.
//  7. many rows on the 16-byte grid, wider than chapter 07's registers hold: chapter 10's
//     cluster entry, which refuses GPUs without clusters and rows wider than it holds, 512 KiB
//     (chapter 07 then runs them, as the op's default). It reads x from DRAM once where chapter
//     07 streams such a row twice, and its exchange, pushed by st.async, overlaps the row's
//     other work; so on every op, fp32 rows too (chapter 10's worklog has the comparisons).
//  8. every other forward call (wider rows, misaligned rows): chapter 07, whose launcher peels
//     a misaligned row's ends and streams rows too wide for registers.
// When the rule's kernel refuses the call (KernelEntry::refusal), the op's default kernel
// (chapter 07's, which takes any forward call) runs instead if it takes it, else the newest
// chapter's kernel of the op that takes it; when none does, plan() throws, listing every
// refusal.
struct Rule {
  const char* name;
  int chapter;
  bool (*matches)(const Facts&);
  const char* why;
  const char* path = nullptr;  ///< the chapter's entry whose name ends so; null: its default
};

configured::Kind configured_kind(const Facts& f) {
  return configured::kConfigs[f.configured_choice.config].kind;
}

bool backward(const Facts& f) {
  return is_backward(f.needs.op);
}
bool narrow(const Facts& f) {
  return !backward(f) && configured_kind(f) == configured::Kind::narrow;
}
bool few_rows(const Facts& f) {
  return !backward(f) && f.needs.shape.rows <= configured::kFewRows &&
         configured_kind(f) == configured::Kind::block;
}
bool few_wide_rows(const Facts& f) {
  return !backward(f) && f.needs.shape.rows <= configured::kFewRows &&
         f.problem.chunks > kernels::most_register_chunks(f.problem.aligned);
}
// A row of a MiB or more, in 16-byte chunks (rule 6).
constexpr std::int64_t kHugeRowChunks = 65536;
bool many_huge_rows(const Facts& f) {
  return !backward(f) && f.problem.aligned && f.problem.chunks >= kHugeRowChunks;
}
bool many_wide_rows(const Facts& f) {
  return !backward(f) && f.problem.aligned &&
         f.problem.chunks > kernels::most_register_chunks(true);
}
// Past the few-row rules, chapter 09 picks a block configuration only by its rules 3 to 7.
bool many_rows_block(const Facts& f) {
  return !backward(f) && configured_kind(f) == configured::Kind::block;
}
bool forward(const Facts& f) {
  return !backward(f);
}

// [rule_table]
constexpr Rule kRules[] = {
    {"backward", 8, backward,
     "backward: chapter 08's deterministic kernel (dweight and dbias summed in a fixed order, "
     "the same bits on every run)"},
    {"narrow rows", 9, narrow,
     "narrow rows (cols <= 1024): chapter 09's group of lanes per row, chosen over chapter 07's "
     "block per row by measuring each op (H100; the book's chapter 09)"},
    {"few rows", 9, few_rows,
     "few rows (<= 64), where the time is latency: chapter 09 splits each row over up to 1024 "
     "threads, chosen over chapter 07's block per row by measuring each op (H100; the book's "
     "chapter 09)"},
    {"few wide rows", 10, few_wide_rows,
     "few rows (<= 64) wider than one block's registers hold: chapter 10 spreads a row over a "
     "cluster, the whole GPU or many blocks, chosen over chapter 07's one block a row (most SMs "
     "idle) by measuring each op (H100; the book's chapter 09)"},
    {"many rows", 9, many_rows_block,
     "many rows of up to 1024 aligned 16-byte chunks (some 16-bit rows to 2048): chapter 09's "
     "block per row, its registers capped for several blocks an SM, chosen over chapter 07's "
     "by measuring each op (H100; the book's chapter 09)"},
    {"many huge rows", 10, many_huge_rows,
     "many rows on the 16-byte grid of a MiB or more: chapter 10's choice, the whole GPU or the "
     "split row, chosen over chapter 07's block per row by measuring each op (H100; the book's "
     "chapter 09)"},
    {"many wide rows", 10, many_wide_rows,
     "many rows on the 16-byte grid, wider than one block's registers hold: chapter 10's "
     "cluster, the row in its blocks' shared memory, chosen over chapter 07's streamed row by "
     "measuring each op (H100; the book's chapter 09)",
     "_cluster"},
    {"wide or misaligned rows", 7, forward,
     "rows wider than chapter 09's blocks take or off the 16-byte grid: chapter 07's block per "
     "row, peeling a misaligned row's ends and streaming rows too wide for registers"},
};
// [rule_table]

// The kernel of @p chapter for @p op in @p kernels: the one whose name ends in @p path when it
// is given, else its default_for_op one, else its first.
const KernelEntry* kernel_of(std::span<const KernelEntry> kernels, Op op, int chapter,
                             const char* path) {
  const KernelEntry* first = nullptr;
  for (const KernelEntry& kernel : kernels) {
    if (kernel.op != op || kernel.chapter != chapter) continue;
    if (path != nullptr) {
      if (kernel.name.ends_with(path)) return &kernel;
      continue;
    }
    if (kernel.default_for_op) return &kernel;
    if (first == nullptr) first = &kernel;
  }
  return first;
}

std::string describe(const Requirements& needs) {
  const Shape& s = needs.shape;
  std::string text = std::string(name_of(needs.op)) + " " + name_of(s.dtype) + " " +
                     std::to_string(s.rows) + "x" + std::to_string(s.cols);
  if (s.weight_dtype != s.dtype)
    text += std::string(" with ") + name_of(s.weight_dtype) + " parameters";
  if (s.bias && !takes_bias(needs.op)) text += " with a bias";
  if (dy_dtype_of(s) != s.dtype) text += std::string(" with ") + name_of(dy_dtype_of(s)) + " dy";
  if (residual_dtype_of(s) != s.dtype)
    text += std::string(" with ") + name_of(residual_dtype_of(s)) + " residual";
  return text;
}

// Chapter 09's configuration when its dispatcher entry runs the call; else the kernel's summary.
// "block4_128x6: 128 threads a block, 4096 blocks": how chapter 09 launches @p choice.
std::string configured_launch(const configured::Choice& choice) {
  return std::string(configured::kConfigs[choice.config].name) + ": " +
         std::to_string(choice.threads) + " threads a block, " + std::to_string(choice.blocks) +
         " blocks";
}

std::string launch_of(const KernelEntry& kernel, const Facts& f) {
  if (kernel.chapter != 9 || backward(f)) return kernel.summary;
  if (configured::kConfigs[f.configured_choice.config].kind == configured::Kind::wide)
    return f.configured_choice.why;
  return configured_launch(f.configured_choice) + " (" + f.configured_choice.why + ")";
}

// The entry that runs a plan of @p kernel. Chapter 09's dispatcher entry would choose again at
// every launch what facts_of() chose once (f.configured_choice): the configuration's own entry
// runs instead (the general launcher's for `wide`), which only checks that the call fits it.
// Any other kernel runs itself.
const KernelEntry* launched_by(const KernelEntry& kernel, const Facts& f) {
  if (kernel.chapter != 9 || backward(f) || candidate_named(kernel.name) != nullptr) return &kernel;
  const configured::Config& config = configured::kConfigs[f.configured_choice.config];
  const Candidate* chosen = config.kind == configured::Kind::wide
                                ? candidate_keyed(f.needs.op, "general/default")
                                : candidate_named(kernel.name + "@" + config.name);
  return chosen != nullptr ? chosen->kernel : &kernel;
}

Plan plan_of(const KernelEntry& kernel, const Facts& f, std::string why) {
  return {.kernel = &kernel,
          .why = std::move(why),
          .launch = launch_of(kernel, f),
          .launched = launched_by(kernel, f)};
}

Plan with_scratch(Plan plan, const Shape& shape) {
  plan.scratch_bytes = scratch_of(*plan.kernel, shape);
  return plan;
}

// The op's kernels, the newest chapter first (registry order within a chapter).
std::vector<const KernelEntry*> candidates(std::span<const KernelEntry> kernels, Op op) {
  std::vector<const KernelEntry*> found;
  for (const KernelEntry& kernel : kernels) {
    if (kernel.op == op) found.push_back(&kernel);
  }
  std::stable_sort(found.begin(), found.end(), [](const KernelEntry* a, const KernelEntry* b) {
    return a->chapter > b->chapter;
  });
  return found;
}

std::string milliseconds_text(double ms) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g ms", ms);
  return text;
}

// The launch of a tuned candidate: chapter 09's configuration as chapter 09 sizes it for the
// call, else the kernel's summary.
std::string launch_of(const Candidate& candidate, const Facts& f) {
  if (candidate.config_index < 0) return candidate.kernel->summary;
  return configured_launch(configured::configure(candidate.config_index, f.problem));
}

// The tuned table's pick for a call, when a near grid point has a candidate that takes it.
std::optional<Plan> tuned_plan(const Facts& facts, const TunedTable& table) {
  const Shape& s = facts.needs.shape;
  const std::optional<TunedPick> pick =
      nearest_pick(table, facts.needs.op, s.dtype, s.rows, s.cols, [&](const std::string& key) {
        const Candidate* candidate = candidate_keyed(facts.needs.op, key);
        return candidate != nullptr && refusal_of(*candidate, facts).empty();
      });
  if (!pick) return std::nullopt;
  const TunedEntry& entry = *pick->entry;
  const TunedTime& chosen = entry.ranking[pick->index];
  const Candidate& candidate = *candidate_keyed(facts.needs.op, chosen.candidate);
  std::string why = "tuned table " + table.name + ", grid point " + name_of(entry.op) + " " +
                    name_of(entry.dtype) + " " + std::to_string(entry.rows) + " x " +
                    std::to_string(entry.cols) + ": " + candidate.key + " (" +
                    candidate.kernel->name + "), ";
  why += pick->index == 0
             ? "the fastest there of " + std::to_string(entry.ranking.size()) + " checked and timed"
             : "the fastest there that takes this call (" + std::to_string(pick->index) +
                   (pick->index == 1 ? " faster one refuses it)" : " faster ones refuse it)");
  why += " (" + milliseconds_text(chosen.ms) + ")";
  if (pick->index + 1 < entry.ranking.size()) {
    const TunedTime& next = entry.ranking[pick->index + 1];
    why += "; runner-up " + next.candidate + " (" + milliseconds_text(next.ms) + ")";
  }
  return Plan{.kernel = candidate.kernel,
              .why = why,
              .launch = launch_of(candidate, facts),
              .launched = candidate.kernel};
}

}  // namespace

Plan decide(const Facts& facts, std::span<const KernelEntry> kernels, const TunedTable* table) {
  if (table != nullptr) {
    if (std::optional<Plan> tuned = tuned_plan(facts, *table)) return *std::move(tuned);
    Plan ruled = decide(facts, kernels, nullptr);
    const Shape& s = facts.needs.shape;
    const bool tuned_op = std::ranges::any_of(table->entries, [&](const TunedEntry& e) {
      return e.op == facts.needs.op && e.dtype == s.dtype;
    });
    ruled.why = (tuned_op ? "no grid point of tuned table " + table->name +
                                " near this call has a kernel that takes it"
                          : "tuned table " + table->name + " has no grid point of " +
                                name_of(facts.needs.op) + " " + name_of(s.dtype)) +
                "; the rules: " + ruled.why;
    return ruled;
  }
  const Rule& rule = *std::find_if(std::begin(kRules), std::end(kRules),
                                   [&](const Rule& r) { return r.matches(facts); });
  const KernelEntry* chosen = kernel_of(kernels, facts.needs.op, rule.chapter, rule.path);
  std::string passed_over = "rule '" + std::string(rule.name) + "' names chapter " +
                            std::to_string(rule.chapter) + ", which has no kernel for " +
                            name_of(facts.needs.op);
  if (chosen != nullptr) {
    const std::string refusal = chosen->refusal(facts.needs);
    if (refusal.empty()) return plan_of(*chosen, facts, rule.why);
    passed_over = "rule '" + std::string(rule.name) + "' names " + chosen->name +
                  ", which refuses the call: " + refusal;
  }
  for (const KernelEntry& kernel : kernels) {
    if (kernel.op == facts.needs.op && kernel.default_for_op && &kernel != chosen &&
        kernel.refusal(facts.needs).empty()) {
      return plan_of(kernel, facts, passed_over + "; " + kernel.name + " is the op's default");
    }
  }
  std::string refusals;
  for (const KernelEntry* kernel : candidates(kernels, facts.needs.op)) {
    const std::string refusal = kernel->refusal(facts.needs);
    if (refusal.empty()) {
      return plan_of(*kernel, facts,
                     passed_over + "; " + kernel->name +
                         " is the newest chapter's kernel of the op that takes it");
    }
    refusals += "\n  " + kernel->name + ": " + refusal;
  }
  throw std::invalid_argument("normlab::plan: no kernel takes " + describe(facts.needs) + ":" +
                              (refusals.empty() ? " none is registered for the op" : refusals));
}

std::size_t scratch_of(const KernelEntry& kernel, const Shape& shape) {
  return kernel.scratch_bytes ? kernel.scratch_bytes(shape) : 0;
}

Plan plan(const NormCall& call, int compute_capability, std::span<const KernelEntry> kernels,
          const TunedTable* table) {
  validate(call);
  const Facts facts = facts_of(call, compute_capability);
  return with_scratch(decide(facts, kernels, table), facts.needs.shape);
}

Plan plan(const Case& c, int compute_capability, const TunedTable* table) {
  const Facts facts = facts_of(c, compute_capability);
  return with_scratch(decide(facts, kernel_registry(), table), facts.needs.shape);
}

const TunedTable* tuned_table_of_device(int device) {
  if (device < 0) return nullptr;
  cudaDeviceProp properties{};
  if (cudaGetDeviceProperties(&properties, device) != cudaSuccess) {
    cudaGetLastError();  // clears the error, so that the next launch's check does not see it
    return nullptr;
  }
  return tuned_table_for(properties.name);
}

int current_device() {
  int device = -1;
  if (cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();  // clears the error, so that the next launch's check does not see it
    return -1;
  }
  return device;
}

const TunedTable* tuned_table_of_current_device() {
  return tuned_table_of_device(current_device());
}

}  // namespace normlab::dispatch
