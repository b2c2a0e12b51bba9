#include "fxscope/guards/recompile_cause.h"

#include <regex>
#include <string>

namespace fxscope::guards {
namespace {

std::string str(const std::ssub_match& m) {
  return m.str();
}

// "L['x']" and "L['self'].alpha" as Dynamo's reasons write them: "x", "self.alpha".
std::string local_names(std::string text) {
  static const std::regex kLocal(R"(L\['([A-Za-z_][A-Za-z_0-9]*)'\])");
  return std::regex_replace(text, kLocal, "$1");
}

RecompileCause tensor_cause(const std::smatch& m) {
  RecompileCause c;
  c.source = str(m[1]);
  const std::string what = str(m[2]);
  const std::string index = str(m[3]);
  c.before = str(m[4]);
  c.after = str(m[5]);
  if (what == "size") {
    c.kind = "tensor size";
    c.source += ".size(" + index + ")";
    c.fix = "torch._dynamo.mark_dynamic(" + str(m[1]) + ", " + index +
            ") before the first call (or torch.compile(dynamic=True)): one compile for every size";
  } else if (what == "stride") {
    c.kind = "tensor stride";
    c.source += ".stride(" + index + ")";
    c.fix = "pass " + str(m[1]) +
            " in one layout (.contiguous() before the call): a transposed or sliced view has "
            "other strides";
  } else if (what == "dtype") {
    c.kind = "dtype";
    c.fix = "cast " + str(m[1]) + " to one dtype before the call (or under one autocast)";
  } else if (what == "rank") {
    c.kind = "tensor rank";
    c.fix = "keep " + str(m[1]) +
            "'s number of dims fixed (reshape before the call): no dynamic shape covers a rank "
            "change";
  } else if (what == "requires_grad") {
    c.kind = "requires_grad";
    // "expected requires_grad=0": the call had the other value.
    if (c.before.ends_with("=0")) c.after = c.before.substr(0, c.before.size() - 1) + "1";
    if (c.before.ends_with("=1")) c.after = c.before.substr(0, c.before.size() - 1) + "0";
    c.fix = "call with " + str(m[1]) +
            ".requires_grad the same each time (detach(), or set it once), or compile the "
            "training and inference uses as separate functions";
  } else {
    c.kind = "tensor " + what;
    c.fix = "pass " + str(m[1]) + " with the same " + what + " each call";
  }
  return c;
}

}  // namespace

RecompileCause explain_recompile(std::string_view guard_view) {
  const std::string guard = local_names(std::string(guard_view));
  std::smatch m;
  // tensor 'x' size mismatch at index 0. expected 8, actual 16
  static const std::regex kTensor(
      R"(tensor '([^']+)' ([a-z_]+) mismatch(?: at index (\d+))?\.\s*expected ([^,]+?)(?:, actual (.+))?$)");
  if (std::regex_search(guard, m, kTensor)) return tensor_cause(m);
  RecompileCause c;
  static const std::regex kGlobal(R"(GLOBAL_STATE changed: (.+))");
  if (std::regex_search(guard, m, kGlobal)) {
    c.kind = "global state";
    c.source = str(m[1]);
    c.fix = "call with the same " + c.source +
            " each time (torch.no_grad, autocast and determinism are part of the compile): keep "
            "the toggle outside the loop, or compile one function per setting";
    return c;
  }
  // Symbolic size guards: a dim that was 0 or 1 at the first call, or a relation between dims.
  static const std::regex kSymbolic(R"(([A-Za-z_][\w.]*)\.size\(\)\[(\d+)\])");
  if (std::regex_search(guard, m, kSymbolic)) {
    c.kind = "dynamic shape";
    c.source = str(m[1]) + ".size(" + str(m[2]) + ")";
    c.fix = guard.find("2 <=") != std::string::npos
                ? "a size of 0 or 1 is specialized: warm up with a size of 2 or more, or "
                  "torch._dynamo.mark_unbacked(" +
                      str(m[1]) + ", " + str(m[2]) + ")"
                : "torch._dynamo.mark_dynamic(" + str(m[1]) + ", " + str(m[2]) +
                      ") with min/max that cover every call";
    return c;
  }
  static const std::regex kObjectId(R"(___check_obj_id\(([^,]+), \d+\))");
  if (std::regex_search(guard, m, kObjectId)) {
    c.kind = "object identity";
    c.source = str(m[1]);
    c.fix = "pass the same " + c.source +
            " object each call (a module-level constant, not a new function, lambda or module), "
            "or hoist the choice out of the compiled function";
    return c;
  }
  static const std::regex kLength(R"(^len\((.+)\) (==|!=) (\d+)$)");
  if (std::regex_search(guard, m, kLength)) {
    c.kind = "container length";
    c.source = "len(" + str(m[1]) + ")";
    if (str(m[2]) == "==") c.before = str(m[3]);
    c.fix = "pass " + str(m[1]) +
            " with a fixed length, or stack its tensors into one tensor (torch.stack) whose dim "
            "can be dynamic";
    return c;
  }
  static const std::regex kNone(R"(^([\w.\[\]']+) is (not )?None$)");
  if (std::regex_search(guard, m, kNone)) {
    c.kind = "None or not";
    c.source = str(m[1]);
    c.before = m[2].matched ? "not None" : "None";
    c.fix = "always pass " + c.source +
            " (a zero tensor instead of None), or compile the two cases as separate functions";
    return c;
  }
  static const std::regex kEquals(R"(^([\w.\[\]']+) == (.+)$)");
  if (std::regex_search(guard, m, kEquals)) {
    c.source = str(m[1]);
    c.before = str(m[2]);
    if (c.source.starts_with("___stack")) {
      c.kind = "value across a graph break";
      c.fix =
          "the value reaches this graph from before a graph break: keep it a tensor (no "
          ".item() or float()) or remove the graph break before this line";
    } else if (c.source.ends_with(".training")) {
      c.kind = "train/eval mode";
      c.fix =
          "expected once per mode after model.train()/model.eval(); avoid toggling the mode "
          "inside the loop";
    } else if (c.source.find('.') != std::string::npos) {
      c.kind = "attribute value";
      c.fix = "make " + c.source +
              " a tensor (register_buffer) so its value is an input, not a constant baked into "
              "the graph";
    } else if (!c.before.empty() && (c.before.front() == '\'' || c.before.front() == '"')) {
      c.kind = "python constant";
      c.fix = "hoist the branch on " + c.source +
              " out of the compiled function (one compiled function per value), or pass it as an "
              "enum that does not change per call";
    } else if (c.source.starts_with("G[")) {
      c.kind = "global constant";
      c.fix = "hoist " + c.source +
              " out of the traced function (pass it as an argument, or as a tensor whose value "
              "can change): a global read inside is baked into the graph";
    } else {
      c.kind = "python constant";
      c.fix = "pass " + c.source +
              " as a tensor (torch.tensor(...)) or hoist it out of the traced function; Dynamo "
              "makes an int or float dynamic after its first change (automatic dynamic)";
    }
    return c;
  }
  c.kind = "other guard";
  c.fix = "see the guard: the value it tests changed between calls";
  return c;
}

std::string guarded_value(std::string_view guards_text, std::string_view lhs) {
  const std::string want = std::string(lhs) + " == ";
  std::size_t start = 0;
  while (start < guards_text.size()) {
    std::size_t end = guards_text.find('\n', start);
    if (end == std::string_view::npos) end = guards_text.size();
    std::string line(guards_text.substr(start, end - start));
    start = end + 1;
    const auto comment = line.find("  #");
    if (comment != std::string::npos) line.erase(comment);
    // "| +- EQUALS_MATCH: L['n'] == 3": the guard after its kind.
    const auto leaf = line.find("+- ");
    const auto colon = line.find(": ", leaf == std::string::npos ? 0 : leaf);
    if (leaf == std::string::npos || colon == std::string::npos) continue;
    line = local_names(line.substr(colon + 2));
    while (!line.empty() && line.back() == ' ') line.pop_back();
    if (line.starts_with(want)) return line.substr(want.size());
  }
  return {};
}

}  // namespace fxscope::guards
