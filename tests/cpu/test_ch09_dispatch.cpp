// SPDX-License-Identifier: Apache-2.0
// Chapter 09's decision table on the CPU: choose() on both sides of every boundary, the launch
// it returns, the refusals of a forced configuration.
#include "normlab_catch.hpp"

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>

#include "configs.hpp"

namespace {

using namespace normlab::kernels::configured;

// A rows x cols problem of @p element_bytes elements, aligned unless @p lead elements of its
// first chunk lie before the row (chapter 07's chunks: one more when lead > 0).
Problem problem(std::int64_t rows, std::int64_t cols, int element_bytes, int lead = 0) {
  const std::int64_t width = 16 / element_bytes;
  return {.rows = rows,
          .cols = cols,
          .element_bytes = element_bytes,
          .aligned = lead == 0 && cols % width == 0,
          .chunks = (lead + cols + width - 1) / width};
}

// The same problem for a LayerNorm op.
Problem centred(Problem p) {
  p.centre = true;
  return p;
}

// The same problem for an op that adds a residual first.
Problem with_residual(Problem p) {
  p.add = true;
  return p;
}

std::string chosen(const Problem& p) {
  const Choice choice = choose(p);
  REQUIRE(choice.config >= 0);
  REQUIRE(choice.config < kConfigCount);
  INFO(choice.why);
  CHECK_FALSE(choice.why.empty());
  CHECK(choice.why.rfind("refused:", 0) != 0);
  return kConfigs[choice.config].name;
}

}  // namespace

TEST_CASE("narrow rows: the fewest lanes x vectors that hold the row", "[ch09]") {
  CHECK(chosen(problem(8192, 1, 2)) == "narrow8x2_any");
  CHECK(chosen(problem(8192, 128, 2)) == "narrow8x2");           // 16 chunks
  CHECK(chosen(problem(8192, 136, 2)) == "narrow32x2");          // 17
  CHECK(chosen(problem(8192, 512, 2)) == "narrow32x2");          // 64
  CHECK(chosen(problem(8192, 520, 2)) == "narrow16x5");          // 65
  CHECK(chosen(problem(8192, 576, 2)) == "narrow16x5");          // 72
  CHECK(chosen(problem(8192, 640, 2)) == "narrow16x5");          // 80
  CHECK(chosen(problem(8192, 648, 2)) == "narrow32x3");          // 81
  CHECK(chosen(problem(8192, 768, 2)) == "narrow32x3");          // 96
  CHECK(chosen(problem(8192, 1024, 2, 3)) == "narrow32x8_any");  // 129, misaligned
  CHECK(chosen(problem(8192, 1001, 2)) == "narrow32x4_any");     // not whole chunks
  CHECK(chosen(problem(8192, 1023, 4)) == "narrow32x8_any");
  CHECK(chosen(problem(8192, 1021, 4, 3)) == "narrow32x8_any");  // 256 chunks with the lead
  // Few rows of narrow width still take the narrow kernel: one group, one pass.
  CHECK(chosen(problem(1, 576, 2)) == "narrow16x5");
  // LayerNorm has no narrow16x5 kernel: its 65 to 80 chunks go to narrow32x3; add + RMSNorm
  // takes narrow16x5 as RMSNorm does.
  CHECK(chosen(centred(problem(8192, 520, 2))) == "narrow32x3");
  CHECK(chosen(centred(problem(8192, 576, 2))) == "narrow32x3");
  CHECK(chosen(with_residual(problem(8192, 576, 2))) == "narrow16x5");
  // 16-bit add + LayerNorm of 65 to 96 chunks (narrow32x3's rows) goes to block1, a thread a
  // chunk: narrow32x3 cannot load its residual first. At 64 and 97 chunks, and for fp32 rows,
  // the narrow rule holds.
  CHECK(chosen(centred(with_residual(problem(8192, 520, 2)))) == "block1");  // 65
  CHECK(chosen(centred(with_residual(problem(8192, 640, 2)))) == "block1");
  CHECK(chosen(centred(with_residual(problem(8192, 768, 2)))) == "block1");  // 96
  CHECK(chosen(centred(with_residual(problem(8192, 512, 2)))) == "narrow32x2");
  CHECK(chosen(centred(with_residual(problem(8192, 776, 2)))) == "block2_256x4");
  CHECK(chosen(centred(with_residual(problem(8192, 288, 4)))) == "narrow32x3");  // fp32, 72
  CHECK(chosen(centred(with_residual(problem(8192, 576, 2, 3)))) == "narrow32x3_any");
  CHECK(choose(centred(with_residual(problem(8192, 576, 2)))).threads == 96);
  CHECK(chosen(centred(problem(8192, 512, 2))) == "narrow32x2");
}

TEST_CASE("aligned rows of 97 to 256 chunks within 1024 columns: a row per block, 2 vectors",
          "[ch09]") {
  // narrow32x3 holds 96 chunks; one more and an aligned row leaves the narrow kernels.
  CHECK(chosen(problem(8192, 768, 2)) == "narrow32x3");     // 96
  CHECK(chosen(problem(8192, 776, 2)) == "block2_256x4");   // 97
  CHECK(chosen(problem(8192, 1000, 2)) == "block2_256x4");  // 125 chunks, whole
  CHECK(chosen(problem(8192, 1024, 2)) == "block2_256x4");  // 128
  CHECK(chosen(problem(8192, 384, 4)) == "narrow32x3");     // fp32, 96
  CHECK(chosen(problem(8192, 388, 4)) == "block2_256x4");   // fp32, 97
  CHECK(chosen(problem(8192, 1024, 4)) == "block2_256x4");  // fp32, 256
  CHECK(chosen(centred(problem(8192, 1024, 2))) == "block2_256x4");
  CHECK(chosen(with_residual(problem(8192, 1024, 4))) == "block2_256x4");
  // Whole warps, 2 vectors a thread: 97 chunks take 49 threads, rounded to 64; 256 take 128.
  CHECK(choose(problem(8192, 776, 2)).threads == 64);
  CHECK(choose(problem(8192, 1024, 4)).threads == 128);
  CHECK(choose(problem(8192, 1024, 4)).blocks == 8192);
  // Few rows take the few-row rule first: block1, a thread a chunk.
  CHECK(chosen(problem(64, 1024, 4)) == "block1");
  CHECK(chosen(problem(65, 1024, 4)) == "block2_256x4");
  CHECK(chosen(problem(1, 1024, 2)) == "block1");
  CHECK(choose(problem(1, 1024, 2)).threads == 128);
}

TEST_CASE("narrow launch: 256 threads, 256 / lanes rows a block, blocks for every row", "[ch09]") {
  const Choice c = choose(centred(problem(8192, 576, 2)));  // narrow32x3
  CHECK(c.threads == 256);
  CHECK(c.blocks == 8192 / 8);
  CHECK(choose(centred(problem(33, 576, 2))).blocks == 5);   // 8 rows a block: the last holds one
  CHECK(choose(problem(8192, 576, 2)).blocks == 8192 / 16);  // narrow16x5: 16 rows a block
  CHECK(choose(problem(33, 576, 2)).blocks == 3);
  CHECK(choose(problem(33, 64, 2)).blocks == 2);  // narrow8x2: 32 rows a block
  CHECK(choose(problem(1, 1, 4)).blocks == 1);
}

TEST_CASE("wider than 1024: one row a block; few rows split the row over up to 1024 threads",
          "[ch09]") {
  // Few rows (<= 64): block1 while a thread's one vector covers the row in 1024 threads.
  CHECK(chosen(problem(64, 4096, 2)) == "block1");
  CHECK(choose(problem(64, 4096, 2)).threads == 512);
  CHECK(chosen(problem(1, 8192, 2)) == "block1");
  CHECK(choose(problem(1, 8192, 2)).threads == 1024);
  CHECK(chosen(problem(1, 8200, 2)) == "block2");
  CHECK(choose(problem(1, 8200, 2)).threads == 544);  // 1025 chunks / 2, in whole warps
  CHECK(chosen(problem(1, 16384, 2)) == "block2");
  CHECK(chosen(problem(1, 16392, 2)) == "block8");
  CHECK(chosen(problem(1, 4096, 4)) == "block1");
  CHECK(chosen(problem(1, 4097, 2)) == "block4_any");
  CHECK(chosen(problem(64, 4096, 2)) != chosen(problem(65, 4096, 2)));  // the few-rows edge
  // Many rows (> 64), at most 1024 aligned chunks: 4 vectors a thread, registers capped for 6
  // blocks of 128 threads to 512 chunks, 3 of 256 to 1024; with a residual, 2 vectors a thread,
  // 4 blocks of 256 or 2 of 512.
  CHECK(chosen(problem(65, 4096, 2)) == "block4_128x6");
  CHECK(choose(problem(65, 4096, 2)).threads == 128);
  CHECK(chosen(problem(4096, 1032, 2)) == "block4_128x6");  // 129 chunks: 33 threads, 2 warps
  CHECK(choose(problem(4096, 1032, 2)).threads == 64);
  CHECK(chosen(problem(4096, 4104, 2)) == "block4_256x3");  // 513 chunks
  CHECK(chosen(problem(4096, 8192, 2)) == "block4_256x3");
  CHECK(choose(problem(4096, 8192, 2)).threads == 256);
  CHECK(chosen(problem(4096, 5000, 2)) == "block4_256x3");  // 625 chunks, whole: aligned
  CHECK(choose(problem(4096, 5000, 2)).threads == 160);
  CHECK(chosen(problem(16384, 2048, 4)) == "block4_128x6");  // fp32: 512 chunks
  CHECK(chosen(with_residual(problem(16384, 4096, 2))) == "block2_256x4");
  CHECK(choose(with_residual(problem(16384, 4096, 2))).threads == 256);
  CHECK(chosen(with_residual(problem(4096, 4104, 2))) == "block2_512x2");
  CHECK(chosen(with_residual(problem(4096, 8192, 2))) == "block2_512x2");
  CHECK(choose(with_residual(problem(4096, 8192, 2))).threads == 512);
  // Wider than 1024 chunks, or misaligned: chapter 07's launcher.
  CHECK(chosen(problem(4096, 8200, 2)) == "wide");  // 1025 chunks
  CHECK(chosen(with_residual(problem(4096, 8200, 2))) == "wide");
  CHECK(chosen(problem(16384, 16388, 2)) == "wide");  // 2049 chunks
  CHECK(chosen(problem(2048, 8192, 4)) == "wide");
  CHECK(chosen(problem(4096, 4097, 2)) == "wide");
  CHECK(chosen(problem(4096, 4096, 2, 3)) == "wide");  // 513 chunks, the first partial
  CHECK(chosen(with_residual(problem(4096, 4097, 2))) == "wide");
  CHECK(choose(problem(4096, 4096, 2)).blocks == 4096);
}

TEST_CASE("wide 16-bit rows where a 4-vector block fits an SM once: block8_256x2, two an SM",
          "[ch09]") {
  CHECK(chosen(problem(4096, 16384, 2)) == "block8_256x2");  // 2048 chunks: 256 threads
  CHECK(choose(problem(4096, 16384, 2)).threads == 256);
  CHECK(chosen(problem(4096, 14344, 2)) == "block8_256x2");           // 1793: RMSNorm's first
  CHECK(choose(problem(4096, 14344, 2)).threads == 256);              // 225 threads, whole warps
  CHECK(chosen(problem(4096, 14336, 2)) == "wide");                   // 1792: chapter 07 fits twice
  CHECK(chosen(centred(problem(4096, 12296, 2))) == "block8_256x2");  // 1537: LayerNorm's first
  CHECK(chosen(centred(problem(4096, 14336, 2))) == "block8_256x2");
  CHECK(chosen(centred(problem(4096, 16384, 2))) == "block8_256x2");
  // Not for a residual, fp32, rows off the grid, wider rows or few rows.
  CHECK(chosen(with_residual(problem(4096, 14592, 2))) == "wide");
  CHECK(chosen(with_residual(centred(problem(4096, 14336, 2)))) == "block4");  // rule 7
  CHECK(chosen(problem(8192, 8192, 4)) == "wide");                             // fp32, 2048 chunks
  CHECK(chosen(problem(4096, 16384, 2, 3)) == "wide");
  CHECK(chosen(problem(4096, 16392, 2)) == "wide");  // 2049 chunks
  CHECK(chosen(problem(64, 16384, 2)) == "block2");
}

TEST_CASE("add + norm rows of exactly 2048 chunks: block2, 1024 threads", "[ch09]") {
  CHECK(chosen(with_residual(problem(4096, 16384, 2))) == "block2");
  CHECK(choose(with_residual(problem(4096, 16384, 2))).threads == 1024);
  CHECK(chosen(with_residual(centred(problem(4096, 16384, 2)))) == "block2");
  CHECK(chosen(with_residual(problem(8192, 8192, 4))) == "block2");  // fp32
  CHECK(chosen(with_residual(centred(problem(8192, 8192, 4)))) == "block2");
  // Not one chunk narrower or wider, nor without a residual, nor off the grid.
  CHECK(chosen(with_residual(problem(4096, 16376, 2))) == "wide");  // 2047 chunks
  CHECK(chosen(with_residual(problem(4096, 16392, 2))) == "wide");
  CHECK(chosen(problem(8192, 8192, 4)) == "wide");
  CHECK(chosen(with_residual(problem(4096, 16384, 2, 3))) == "wide");
}

TEST_CASE("16-bit LayerNorm rows of 1025 to 2048 chunks that whole warps fill: block4", "[ch09]") {
  CHECK(chosen(centred(problem(2048, 12288, 2))) == "block4");  // 1536 chunks: 384 threads
  CHECK(choose(centred(problem(2048, 12288, 2))).threads == 384);
  CHECK(chosen(centred(problem(4096, 9216, 2))) == "block4");  // 1152, the narrowest
  CHECK(chosen(with_residual(centred(problem(2048, 12288, 2)))) == "block4");
  CHECK(chosen(with_residual(centred(problem(4096, 14336, 2)))) == "block4");
  CHECK(choose(with_residual(centred(problem(4096, 14336, 2)))).threads == 448);
  // The rule's edges: a last warp part idle, a chunk more than block4 holds, RMSNorm, fp32,
  // rows off the 16-byte grid, and few rows (rule 2's block per row first).
  CHECK(chosen(centred(problem(4096, 12000, 2))) == "wide");                 // 1500 chunks
  CHECK(chosen(centred(problem(4096, 8200, 2))) == "wide");                  // 1025
  CHECK(chosen(with_residual(centred(problem(4096, 16512, 2)))) == "wide");  // 2064
  CHECK(chosen(problem(2048, 12288, 2)) == "wide");
  CHECK(chosen(with_residual(problem(2048, 12288, 2))) == "wide");
  CHECK(chosen(centred(problem(8192, 8192, 4))) == "wide");  // fp32, 2048 chunks
  CHECK(chosen(centred(problem(2048, 12288, 2, 3))) == "wide");
  CHECK(chosen(centred(problem(64, 12288, 2))) == "block2");
}

TEST_CASE("wider than the table: chapter 07's launcher", "[ch09]") {
  CHECK(chosen(problem(4096, 24584, 2)) == "wide");
  CHECK(chosen(problem(1, 24584, 2)) == "wide");
  CHECK(chosen(problem(16, 65536, 2)) == "wide");
  CHECK(chosen(problem(16, 12292, 4)) == "wide");
  CHECK(choose(problem(16, 65536, 2)).why.find("chapter 07") != std::string::npos);
}

TEST_CASE("a forced configuration is refused, with the reason, when it cannot hold the row",
          "[ch09]") {
  const Choice unaligned = configure(config_index("block2"), problem(100, 4097, 2));
  CHECK(unaligned.why.rfind("refused:", 0) == 0);
  CHECK(unaligned.why.find("aligned") != std::string::npos);
  const Choice too_wide = configure(config_index("narrow8x2"), problem(100, 136, 2));
  CHECK(too_wide.why.rfind("refused:", 0) == 0);
  CHECK(too_wide.why.find("holds 16 chunks") != std::string::npos);
  CHECK(configure(config_index("block2"), problem(100, 4096, 2)).why.empty());
  const Choice rmsnorm_only = configure(config_index("narrow16x5"), centred(problem(100, 576, 2)));
  CHECK(rmsnorm_only.why.rfind("refused:", 0) == 0);
  CHECK(rmsnorm_only.why.find("RMSNorm ops only") != std::string::npos);
  CHECK(configure(config_index("narrow16x5"), problem(100, 576, 2)).why.empty());
  CHECK(config_index("no_such_config") == -1);
}

TEST_CASE("the table: names unique and found, capacities as documented", "[ch09]") {
  std::set<std::string> names;
  for (int i = 0; i < kConfigCount; ++i) {
    names.insert(kConfigs[i].name);
    CHECK(config_index(kConfigs[i].name) == i);
    if (kConfigs[i].kind == Kind::narrow) CHECK(kConfigs[i].lanes > 0);
    if (kConfigs[i].kind == Kind::block || kConfigs[i].kind == Kind::wide) {
      CHECK(kConfigs[i].lanes == 0);
    }
    if (kConfigs[i].lanes > 0) {
      CHECK((kConfigs[i].lanes & (kConfigs[i].lanes - 1)) == 0);  // a power of two
      CHECK(kConfigs[i].lanes <= 32);
      CHECK(kConfigs[i].max_threads % 32 == 0);  // whole warps: the shuffles name all 32 lanes
    }
  }
  CHECK(names.size() == static_cast<std::size_t>(kConfigCount));
  CHECK(chunks_held(kConfigs[config_index("narrow32x3")]) == 96);
  CHECK(chunks_held(kConfigs[config_index("narrow16x5")]) == 80);
  CHECK(chunks_held(kConfigs[config_index("block2")]) == 2048);
  CHECK(chunks_held(kConfigs[config_index("block8")]) == 3072);
  CHECK(chunks_held(kConfigs[config_index("slim2")]) == 2048);
  CHECK(chunks_held(kConfigs[config_index("slim_lanes16x5")]) == 80);
}

TEST_CASE("a slim configuration in groups of lanes launches a row a group", "[ch09]") {
  const int index = config_index("slim_lanes16x5");
  REQUIRE(index >= 0);
  // 1000 rows of 576 bf16 columns (72 chunks): 16 rows a block of 256 threads.
  const Choice fits = configure(index, problem(1000, 576, 2));
  CHECK(fits.why.empty());
  CHECK(fits.threads == 256);
  CHECK(fits.blocks == 63);
  CHECK(configure(index, problem(1, 640, 2)).why.empty());  // 80 chunks: fills its group
  CHECK(configure(index, problem(1, 648, 2)).why.find("holds 80 chunks") != std::string::npos);
  CHECK(configure(index, problem(1, 572, 2)).why.find("aligned") != std::string::npos);
  // Its add + LayerNorm spills: refused by name, never launched.
  CHECK(configure(index, centred(with_residual(problem(8, 576, 2)))).why.find("add + LayerNorm") !=
        std::string::npos);
  // The rules never take it: the tuned chooser alone does.
  for (std::int64_t cols : {256, 512, 576, 768, 1024}) {
    CHECK(std::string(kConfigs[choose(problem(100000, cols, 2)).config].name).rfind("slim", 0) ==
          std::string::npos);
  }
}

TEST_CASE("every slim configuration's grid holds every row: its kernel has no loop", "[ch09]") {
  for (const Config& config : kConfigs) {
    if (config.kind != Kind::slim) continue;
    INFO(config.name);
    const int index = config_index(config.name);
    const std::int64_t cols = 8 * std::min<std::int64_t>(chunks_held(config), 64);
    for (std::int64_t rows : {1, 7, 255, 256, 257, 100000, 2147483647}) {
      const Choice choice = configure(index, problem(rows, cols, 2));
      REQUIRE(choice.why.empty());
      const std::int64_t per_block = config.lanes > 0 ? choice.threads / config.lanes : 1;
      CHECK(std::int64_t{choice.blocks} * per_block >= rows);
    }
  }
}

TEST_CASE("a staged configuration: a row a block sized to the row, in shared memory", "[ch09]") {
  const int index = config_index("staged8");
  REQUIRE(index >= 0);
  CHECK(kConfigs[index].kind == Kind::staged);
  CHECK(chunks_held(kConfigs[index]) == 4096);
  // 256 rows of 10240 fp32 columns (2560 chunks): 320 threads of 8 chunks, a block a row.
  const Choice fits = configure(index, problem(256, 10240, 4));
  CHECK(fits.why.empty());
  CHECK(fits.threads == 320);
  CHECK(fits.blocks == 256);
  CHECK(configure(index, centred(with_residual(problem(3, 32768, 2)))).why.empty());
  CHECK(configure(index, problem(1, 32776, 2)).why.find("holds 4096 chunks") != std::string::npos);
  CHECK(configure(index, problem(1, 10244, 2)).why.find("aligned") != std::string::npos);
  // Its stage: x, and for add + norm the residual after it.
  CHECK(staged_bytes(2560, false) == 40960);
  CHECK(staged_bytes(4096, true) == 131072);
  // The rules never take it: the tuned chooser alone does.
  for (std::int64_t cols : {4096, 10240, 16384, 32768}) {
    CHECK(kConfigs[choose(problem(256, cols, 2)).config].kind != Kind::staged);
  }
}
