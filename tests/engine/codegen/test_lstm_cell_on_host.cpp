// ATen's fused LSTM cell forward and backward as generated code, run on the CPU through the host
// shim (one thread of one block: the kernels' grid-stride loops do all the work) and checked
// element by element against RNN.cu's arithmetic computed here in float.

#include <unistd.h>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "fxscope/codegen/kernel_codegen.h"
#include "fxscope/graph/fx_readable_parser.h"
#include "host_shim.h"

using namespace fxscope;

// A named namespace: the unity build puts several tests' helpers in one translation unit.
namespace lstm_on_host {

constexpr std::size_t kB = 3;  // batch
constexpr std::size_t kH = 5;  // hidden

graph::Graph lstm_graph(const std::string& body, const std::string& signature) {
  const std::string code =
      "class GraphModule(torch.nn.Module):\n    def forward(self, " + signature + "):\n" + body;
  return graph::parse_fx_readable(code, "lstm").graph;
}

fusion::KernelGroup group_of(const graph::Graph& g, const char* node, fusion::GroupKind kind) {
  fusion::KernelGroup group;
  group.name = "aten._thnn_fused_lstm_cell";
  group.kind = kind;
  group.nodes = {*g.find(node)};
  group.outputs = {*g.find(node)};
  return group;
}

std::filesystem::path lstm_dir() {
  return test::host_dir("fxscope-lstm-on-host-");
}

std::vector<float> ramp(std::size_t n, float scale, float shift) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    v[i] = scale * static_cast<float>((i * 7 + 3) % 11) - shift;
  }
  return v;
}

// Calls the kernel with the buffer of each param, found by its node's name (every param is a
// pointer, so one signature of as many void pointers calls it).
void call(void* lib, const codegen::GeneratedKernel& k, const graph::Graph& g,
          std::map<std::string, float*>& buffers) {
  std::vector<void*> p;
  for (const auto& param : k.params) {
    INFO("param " << g.node(param.node).name);
    REQUIRE(buffers.count(g.node(param.node).name));
    p.push_back(buffers.at(g.node(param.node).name));
  }
  const auto fn = dlsym(lib, k.entry.c_str());
  REQUIRE(fn);
  switch (p.size()) {
    case 8:
      reinterpret_cast<void (*)(void*, void*, void*, void*, void*, void*, void*, void*)>(fn)(
          p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7]);
      break;
    case 7:
      reinterpret_cast<void (*)(void*, void*, void*, void*, void*, void*, void*)>(fn)(
          p[0], p[1], p[2], p[3], p[4], p[5], p[6]);
      break;
    default:
      FAIL("unexpected param count " << p.size());
  }
}

float sigmoid(float x) {
  return 1.0f / (1.0f + std::exp(-x));
}

}  // namespace lstm_on_host

using namespace lstm_on_host;

TEST_CASE("the fused LSTM cell forward stores hy, cy and the gates' activations", "[codegen]") {
  const auto g = lstm_graph(
      "        lstm = torch.ops.aten._thnn_fused_lstm_cell.default(arg0_1, arg1_1, arg2_1, arg3_1, "
      "arg4_1)\n"
      "        hy: \"f32[3, 5][5, 1]cuda:0\" = lstm[0]\n"
      "        cy: \"f32[3, 5][5, 1]cuda:0\" = lstm[1]\n"
      "        ws: \"f32[3, 20][20, 1]cuda:0\" = lstm[2];  lstm = None\n"
      "        return (hy, cy, ws)\n",
      "arg0_1: \"f32[3, 20][20, 1]cuda:0\", arg1_1: \"f32[3, 20][1, 3]cuda:0\", "
      "arg2_1: \"f32[3, 5][5, 1]cuda:0\", arg3_1: \"f32[20][1]cuda:0\", "
      "arg4_1: \"f32[20][1]cuda:0\"");
  // Eager, and the extern call of Inductor's plan: the same kernel.
  for (const auto kind : {fusion::GroupKind::eager_op, fusion::GroupKind::extern_kernel}) {
    const auto group = group_of(g, "lstm", kind);
    REQUIRE(codegen::has_generated_kernel(g, group));
    const auto k = codegen::generate(g, group, {});
    INFO((k ? k->source : k.error().message));
    REQUIRE(k);
    CHECK(k->summary == "fused LSTM cell 3 x 5 x f32");
    REQUIRE(k->params.size() == 8);
    void* lib = test::build_on_host(*k, lstm_dir());
    auto in = ramp(kB * 4 * kH, 0.3f, 1.4f);
    auto hid = ramp(kB * 4 * kH, -0.2f, -0.9f);  // column-major: element (b, j) at j * 3 + b
    auto cx = ramp(kB * kH, 0.5f, 2.0f);
    auto b1 = ramp(4 * kH, 0.1f, 0.4f);
    auto b2 = ramp(4 * kH, -0.15f, -0.3f);
    std::vector<float> hy(kB * kH, -7.0f), cy(kB * kH, -7.0f), ws(kB * 4 * kH, -7.0f);
    std::map<std::string, float*> buffers = {
        {"arg0_1", in.data()}, {"arg1_1", hid.data()}, {"arg2_1", cx.data()}, {"arg3_1", b1.data()},
        {"arg4_1", b2.data()}, {"hy", hy.data()},      {"cy", cy.data()},     {"ws", ws.data()}};
    call(lib, *k, g, buffers);
    for (std::size_t b = 0; b < kB; ++b) {
      for (std::size_t h = 0; h < kH; ++h) {
        float gate[4];
        for (std::size_t q = 0; q < 4; ++q) {
          const std::size_t j = q * kH + h;
          const float x = in[b * 4 * kH + j] + hid[j * kB + b] + b1[j] + b2[j];
          gate[q] = q == 2 ? std::tanh(x) : sigmoid(x);
        }
        const float want_cy = gate[1] * cx[b * kH + h] + gate[0] * gate[2];
        const float want_hy = gate[3] * std::tanh(want_cy);
        INFO("b " << b << " h " << h);
        CHECK(cy[b * kH + h] == Approx(want_cy).epsilon(1e-6));
        CHECK(hy[b * kH + h] == Approx(want_hy).epsilon(1e-6));
        for (std::size_t q = 0; q < 4; ++q) {
          CHECK(ws[b * 4 * kH + q * kH + h] == Approx(gate[q]).epsilon(1e-6));
        }
      }
    }
    dlclose(lib);
  }
}

TEST_CASE("the fused LSTM cell backward stores the gates' gradients, cx's and the bias's sum",
          "[codegen]") {
  // grad_cy is None (the last step's cell state is not an output), as in a training graph.
  const auto g = lstm_graph(
      "        bw = torch.ops.aten._thnn_fused_lstm_cell_backward_impl.default(arg0_1, None, "
      "arg1_1, arg2_1, arg3_1, True)\n"
      "        gg: \"f32[3, 20][20, 1]cuda:0\" = bw[0]\n"
      "        gcx: \"f32[3, 5][5, 1]cuda:0\" = bw[1]\n"
      "        gb: \"f32[20][1]cuda:0\" = bw[2];  bw = None\n"
      "        return (gg, gcx, gb)\n",
      "arg0_1: \"f32[3, 5][5, 1]cuda:0\", arg1_1: \"f32[3, 5][5, 1]cuda:0\", "
      "arg2_1: \"f32[3, 5][5, 1]cuda:0\", arg3_1: \"f32[3, 20][20, 1]cuda:0\"");
  const auto k = codegen::generate(g, group_of(g, "bw", fusion::GroupKind::extern_kernel), {});
  INFO((k ? k->source : k.error().message));
  REQUIRE(k);
  CHECK(k->summary == "fused LSTM cell backward 3 x 5 x f32, bias gradient summed over the batch");
  REQUIRE(k->params.size() == 7);
  void* lib = test::build_on_host(*k, lstm_dir());
  auto ghy = ramp(kB * kH, 0.4f, 1.0f);
  auto cx = ramp(kB * kH, 0.5f, 2.0f);
  auto cy = ramp(kB * kH, -0.3f, -1.2f);
  std::vector<float> ws(kB * 4 * kH);
  for (std::size_t i = 0; i < ws.size(); ++i) ws[i] = sigmoid(0.37f * static_cast<float>(i) - 3);
  std::vector<float> gg(kB * 4 * kH, -7.0f), gcx(kB * kH, -7.0f), gb(4 * kH, -7.0f);
  std::map<std::string, float*> buffers = {
      {"arg0_1", ghy.data()}, {"arg1_1", cx.data()}, {"arg2_1", cy.data()}, {"arg3_1", ws.data()},
      {"gg", gg.data()},      {"gcx", gcx.data()},   {"gb", gb.data()}};
  call(lib, *k, g, buffers);
  std::vector<float> want_gb(4 * kH, 0.0f);
  for (std::size_t b = 0; b < kB; ++b) {
    for (std::size_t h = 0; h < kH; ++h) {
      const std::size_t e = b * kH + h;
      const float ig = ws[b * 4 * kH + h], fg = ws[b * 4 * kH + kH + h];
      const float cg = ws[b * 4 * kH + 2 * kH + h], og = ws[b * 4 * kH + 3 * kH + h];
      const float go = ghy[e];
      float t = std::tanh(cy[e]);
      const float gog = go * t * (1 - og) * og;
      const float g_cx = go * og * (1 - t * t);  // + grad_cy, which is None
      const float want[4] = {g_cx * cg * (1 - ig) * ig, g_cx * cx[e] * (1 - fg) * fg,
                             g_cx * ig * (1 - cg * cg), gog};
      INFO("b " << b << " h " << h);
      CHECK(gcx[e] == Approx(g_cx * fg).epsilon(1e-6));
      for (std::size_t q = 0; q < 4; ++q) {
        CHECK(gg[b * 4 * kH + q * kH + h] == Approx(want[q]).epsilon(1e-6).margin(1e-7));
        want_gb[q * kH + h] += want[q];
      }
    }
  }
  for (std::size_t j = 0; j < want_gb.size(); ++j) {
    INFO("bias " << j);
    CHECK(gb[j] == Approx(want_gb[j]).epsilon(1e-5).margin(1e-6));
  }
  dlclose(lib);
}
