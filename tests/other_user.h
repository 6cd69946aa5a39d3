// Running part of a test as another user, for the cases where mlc must
// distrust what someone else wrote (planted links, cache entries).
//
// as_other_user(fn) forks; the child takes the uid and gid of `nobody`
// (65534) when the test runs as root, runs fn and exits with 0 if it returned
// true. Without root the child stays this user, and the tests that need a
// foreign owner check file modes instead (other_user_available() says which).
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <functional>

namespace mlc::testing {

inline constexpr uid_t kNobody = 65534;

inline bool other_user_available() { return ::geteuid() == 0; }

inline bool as_other_user(const std::function<bool()>& fn) {
  pid_t pid = ::fork();
  if (pid < 0) return false;
  if (pid == 0) {
    if (other_user_available() && (::setgid(kNobody) != 0 || ::setuid(kNobody) != 0)) ::_exit(2);
    ::_exit(fn() ? 0 : 1);
  }
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) return false;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace mlc::testing
