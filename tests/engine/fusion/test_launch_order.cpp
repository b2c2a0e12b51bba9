// The plan's groups launch in an order every dependency holds in: no group reads a value a later
// group of the plan writes. A group that holds an early node and a later consumer (a batch
// norm's backward: one row sum, and the pointwise that reads the other sum, split in passes of
// its own) must wait for what it reads, in every corpus log and mode.

#include <catch2/catch.hpp>

#include <filesystem>
#include <iostream>
#include <map>
#include <string>

#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/trace/trace_log.h"
#include "samples.h"

using namespace fxscope;

TEST_CASE("no group of a corpus plan reads what a later group writes", "[fusion][corpus]") {
  const std::string corpus = test::sample("corpus");
  if (!std::filesystem::exists(corpus)) {
    WARN("sample_graphs/corpus/ is absent from this checkout");
    return;
  }
  std::size_t plans = 0;
  std::vector<std::string> late;
  for (const auto& d : std::filesystem::directory_iterator(corpus)) {
    if (!d.is_directory()) continue;
    auto log = trace::read_trace(d.path().string());
    if (!log || log->units().empty()) continue;
    for (const fusion::Mode mode :
         {fusion::Mode::default_mode, fusion::Mode::reduce_overhead, fusion::Mode::max_autotune}) {
      for (const auto& f : fusion::fuse_unit(log->units().front(), mode)) {
        ++plans;
        std::map<graph::NodeId, std::size_t> writer;  // a node -> the last group writing it
        for (std::size_t i = 0; i < f.ours.groups.size(); ++i) {
          for (const graph::NodeId o : f.ours.groups[i].outputs) writer[o] = i;
        }
        for (std::size_t i = 0; i < f.ours.groups.size(); ++i) {
          for (const graph::NodeId r : f.ours.groups[i].inputs) {
            const auto w = writer.find(r);
            if (w == writer.end() || w->second <= i) continue;
            late.push_back(d.path().filename().string() + " " +
                           std::string(fusion::to_string(mode)) + " " + f.where + ": " +
                           f.ours.groups[i].name + " reads " + f.post_grad.node(r).name +
                           ", written later by " + f.ours.groups[w->second].name);
          }
        }
      }
    }
  }
  for (const auto& l : late) std::cout << l << "\n";
  CHECK(plans > 150);
  CHECK(late.empty());
}
