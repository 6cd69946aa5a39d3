// Counts the heap allocations of a test binary while g_counting is set: the
// replacement global operator new and delete. Include it in exactly one
// source file of a test binary (it defines them), for tests that assert a
// code path allocates nothing (the executor's runs, the training loop's steps).
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>

namespace {
std::atomic<bool> g_counting{false};
std::atomic<int64_t> g_allocations{0};
}  // namespace

void* operator new(std::size_t n) {
  if (g_counting) ++g_allocations;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
