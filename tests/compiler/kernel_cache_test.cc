// Compiled kernel objects: equal kernels share one object; a second lowering
// with the cache compiles nothing and runs the same bits; damaged entries are
// misses that the next compile repairs; the linker refuses malformed objects
// and code for CPU features this machine lacks, naming them.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "compiler/kernel_cache.h"
#include "compiler/lower.h"
#include "compiler/pass_pipeline.h"
#include "frontends/model_file.h"
#include "runtime/executor.h"
#include "runtime/cpu/native_code.h"
#include "tests/compiler/test_temp_dir.h"
#include "tests/other_user.h"

namespace mlc {
namespace {

namespace fs = std::filesystem;

struct TempDir : mlc::testing::TestTempDir {
  TempDir() : TestTempDir("mlc_kernel_cache_test") {}
};

Module train_module(const std::string& example) {
  auto model = ModelFile::load(std::string(MLC_SOURCE_DIR) + "/examples/" + example + ".json");
  EXPECT_TRUE(model.ok());
  auto m = model->build(model->config().train.batch_size);
  EXPECT_TRUE(m.ok());
  PassPipelineOptions o;
  o.optimizer = model->config().train.optimizer;
  EXPECT_TRUE(run_pass_pipeline(*m, o).ok());
  return std::move(*m);
}

std::vector<std::vector<std::byte>> run_step(const LoweredFunction& l, const Function& f) {
  auto exe = rt::Executor::create(l.executable);
  EXPECT_TRUE(exe.ok());
  std::vector<rt::Tensor> args;
  for (size_t i = 0; i < f.args.size(); ++i) {
    rt::Tensor t(f.args[i]->type);
    for (int64_t k = 0; k < t.num_elements(); ++k) {
      if (t.dtype() == DType::f32) t.data<float>()[k] = static_cast<float>((k * 13 + static_cast<int64_t>(i)) % 17 - 8) / 32.0f;
      if (t.dtype() == DType::i64) t.data<int64_t>()[k] = f.arg_kinds[i] == ArgKind::step ? 1 : k % 10;
    }
    args.push_back(std::move(t));
  }
  std::vector<rt::Tensor*> ptrs;
  for (rt::Tensor& t : args) ptrs.push_back(&t);
  EXPECT_TRUE(exe->run(ptrs).ok());
  std::vector<std::vector<std::byte>> out;
  for (size_t k = 0; k < exe->num_results(); ++k)
    out.emplace_back(exe->result(k).bytes(), exe->result(k).bytes() + exe->result(k).type().num_bytes());
  return out;
}

TEST(KernelCache, EqualKernelsShareOneObject) {
  Module m = train_module("tiny_gpt");
  auto l = lower_function(*m.find("train_step"));
  ASSERT_TRUE(l.ok()) << l.error().message;
  // Two transformer blocks and same-shaped parameter updates: 91 kernels, 33 distinct.
  EXPECT_EQ(l->kernels.size(), 91u);
  EXPECT_EQ(l->distinct_kernels, 33);
  EXPECT_EQ(l->executable->code->objects.size(), 33u);
  for (size_t i = 0; i < l->kernels.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      EXPECT_EQ(kir::signature(l->kernels[i]) == kir::signature(l->kernels[j]),
                l->executable->kernels[i].object == l->executable->kernels[j].object);
}

TEST(KernelCache, SecondLoweringCompilesNothingAndRunsTheSameBits) {
  TempDir dir;
  KernelCache cache = *KernelCache::open(dir.path.string());
  Module m = train_module("digits_mlp");
  const Function& f = *m.find("train_step");
  LowerOptions o;
  o.cache = &cache;
  auto cold = lower_function(f, o);
  ASSERT_TRUE(cold.ok()) << cold.error().message;
  EXPECT_EQ(cold->cache_hits, 0);
  auto warm = lower_function(f, o);
  ASSERT_TRUE(warm.ok()) << warm.error().message;
  EXPECT_EQ(warm->cache_hits, warm->distinct_kernels);
  EXPECT_EQ(warm->jit_codegen_ms, 0);
  ASSERT_EQ(cold->executable->code->objects.size(), warm->executable->code->objects.size());
  for (size_t i = 0; i < cold->executable->code->objects.size(); ++i)
    EXPECT_EQ(cold->executable->code->objects[i].bytes, warm->executable->code->objects[i].bytes);
  EXPECT_TRUE(run_step(*cold, f) == run_step(*warm, f));
}

TEST(KernelCache, DamagedEntriesAreMissesThatTheNextCompileRepairs) {
  TempDir dir;
  KernelCache cache = *KernelCache::open(dir.path.string());
  const std::string key = "a key", object(1000, 'x');
  cache.put(key, object);
  ASSERT_EQ(cache.get(key), object);
  EXPECT_EQ(cache.get("another key"), std::nullopt);
  const std::string file = cache.path(key);
  std::string whole;
  {
    std::ifstream in(file, std::ios::binary);
    whole.assign(std::istreambuf_iterator<char>(in), {});
  }
  auto damaged = [&](const std::string& bytes) {
    std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
    return cache.get(key);
  };
  EXPECT_EQ(damaged(whole.substr(0, whole.size() - 1)), std::nullopt) << "truncated object";
  EXPECT_EQ(damaged(whole.substr(0, 10)), std::nullopt) << "truncated header";
  EXPECT_EQ(damaged(""), std::nullopt) << "empty";
  std::string flipped = whole;
  flipped.back() ^= 1;
  EXPECT_EQ(damaged(flipped), std::nullopt) << "flipped object byte";
  std::string magic = whole;
  magic[0] = 'M';
  EXPECT_EQ(damaged(magic), std::nullopt) << "wrong magic";
  EXPECT_EQ(damaged(whole + "extra"), std::nullopt) << "trailing bytes";
  EXPECT_EQ(damaged(whole), object);

  // In a lowering: a damaged entry is compiled again and rewritten.
  Module m = train_module("digits_mlp");
  LowerOptions o;
  o.cache = &cache;
  auto first = lower_function(*m.find("train_step"), o);
  ASSERT_TRUE(first.ok());
  const rt::CodeModule& code = *first->executable->code;
  int damaged_entries = 0;
  for (const auto& entry : fs::directory_iterator(dir.path))
    if (entry.path().string() != file && damaged_entries < 3) {
      fs::resize_file(entry.path(), fs::file_size(entry.path()) / 2);
      ++damaged_entries;
    }
  auto second = lower_function(*m.find("train_step"), o);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->cache_hits, static_cast<int>(code.objects.size()) - damaged_entries);
  auto third = lower_function(*m.find("train_step"), o);
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(third->cache_hits, static_cast<int>(code.objects.size()));
}

TEST(KernelCache, ConcurrentWritersLeaveOneWholeEntry) {
  TempDir dir;
  KernelCache cache = *KernelCache::open(dir.path.string());
  std::vector<std::thread> writers;
  for (int t = 0; t < 4; ++t)
    writers.emplace_back([&] {
      for (int i = 0; i < 50; ++i) cache.put("shared", std::string(4096, 'o'));
    });
  for (std::thread& w : writers) w.join();
  EXPECT_EQ(cache.get("shared"), std::string(4096, 'o'));
  int files = 0;
  for (const auto& entry : fs::directory_iterator(dir.path)) {
    (void)entry;
    ++files;
  }
  EXPECT_EQ(files, 1) << "temporary files were left behind";
}

TEST(KernelCache, EnvironmentChoosesTheDirectoryOrTurnsItOff) {
  const char* saved = std::getenv("MLC_CACHE_DIR");
  std::string keep = saved ? saved : "";
  TempDir dir;
  ::setenv("MLC_CACHE_DIR", dir.path.c_str(), 1);
  ASSERT_TRUE(KernelCache::from_environment().has_value());
  EXPECT_EQ(KernelCache::from_environment()->dir(), dir.path.string());
  ::setenv("MLC_CACHE_DIR", "off", 1);
  EXPECT_FALSE(KernelCache::from_environment().has_value());
  if (saved) ::setenv("MLC_CACHE_DIR", keep.c_str(), 1);
  else ::unsetenv("MLC_CACHE_DIR");
}

std::string file_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// An entry file's key (the bytes after the magic line and the key's size).
std::string entry_key(const fs::path& p) {
  const std::string bytes = file_bytes(p);
  const size_t magic = bytes.find('\n') + 1;
  uint64_t size = 0;
  std::memcpy(&size, bytes.data() + magic, sizeof size);
  return bytes.substr(magic + sizeof size, size);
}

TEST(KernelCache, ADirectoryIsCreatedPrivateWhateverTheUmask) {
  TempDir dir;
  const mode_t umask_was = ::umask(0);
  auto cache = KernelCache::open((dir.path / "a" / "kernels").string());
  ::umask(umask_was);
  ASSERT_TRUE(cache.ok()) << cache.error().message;
  EXPECT_EQ(fs::status(dir.path / "a" / "kernels").permissions(), fs::perms::owner_all);
  EXPECT_EQ(fs::status(dir.path / "a").permissions(), fs::perms::owner_all);
  cache->put("k", "object");
  EXPECT_EQ(fs::status(cache->path("k")).permissions(), fs::perms::owner_read | fs::perms::owner_write);
}

TEST(KernelCache, ADirectoryOthersMayWriteIsRefused) {
  TempDir dir;
  fs::create_directories(dir.path);
  fs::permissions(dir.path, fs::perms::all);
  auto cache = KernelCache::open(dir.path.string());
  ASSERT_FALSE(cache.ok());
  EXPECT_EQ(cache.error().message, "kernel cache '" + dir.path.string() +
                                       "' is writable by others (mode 0777): anyone who can write it can run code as "
                                       "this user; make it private with `chmod 700 " + dir.path.string() + "`");
  fs::permissions(dir.path, fs::perms::owner_all | fs::perms::group_all);
  cache = KernelCache::open(dir.path.string());
  ASSERT_FALSE(cache.ok());
  EXPECT_NE(cache.error().message.find("is writable by its group (mode 0770)"), std::string::npos);

  // From the environment: a warning, and the run goes on without a cache.
  const char* saved = std::getenv("MLC_CACHE_DIR");
  std::string keep = saved ? saved : "";
  ::setenv("MLC_CACHE_DIR", dir.path.c_str(), 1);
  EXPECT_FALSE(KernelCache::from_environment().has_value());
  if (saved) ::setenv("MLC_CACHE_DIR", keep.c_str(), 1);
  else ::unsetenv("MLC_CACHE_DIR");
}

TEST(KernelCache, ADirectoryOfAnotherUserIsRefused) {
  if (!testing::other_user_available()) GTEST_SKIP() << "needs root to give the directory to another user";
  TempDir dir;
  fs::create_directories(dir.path);
  ASSERT_EQ(::chown(dir.path.c_str(), testing::kNobody, testing::kNobody), 0);
  auto cache = KernelCache::open(dir.path.string());
  ASSERT_FALSE(cache.ok());
  EXPECT_EQ(cache.error().message, "kernel cache '" + dir.path.string() + "' is owned by user 65534, not by this user (" +
                                       std::to_string(::geteuid()) +
                                       "): its code would run as this user; set MLC_CACHE_DIR to a directory of your own");
}

// The probe's attack: another user rewrote every entry of a shared cache.
// Entries someone else could have written are misses, and the next compile
// replaces them.
TEST(KernelCache, EntriesAnotherUserCouldHaveWrittenAreMisses) {
  TempDir dir;
  auto cache = KernelCache::open(dir.path.string());
  ASSERT_TRUE(cache.ok());
  const std::string key = "a key", object(100, 'o');
  cache->put(key, object);
  const std::string entry = cache->path(key);
  ASSERT_EQ(cache->get(key), object);

  fs::permissions(entry, fs::perms::others_write, fs::perm_options::add);
  EXPECT_EQ(cache->get(key), std::nullopt) << "writable by others";
  fs::permissions(entry, fs::perms::others_write, fs::perm_options::remove);
  fs::permissions(entry, fs::perms::group_write, fs::perm_options::add);
  EXPECT_EQ(cache->get(key), std::nullopt) << "writable by its group";
  fs::permissions(entry, fs::perms::group_write, fs::perm_options::remove);
  ASSERT_EQ(cache->get(key), object);

  if (testing::other_user_available()) {
    // Written by another user: the poisoned bytes are a well-formed entry.
    KernelCache::open((dir.path / "elsewhere").string())->put(key, std::string(100, 'X'));
    const std::string poisoned = file_bytes(KernelCache::open((dir.path / "elsewhere").string())->path(key));
    fs::permissions(dir.path, fs::perms::all);  // as the probe had it
    ASSERT_TRUE(testing::as_other_user([&] {
      std::error_code ec;
      fs::remove(entry, ec);
      std::ofstream(entry, std::ios::binary) << poisoned;
      return ::chmod(entry.c_str(), 0600) == 0;
    }));
    fs::permissions(dir.path, fs::perms::owner_all);
    struct stat st;
    ASSERT_EQ(::stat(entry.c_str(), &st), 0);
    ASSERT_EQ(st.st_uid, testing::kNobody);
    EXPECT_EQ(cache->get(key), std::nullopt) << "owned by another user";
    cache->put(key, object);
    EXPECT_EQ(cache->get(key), object) << "replaced by put";
  }

  // Links and special files at an entry's name are misses, and never block.
  const std::string elsewhere = (dir.path / "good_entry").string();
  fs::copy_file(entry, elsewhere);
  fs::remove(entry);
  fs::create_symlink(elsewhere, entry);
  EXPECT_EQ(cache->get(key), std::nullopt) << "a link, even to a good entry";
  fs::remove(entry);
  fs::create_symlink("/dev/zero", entry);
  EXPECT_EQ(cache->get(key), std::nullopt) << "a link to /dev/zero";
  fs::remove(entry);
  ASSERT_EQ(::mkfifo(entry.c_str(), 0600), 0);
  EXPECT_EQ(cache->get(key), std::nullopt) << "a FIFO";
  cache->put(key, object);
  EXPECT_EQ(cache->get(key), object) << "put replaces a FIFO";
}

// The probe's second finding: an entry well formed for its key but holding
// another kernel's object was trusted forever, so every later link failed.
TEST(KernelCache, AnEntryHoldingAnotherKernelsObjectIsAMissAndIsReplaced) {
  TempDir dir;
  KernelCache cache = *KernelCache::open(dir.path.string());
  Module m = train_module("digits_mlp");
  const Function& f = *m.find("train_step");
  LowerOptions o;
  o.cache = &cache;
  auto first = lower_function(f, o);
  ASSERT_TRUE(first.ok()) << first.error().message;
  const rt::CodeModule& code = *first->executable->code;
  ASSERT_GE(code.objects.size(), 2u);
  std::vector<fs::path> entries;
  for (const auto& e : fs::directory_iterator(dir.path)) entries.push_back(e.path());
  ASSERT_EQ(entries.size(), code.objects.size());
  // Entry 0 gets entry 1's object under its own key, with a valid checksum.
  const std::string key0 = entry_key(entries[0]);
  std::string object1;
  for (const rt::ObjectFile& obj : code.objects)
    if (cache.get(entry_key(entries[1])) == obj.bytes) object1 = obj.bytes;
  ASSERT_FALSE(object1.empty());
  cache.put(key0, object1);
  ASSERT_EQ(cache.get(key0), object1);

  auto second = lower_function(f, o);
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_EQ(second->cache_hits, static_cast<int>(code.objects.size()) - 1);
  EXPECT_TRUE(run_step(*first, f) == run_step(*second, f));
  auto third = lower_function(f, o);
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(third->cache_hits, static_cast<int>(code.objects.size())) << "the entry was replaced";
}

TEST(CodeModule, RefusesMalformedObjectsAndMissingCpuFeatures) {
  rt::CodeModule code;
  code.arch = rt::host_cpu();
  code.features = rt::host_features();
  code.objects.push_back({"mlc_kernel_0", "not an object file"});
  auto linked = rt::link_native_code(code);
  ASSERT_FALSE(linked.ok());
  EXPECT_NE(linked.error().message.find("kernel object 'mlc_kernel_0' is not a loadable object"), std::string::npos)
      << linked.error().message;

  code.features += ",+mlc-imaginary-feature";
  linked = rt::link_native_code(code);
  ASSERT_FALSE(linked.ok());
  EXPECT_EQ(linked.error().message, "the kernels were compiled for CPU '" + code.arch +
                                        "', whose features this CPU ('" + rt::host_cpu() +
                                        "') lacks: mlc-imaginary-feature");
  EXPECT_EQ(rt::missing_host_features(rt::host_features()), "");
}

}  // namespace
}  // namespace mlc
