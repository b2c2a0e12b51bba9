#include "fxscope/graph/graph_fragment_parser.h"

#include <algorithm>
#include <string>

#include "fxscope/core/text.h"
#include "fxscope/graph/argument_reader.h"
#include "fxscope/graph/python_text.h"

namespace fxscope::graph {

namespace {

constexpr std::string_view kHeader = "# Graph fragment:";

// A fragment line is `#` plus at least two spaces, then the node text.
bool is_fragment_body(std::string_view line) {
  return line.size() > 3 && line[0] == '#' && line[1] == ' ' && line[2] == ' ';
}

// Calls FN(line, line_no) for the node lines of TEXT: those inside `# Graph fragment:` blocks
// when TEXT has any, else every line.
template <class Fn>
void for_each_fragment_line(std::string_view text, Fn&& fn) {
  const bool blocks = text.find(kHeader) != std::string_view::npos;
  bool inside = false;
  text::for_each_line(text, [&](std::string_view line, std::size_t line_no) {
    if (!blocks) return fn(line, line_no);
    const std::string_view t = text::trim(line);
    if (t == kHeader) {
      inside = true;
    } else if (inside && is_fragment_body(t)) {
      fn(t, line_no);
    } else {
      inside = false;
    }
  });
}

class FragmentParser {
 public:
  explicit FragmentParser(std::string_view where)
      : where_(where), reader_(ArgumentReader::NodeNames::percent, [this](std::string_view name) {
          return resolve(name);
        }) {}

  ParsedGraph run(std::string_view text) {
    for_each_fragment_line(text, [this](std::string_view line, std::size_t line_no) {
      std::string_view t = text::trim(line);
      if (!t.empty() && t.front() == '#') t = text::trim(t.substr(1));
      if (t.empty()) return;
      if (t.front() == '%') {
        parse_node(t, line_no);
      } else if (t == "return" || text::starts_with(t, "return ")) {
        // `return %a` or, for several outputs, `return %a,%b,%c`.
        for (const std::string_view value : text::split_top_level(t.substr(6), ",")) {
          if (!text::trim(value).empty()) returns_.push_back(reader_.read(value));
        }
      } else {
        warn(line_no, "not a graph fragment line: " + std::string(t.substr(0, 120)));
      }
      for (std::string& p : reader_.take_problems()) warn(line_no, std::move(p));
    });
    if (!returns_.empty()) add_output();
    return ParsedGraph{std::move(graph_), std::move(warnings_)};
  }

 private:
  // A fragment uses values computed outside it (extern kernels, earlier kernels) without listing
  // them; they become placeholders, which a later definition of the same name replaces.
  std::optional<NodeId> resolve(std::string_view name) {
    if (auto id = graph_.find(name)) return id;
    if (!text::is_identifier(name)) return std::nullopt;
    Node n;
    n.name = std::string(name);
    n.op = OpKind::placeholder;
    n.target = n.name;
    return graph_.add_node(std::move(n));
  }

  void warn(std::size_t line_no, std::string message) {
    warnings_.push_back(
        Warning{std::string(where_) + " line " + std::to_string(line_no), std::move(message)});
  }

  // `%name : Tensor "f32[8][1]cuda:0"[num_users=2] = call_function[target=T](args = (..), kwargs =
  // {..})`
  void parse_node(std::string_view t, std::size_t line_no) {
    const std::size_t colon = t.find(" : ");
    const std::size_t eq = python_text::find_top_level(t, " = ");
    if (colon == std::string_view::npos || eq == std::string_view::npos || eq < colon) {
      warn(line_no, "expected `%name : type = kind[target=...]`: " + std::string(t.substr(0, 120)));
      return;
    }
    Node n;
    n.name = std::string(t.substr(1, colon - 1));
    if (!text::is_identifier(n.name)) {
      warn(line_no, "a node name must be an identifier: " + std::string(t.substr(0, 120)));
      return;
    }
    if (!parse_type(t.substr(colon + 3, eq - colon - 3), n, line_no) ||
        !parse_call(text::trim(t.substr(eq + 3)), n)) {
      warn(line_no,
           "unreadable graph fragment node " + n.name + ": " + std::string(t.substr(0, 120)));
      if (n.raw_text.empty()) n.raw_text = std::string(t.substr(eq + 3));
    }
    merge(std::move(n));
  }

  bool parse_type(std::string_view type, Node& n, std::size_t line_no) {
    type = text::trim(type);
    const std::size_t users = type.rfind("[num_users=");
    if (users != std::string_view::npos && type.back() == ']') {
      n.num_users = text::parse_int(type.substr(users + 11, type.size() - users - 12));
      if (!n.num_users) return false;
      type = text::trim(type.substr(0, users));
    }
    std::string_view annotation;
    const std::size_t quote = type.find('"');
    if (quote != std::string_view::npos) {
      const std::size_t end = type.find('"', quote + 1);
      if (end == std::string_view::npos) return false;
      annotation = type.substr(quote + 1, end - quote - 1);
    } else if (text::starts_with(type, "Sym(")) {
      annotation = type;
    }
    if (annotation.empty()) return true;
    n.meta = parse_tensor_meta(annotation);
    if (!n.meta) {
      n.raw_annotation = std::string(annotation);
      warn(line_no, "unreadable annotation \"" + n.raw_annotation + "\" of " + n.name);
    }
    return true;
  }

  bool parse_call(std::string_view rhs, Node& n) {
    const std::size_t open = rhs.find('[');
    if (open == std::string_view::npos) return false;
    const auto op = op_kind_from_string(rhs.substr(0, open));
    const std::size_t close = python_text::matching_close(rhs, open);
    if (!op || close == std::string_view::npos) return false;
    const std::string_view inside = rhs.substr(open + 1, close - open - 1);
    if (!text::starts_with(inside, "target=")) return false;
    n.op = *op;
    n.target = std::string(inside.substr(7));
    const std::string_view rest = text::trim(rhs.substr(close + 1));
    if (rest.empty()) return true;
    if (rest.front() != '(' || python_text::matching_close(rest, 0) != rest.size() - 1) {
      return false;
    }
    const std::string_view inner = rest.substr(1, rest.size() - 2);
    const std::size_t kw = python_text::find_top_level(inner, ", kwargs = ");
    if (!text::starts_with(inner, "args = ") || kw == std::string_view::npos) return false;
    Argument args = reader_.read(inner.substr(7, kw - 7));
    if (args.kind() != Argument::Kind::tuple) return false;
    n.args = args.items();
    n.kwargs = reader_.read_dict(inner.substr(kw + 11));
    return true;
  }

  // Fragments repeat nodes: the first definition wins, but a real definition replaces a
  // PlaceHolder that stood for the same value in an earlier fragment.
  void merge(Node n) {
    const auto existing = graph_.find(n.name);
    if (!existing) {
      graph_.add_node(std::move(n));
      return;
    }
    Node& old = graph_.node(*existing);
    if (old.op == OpKind::placeholder && n.op != OpKind::placeholder) old = std::move(n);
  }

  void add_output() {
    Node out;
    out.name = "output";
    out.op = OpKind::output;
    out.target = "output";
    std::vector<Argument> values;
    std::vector<NodeId> seen;
    for (Argument& r : returns_) {
      if (r.is_node()) {
        if (std::find(seen.begin(), seen.end(), r.as_node()) != seen.end()) continue;
        seen.push_back(r.as_node());
      }
      values.push_back(std::move(r));
    }
    // One value is returned as itself, several as a tuple: FX's output convention.
    if (values.size() == 1) {
      out.args.push_back(std::move(values.front()));
    } else {
      out.args.push_back(Argument::tuple(std::move(values)));
    }
    if (graph_.find(out.name)) out.name = "output@fragments";
    graph_.add_node(std::move(out));
  }

  std::string_view where_;
  Graph graph_;
  ArgumentReader reader_;
  std::vector<Argument> returns_;
  Warnings warnings_;
};

}  // namespace

std::vector<std::string_view> find_graph_fragments(std::string_view output_code) {
  std::vector<std::string_view> blocks;
  std::size_t start = std::string_view::npos;
  std::size_t end = 0;
  text::for_each_line(output_code, [&](std::string_view line, std::size_t) {
    const auto offset = static_cast<std::size_t>(line.data() - output_code.data());
    const std::string_view t = text::trim(line);
    if (start != std::string_view::npos && is_fragment_body(t)) {
      end = offset + line.size();
    } else {
      if (start != std::string_view::npos && end > start) {
        blocks.push_back(output_code.substr(start, end - start));
      }
      start = std::string_view::npos;
      if (t == kHeader) start = end = offset + line.size() + 1;
    }
  });
  if (start != std::string_view::npos && end > start) {
    blocks.push_back(output_code.substr(start, end - start));
  }
  return blocks;
}

ParsedGraph parse_graph_fragment(std::string_view lines, std::string_view where) {
  return FragmentParser(where).run(lines);
}

}  // namespace fxscope::graph
