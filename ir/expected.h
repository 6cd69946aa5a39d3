// Errors as values. `Expected<T>` holds either a T or an `Error` (a diagnostic
// message, already formatted with its location). Nothing in mlc throws an
// exception across a layer boundary on bad user input; functions that can fail
// on user input return Expected.
#pragma once

#include <cassert>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace mlc {

// A user-facing error. `message` is complete ("file:3:7: error: ...").
struct Error {
  std::string message;
};

inline Error make_error(std::string message) { return Error{std::move(message)}; }

template <class T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : state_(std::move(value)) {}
  Expected(Error error) : state_(std::move(error)) {}

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { assert(ok()); return std::get<0>(state_); }
  const T& value() const& { assert(ok()); return std::get<0>(state_); }
  T&& value() && { assert(ok()); return std::get<0>(std::move(state_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const { assert(!ok()); return std::get<1>(state_); }
  Error take_error() { assert(!ok()); return std::get<1>(std::move(state_)); }

 private:
  std::variant<T, Error> state_;
};

// Expected<void>: success or an Error.
template <>
class [[nodiscard]] Expected<void> {
 public:
  Expected() = default;
  Expected(Error error) : error_(std::move(error)), failed_(true) {}
  bool ok() const { return !failed_; }
  explicit operator bool() const { return ok(); }
  const Error& error() const { assert(failed_); return error_; }
  Error take_error() { assert(failed_); return std::move(error_); }

 private:
  Error error_;
  bool failed_ = false;
};

using Status = Expected<void>;

// Runs `work` (returning an Expected) and turns running out of memory
// (std::bad_alloc, or std::length_error from a size no container can hold)
// into an Error with `message`, so that a loader or builder never aborts on an
// input too large for the machine. `message` names the file and what was
// being built: "model.json: error: out of memory while building the IR".
template <class F>
auto catch_out_of_memory(F&& work, const std::string& message) -> decltype(work()) {
  try {
    return work();
  } catch (const std::bad_alloc&) {
    return make_error(message);
  } catch (const std::length_error&) {
    return make_error(message);
  }
}

}  // namespace mlc

// Propagate an error from an Expected expression: `MLC_TRY(auto x, parse());`
#define MLC_CONCAT_INNER(a, b) a##b
#define MLC_CONCAT(a, b) MLC_CONCAT_INNER(a, b)
#define MLC_TRY_IMPL(tmp, decl, expr)        \
  auto tmp = (expr);                         \
  if (!tmp.ok()) return tmp.take_error();    \
  decl = std::move(tmp).value()
#define MLC_TRY(decl, expr) MLC_TRY_IMPL(MLC_CONCAT(mlc_try_, __LINE__), decl, expr)
// Propagate an error from a Status expression.
#define MLC_CHECK_OK(expr)                                  \
  do {                                                      \
    auto mlc_status_ = (expr);                              \
    if (!mlc_status_.ok()) return mlc_status_.take_error(); \
  } while (0)
