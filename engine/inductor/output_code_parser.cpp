// parse_output_code: one pass over the logical lines of the module. Comments are gathered until
// the statement they describe; a statement is a kernel definition, a launch, a `def` (which sets
// the function launches belong to), a `..._xnumel = ...` size, or something the count ignores.

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "fxscope/core/text.h"
#include "fxscope/inductor/call_statement.h"
#include "fxscope/inductor/logical_line_reader.h"
#include "fxscope/inductor/output_code.h"
#include "fxscope/inductor/source_comment_collector.h"

namespace fxscope::inductor {

namespace {

class Parser {
 public:
  explicit Parser(std::string_view where) : where_(where), comments_(where, warnings_) {}

  OutputCode run(std::string_view code);

 private:
  struct Scope {
    std::string name;
    std::size_t indent = 0;
  };

  void statement(const LogicalLine& line);
  // Defines a kernel or records a launch when CALL is one; false otherwise.
  bool launch_or_definition(const LogicalLine& line, const CallStatement& call);
  // Remembers `name_xnumel = 256*s77`; false when S is not such a line.
  bool remember_numel(std::string_view s);
  void define_kernel(const LogicalLine& line, const CallStatement& call);
  void launch(const LogicalLine& line, const CallStatement& call, LaunchKind kind,
              std::string_view op, std::string_view kernel_name);
  void warn(std::size_t line, std::string message);

  std::string_view where_;
  Warnings warnings_;
  SourceCommentCollector comments_;
  std::vector<Kernel> kernels_;
  std::vector<Launch> launches_;
  std::unordered_map<std::string, std::size_t> kernel_index_;
  std::vector<Scope> scopes_;
  // `triton_poi_fused_add_0_xnumel = 256*s77` in the current function (dynamic shapes).
  std::unordered_map<std::string, std::string> numel_values_;
  bool has_call_ = false;
};

OutputCode Parser::run(std::string_view code) {
  if (text::trim(code).empty()) {
    warnings_.push_back(Warning{std::string(where_), "the output code is empty"});
    return OutputCode({}, {}, std::move(warnings_));
  }
  LogicalLineReader reader(code);
  while (const auto line = reader.next()) {
    if (line->unterminated == Unterminated::string) {
      warn(line->first_string_line != 0 ? line->first_string_line : line->line,
           "a string opened here never ends (truncated output code?)");
    } else if (line->unterminated == Unterminated::bracket) {
      warn(line->line, "a bracket opened in this statement never closes (truncated output code?)");
    }
    if (line->text.front() == '#') {
      comments_.add(line->text, line->line);
    } else {
      comments_.end_block();
      statement(*line);
    }
  }
  if (!has_call_) {
    warnings_.push_back(Warning{std::string(where_),
                                "no call() function: this does not read as Inductor output code"});
  }
  return OutputCode(std::move(kernels_), std::move(launches_), std::move(warnings_));
}

void Parser::statement(const LogicalLine& line) {
  while (!scopes_.empty() && line.indent <= scopes_.back().indent) scopes_.pop_back();
  const std::string_view s = line.text;
  if (text::starts_with(s, "def ")) {
    const std::string_view name = text::trim(s.substr(4, s.find('(') - 4));
    if (name == "call" || text::starts_with(name, "partition_")) has_call_ = true;
    scopes_.push_back(Scope{std::string(name), line.indent});
    numel_values_.clear();
    comments_.take();  // comments before a def describe no kernel or launch
    return;
  }
  const auto call = match_call(s);
  if (call && launch_or_definition(line, *call)) return;
  // Between a launch's comments and the launch, Inductor writes only the stream lookup and the
  // sizes of dynamic shapes; comments followed by anything else described nothing we know.
  if (!scopes_.empty() && (remember_numel(s) || (call && call->callee == "get_raw_stream"))) {
    return;
  }
  if (!comments_.empty()) {
    comments_.take();
    warn(line.line, "source comments followed by no kernel definition or launch");
  }
}

bool Parser::remember_numel(std::string_view s) {
  const std::size_t eq = s.find(" = ");
  if (eq == std::string_view::npos) return false;
  const std::string_view target = s.substr(0, eq);
  if (!text::is_identifier(target) || !text::ends_with(target, "numel")) return false;
  numel_values_[std::string(target)] = std::string(text::trim(s.substr(eq + 3)));
  return true;
}

bool Parser::launch_or_definition(const LogicalLine& line, const CallStatement& call) {
  const std::string_view callee = call.callee;
  if (text::starts_with(callee, "async_compile.") && callee != "async_compile.wait") {
    define_kernel(line, call);
    return true;
  }
  // Module-level code runs no kernel per call; a launch cut short may not be one.
  if (scopes_.empty() || !call.closed) return false;
  if (text::ends_with(callee, ".run") && text::is_identifier(callee.substr(0, callee.size() - 4))) {
    const std::string_view name = callee.substr(0, callee.size() - 4);
    launch(line, call, LaunchKind::kernel, name, name);
  } else if (text::starts_with(callee, "extern_kernels.")) {
    launch(line, call, LaunchKind::extern_op, callee.substr(15), {});
  } else if (text::starts_with(callee, "torch.ops.")) {
    launch(line, call, LaunchKind::extern_op, callee.substr(10), {});
  } else if (text::starts_with(callee, "aten.")) {
    launch(line, call, LaunchKind::extern_op, callee, {});
  } else if (kernel_index_.count(std::string(callee)) != 0) {
    launch(line, call, LaunchKind::kernel, callee, callee);  // a C++ kernel is called directly
  } else {
    return false;
  }
  return true;
}

void Parser::define_kernel(const LogicalLine& line, const CallStatement& call) {
  Kernel kernel;
  kernel.name = std::string(call.targets);
  kernel.compile_kind = std::string(call.callee.substr(14));
  kernel.line = line.line;
  kernel.comments = comments_.take();
  if (!text::is_identifier(kernel.name)) {
    warn(line.line, "a kernel definition `" + kernel.compile_kind + "` without a kernel name");
    return;
  }
  if (line.first_string_line == 0) {
    warn(line.line, "kernel " + kernel.name + " has no ''' source string");
  }
  kernel.source = std::string(line.first_string);
  kernel.source_line = line.first_string_line;
  if (kernel.compile_kind == "triton") {
    kernel.meta = parse_triton_meta(line.first_string, kernel.name);
    if (!kernel.meta.kernel_name.empty() && kernel.meta.kernel_name != kernel.name) {
      warn(line.line, "kernel " + kernel.name + " calls itself " + kernel.meta.kernel_name +
                          " in its inductor_meta");
    }
  }
  kernel.kind = kernel_kind(kernel.name, kernel.meta.heuristic);
  if (!kernel_index_.emplace(kernel.name, kernels_.size()).second) {
    warn(line.line, "kernel " + kernel.name + " is defined twice; launches go to the first");
  }
  kernels_.push_back(std::move(kernel));
}

void Parser::launch(const LogicalLine& line, const CallStatement& call, LaunchKind kind,
                    std::string_view op, std::string_view kernel_name) {
  Launch l;
  l.kind = kind;
  l.callee = std::string(kind == LaunchKind::kernel ? kernel_name : call.callee);
  l.op = std::string(op);
  l.function = scopes_.back().name;
  l.line = line.line;
  l.args = std::string(call.args);
  l.comments = comments_.take();
  if (kind == LaunchKind::kernel) {
    const auto it = kernel_index_.find(std::string(kernel_name));
    if (it == kernel_index_.end()) {
      warn(line.line, "launch of " + l.op + ", which this output code does not define");
    } else {
      l.kernel = it->second;
      bind_kernel_args(kernels_[it->second], call.args, numel_values_, l);
    }
  }
  launches_.push_back(std::move(l));
}

void Parser::warn(std::size_t line, std::string message) {
  warnings_.push_back(
      Warning{std::string(where_) + " line " + std::to_string(line), std::move(message)});
}

}  // namespace

OutputCode parse_output_code(std::string_view code, std::string_view where) {
  return Parser(where).run(code);
}

}  // namespace fxscope::inductor
