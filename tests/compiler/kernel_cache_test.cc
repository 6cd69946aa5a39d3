// Compiled kernel objects: equal kernels share one object; a second lowering
// with the cache compiles nothing and runs the same bits; damaged entries are
// misses that the next compile repairs; the linker refuses malformed objects
// and code for CPU features this machine lacks, naming them.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "compiler/kernel_cache.h"
#include "compiler/lower.h"
#include "compiler/pipeline.h"
#include "frontends/model_file.h"
#include "runtime/executor.h"
#include "runtime/native_code.h"

namespace mlc {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("mlc_kernel_cache_test_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

Module train_module(const std::string& example) {
  auto model = ModelFile::load(std::string(MLC_SOURCE_DIR) + "/examples/" + example + ".json");
  EXPECT_TRUE(model.ok());
  auto m = model->build(model->config().train.batch_size);
  EXPECT_TRUE(m.ok());
  PipelineOptions o;
  o.optimizer = model->config().train.optimizer;
  EXPECT_TRUE(run_pipeline(*m, o).ok());
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
  // Two transformer blocks and same-shaped parameter updates: 90 kernels, 32 distinct.
  EXPECT_EQ(l->kernels.size(), 90u);
  EXPECT_EQ(l->distinct_kernels, 32);
  EXPECT_EQ(l->executable->native.objects.size(), 32u);
  for (size_t i = 0; i < l->kernels.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      EXPECT_EQ(kir::signature(l->kernels[i]) == kir::signature(l->kernels[j]),
                l->executable->kernels[i].object == l->executable->kernels[j].object);
}

TEST(KernelCache, SecondLoweringCompilesNothingAndRunsTheSameBits) {
  TempDir dir;
  KernelCache cache(dir.path.string());
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
  ASSERT_EQ(cold->executable->native.objects.size(), warm->executable->native.objects.size());
  for (size_t i = 0; i < cold->executable->native.objects.size(); ++i)
    EXPECT_EQ(cold->executable->native.objects[i].bytes, warm->executable->native.objects[i].bytes);
  EXPECT_TRUE(run_step(*cold, f) == run_step(*warm, f));
}

TEST(KernelCache, DamagedEntriesAreMissesThatTheNextCompileRepairs) {
  TempDir dir;
  KernelCache cache(dir.path.string());
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
  const rt::NativeCode& code = first->executable->native;
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
  KernelCache cache(dir.path.string());
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
  ::setenv("MLC_CACHE_DIR", "some/dir", 1);
  ASSERT_TRUE(KernelCache::from_environment().has_value());
  EXPECT_EQ(KernelCache::from_environment()->dir(), "some/dir");
  ::setenv("MLC_CACHE_DIR", "off", 1);
  EXPECT_FALSE(KernelCache::from_environment().has_value());
  if (saved) ::setenv("MLC_CACHE_DIR", keep.c_str(), 1);
  else ::unsetenv("MLC_CACHE_DIR");
}

TEST(NativeCode, RefusesMalformedObjectsAndMissingCpuFeatures) {
  rt::NativeCode code;
  code.cpu = rt::host_cpu();
  code.features = rt::host_features();
  code.objects.push_back({"mlc_kernel_0", "not an object file"});
  auto linked = rt::link_native_code(code);
  ASSERT_FALSE(linked.ok());
  EXPECT_NE(linked.error().message.find("kernel object 'mlc_kernel_0' is not a loadable object"), std::string::npos)
      << linked.error().message;

  code.features += ",+mlc-imaginary-feature";
  linked = rt::link_native_code(code);
  ASSERT_FALSE(linked.ok());
  EXPECT_EQ(linked.error().message, "the kernels were compiled for CPU '" + code.cpu +
                                        "', whose features this CPU ('" + rt::host_cpu() +
                                        "') lacks: mlc-imaginary-feature");
  EXPECT_EQ(rt::missing_host_features(rt::host_features()), "");
}

}  // namespace
}  // namespace mlc
