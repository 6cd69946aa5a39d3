// The fixture of the artifact reader's tests (tests/runtime/artifact_test.cc,
// tests/runtime/verify_executable_test.cc): the hand-built artifact of
// tests/runtime/tiny_artifact.h written once per suite, and the helpers that
// damage its container or edit its manifest and return the reader's message.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "runtime/artifact.h"
#include "tests/runtime/tiny_artifact.h"

namespace mlc::rt {

using Json = nlohmann::ordered_json;
namespace fs = std::filesystem;

// What the messages name: parse_artifact takes the path for messages and for
// resolving the data file (relative to the artifact's folder; none here).
constexpr char kPath[] = "tiny.mlcx";

using mlc::testing::get_le;
using mlc::testing::put_le;
using mlc::testing::refresh_checksums;
using mlc::testing::section_field;

class ArtifactTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string((fs::temp_directory_path() / ("mlc_artifact_test_" + std::to_string(::getpid()))).string());
    fs::create_directories(*dir_);
    const std::string path = *dir_ + "/tiny.mlcx";
    Status written = write_artifact(path, mlc::testing::tiny_artifact(*dir_ + "/tiny.safetensors"));
    ASSERT_TRUE(written.ok()) << written.error().message;
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    valid_ = new std::string(ss.str());
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(*dir_, ec);
    delete dir_;
    delete valid_;
  }

  static const std::string& valid() { return *valid_; }
  static std::string path() { return *dir_ + "/tiny.mlcx"; }
  static size_t manifest_size() { return get_le(valid(), section_field(0, 24), 8); }

  // The message of parse_artifact on `bytes`, which must fail.
  static std::string error_of(const std::string& bytes) {
    auto a = parse_artifact(bytes, kPath);
    if (a) return "<parsed>";
    return a.error().message;
  }
  static Json manifest() {
    auto sections = decode_container(valid());
    EXPECT_TRUE(sections.ok());
    return Json::parse(sections->manifest);
  }
  static std::string blobs() { return std::string(decode_container(valid())->blobs); }
  // The valid artifact with its manifest edited (and the container re-encoded).
  static std::string with_manifest(const std::function<void(Json&)>& edit) {
    Json m = manifest();
    edit(m);
    return encode_container(m.dump(1), blobs());
  }
  static std::string manifest_error(const std::function<void(Json&)>& edit) { return error_of(with_manifest(edit)); }
  static Json& exe(Json& m) { return m["functions"][0]["executable"]; }

 private:
  static inline std::string* dir_ = nullptr;
  static inline std::string* valid_ = nullptr;
};

}  // namespace mlc::rt
