// Bytes models: what each op must move at the least.
#include "normlab_catch.hpp"

#include "normlab/ops.hpp"

using normlab::DType;
using normlab::Op;

TEST_CASE("a norm moves 2*M*N*sizeof(T) plus its parameters", "[ops]") {
  const normlab::Shape s{
      .rows = 2048, .cols = 8192, .dtype = DType::f32, .weight_dtype = DType::f32};
  CHECK(normlab::bytes_moved(Op::copy, s) == 2.0 * 2048 * 8192 * 4);
  CHECK(normlab::bytes_moved(Op::rmsnorm, s) == 2.0 * 2048 * 8192 * 4 + 8192 * 4);
  normlab::Shape ln = s;
  ln.bias = true;
  CHECK(normlab::bytes_moved(Op::layernorm, ln) == 2.0 * 2048 * 8192 * 4 + 2 * 8192 * 4);
}

TEST_CASE("add + norm moves 4*M*N*sizeof(T) plus its parameters", "[ops]") {
  const normlab::Shape s{
      .rows = 16384, .cols = 4096, .dtype = DType::bf16, .weight_dtype = DType::f32};
  CHECK(normlab::bytes_moved(Op::add_rmsnorm, s) == 4.0 * 16384 * 4096 * 2 + 4096 * 4);
}

TEST_CASE("backward reads x and dy, writes dx, and moves parameters and statistics", "[ops]") {
  const normlab::Shape s{.rows = 10,
                         .cols = 100,
                         .dtype = DType::f16,
                         .weight_dtype = DType::f16,
                         .weight = true,
                         .bias = true};
  CHECK(normlab::bytes_moved(Op::rmsnorm_backward, s) ==
        3.0 * 10 * 100 * 2 + 2 * (2 * 100 * 2) + 10 * 4);
  CHECK(normlab::bytes_moved(Op::layernorm_backward, s) ==
        3.0 * 10 * 100 * 2 + 2 * (2 * 100 * 2) + 2 * 10 * 4);
}

TEST_CASE("op and dtype names round-trip, and bad names are refused by argument", "[ops]") {
  for (Op op : {Op::copy, Op::rmsnorm, Op::layernorm, Op::add_rmsnorm, Op::add_layernorm}) {
    CHECK(normlab::parse_op(normlab::name_of(op)) == op);
  }
  for (DType d : {DType::f32, DType::f16, DType::bf16})
    CHECK(normlab::parse_dtype(normlab::name_of(d)) == d);
  CHECK_THROWS_WITH(normlab::parse_op("rms", "--op"), Catch::Contains("'--op'"));
  CHECK_THROWS_WITH(normlab::parse_dtype("fp8", "--dtype"), Catch::Contains("'--dtype'"));
}
