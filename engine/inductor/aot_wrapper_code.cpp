// parse_aot_wrapper_code: AOTInductor writes its graph as C++ (CppWrapperGpu). The Triton
// kernels are embedded as comments in the launcher each gets (`call_triton_NAME`), and run_impl
// launches them and the library ops in order, each after the same source comments the Python
// wrapper writes (`// Topologically Sorted Source Nodes: ...`, `// [Provenance debug handles]`).

#include <algorithm>
#include <cctype>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "fxscope/core/text.h"
#include "fxscope/inductor/output_code.h"
#include "fxscope/inductor/source_comment_collector.h"

namespace fxscope::inductor {

namespace {

constexpr std::string_view kEmbedded = "async_compile.triton('";
constexpr std::string_view kQuotes = "'''";
constexpr std::string_view kLauncher = "call_";
constexpr std::string_view kCheck = "AOTI_TORCH_ERROR_CODE_CHECK(";
// A library op AOTInductor calls through its C shim: aoti_torch_cuda_convolution(...),
// aoti_torch_cuda_addmm_out(...); a custom op goes through the proxy executor.
constexpr std::string_view kShimPrefixes[] = {"aoti_torch_cuda_", "aoti_torch_cpu_",
                                              "aoti_torch_xpu_"};
constexpr std::string_view kProxyCall = "aoti_torch_proxy_executor_call_function";

std::vector<std::string_view> lines_of(std::string_view s) {
  std::vector<std::string_view> lines;
  while (!s.empty()) {
    const std::size_t end = s.find('\n');
    lines.push_back(s.substr(0, end));
    if (end == std::string_view::npos) break;
    s.remove_prefix(end + 1);
  }
  return lines;
}

// Line numbers of offsets asked in increasing order, each counted on from the last: the wrapper
// is read once however many kernels it embeds.
class LineCounter {
 public:
  explicit LineCounter(std::string_view text) : text_(text) {}
  std::size_t at(std::size_t offset) {
    if (offset < counted_) {  // asked out of order: count afresh
      counted_ = 0;
      line_ = 1;
    }
    line_ += static_cast<std::size_t>(
        std::count(text_.begin() + static_cast<std::ptrdiff_t>(counted_),
                   text_.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
    counted_ = offset;
    return line_;
  }

 private:
  std::string_view text_;
  std::size_t counted_ = 0;
  std::size_t line_ = 1;
};

// SOURCE without the indentation all its non-blank lines share (the launcher's body indent).
std::string dedent(std::string_view source) {
  std::size_t common = std::string_view::npos;
  for (const std::string_view line : lines_of(source)) {
    const std::size_t first = line.find_first_not_of(" \t");
    if (first != std::string_view::npos) common = std::min(common, first);
  }
  if (common == std::string_view::npos || common == 0) return std::string(source);
  std::string out;
  for (const std::string_view line : lines_of(source)) {
    if (!out.empty()) out += '\n';
    if (line.size() > common) out.append(line.substr(common));
  }
  return out;
}

// The op a shim call runs: "convolution" for aoti_torch_cuda_convolution, "addmm" for
// aoti_torch_cuda_addmm_out (the out= variant of the same op); empty for any other call.
std::string shim_op(std::string_view callee) {
  if (callee == kProxyCall) return "custom_op";
  for (const std::string_view prefix : kShimPrefixes) {
    if (!text::starts_with(callee, prefix)) continue;
    std::string_view op = callee.substr(prefix.size());
    if (text::ends_with(op, "_out")) op.remove_suffix(4);
    return std::string(op);
  }
  return {};
}

// `name(args...)` at the start of S: the callee and the text between its parentheses.
bool split_call(std::string_view s, std::string_view& callee, std::string_view& args) {
  const std::size_t open = s.find('(');
  if (open == std::string_view::npos || open == 0) return false;
  callee = s.substr(0, open);
  if (!text::is_identifier(callee)) return false;
  int depth = 0;
  for (std::size_t i = open; i < s.size(); ++i) {
    if (s[i] == '(') ++depth;
    if (s[i] == ')' && --depth == 0) {
      args = s.substr(open + 1, i - open - 1);
      return true;
    }
  }
  return false;
}

class WrapperParser {
 public:
  WrapperParser(std::string_view where, std::vector<Kernel> kernels, Warnings warnings)
      : where_(where),
        warnings_(std::move(warnings)),
        comments_(where, warnings_),
        kernels_(std::move(kernels)) {
    for (std::size_t i = 0; i < kernels_.size(); ++i) index_.emplace(kernels_[i].name, i);
  }

  OutputCode run(std::string_view code) {
    read_embedded_kernels(code);
    const std::size_t run_impl = code.find("::run_impl(");
    if (run_impl == std::string_view::npos) {
      warn(1, "no run_impl: this does not read as AOTInductor's wrapper code");
      return OutputCode(std::move(kernels_), {}, std::move(warnings_));
    }
    std::size_t line_no = LineCounter(code).at(run_impl);
    std::string_view rest = code.substr(run_impl);
    rest.remove_prefix(std::min(rest.size(), rest.find('\n') + 1));
    std::string statement;
    std::size_t statement_line = 0;
    for (const std::string_view raw : lines_of(rest)) {
      ++line_no;
      std::string_view line = text::trim(raw);
      if (statement.empty() && text::starts_with(line, "//")) {
        comments_.add(line.substr(2), line_no);
        continue;
      }
      // A comment after code (`auto buf1 = std::move(buf0);  // reuse`) is no part of it.
      if (const std::size_t note = line.find(" //"); note != std::string_view::npos) {
        line = text::trim(line.substr(0, note));
      }
      if (statement.empty()) statement_line = line_no;
      statement.append(line);
      // A statement ends at its `;` (a call's arguments may wrap over several lines).
      if (!statement.empty() && statement.back() != ';' && statement.back() != '{' &&
          statement.back() != '}') {
        continue;
      }
      this->statement(statement, statement_line);
      statement.clear();
    }
    return OutputCode(std::move(kernels_), std::move(launches_), std::move(warnings_));
  }

 private:
  // Kernels the autotune module did not define: from the comment each launcher embeds.
  void read_embedded_kernels(std::string_view code) {
    LineCounter lines(code);
    for (std::size_t at = code.find(kEmbedded); at != std::string_view::npos;
         at = code.find(kEmbedded, at + 1)) {
      const std::size_t name_begin = at + kEmbedded.size();
      const std::size_t name_end = code.find('\'', name_begin);
      if (name_end == std::string_view::npos) break;
      const std::string name(code.substr(name_begin, name_end - name_begin));
      if (index_.count(name) != 0) continue;
      Kernel kernel;
      kernel.name = name;
      kernel.compile_kind = "triton";
      kernel.line = lines.at(at);
      const std::size_t open = code.find(kQuotes, name_end);
      const std::size_t close =
          open == std::string_view::npos ? open : code.find(kQuotes, open + kQuotes.size());
      if (close == std::string_view::npos) {
        warn(kernel.line, "kernel " + name + " embeds no complete ''' source string");
      } else {
        kernel.source = dedent(code.substr(open + kQuotes.size(), close - open - kQuotes.size()));
        kernel.source_line = lines.at(open);
        kernel.meta = parse_triton_meta(kernel.source, kernel.name);
      }
      kernel.kind = kernel_kind(kernel.name, kernel.meta.heuristic);
      index_.emplace(kernel.name, kernels_.size());
      kernels_.push_back(std::move(kernel));
    }
  }

  void statement(std::string_view s, std::size_t line_no) {
    // `int64_t triton_poi_fused_add_0_xnumel = 802816L*s77;`: a launch's size, kept for it.
    std::string_view body = s.substr(0, s.size() - 1);
    if (text::starts_with(body, "int64_t ")) body.remove_prefix(8);
    if (text::starts_with(body, kCheck)) {
      body = body.substr(kCheck.size(), body.size() - kCheck.size() - 1);
    }
    std::string_view callee, args;
    if (!split_call(body, callee, args)) {
      remember_numel(body);
      return;
    }
    if (text::starts_with(callee, kLauncher)) {
      const std::string name(callee.substr(kLauncher.size()));
      const auto it = index_.find(name);
      if (it != index_.end()) {
        launch(line_no, LaunchKind::kernel, name, name, args, &kernels_[it->second]);
        return;
      }
    }
    // A CPU graph's C++ kernels (CppKernel names them cpp_fused_*) are called directly; their
    // source is the kernel code file, which the wrapper does not hold.
    if (text::starts_with(callee, "cpp_fused")) {
      const std::string name(callee);
      if (index_.count(name) == 0) {
        Kernel kernel;
        kernel.name = name;
        kernel.compile_kind = "cpp";
        kernel.line = line_no;
        kernel.kind = kernel_kind(kernel.name, {});
        index_.emplace(name, kernels_.size());
        kernels_.push_back(std::move(kernel));
      }
      launch(line_no, LaunchKind::kernel, name, name, args, &kernels_[index_.at(name)]);
      return;
    }
    if (const std::string op = shim_op(callee); !op.empty()) {
      launch(line_no, LaunchKind::extern_op, std::string(callee), op, args, nullptr);
      return;
    }
    if (!comments_.empty()) {
      comments_.take();
      warn(line_no, "source comments followed by no kernel launch or library call");
    }
  }

  void remember_numel(std::string_view s) {
    const std::size_t eq = s.find(" = ");
    if (eq == std::string_view::npos) return;
    const std::string_view target = text::trim(s.substr(0, eq));
    if (!text::is_identifier(target) || !text::ends_with(target, "numel")) return;
    // C++ integer literals carry an L suffix (802816L*s77): the size reads as Python's would.
    std::string value;
    const std::string_view expr = text::trim(s.substr(eq + 3));
    for (std::size_t i = 0; i < expr.size(); ++i) {
      const bool suffix = expr[i] == 'L' && i > 0 &&
                          std::isdigit(static_cast<unsigned char>(expr[i - 1])) != 0 &&
                          (i + 1 == expr.size() || !text::is_identifier_char(expr[i + 1]));
      if (!suffix) value += expr[i];
    }
    numels_[std::string(target)] = std::move(value);
  }

  void launch(std::size_t line_no, LaunchKind kind, std::string callee, std::string op,
              std::string_view args, const Kernel* kernel) {
    Launch l;
    l.kind = kind;
    l.callee = std::move(callee);
    l.op = std::move(op);
    l.function = "run_impl";
    l.line = line_no;
    l.args = std::string(args);
    l.comments = comments_.take();
    if (kernel != nullptr) {
      l.kernel = index_.at(kernel->name);
      // The launcher takes the kernel's parameters, then its device, stream, kernel table and
      // cubin folder, which are no kernel argument: only the parameters bind.
      const auto parts = text::split_top_level(args, ",");
      const std::size_t kept = std::min(parts.size(), kernel->meta.params.size());
      std::string params;
      for (std::size_t i = 0; i < kept; ++i) params.append(i ? "," : "").append(parts[i]);
      bind_kernel_args(*kernel, params, numels_, l);
    }
    launches_.push_back(std::move(l));
  }

  void warn(std::size_t line, std::string message) {
    warnings_.push_back(
        Warning{std::string(where_) + " line " + std::to_string(line), std::move(message)});
  }

  std::string_view where_;
  Warnings warnings_;
  SourceCommentCollector comments_;
  std::vector<Kernel> kernels_;
  std::unordered_map<std::string, std::size_t> index_;
  std::vector<Launch> launches_;
  std::unordered_map<std::string, std::string> numels_;
};

}  // namespace

OutputCode parse_aot_wrapper_code(std::string_view wrapper, std::string_view autotune,
                                  std::string_view where) {
  std::vector<Kernel> kernels;
  Warnings warnings;
  if (!text::trim(autotune).empty()) {
    OutputCode module = parse_output_code(autotune, std::string(where) + " (autotune module)");
    kernels = module.kernels();
    // The autotune module launches each kernel once at module level, never in a call(): its
    // kernels and their headers are what is read from it.
    for (const Warning& w : module.warnings()) {
      if (w.message.find("no call() function") == std::string::npos) warnings.push_back(w);
    }
  }
  if (text::trim(wrapper).empty()) {
    warnings.push_back(Warning{std::string(where), "the wrapper code is empty"});
    return OutputCode(std::move(kernels), {}, std::move(warnings));
  }
  return WrapperParser(where, std::move(kernels), std::move(warnings)).run(wrapper);
}

}  // namespace fxscope::inductor
