// `fxscope-cli export PATH --format svg|png|dot|json|chrome-trace -o FILE [--mode M] [--unit ID]
// [--run-json FILE]`: one compile unit as annotated DOT (and SVG / PNG drawn from it by
// Graphviz), as fxscope JSON, or its kernel timeline as a Chrome trace. PATH may also be an
// fxscope JSON file written by this command or the app.
#include <chrono>
#include <cstdio>

#include <fstream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "commands.h"
#include "fxscope/export/chrome_trace.h"
#include "fxscope/export/dot_writer.h"
#include "fxscope/export/planned_unit.h"
#include "fxscope/export/unit_document.h"
#include "fxscope/graph/graph_json.h"
#include "fxscope/trace/trace_log.h"
#include "rank_option.h"

#if FXSCOPE_HAS_GRAPHVIZ
#include "graphviz_render.h"
#endif

namespace fxscope::cli {
namespace {

struct ExportArgs {
  std::string path;
  std::string format;
  std::string output;
  std::string mode = "default";
  std::string unit;
  std::string run_json;
};

Result<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(path + ": cannot read the file");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// An fxscope JSON file starts with '{'; a TORCH_TRACE log (or a directory) never does.
bool looks_like_json(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char c = 0;
  while (in.get(c)) {
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return c == '{';
  }
  return false;
}

// The unit's annotated graphs: planned from a log, or read back from an fxscope JSON file.
Result<graph::Document> load_document(const ExportArgs& args, fusion::Mode mode) {
  if (looks_like_json(args.path)) {
    auto text = read_file(args.path);
    if (!text) return text.error();
    auto doc = graph::parse_document(*text);
    if (!doc) return make_error(args.path + ": " + doc.error().message);
    return doc;
  }
  auto log = trace::read_trace(args.path);
  if (!log) return log.error();
  auto planned = exporting::plan_unit(*log, {args.unit, mode});
  if (!planned) return planned.error();
  return exporting::unit_document(*planned);
}

Result<std::string> chrome_trace(const ExportArgs& args, fusion::Mode mode) {
  if (!args.run_json.empty()) {
    auto run = report::read_run_result(args.run_json);
    if (!run) return run.error();
    return exporting::chrome_trace_from_run(*run).dump() + "\n";
  }
  if (looks_like_json(args.path)) {
    return make_error(args.path +
                      ": a predicted Chrome trace needs the TORCH_TRACE log (or give --run-json)");
  }
  auto log = trace::read_trace(args.path);
  if (!log) return log.error();
  auto planned = exporting::plan_unit(*log, {args.unit, mode});
  if (!planned) return planned.error();
  return exporting::predicted_chrome_trace(*planned).dump() + "\n";
}

Result<std::string> render(const std::string& dot, const std::string& format) {
#if FXSCOPE_HAS_GRAPHVIZ
  return render::render_dot(dot, format);
#else
  (void)dot;
  return make_error("--format " + format +
                    ": this fxscope-cli was built without Graphviz; export --format dot and run "
                    "`dot -T" +
                    format + "`");
#endif
}

// Graphviz dot lays out a training step of several thousand nodes in seconds to minutes
// (EfficientNetV2-S's, 8,000 nodes, 79 s): above this many the export says so before it starts.
constexpr std::size_t kSlowLayoutNodes = 1500;

Result<std::string> exported(const ExportArgs& args, fusion::Mode mode) {
  if (args.format == "chrome-trace") return chrome_trace(args, mode);
  auto doc = load_document(args, mode);
  if (!doc) return doc.error();
  if (args.format == "json") return graph::to_json_text(*doc, 1) + "\n";
  const std::string dot = exporting::document_dot(*doc);
  if (args.format == "dot") return dot;
  std::size_t nodes = 0;
  for (const graph::DocumentGraph& g : doc->graphs()) nodes += g.graph.size();
  const bool slow = FXSCOPE_HAS_GRAPHVIZ && nodes > kSlowLayoutNodes;
  const auto start = std::chrono::steady_clock::now();
  if (slow) {
    std::fprintf(stderr, "fxscope: laying out %zu nodes with Graphviz dot for the %s\n", nodes,
                 args.format.c_str());
  }
  auto image = render(dot, args.format);
  if (slow && image) {
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    std::fprintf(stderr, "fxscope: laid out in %.1f s\n", took.count());
  }
  return image;
}

void run_export(const ExportArgs& args) {
  const auto mode = fusion::parse_mode(args.mode);
  if (!mode) {
    return fail("--mode " + args.mode +
                ": expected eager, default, reduce-overhead or max-autotune");
  }
  auto bytes = exported(args, *mode);
  if (!bytes) return fail(bytes.error().message);
  std::ofstream out(args.output, std::ios::binary);
  out.write(bytes->data(), std::streamsize(bytes->size()));
  out.close();
  if (!out) return fail(args.output + ": cannot write the export");
}

}  // namespace

void add_export_command(CLI::App& app) {
  auto args = std::make_shared<ExportArgs>();
  auto* cmd = app.add_subcommand(
      "export", "a compile unit as SVG, PNG, annotated DOT, fxscope JSON or a Chrome trace");
  cmd->add_option("PATH", args->path,
                  "a TORCH_TRACE log file or directory, or an fxscope JSON file")
      ->required();
  cmd->add_option("--format", args->format, "svg, png, dot, json or chrome-trace")
      ->required()
      ->check(CLI::IsMember({"svg", "png", "dot", "json", "chrome-trace"}));
  cmd->add_option("-o,--output", args->output, "the file to write")->required();
  cmd->add_option("--mode", args->mode, "eager, default, reduce-overhead or max-autotune")
      ->capture_default_str();
  cmd->add_option("--unit", args->unit,
                  "one compile unit, e.g. 0/0 (default: the first with an ATen graph)");
  cmd->add_option("--run-json", args->run_json,
                  "chrome-trace: the output of `fxscope-cli run --json` (default: predicted)");
  add_rank_option(cmd, args->path, [args] { run_export(*args); });
}

}  // namespace fxscope::cli
