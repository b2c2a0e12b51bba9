#include "fxscope/graph/fx_readable_parser.h"

#include <memory>
#include <string>
#include <unordered_map>
#include <utility>

#include "fxscope/core/text.h"
#include "fxscope/graph/argument_reader.h"
#include "fxscope/graph/module_path.h"
#include "fxscope/graph/python_text.h"
#include "fxscope/graph/readable_statement.h"

namespace fxscope::graph {

namespace {

std::size_t indent_of(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  return i;
}

// "# File: /p/model.py:10 in forward, code: h = F.gelu(x)" without the "# File: ".
std::optional<SourceLocation> parse_source_comment(std::string_view body) {
  SourceLocation loc;
  std::string_view head = body;
  const std::size_t code = body.find(", code: ");
  if (code != std::string_view::npos) {
    head = body.substr(0, code);
    loc.code = std::string(body.substr(code + 8));
  }
  const std::size_t in = head.rfind(" in ");
  if (in != std::string_view::npos) {
    loc.function = std::string(head.substr(in + 4));
    head = head.substr(0, in);
  }
  const std::size_t colon = head.rfind(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const auto line = text::parse_int(head.substr(colon + 1));
  if (!line) return std::nullopt;
  loc.file = std::string(head.substr(0, colon));
  loc.line = *line;
  return loc;
}

// The parse state of one `class X(torch.nn.Module):` block; nested blocks get their own.
struct Scope {
  enum class State { class_body, signature_done, other_def };

  explicit Scope(std::string name) : graph(std::move(name)) {}

  Graph graph;
  long class_indent = -1;  // -1: the implicit root before (or without) a class line
  State state = State::class_body;
  std::size_t def_indent = 0;
  bool saw_forward = false;
  std::unique_ptr<ReadableStatementParser> statements;
};

class ReadableParser {
 public:
  explicit ReadableParser(std::string_view where) : where_(where) {
    scopes_.push_back(std::make_unique<Scope>(std::string()));
  }

  ParsedGraph run(std::string_view code) {
    // A node's statement and its `# File:` comment take about 200 bytes; a graph without comments
    // has shorter nodes and grows past this once.
    scopes_.front()->graph.reserve(code.size() / 128 + 16);
    std::string joined;
    std::size_t joined_line = 0;
    std::size_t joined_indent = 0;
    int depth = 0;
    text::for_each_line(code, [&](std::string_view line, std::size_t line_no) {
      const std::string_view t = text::trim(line);
      if (depth == 0) {
        if (t.empty()) return;
        if (t.front() == '#') return on_comment(t, line_no);
        const auto [s, change] = python_text::code_of(t);
        depth = change;
        if (depth <= 0) {
          depth = 0;
          return on_logical_line(s, indent_of(line), line_no);
        }
        joined.assign(s);
        joined_line = line_no;
        joined_indent = indent_of(line);
        return;
      }
      // Inside a bracket that spans lines: `def forward(\n self,\n ...):` or `return (\n a,\n )`.
      const auto [s, change] = python_text::code_of(t);
      if (!s.empty() && joined.back() != '(' && joined.back() != '[') joined += ' ';
      joined.append(s);
      depth += change;
      if (depth <= 0) {
        depth = 0;
        on_logical_line(joined, joined_indent, joined_line);
      }
    });
    if (depth > 0) {
      warn(joined_line, "brackets opened here are never closed (truncated input?)");
      on_logical_line(joined, joined_indent, joined_line);
    }
    while (scopes_.size() > 1) pop_scope();
    finish(*scopes_.front());
    return ParsedGraph{std::move(scopes_.front()->graph), std::move(warnings_)};
  }

 private:
  Scope& top() { return *scopes_.back(); }

  bool in_export_sections_ = false;  // past an ExportedProgram's graph, in its trailing sections

  void warn(std::size_t line_no, std::string message) {
    warnings_.push_back(
        Warning{std::string(where_) + " line " + std::to_string(line_no), std::move(message)});
  }

  void on_comment(std::string_view t, std::size_t line_no) {
    ReadableStatementParser* statements = top().statements.get();
    if (statements == nullptr) return;
    if (text::starts_with(t, "# File: ")) {
      auto loc = parse_source_comment(t.substr(8));
      if (!loc) warn(line_no, "source comment without FILE:LINE: " + std::string(t));
      statements->set_source(std::move(loc));
    } else if (text::starts_with(t, "# No stacktrace found")) {
      statements->set_source(std::nullopt);
    }
  }

  void on_logical_line(std::string_view t, std::size_t indent, std::size_t line_no) {
    const auto ind = static_cast<long>(indent);
    // torch.export's ExportedProgram prints its module under a header and follows it with its
    // graph signature (which input is a parameter, a buffer or the user's) and its range
    // constraints: sections of the program, not lines of the graph.
    if (indent == 0 && (t == "ExportedProgram:" || text::starts_with(t, "Graph signature:") ||
                        text::starts_with(t, "Range constraints:"))) {
      in_export_sections_ = t != "ExportedProgram:";
      return;
    }
    if (in_export_sections_) return;
    while (scopes_.size() > 1 && ind <= top().class_indent) pop_scope();
    if (text::starts_with(t, "class ") && t.back() == ':') return on_class(t, ind, line_no);
    Scope& scope = top();
    if (text::starts_with(t, "def ")) return on_def(scope, t, indent, line_no);
    const bool in_def = scope.state != Scope::State::class_body && indent > scope.def_indent;
    if (in_def && scope.state == Scope::State::other_def) return;
    if (in_def && scope.statements) {
      scope.statements->parse(t, line_no);
      for (Warning& w : scope.statements->take_warnings()) warnings_.push_back(std::move(w));
      return;
    }
    warn(line_no, "unexpected line outside def forward: " + std::string(t.substr(0, 120)));
  }

  void on_class(std::string_view t, long indent, std::size_t line_no) {
    std::string_view name = t.substr(6, t.size() - 7);
    name = text::trim(name.substr(0, name.find('(')));
    Scope& root = *scopes_.front();
    if (scopes_.size() == 1 && root.class_indent < 0 && root.graph.empty() && !root.saw_forward) {
      root.graph.set_name(std::string(name));
      root.class_indent = indent;
      return;
    }
    if (indent <= root.class_indent) {
      warn(line_no, "second top-level class " + std::string(name) + " kept as a subgraph");
    }
    scopes_.push_back(std::make_unique<Scope>(std::string(name)));
    top().class_indent = indent;
  }

  void on_def(Scope& scope, std::string_view t, std::size_t indent, std::size_t line_no) {
    scope.def_indent = indent;
    if (!text::starts_with(t, "def forward(") || scope.saw_forward) {
      scope.state = Scope::State::other_def;
      warn(line_no, "skipped a def that is not the first forward: " + std::string(t.substr(0, 80)));
      return;
    }
    scope.saw_forward = true;
    scope.state = Scope::State::signature_done;
    scope.statements = std::make_unique<ReadableStatementParser>(scope.graph, where_);
    const std::size_t open = t.find('(');
    const std::size_t close = python_text::matching_close(t, open);
    if (close == std::string_view::npos) {
      warn(line_no, "def forward( without its closing parenthesis");
      scope.statements->parse_parameters(t.substr(open + 1), line_no);
    } else {
      scope.statements->parse_parameters(t.substr(open + 1, close - open - 1), line_no);
    }
    for (Warning& w : scope.statements->take_warnings()) warnings_.push_back(std::move(w));
  }

  void finish(Scope& scope) {
    if (scope.statements) {
      scope.statements->finish();
      for (Warning& w : scope.statements->take_warnings()) warnings_.push_back(std::move(w));
    } else {
      warnings_.push_back(Warning{
          std::string(where_), "no `def forward(` found in " +
                                   (scope.graph.name().empty() ? std::string("the input")
                                                               : "class " + scope.graph.name())});
    }
  }

  void pop_scope() {
    std::unique_ptr<Scope> done = std::move(scopes_.back());
    scopes_.pop_back();
    finish(*done);
    top().graph.add_subgraph(std::move(done->graph));
  }

  std::string_view where_;
  std::vector<std::unique_ptr<Scope>> scopes_;
  Warnings warnings_;
};

}  // namespace

ParsedGraph parse_fx_readable(std::string_view code, std::string_view where) {
  return ReadableParser(where).run(code);
}

}  // namespace fxscope::graph
