#!/usr/bin/env bash
# Runs the whole test suite (ctest over the normal build), then the ir,
# frontends, runtime and passes suites again under AddressSanitizer +
# UndefinedBehaviorSanitizer, then every libFuzzer harness of tests/fuzz/ for
# MLC_FUZZ_SECONDS (default 60) each.
# Usage: scripts/test.sh   (after scripts/setup.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C build
ctest --test-dir build --output-on-failure -j "$jobs" --no-tests=error

# Sanitizer build: every suite that feeds mlc malformed input (IR text, model
# files, safetensors, checkpoints) and every kernel and pass, under ASan+UBSan.
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DMLC_SANITIZE=ON >/dev/null
ninja -C build-asan ir_tests frontends_tests runtime_tests passes_tests
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
for suite in ir frontends runtime passes; do
  echo "== ${suite}_tests under ASan+UBSan"
  build-asan/bin/${suite}_tests --gtest_brief=1
done

# Coverage-guided fuzzing, bounded: each parser and loader for a minute.
scripts/fuzz.sh all "${MLC_FUZZ_SECONDS:-60}"
