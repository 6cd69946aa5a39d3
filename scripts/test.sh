#!/usr/bin/env bash
# Runs the whole test suite: the normal build, then the bad-input and parser
# suites again under AddressSanitizer + UndefinedBehaviorSanitizer.
# Usage: scripts/test.sh   (after scripts/setup.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C build
ctest --test-dir build --output-on-failure -j "$jobs" --no-tests=error

# Sanitizer build: the suites that feed mlc malformed input.
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DMLC_SANITIZE=ON >/dev/null
ninja -C build-asan ir_tests frontends_tests runtime_tests
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j "$jobs" --no-tests=error \
  -R 'Diagnostics|Parser|Bad|Corrupt|Malformed|Safetensors'
