#pragma once
// What one rank's log says that another rank's must agree with, kept as small strings so that
// the log itself can be released before the next rank is read (64 ranks of large logs).

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fxscope/trace/trace_log.h"

namespace fxscope::report {

struct RankFacts {
  std::vector<std::string> compile_ids;   // log order
  std::vector<std::string> cache_events;  // "fx_graph_cache_hit", in log order
  // Per compile id, an md5 per graph level: the level's name and its hash, empty levels absent.
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> graphs;
  std::vector<std::string> recompiles;                          // "0/1: <reason>" per reason
  std::map<std::string, std::vector<std::string>> collectives;  // inductor_collective_schedule
  std::map<std::string, int> unwaited;  // per compile id: collectives minus wait_tensor calls
  std::map<std::string, std::string> tensor_meta;           // per compile id, ops' outputs
  std::map<std::string, double> runtime_ns;                 // per compile id, summed estimates
  std::optional<std::vector<std::string>> execution_order;  // the last graph_execution
};

RankFacts facts_of(const trace::TraceLog& log);

// A graph's code without what differs between ranks running the same graph: comment lines
// (source locations, which move when the script is edited between ranks' runs) and the device
// index of "cuda:N" (each rank computes on its own device).
std::string graph_code(std::string_view graph);

// A recompile reason with object ids and addresses (8 digits or more) replaced by "<id>": each
// process holds its objects at its own addresses.
std::string without_addresses(std::string_view reason);

// c10d functional collectives launched by an output code, and its wait_tensor calls (comments
// skipped): a collective never waited on leaves the next one racing it.
struct CollectiveCalls {
  int collectives = 0;
  int waits = 0;
};
CollectiveCalls collective_calls(std::string_view output_code);

}  // namespace fxscope::report
