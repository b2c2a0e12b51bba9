// Layout copies and pooling run on the CPU: the generated CUDA C of every channels-last copy in
// the ResNet samples, and of ResNet-50's stem (batch norm, ReLU, max-pool), is built by the host's
// C++ compiler behind a small shim and checked element by element against what it stands for. The
// shim runs one thread of one block: a kernel written with block- and grid-stride loops and
// barriers between its phases does the same work that way, so the index arithmetic of both phases
// is checked without a GPU.

#include <dlfcn.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <set>
#include <vector>

#include "codegen_samples.h"
#include "host_shim.h"

using namespace fxscope;

namespace {

using CopyKernel = void (*)(const float*, float*);
using StemKernel = void (*)(const float*, const float*, const float*, const float*, const float*,
                            float*);
// The same writing the window offsets too (Inductor's int8 kh * 3 + kw).
using StemOffsetsKernel = void (*)(const float*, const float*, const float*, const float*,
                                   const float*, float*, signed char*);

}  // namespace

TEST_CASE("channels-last copies of the ResNet samples transpose each image exactly", "[codegen]") {
  const auto dir = test::host_dir("fxscope-copy-on-host-");
  std::set<std::string> shapes_seen;
  int checked = 0;
  int rgb_inputs = 0;
  int weights_3x3 = 0;
  for (const std::string sample : {"resnet18", "resnet50"}) {
    for (const auto& planned : test::planned_graphs(sample, fusion::Mode::default_mode)) {
      const graph::Graph& g = planned.fusion.post_grad;
      for (const auto& group : planned.fusion.ours.groups) {
        if (group.note != "layout copy to channels-last") continue;
        REQUIRE(group.inputs.size() == 1);
        const graph::TensorMeta& meta = *g.node(group.inputs.front()).meta;
        if (meta.dtype != "f32" || !shapes_seen.insert(meta.to_string()).second) continue;
        codegen::CodegenOptions options;
        options.hints = planned.hints;
        const auto kernel = codegen::generate(g, group, options);
        INFO(planned.where << " " << group.name << ": " << meta.to_string());
        REQUIRE(kernel);
        // The RGB input image moves 16-byte words both ways: a position a thread kept it at 68%
        // of a same-size copy in max-autotune on the H200.
        if (meta.sizes[1].value == 3 && meta.sizes[2].value == 224) {
          CHECK(kernel->summary.find("a thread 4 positions of 3 channels, 16-byte words") !=
                std::string::npos);
          ++rgb_inputs;
        }
        // 3x3 weights: through a tile, read and written in 16-byte words (written a channel a
        // thread, they sat at 69-77% of a same-size copy on the H200).
        if (meta.sizes[2].value == 3 && meta.sizes[3].value == 3) {
          CHECK(kernel->summary.find("16-byte reads and writes") != std::string::npos);
          ++weights_3x3;
        }
        REQUIRE(kernel->params.size() == 2);
        REQUIRE(kernel->params[1].written);
        void* lib = test::build_on_host(*kernel, dir);
        const auto run = reinterpret_cast<CopyKernel>(dlsym(lib, kernel->entry.c_str()));
        REQUIRE(run);

        const std::int64_t n = meta.sizes[0].value, c = meta.sizes[1].value;
        const std::int64_t h = meta.sizes[2].value, w = meta.sizes[3].value;
        std::int64_t extent = 1;
        for (std::size_t d = 0; d < 4; ++d)
          extent += (meta.sizes[d].value - 1) * meta.strides[d].value;
        std::vector<float> in(static_cast<std::size_t>(extent));
        for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i % 65521) + 0.5f;
        std::vector<float> out(static_cast<std::size_t>(n * c * h * w), -1.0f);
        run(in.data(), out.data());
        std::int64_t wrong = 0;
        for (std::int64_t a = 0; a < n; ++a)
          for (std::int64_t b = 0; b < c; ++b)
            for (std::int64_t y = 0; y < h; ++y)
              for (std::int64_t x = 0; x < w; ++x) {
                const std::int64_t from = a * meta.strides[0].value + b * meta.strides[1].value +
                                          y * meta.strides[2].value + x * meta.strides[3].value;
                const std::int64_t to = ((a * h + y) * w + x) * c + b;
                wrong += out[static_cast<std::size_t>(to)] != in[static_cast<std::size_t>(from)];
              }
        CHECK(wrong == 0);
        ++checked;
        dlclose(lib);
      }
    }
  }
  // Both forms the samples have are covered: 3x3 weights (all positions in one tile, read in
  // 16-byte words) and the 3-channel input and stem weights (a thread a position).
  CHECK(checked >= 3);
  CHECK(rgb_inputs >= 1);
  CHECK(weights_3x3 >= 4);  // 64 to 512 channels
  std::cout << checked << " distinct channels-last copies checked on the host\n";
}

// The stem's batch norm + ReLU + 3x3/2 max-pool (padding 1) on the host, as KERNEL computes it;
// the number of outputs (values, and offsets where the kernel writes them) that differ from the
// definition.
std::int64_t stem_pool_errors(const codegen::GeneratedKernel& kernel, const graph::Graph& g) {
  // The convolution's output, the four batch-norm vectors (mean, variance, weight, bias), the
  // pooled values, and maybe the offsets.
  REQUIRE((kernel.params.size() == 6 || kernel.params.size() == 7));
  REQUIRE(kernel.params[5].written);
  const bool offsets = kernel.params.size() == 7;
  CHECK(kernel.source.find("continue;") == std::string::npos);  // no branch around a read
  const auto dir = test::host_dir("fxscope-pool-on-host-");
  void* lib = test::build_on_host(kernel, dir);
  void* entry = dlsym(lib, kernel.entry.c_str());
  REQUIRE(entry);
  const auto run = reinterpret_cast<StemKernel>(entry);
  const graph::TensorMeta& in = *g.node(kernel.params[0].node).meta;
  const std::int64_t c = in.sizes[1].value, h = in.sizes[2].value, w = in.sizes[3].value;
  REQUIRE(c == 64);
  REQUIRE(h == 112);
  std::vector<float> x(static_cast<std::size_t>(c * h * w));
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<float>(static_cast<int>(i * 2654435761u % 2001) - 1000) / 250.0f;
  }
  std::vector<float> mean(64), var(64), weight(64), bias(64);
  for (std::size_t k = 0; k < 64; ++k) {
    mean[k] = 0.01f * static_cast<float>(k);
    var[k] = 0.5f + 0.02f * static_cast<float>(k);
    weight[k] = 1.0f - 0.01f * static_cast<float>(k);
    bias[k] = -0.2f + 0.005f * static_cast<float>(k);
  }
  const std::int64_t oh = h / 2, ow = w / 2;
  std::vector<float> out(static_cast<std::size_t>(c * oh * ow), -7.0f);
  std::vector<signed char> at(out.size(), -1);
  const auto call = [&] {
    if (offsets) {
      reinterpret_cast<StemOffsetsKernel>(entry)(x.data(), mean.data(), var.data(), weight.data(),
                                                 bias.data(), out.data(), at.data());
    } else {
      run(x.data(), mean.data(), var.data(), weight.data(), bias.data(), out.data());
    }
  };
  using SetThread = void (*)(unsigned, unsigned);
  const auto set_thread = reinterpret_cast<SetThread>(dlsym(lib, "fx_set_thread"));
  REQUIRE(set_thread);
  if (kernel.source.find("__syncthreads", kernel.source.find("extern \"C\"")) !=
      std::string::npos) {
    // Staged: phases between barriers, each strided by blockDim.x, so a block of one thread
    // does the whole grid's work (gridDim is 1).
    set_thread(0, 1);
    call();
  } else {
    // One block of the kernel's own size, thread by thread: it has no barrier, and its loop
    // strides by the block size it was generated for.
    for (int t = 0; t < kernel.block; ++t) {
      set_thread(static_cast<unsigned>(t), static_cast<unsigned>(kernel.block));
      call();
    }
  }
  std::int64_t wrong = 0;
  for (std::int64_t k = 0; k < c; ++k) {
    const auto u = static_cast<std::size_t>(k);
    const float scale = 1.0f / std::sqrt(var[u] + 1e-5f) * weight[u];
    for (std::int64_t y = 0; y < oh; ++y) {
      for (std::int64_t z = 0; z < ow; ++z) {
        // max_pool2d(kernel 3, stride 2, padding 1) of relu(batch norm(x)).
        // The offset is the first largest one's kh * 3 + kw.
        float best = -std::numeric_limits<float>::infinity();
        int best_at = 0;
        for (std::int64_t dy = 0; dy < 3; ++dy) {
          for (std::int64_t dz = 0; dz < 3; ++dz) {
            const std::int64_t iy = y * 2 - 1 + dy, iz = z * 2 - 1 + dz;
            if (iy < 0 || iy >= h || iz < 0 || iz >= w) continue;
            const float v = x[static_cast<std::size_t>((k * h + iy) * w + iz)];
            const float y_bn = std::max((v - mean[u]) * scale + bias[u], 0.0f);
            if (y_bn > best) best = y_bn, best_at = static_cast<int>(dy * 3 + dz);
          }
        }
        const auto o = static_cast<std::size_t>((k * oh + y) * ow + z);
        wrong += std::abs(out[o] - best) > 1e-5f * std::max(1.0f, std::abs(best));
        // Ties within rounding (ReLU's zeros are exact) could pick another offset: only zeros.
        if (offsets && best > 0.0f) wrong += at[o] != best_at;
      }
    }
  }
  dlclose(lib);
  return wrong;
}

TEST_CASE("ResNet-50's stem max-pool kernel pools the batch-normed image, padding included",
          "[codegen]") {
  const auto planned = test::planned_graphs("resnet50", fusion::Mode::default_mode);
  REQUIRE(!planned.empty());
  const graph::Graph& g = planned.front().fusion.post_grad;
  const std::string pool = "_low_memory_max_pool_with_offsets";
  // The kernel generated with CONFIG (none: the builder's choice) names FORM in its summary (empty:
  // the per-output form, not staged), launches GRID blocks, and pools as the definition says.
  const auto check = [&](std::optional<codegen::LaunchConfig> config, const std::string& form,
                         std::int64_t grid) {
    const auto kernel = test::kernel_of(planned.front(), pool, config);
    INFO(kernel.summary);
    CHECK((kernel.summary.find("staged") != std::string::npos) == !form.empty());
    CHECK(kernel.summary.find(form) != std::string::npos);
    CHECK(kernel.grid == grid);
    CHECK(stem_pool_errors(kernel, g) == 0);
  };
  SECTION("staged: 4 output rows a block over 9 input rows in shared memory, by default") {
    check({}, "4 output rows a block over 9 staged input rows (float4)", 64 * 14);
  }
  SECTION("staged, 5 rows a block: the last tile has one row, and the image's bottom padding") {
    check(codegen::LaunchConfig{128, 1, 5}, "5 output rows a block over 11 staged input rows",
          64 * 12);
  }
  SECTION("per output (one row a block: what max-autotune also tries)") {
    check(codegen::LaunchConfig{256, 1, 1}, "", 64 * 3136 / 256);
  }
  SECTION("staged, with the window offsets written too") {
    // The samples' graphs write only the values; a copy of the graph whose pool group also
    // writes Inductor's offsets (getitem 1, int8) takes the kernel's other path.
    graph::Graph copy = g;
    const auto pool_id = copy.find(pool);
    const auto values = copy.find("getitem");
    REQUIRE(pool_id);
    REQUIRE(values);
    graph::Node item = copy.node(*values);
    REQUIRE(item.args.size() == 2);
    item.name = "fxscope_test_offsets";
    item.args[1] = graph::Argument::integer(1);
    item.meta->dtype = "i8";
    const auto offsets_id = copy.add_node(item);
    REQUIRE(offsets_id);
    for (auto group : planned.front().fusion.ours.groups) {
      if (!std::binary_search(group.nodes.begin(), group.nodes.end(), *pool_id)) continue;
      // The group writes the pool's getitems (its outputs name the pool): the new one too.
      group.nodes.push_back(*offsets_id);
      codegen::CodegenOptions options;
      options.hints = planned.front().hints;
      const auto kernel = codegen::generate(copy, group, options);
      REQUIRE(kernel);
      INFO(kernel->summary);
      CHECK(kernel->summary.find("2 writes, 4 output rows a block") != std::string::npos);
      CHECK(kernel->source.find("fx_max_at = kh * 3 + kw") != std::string::npos);
      CHECK(stem_pool_errors(*kernel, copy) == 0);
    }
  }
  SECTION("max-autotune tries both forms") {
    const auto id = g.find(pool);
    REQUIRE(id);
    for (const auto& group : planned.front().fusion.ours.groups) {
      if (!std::binary_search(group.nodes.begin(), group.nodes.end(), *id)) continue;
      const auto configs = codegen::candidates(g, group, planned.front().hints);
      REQUIRE(!configs.empty());
      CHECK(configs.front() == codegen::LaunchConfig{256, 1, 4});
      int staged = 0, per_output = 0;
      for (const auto& c : configs) (c.rows_per_block > 1 ? staged : per_output) += 1;
      CHECK(staged == 9);  // 128, 256, 512 threads x 2, 4, 8 rows
      CHECK(per_output >= 4);
    }
  }
}
