// Memory dependencies as Inductor compares them: addresses of loads and stores over a kernel's
// loop, the size-prefix rule of fusable_read_and_write, and loop reordering.

#include <catch2/catch.hpp>

#include <vector>

#include "fxscope/fusion/memory_index.h"

using namespace fxscope::fusion;

namespace {

std::vector<std::int64_t> contiguous(const std::vector<std::int64_t>& sizes) {
  std::vector<std::int64_t> strides(sizes.size(), 1);
  for (std::size_t k = sizes.size(); k-- > 1;) strides[k - 1] = strides[k] * sizes[k];
  return strides;
}

IndexExpr fixed(std::int64_t c) {
  IndexExpr e;
  e.offset = c;
  return e;
}

MemoryDep store(std::int64_t buffer, const std::vector<std::int64_t>& sizes) {
  std::int64_t numel = 1;
  for (const std::int64_t s : sizes) numel *= s;
  return make_dep(buffer, iteration_coords(sizes), contiguous(sizes), numel, 4);
}

}  // namespace

TEST_CASE("a contiguous store is one digit over the whole loop", "[memory_index]") {
  const MemoryDep d = store(7, {8, 16, 32});
  REQUIRE(d.terms.size() == 1);
  CHECK(d.terms[0].radix == 8 * 16 * 32);
  CHECK(d.terms[0].mult == 1);
  CHECK(d.bytes == 8 * 16 * 32 * 4);
  CHECK(d.same_as(store(7, {8 * 16, 32})));
  CHECK_FALSE(d.same_as(store(8, {8, 16, 32})));
}

TEST_CASE("a reshape splits digits and reads what was stored", "[memory_index]") {
  // A [4, 6] value read as [4, 2, 3] walks the same memory in the same order.
  const Coords out = iteration_coords({4, 2, 3});
  const Coords in = reshape_coords(out, {4, 2, 3}, {4, 6});
  REQUIRE(in.size() == 2);
  CHECK_FALSE(in[0].opaque);
  CHECK_FALSE(in[1].opaque);
  const MemoryDep read = make_dep(1, in, contiguous({4, 6}), 24, 4);
  CHECK(read.reads_as_written(store(1, {4, 6})));
}

TEST_CASE("a transposed read does not match the store", "[memory_index]") {
  const Coords out = iteration_coords({6, 4});  // the [4, 6] value read as its transpose
  const MemoryDep read = make_dep(1, Coords{out[1], out[0]}, contiguous({4, 6}), 24, 4);
  const MemoryDep write = store(1, {4, 6});
  CHECK_FALSE(read.same_as(write));
  CHECK_FALSE(read.reads_as_written(write));
  // The same elements in another loop order: loop reordering can align them.
  CHECK(same_stride_order(read, write));
  const auto order = loop_order_to_match(write, read);
  REQUIRE(order);
  CHECK(reorder_loops(write, *order).same_as(read));
}

TEST_CASE("an inner reduction reads its producer's store and an outer one does not",
          "[memory_index]") {
  const MemoryDep write = store(3, {32, 64});
  const MemoryDep inner =
      make_dep(3, reduction_coords({32, 64}, {1}), contiguous({32, 64}), 32 * 64, 4);
  const MemoryDep outer =
      make_dep(3, reduction_coords({32, 64}, {0}), contiguous({32, 64}), 32 * 64, 4);
  CHECK(inner.reads_as_written(write));
  CHECK_FALSE(outer.reads_as_written(write));
  CHECK(same_stride_order(outer, write));
}

TEST_CASE("a read broadcast over an inner loop matches by the size prefix", "[memory_index]") {
  // A [32] value stored, then read by a kernel over [32, 64] that broadcasts it along dim 1.
  const MemoryDep write = store(5, {32});
  const Coords coords = iteration_coords({32, 64});
  const MemoryDep read = make_dep(5, Coords{coords[0]}, {1}, 32 * 64, 4);
  CHECK_FALSE(read.same_as(write));
  CHECK(read.reads_as_written(write));
  CHECK(read.bytes == 32 * 4);
  // Broadcast along the outer dim instead: the loop the address ignores is not the innermost.
  const MemoryDep outer_broadcast = make_dep(5, Coords{coords[1]}, {1}, 32 * 64, 4);
  CHECK_FALSE(outer_broadcast.reads_as_written(store(5, {64})));
}

TEST_CASE("split and indirect addresses match only their own kind", "[memory_index]") {
  MemoryDep a = store(2, {16, 16});
  MemoryDep b = a;
  a.split = 4;
  CHECK_FALSE(a.same_as(b));
  CHECK_FALSE(a.reads_as_written(b));
  b.split = 4;
  CHECK(a.same_as(b));

  MemoryDep x;
  x.buffer = 9;
  x.opaque = true;
  MemoryDep y = x;
  CHECK_FALSE(x.same_as(y));  // unknown addresses are temporaries: equal to nothing
  x.tag = y.tag = 12;         // the same indirect load inlined twice
  CHECK(x.same_as(y));
  CHECK_FALSE(x.reads_as_written(y));
}

TEST_CASE("a reshape matches sizes in blocks, as View._dynamic_reshape_indexer does",
          "[memory_index]") {
  // A masked load of a cat's first piece: the coordinate along the last dim runs over the whole
  // cat (64) though the piece has 32. Adding or dropping dims of size 1 passes it through.
  const Coords out = iteration_coords({4, 64});
  const Coords in = reshape_coords({fixed(0), out[0], out[1]}, {1, 4, 32}, {4, 32});
  REQUIRE(in.size() == 2);
  CHECK_FALSE(in[0].opaque);
  CHECK_FALSE(in[1].opaque);
  const MemoryDep through = make_dep(3, in, contiguous({4, 32}), 256, 4);
  CHECK(through.same_as(make_dep(3, out, contiguous({4, 32}), 256, 4)));
}

TEST_CASE("an inner dim of a reshape drops a whole multiple of its size (ModularIndexing)",
          "[memory_index]") {
  // [1, 8, 64] read as [1, 8, 2, 32]: the second half of the last dim (a slice from 32) reads the
  // same inner element as the first half; the outer coordinate is a FloorDiv, one further on.
  const Coords half = iteration_coords({8, 32});
  IndexExpr shifted = half[1];
  shifted.offset = 32;
  const Coords in = reshape_coords({fixed(0), half[0], shifted}, {1, 8, 64}, {1, 8, 2, 32});
  REQUIRE(in.size() == 4);
  CHECK_FALSE(in[3].opaque);
  CHECK(in[3].offset == 0);
  CHECK(in[2].offset == 1);
  IndexExpr back = half[1];
  back.offset = -32;
  const Coords below = reshape_coords({fixed(0), half[0], back}, {1, 8, 64}, {1, 8, 2, 32});
  CHECK_FALSE(below[3].opaque);
  CHECK(below[3].offset == 0);
  CHECK(below[2].offset == -1);
}
