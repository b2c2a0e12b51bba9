#pragma once
// Errors are values in the engine: a Result<T> holds either a T or an Error whose message names
// the file, line and what was expected. Nothing in the engine throws across its boundary.

#include <string>
#include <utility>
#include <variant>

namespace fxscope {

// A failure a user can act on: "PATH: what was expected, what was found".
struct Error {
  std::string message;
};

template <class T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Result(Error error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const { return std::get<Error>(v_); }

 private:
  std::variant<T, Error> v_;
};

inline Error make_error(std::string message) {
  return Error{std::move(message)};
}

}  // namespace fxscope
