// A scratch directory for one test: <tmp>/<prefix>_<pid>_<test name>, empty
// when the test starts (a previous run's is removed) and removed when the
// TestTempDir goes. Not created: the code under test makes it.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace mlc::testing {

struct TestTempDir {
  std::filesystem::path path;
  explicit TestTempDir(const std::string& prefix) {
    path = std::filesystem::temp_directory_path() /
           (prefix + "_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(path);
  }
  ~TestTempDir() { std::filesystem::remove_all(path); }
  TestTempDir(const TestTempDir&) = delete;
  TestTempDir& operator=(const TestTempDir&) = delete;
};

}  // namespace mlc::testing
