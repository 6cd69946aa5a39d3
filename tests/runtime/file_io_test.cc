// Files mlc writes never follow a link planted at a temporary name (the
// atomic writer's temporary file is new, unpredictable and O_EXCL |
// O_NOFOLLOW), and inputs that are not regular files (a FIFO) are refused at
// once instead of blocking in open().
#include "runtime/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "tests/other_user.h"

namespace mlc::rt {
namespace {

namespace fs = std::filesystem;

class FileIoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("mlc_file_io_test_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  static std::string contents(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  fs::path dir_;
};

TEST_F(FileIoTest, AtomicWriteNeverFollowsALinkPlantedAtItsTemporaryName) {
  // The attack: in a directory others may write (mode 777, not sticky, so
  // the kernel's protected_symlinks does not step in), another user plants a
  // link at every temporary name the writer could pick, pointing at a file
  // of ours. Before, "<path>.tmp.<pid>" was the name: this process's pid.
  fs::permissions(dir_, fs::perms::all);
  const std::string victim = path("victim"), target = path("ckpt.safetensors");
  std::ofstream(victim) << "precious";
  const std::string planted = target + ".tmp." + std::to_string(::getpid());
  ASSERT_TRUE(testing::as_other_user([&] { return ::symlink(victim.c_str(), planted.c_str()) == 0; }));

  ASSERT_TRUE(write_file_atomically(target, {"new ", "bytes"}).ok());
  EXPECT_EQ(contents(victim), "precious");
  EXPECT_EQ(contents(target), "new bytes");
  EXPECT_TRUE(fs::is_symlink(planted)) << "someone else's link is left alone";
}

TEST_F(FileIoTest, AtomicWriteReplacesALinkAtThePathInsteadOfWritingThroughIt) {
  const std::string victim = path("victim"), target = path("out.mlcx");
  std::ofstream(victim) << "precious";
  fs::create_symlink(victim, target);
  ASSERT_TRUE(write_file_atomically(target, {"artifact"}).ok());
  EXPECT_EQ(contents(victim), "precious");
  EXPECT_FALSE(fs::is_symlink(target));
  EXPECT_EQ(contents(target), "artifact");
}

TEST_F(FileIoTest, TemporaryFilesAreNewUnpredictableAndNamedForTheirTarget) {
  const std::string target = path("w.safetensors");
  const mode_t umask_was = ::umask(022);
  std::set<std::string> names;
  for (int i = 0; i < 20; ++i) {
    auto t = create_temp_file(target);
    ASSERT_TRUE(t.ok()) << t.error().message;
    names.insert(t->path);
    struct stat st;
    ASSERT_EQ(::fstat(t->fd.get(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0644u);
    auto parsed = temp_file_target(fs::path(t->path).filename().string());
    ASSERT_TRUE(parsed.has_value()) << t->path;
    EXPECT_EQ(parsed->target, "w.safetensors");
    EXPECT_EQ(parsed->pid, ::getpid());
  }
  ::umask(umask_was);
  EXPECT_EQ(names.size(), 20u);
  EXPECT_EQ(temp_file_target("step_00000005.safetensors.tmp.4242")->pid, 4242) << "the names of older mlc";
  EXPECT_FALSE(temp_file_target("step_00000005.safetensors.tmp.42.xyz").has_value());
  EXPECT_FALSE(temp_file_target("notes.tmp").has_value());
  EXPECT_FALSE(temp_file_target("a.tmp.12ab").has_value());
}

TEST_F(FileIoTest, AFailedWriteNamesTheTemporaryFilesAndLeavesNone) {
  const std::string target = path("missing/w.safetensors");
  Status s = write_file_atomically(target, {"x"});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, target + ": error: cannot create a temporary file '" + target + ".tmp." +
                                   std::to_string(::getpid()) + ".*' next to it: No such file or directory");
}

// Opens `fifo` for writing after a while if a reader is still blocked in
// open() (a FIFO's write end opens without blocking only when a reader
// has it open): records that the reader was stuck, and frees it.
class FifoUnblocker {
 public:
  explicit FifoUnblocker(std::string fifo)
      : thread_([this, fifo = std::move(fifo)] {
          for (int i = 0; i < 40 && !done_; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
          while (!done_) {
            int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
            if (fd >= 0) {
              blocked_ = true;
              ::close(fd);
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
          }
        }) {}
  // Stops; true if a reader had been stuck in open().
  bool reader_was_blocked() {
    done_ = true;
    thread_.join();
    return blocked_;
  }

 private:
  std::atomic<bool> done_{false}, blocked_{false};
  std::thread thread_;
};

TEST_F(FileIoTest, AFifoIsRefusedWithoutWaitingForAWriter) {
  const std::string fifo = path("data.safetensors");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  FifoUnblocker unblocker(fifo);
  auto bytes = read_file(fifo);
  EXPECT_FALSE(unblocker.reader_was_blocked()) << "read_file waited in open() for a writer";
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.error().message, fifo + ": error: not a regular file (a FIFO)");
}

TEST_F(FileIoTest, LinksAreRefusedWhereTheCallerSaysSo) {
  const std::string real = path("real"), link = path("link");
  std::ofstream(real) << "x";
  fs::create_symlink(real, link);
  EXPECT_TRUE(open_regular_file(link).ok());
  auto refused = open_regular_file(link, /*follow_links=*/false);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message, link + ": error: is a symbolic link");
  fs::create_symlink("/dev/zero", path("zero"));
  auto zero = read_file(path("zero"));
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.error().message, path("zero") + ": error: not a regular file (a character device)");
}

}  // namespace
}  // namespace mlc::rt
