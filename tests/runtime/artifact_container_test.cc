// The artifact reader (runtime/artifact.h) on damaged containers of the
// hand-built artifact (tests/runtime/artifact_fixture.h): truncation, magic,
// version, the section table (counts, checksums, offsets, overlaps, gaps,
// names) each an Error "<path>: error: <what>", never a crash. The
// manifest's damage: artifact_test.cc. Needs only runtime/ (ASan+UBSan too).
#include "runtime/artifact.h"

#include <gtest/gtest.h>

#include <cstring>

#include "tests/runtime/artifact_fixture.h"

namespace mlc::rt {
namespace {

// ---------------------------------------------------------------- container

TEST_F(ArtifactTest, TruncatedTo0Bytes) {
  EXPECT_EQ(error_of(""), "tiny.mlcx: error: truncated: 0 bytes, not even a header");
}

TEST_F(ArtifactTest, TruncatedTo10Bytes) {
  EXPECT_EQ(error_of(valid().substr(0, 10)), "tiny.mlcx: error: truncated: 10 bytes, not even a header");
}

TEST_F(ArtifactTest, TruncatedTo23Bytes) {
  EXPECT_EQ(error_of(valid().substr(0, 23)), "tiny.mlcx: error: truncated: 23 bytes, not even a header");
}

TEST_F(ArtifactTest, TruncatedInTheSectionTable) {
  EXPECT_EQ(error_of(valid().substr(0, 60)),
            "tiny.mlcx: error: truncated: the section table ends at byte 104, the file has 60");
}

TEST_F(ArtifactTest, TruncatedInTheManifest) {
  const size_t at = 104 + manifest_size() / 2;
  EXPECT_EQ(error_of(valid().substr(0, at)), "tiny.mlcx: error: section 'manifest' [104, +" +
                                                 std::to_string(manifest_size()) + ") lies outside the file's " +
                                                 std::to_string(at) + " bytes or overlaps another");
}

TEST_F(ArtifactTest, TruncatedInTheBlobs) {
  const std::string cut = valid().substr(0, valid().size() - 5);
  EXPECT_EQ(error_of(cut), "tiny.mlcx: error: section 'blobs' [" + std::to_string(104 + manifest_size()) + ", +" +
                               std::to_string(valid().size() - 104 - manifest_size()) + ") lies outside the file's " +
                               std::to_string(cut.size()) + " bytes or overlaps another");
}

TEST_F(ArtifactTest, BadMagic) {
  std::string s = valid();
  s[3] = 'Y';
  EXPECT_EQ(error_of(s), "tiny.mlcx: error: not an mlc artifact (bad magic)");
}

TEST_F(ArtifactTest, WrongVersion) {
  std::string s = valid();
  put_le(s, 8, 1, 4);
  EXPECT_EQ(error_of(s), "tiny.mlcx: error: format version 1, this mlc reads version 6");
}

TEST_F(ArtifactTest, SectionCount0) {
  std::string s = valid();
  put_le(s, 12, 0, 4);
  EXPECT_EQ(error_of(s), "tiny.mlcx: error: section count 0 is not in [1, 16]");
}

TEST_F(ArtifactTest, SectionCount17) {
  std::string s = valid();
  put_le(s, 12, 17, 4);
  EXPECT_EQ(error_of(s), "tiny.mlcx: error: section count 17 is not in [1, 16]");
}

TEST_F(ArtifactTest, SectionCountPastTheFile) {
  std::string s = valid().substr(0, 300);
  put_le(s, 12, 16, 4);
  EXPECT_EQ(error_of(s), "tiny.mlcx: error: truncated: the section table ends at byte 664, the file has 300");
}

TEST_F(ArtifactTest, SectionTableChecksum) {
  std::string s = valid();
  s[16] ^= 1;
  EXPECT_EQ(error_of(s), "tiny.mlcx: error: section table checksum mismatch (the file is corrupt)");
  std::string t = valid();
  t[section_field(1, 24)] ^= 1;  // the blobs' size, checksum left as it was
  EXPECT_EQ(error_of(t), "tiny.mlcx: error: section table checksum mismatch (the file is corrupt)");
}

TEST_F(ArtifactTest, ManifestSectionChecksum) {
  std::string s = valid();
  s[104 + 10] ^= 0x20;
  EXPECT_EQ(error_of(s), "tiny.mlcx: error: section 'manifest' checksum mismatch (the file is corrupt)");
}

TEST_F(ArtifactTest, BlobsSectionChecksum) {
  std::string s = valid();
  s[s.size() - 1] ^= 0x01;
  EXPECT_EQ(error_of(s), "tiny.mlcx: error: section 'blobs' checksum mismatch (the file is corrupt)");
}

TEST_F(ArtifactTest, SectionOffsetBeyondTheFile) {
  std::string s = valid();
  put_le(s, section_field(1, 16), s.size() + 100, 8);
  refresh_checksums(s);
  EXPECT_EQ(error_of(s), "tiny.mlcx: error: section 'blobs' [" + std::to_string(s.size() + 100) + ", +" +
                             std::to_string(s.size() - 104 - manifest_size()) + ") lies outside the file's " +
                             std::to_string(s.size()) + " bytes or overlaps another");
}

TEST_F(ArtifactTest, SectionSizePastTheEndOfTheFile) {
  std::string s = valid();
  put_le(s, section_field(1, 24), ~uint64_t{0}, 8);
  refresh_checksums(s);
  EXPECT_EQ(error_of(s), "tiny.mlcx: error: section 'blobs' [" + std::to_string(104 + manifest_size()) +
                             ", +18446744073709551615) lies outside the file's " + std::to_string(s.size()) +
                             " bytes or overlaps another");
}

TEST_F(ArtifactTest, OverlappingSections) {
  std::string s = valid();
  const uint64_t blobs_at = get_le(s, section_field(1, 16), 8);
  put_le(s, section_field(1, 16), blobs_at - 8, 8);  // into the manifest's last bytes
  refresh_checksums(s);
  EXPECT_EQ(error_of(s), "tiny.mlcx: error: section 'blobs' [" + std::to_string(blobs_at - 8) + ", +" +
                             std::to_string(s.size() - blobs_at) + ") lies outside the file's " +
                             std::to_string(s.size()) + " bytes or overlaps another");
}

TEST_F(ArtifactTest, TrailingBytes) {
  EXPECT_EQ(error_of(valid() + "extra"), "tiny.mlcx: error: 5 bytes after the last section");
}

TEST_F(ArtifactTest, GapBetweenTheTableAndTheFirstSection) {
  // A section may start after the table's end (gaps are allowed): the manifest
  // one byte later, in a file one byte longer.
  std::string s = valid();
  s.insert(104, 1, ' ');
  put_le(s, section_field(0, 16), 105, 8);
  put_le(s, section_field(1, 16), get_le(s, section_field(1, 16), 8) + 1, 8);
  refresh_checksums(s);
  EXPECT_TRUE(parse_artifact(s, kPath).ok());
}

TEST_F(ArtifactTest, SectionNamedTwice) {
  std::string s = valid();
  std::memcpy(&s[section_field(1, 0)], "manifest\0\0\0\0\0\0\0\0", 16);
  refresh_checksums(s);
  EXPECT_EQ(error_of(s), "tiny.mlcx: error: section 'manifest' appears twice");
}

TEST_F(ArtifactTest, NoBlobsSection) {
  std::string s = valid();
  s[section_field(1, 4)] = 'z';  // "blobz"
  refresh_checksums(s);
  EXPECT_EQ(error_of(s), "tiny.mlcx: error: no 'blobs' section");
}

TEST_F(ArtifactTest, OneSectionOnly) {
  const std::string manifest(decode_container(valid())->manifest);
  std::string s = valid().substr(0, 24) + valid().substr(24, 40) + manifest;
  put_le(s, 12, 1, 4);
  put_le(s, section_field(0, 16), 64, 8);
  refresh_checksums(s);
  EXPECT_EQ(error_of(s), "tiny.mlcx: error: no 'blobs' section");
}

}  // namespace
}  // namespace mlc::rt
