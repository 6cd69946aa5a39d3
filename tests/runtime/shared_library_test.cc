// runtime/shared_library.h with the C library's own libraries (on every
// Linux machine): the search order, what the Error lists, accept's refusals
// and the next candidate, the toolkit's directories, and closing.
#include "runtime/shared_library.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace mlc::rt {
namespace {

namespace fs = std::filesystem;

TEST(SharedLibrary, OpensThroughTheLoaderAndFindsSymbols) {
  const std::string_view names[] = {"libmlc-no-such-library.so.1", "libm.so.6"};
  auto lib = open_shared_library(names, {});
  ASSERT_TRUE(lib.ok()) << lib.error().message;
  EXPECT_EQ(lib->name(), "libm.so.6");
  EXPECT_EQ(fs::path(lib->file()).filename(), "libm.so.6") << lib->file();
  EXPECT_TRUE(fs::path(lib->file()).is_absolute()) << lib->file();
  auto cosine = lib->sym<double (*)(double)>("cos");
  ASSERT_NE(cosine, nullptr);
  EXPECT_EQ(cosine(0.0), 1.0);
  EXPECT_EQ(lib->sym<void (*)()>("mlc_no_such_symbol"), nullptr);
  int (*fn)() = nullptr;
  EXPECT_FALSE(lib->bind(fn, "mlc_no_such_symbol"));
}

TEST(SharedLibrary, TheErrorListsEverythingTried) {
  const std::string_view names[] = {"libmlc-a.so.1", "libmlc-b.so"};
  auto none = open_shared_library(names, {});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message, "tried libmlc-a.so.1, libmlc-b.so");

  LibrarySearch search;
  search.dirs = {"/mlc-no-such-dir/lib64", "/mlc-other/"};
  none = open_shared_library(names, search);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message,
            "tried libmlc-a.so.1, libmlc-b.so, /mlc-no-such-dir/lib64/libmlc-a.so.1, /mlc-no-such-dir/lib64/libmlc-b.so, "
            "/mlc-other/libmlc-a.so.1, /mlc-other/libmlc-b.so");

  // A file named by path is tried as given, never in the directories, and
  // its loader message is given even where it is absent.
  const std::string_view path[] = {"/mlc-no-such-dir/libnvrtc.so"};
  none = open_shared_library(path, search);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message,
            "tried /mlc-no-such-dir/libnvrtc.so (cannot open shared object file: No such file or directory)");
}

// A file that exists but is no library: the loader's reason, found in a
// search directory.
TEST(SharedLibrary, AFileThatIsNoLibrarySaysWhy) {
  const fs::path dir = fs::temp_directory_path() / ("mlc_shared_library_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "libmlc-fake.so.1") << "not an ELF file\n";
  LibrarySearch search;
  search.dirs = {dir.string()};
  const std::string_view names[] = {"libmlc-fake.so.1"};
  auto lib = open_shared_library(names, search);
  fs::remove_all(dir);
  ASSERT_FALSE(lib.ok());
  const std::string file = (dir / "libmlc-fake.so.1").string();
  EXPECT_EQ(lib.error().message.rfind("tried libmlc-fake.so.1, " + file + " (", 0), 0u) << lib.error().message;
  EXPECT_EQ(lib.error().message.back(), ')') << lib.error().message;
}

TEST(SharedLibrary, RefusedLibrariesAreListedAndTheNextIsTried) {
  const std::string_view names[] = {"libm.so.6", "libc.so.6"};
  LibrarySearch search;
  int asked = 0;
  search.accept = [&](const SharedLibrary& lib) -> Status {
    ++asked;
    if (lib.sym<void (*)()>("cos")) return make_error("lacks nothing, but is libm");
    return {};
  };
  auto lib = open_shared_library(names, search);
  ASSERT_TRUE(lib.ok()) << lib.error().message;
  EXPECT_EQ(lib->name(), "libc.so.6");
  EXPECT_EQ(asked, 2);

  search.accept = [](const SharedLibrary&) -> Status { return make_error("lacks fooInit"); };
  lib = open_shared_library(names, search);
  ASSERT_FALSE(lib.ok());
  EXPECT_EQ(lib.error().message, "tried libm.so.6 (lacks fooInit), libc.so.6 (lacks fooInit)");
}

TEST(SharedLibrary, CudaToolkitDirectories) {
  const char* home = std::getenv("CUDA_HOME");
  const char* path = std::getenv("CUDA_PATH");
  const std::string saved_home = home ? home : "", saved_path = path ? path : "";
  setenv("CUDA_HOME", "/opt/cuda-a", 1);
  setenv("CUDA_PATH", "", 1);
  EXPECT_EQ(cuda_toolkit_lib_dirs(), (std::vector<std::string>{"/opt/cuda-a/lib64", "/usr/local/cuda/lib64"}));
  unsetenv("CUDA_HOME");
  setenv("CUDA_PATH", "/opt/cuda-b", 1);
  EXPECT_EQ(cuda_toolkit_lib_dirs(), (std::vector<std::string>{"/opt/cuda-b/lib64", "/usr/local/cuda/lib64"}));
  unsetenv("CUDA_PATH");
  EXPECT_EQ(cuda_toolkit_lib_dirs(), (std::vector<std::string>{"/usr/local/cuda/lib64"}));
  if (home) setenv("CUDA_HOME", saved_home.c_str(), 1);
  if (path) setenv("CUDA_PATH", saved_path.c_str(), 1);
}

// A library nothing else has loaded: closed when its SharedLibrary goes,
// left loaded after keep_loaded().
TEST(SharedLibrary, ClosesUnlessKept) {
  const char* name = nullptr;
  for (const char* candidate : {"libanl.so.1", "libBrokenLocale.so.1", "libutil.so.1", "libnss_files.so.2"}) {
    void* loaded = dlopen(candidate, RTLD_NOW | RTLD_NOLOAD);
    if (loaded) {
      dlclose(loaded);
      continue;
    }
    void* probe = dlopen(candidate, RTLD_NOW | RTLD_LOCAL);
    if (!probe) continue;
    dlclose(probe);
    if (void* still = dlopen(candidate, RTLD_NOW | RTLD_NOLOAD)) {  // a library that cannot be unloaded
      dlclose(still);
      continue;
    }
    name = candidate;
    break;
  }
  if (!name) GTEST_SKIP() << "no C library that this process has not loaded and can unload";
  const std::string_view names[] = {name};
  auto is_loaded = [&] {
    void* h = dlopen(name, RTLD_NOW | RTLD_NOLOAD);
    if (h) dlclose(h);
    return h != nullptr;
  };
  {
    auto lib = open_shared_library(names, {});
    ASSERT_TRUE(lib.ok()) << lib.error().message;
    EXPECT_TRUE(is_loaded());
    SharedLibrary moved = std::move(*lib);
    EXPECT_FALSE(lib->is_open());
    EXPECT_TRUE(moved.is_open());
  }
  EXPECT_FALSE(is_loaded()) << name;
  {
    auto lib = open_shared_library(names, {});
    ASSERT_TRUE(lib.ok());
    lib->keep_loaded();
  }
  EXPECT_TRUE(is_loaded()) << name;
}

}  // namespace
}  // namespace mlc::rt
