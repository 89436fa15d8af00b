// SPDX-License-Identifier: Apache-2.0
// Chapter 12 without a GPU: which columns each rank holds (columns_of) on both sides of every
// boundary, the exchange buffer's size for each op, and the refusals that come before any GPU
// is touched. sharded_norm itself takes a Group, and a Group needs a GPU for each rank, so its
// refusals are tested on the GPU (test_ch12, test_ch12_nccl); here only Group's own.
#include "normlab_catch.hpp"

#include <cstdint>
#include <string>

#include "ch12.hpp"
#include "overlap.hpp"

namespace {

using namespace normlab;
using namespace normlab::ch12;

// The columns every rank of @p ranks holds of a row of @p cols: contiguous, in rank order, all
// of them, and the first cols % ranks ranks one more than the others.
void check_split(std::int64_t cols, int ranks) {
  INFO(cols << " columns over " << ranks << " ranks");
  const std::int64_t share = cols / ranks, extra = cols % ranks;
  std::int64_t next = 0;
  for (int rank = 0; rank < ranks; ++rank) {
    const Columns c = columns_of(cols, ranks, rank);
    CHECK(c.first == next);
    CHECK(c.count == (rank < extra ? share + 1 : share));
    next = c.first + c.count;
  }
  CHECK(next == cols);
}

}  // namespace

TEST_CASE("columns_of: every width from one column a rank up, every rank count to 9", "[ch12]") {
  for (int ranks = 1; ranks <= 9; ++ranks)
    for (std::int64_t cols = ranks; cols <= 8 * ranks + 9; ++cols)
      check_split(cols, ranks);
  // Chapter 12's shapes and widths past 32 bits.
  for (std::int64_t cols :
       {std::int64_t{8191}, std::int64_t{8192}, std::int64_t{4194301}, (std::int64_t{1} << 40) + 7})
    for (int ranks : {2, 3, 4, 8})
      check_split(cols, ranks);
}

TEST_CASE("columns_of: the extra column stops at rank cols % ranks", "[ch12]") {
  // 4 ranks: 4097 columns give rank 0 the extra one, rank 1 none; 4099 give it ranks 0 to 2.
  CHECK(columns_of(4097, 4, 0).count == 1025);
  CHECK(columns_of(4097, 4, 1).count == 1024);
  CHECK(columns_of(4097, 4, 1).first == 1025);
  CHECK(columns_of(4099, 4, 2).count == 1025);
  CHECK(columns_of(4099, 4, 3).count == 1024);
  CHECK(columns_of(4099, 4, 3).first == 3075);
  // An even split: every rank alike; one column a rank at the narrowest.
  CHECK(columns_of(4096, 4, 3).first == 3072);
  CHECK(columns_of(4096, 4, 3).count == 1024);
  CHECK(columns_of(3, 3, 2).first == 2);
  CHECK(columns_of(3, 3, 2).count == 1);
  // One rank holds the whole row.
  CHECK(columns_of(7, 1, 0).first == 0);
  CHECK(columns_of(7, 1, 0).count == 7);
}

TEST_CASE("columns_of: refusals name the argument", "[ch12]") {
  CHECK_THROWS_WITH(columns_of(8, 0, 0), Catch::Contains("'ranks'"));
  CHECK_THROWS_WITH(columns_of(8, -2, 0), Catch::Contains("'ranks'"));
  CHECK_THROWS_WITH(columns_of(8, 4, -1), Catch::Contains("'rank'"));
  CHECK_THROWS_WITH(columns_of(8, 4, 4), Catch::Contains("'rank'"));
  CHECK_NOTHROW(columns_of(8, 4, 3));
  // A rank with no column: refused, with the numbers.
  CHECK_THROWS_WITH(columns_of(3, 4, 0),
                    Catch::Contains("'cols'") && Catch::Contains("(3 columns, 4 ranks)"));
  CHECK_THROWS_WITH(columns_of(0, 1, 0), Catch::Contains("'cols'"));
  CHECK_NOTHROW(columns_of(4, 4, 3));
}

TEST_CASE("exchange_bytes: a row's moments, and LayerNorm's gathered from every rank", "[ch12]") {
  constexpr std::size_t kRowMoments = 12;  // count, mean, M2: three floats
  for (int ranks : {1, 2, 3, 8}) {
    for (std::int64_t rows : {0, 1, 7, 16384}) {
      const auto own = static_cast<std::size_t>(rows) * kRowMoments;
      INFO(rows << " rows, " << ranks << " ranks");
      // RMSNorm all-reduces in place: its own moments only, whatever the ranks.
      CHECK(exchange_bytes(Op::rmsnorm, rows, ranks) == own);
      CHECK(exchange_bytes(Op::add_rmsnorm, rows, ranks) == own);
      // LayerNorm keeps its own and gathers every rank's after them.
      CHECK(exchange_bytes(Op::layernorm, rows, ranks) == own * (1 + ranks));
      CHECK(exchange_bytes(Op::add_layernorm, rows, ranks) == own * (1 + ranks));
    }
  }
}

TEST_CASE("exchange_bytes: refusals name the argument", "[ch12]") {
  for (Op op : {Op::copy, Op::rmsnorm_backward, Op::layernorm_backward})
    CHECK_THROWS_WITH(exchange_bytes(op, 7, 2),
                      Catch::Contains("'op'") && Catch::Contains("forward norm"));
  CHECK_THROWS_WITH(exchange_bytes(Op::layernorm, -1, 2), Catch::Contains("'rows'"));
  CHECK_THROWS_WITH(exchange_bytes(Op::layernorm, 7, 0), Catch::Contains("'ranks'"));
}

TEST_CASE("Group: fewer than one GPU, or more than this process sees, refused by name", "[ch12]") {
  const int visible = visible_gpus();
  CHECK(visible >= 0);
  CHECK_THROWS_WITH(Group(0), Catch::Contains("'gpus'") && Catch::Contains("at least 1"));
  CHECK_THROWS_WITH(Group(-1), Catch::Contains("'gpus'"));
  CHECK_THROWS_WITH(
      Group(visible + 1),
      Catch::Contains("'gpus'") && Catch::Contains("this process sees " + std::to_string(visible)));
}

namespace {

// Device addresses the calls below never reach: each is refused before anything is launched
// (were one not refused, its launch would fail without a GPU, and fault with one).
alignas(16) float placeholder[64];

NormCall slice_call(Op op) {
  NormCall call{.op = op, .rows = 2, .cols = 8};
  call.x = placeholder;
  call.x_stride = 8;
  call.y = placeholder + 16;
  call.y_stride = 8;
  call.residual = placeholder + 32;
  call.residual_stride = 8;
  call.residual_out = placeholder + 48;
  call.residual_out_stride = 8;
  return call;
}

}  // namespace

TEST_CASE("the stages refuse bad calls by name before launching", "[ch12]") {
  const NormCall call = slice_call(Op::layernorm);
  void* exchange = placeholder;
  void* misaligned = placeholder + 1;
  NormCall backward = call;
  backward.op = Op::layernorm_backward;
  CHECK_THROWS_WITH(partial_moments(backward, exchange, nullptr), Catch::Contains("'op'"));
  NormCall mixed = call;
  mixed.dtype = DType::f16;
  mixed.weight_dtype = DType::bf16;
  CHECK_THROWS_WITH(partial_moments(mixed, exchange, nullptr), Catch::Contains("'weight_dtype'"));
  CHECK_THROWS_WITH(partial_moments(call, nullptr, nullptr), Catch::Contains("'exchange'"));
  CHECK_THROWS_WITH(partial_moments(call, misaligned, nullptr), Catch::Contains("'exchange'"));
  NormCall no_x = call;
  no_x.x = nullptr;
  CHECK_THROWS_WITH(partial_moments(no_x, exchange, nullptr), Catch::Contains("'x'"));
  NormCall add = slice_call(Op::add_rmsnorm);
  add.residual = nullptr;
  CHECK_THROWS_WITH(partial_moments(add, exchange, nullptr), Catch::Contains("'residual'"));

  CHECK_THROWS_WITH(normalise_slice(backward, exchange, 2, 16, nullptr), Catch::Contains("'op'"));
  CHECK_THROWS_WITH(normalise_slice(call, exchange, 0, 16, nullptr), Catch::Contains("'ranks'"));
  // The whole row is at least the slice.
  CHECK_THROWS_WITH(normalise_slice(call, exchange, 2, 7, nullptr), Catch::Contains("'cols'"));
  CHECK_THROWS_WITH(normalise_slice(call, nullptr, 2, 16, nullptr), Catch::Contains("'exchange'"));
  CHECK_THROWS_WITH(normalise_slice(call, misaligned, 2, 16, nullptr),
                    Catch::Contains("'exchange'"));
  NormCall no_y = call;
  no_y.y = nullptr;
  CHECK_THROWS_WITH(normalise_slice(no_y, exchange, 2, 16, nullptr), Catch::Contains("'y'"));
}

TEST_CASE("rstd_from_moments refuses bad calls by name before launching", "[ch12]") {
  float* rstd = placeholder + 32;
  CHECK_THROWS_WITH(rstd_from_moments(placeholder, -1, 8, 1e-6f, rstd, nullptr),
                    Catch::Contains("'rows'"));
  CHECK_THROWS_WITH(rstd_from_moments(placeholder, 2, 0, 1e-6f, rstd, nullptr),
                    Catch::Contains("'cols'"));
  CHECK_THROWS_WITH(rstd_from_moments(placeholder, 2, 8, 0.0f, rstd, nullptr),
                    Catch::Contains("'eps'"));
  CHECK_THROWS_WITH(rstd_from_moments(nullptr, 2, 8, 1e-6f, rstd, nullptr),
                    Catch::Contains("'exchange'"));
  CHECK_THROWS_WITH(rstd_from_moments(placeholder, 2, 8, 1e-6f, nullptr, nullptr),
                    Catch::Contains("'rstd'"));
  // No rows: nothing to read or write, so nothing is asked of the pointers.
  CHECK_NOTHROW(rstd_from_moments(nullptr, 0, 8, 1e-6f, nullptr, nullptr));
}
