#!/usr/bin/env bash
# Packs what scripts/gpu_check.sh needs on a GPU machine that has the NVIDIA
# driver, the CUDA toolkit and Python but none of Debian's -dev packages, and
# no network: gpu-bundle/mlc-gpu.tar.xz holds
#   bin/mlc, bin/runtime_tests, bin/compiler_tests   wrappers (below)
#   libexec/...                                      the binaries, without debug info
#   lib/...                                          every shared library they load that is
#                                                    not glibc's (LLVM, oneDNN, OpenBLAS,
#                                                    OpenMPI, OpenCL's loader, libstdc++, ...)
#   glibc/...                                        this machine's glibc and its loader
# and gpu-bundle/MANIFEST.txt says what it holds: sizes, the commit, the
# newest glibc symbol version the binaries need. A wrapper runs its binary on
# the machine's glibc where that is new enough, else on the bundled one
# through the bundled loader. The NVIDIA driver (libcuda), NVRTC and
# cuBLASLt are the GPU machine's own, opened at run time. Two libraries that
# only LLVM's unused parts load are replaced by stubs to fit the transfer
# (64 MiB with the working tree): libz3 (the static analyzer's solver: bound
# lazily, never called) and libicudata (ICU's data, for libxml2's encoding
# conversions, never made). tools_tests stays here: it has no GPU tests, and
# the check runs the CLI itself.
#
# Usage: scripts/gpu_bundle.sh [BUILD_DIR]     (default build/; builds what it packs)
# Then carry gpu-bundle/ to the GPU machine beside the working tree and run
# scripts/gpu_check.sh there from the repository root.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=gpu-bundle
binaries=(mlc runtime_tests compiler_tests)
limit=$((64 * 1024 * 1024))

[[ -f "$build/build.ninja" ]] || { echo "gpu_bundle: no $build/build.ninja: configure first (scripts/setup.sh)" >&2; exit 1; }
ninja -C "$build" "${binaries[@]}"

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root=$stage/mlc-gpu
mkdir -p "$root/bin" "$root/libexec" "$root/lib" "$root/glibc"

# glibc's own libraries are the machine's (or glibc/), and the NVIDIA driver is the machine's.
is_system_lib() {
  case "$1" in
    linux-vdso.so.* | ld-linux*.so.* | libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | \
      libutil.so.* | libresolv.so.* | libanl.so.* | libcuda.so.* | libnvidia-*) return 0 ;;
  esac
  return 1
}

for b in "${binaries[@]}"; do
  objcopy --strip-debug "$build/bin/$b" "$root/libexec/$b"
  # "libfoo.so.1 => /path/libfoo.so.1 (0x...)": copied under the name the
  # loader looks for, through symlinks.
  ldd "$build/bin/$b" | while read -r name arrow path _; do
    [[ "$arrow" == "=>" ]] || continue
    is_system_lib "$name" && continue
    [[ "$path" == /* && -f "$path" ]] || { echo "gpu_bundle: $b needs $name, not found" >&2; exit 1; }
    [[ -e "$root/lib/$name" ]] || cp -L "$path" "$root/lib/$name"
  done
done

# The stubs (above): the same sonames, next to nothing inside.
stub() {  # soname, C source
  printf '%s\n' "$2" | cc -shared -fPIC -x c - -Wl,-soname,"$1" -o "$root/lib/$1"
}
for f in "$root"/lib/libz3.so.*; do
  [[ -e "$f" ]] || continue
  stub "$(basename "$f")" "/* libz3 stub (scripts/gpu_bundle.sh): libLLVM binds it lazily; mlc never calls it. */"
done
for f in "$root"/lib/libicudata.so.*; do
  [[ -e "$f" ]] || continue
  stub "$(basename "$f")" "/* libicudata stub (scripts/gpu_bundle.sh): libicuuc binds this at load; mlc never uses ICU. */
const char icudt${f##*.so.}_dat[64] = {0};"
done

# glibc, for a machine whose own is older than the binaries need, with
# libmvec (the CPU kernels' vector math, loaded by name) and the libraries
# that were separate before glibc 2.34, so that no older copy of them from
# the machine meets this libc when the driver loads.
libc=$(ldd "$build/bin/mlc" | awk '$1 == "libc.so.6" {print $3}')
loader=$(ldd "$build/bin/mlc" | awk '/ld-linux/ {print $1}')
cp -L "$loader" "$root/glibc/$(basename "$loader")"
for name in libc.so.6 libm.so.6 libmvec.so.1 libdl.so.2 libpthread.so.0 librt.so.1 libutil.so.1 libresolv.so.2 libanl.so.1; do
  [[ -e "$(dirname "$libc")/$name" ]] && cp -L "$(dirname "$libc")/$name" "$root/glibc/$name"
done

# Self-contained but for glibc: every binary's libraries resolve inside the bundle.
for b in "${binaries[@]}"; do
  LD_LIBRARY_PATH="$root/lib" ldd "$root/libexec/$b" | while read -r name arrow path _; do
    [[ "$arrow" == "=>" ]] || continue
    [[ "$path" == "$root"/lib/* ]] || is_system_lib "$name" ||
      { echo "gpu_bundle: $b: $name is $path, not in the bundle" >&2; exit 1; }
  done
done
versions() {  # the newest symbol version $1_* the bundle's binaries and libraries need
  find "$root/libexec" "$root/lib" -type f -exec objdump -T {} + 2>/dev/null | grep -o "$1_[0-9][0-9.]*" |
    sort -uV | tail -1 | sed "s/^$1_//"
}
glibc=$(versions GLIBC)
glibcxx=$(versions GLIBCXX)

# Each wrapper: the machine's glibc where it is new enough, else the bundle's.
for b in "${binaries[@]}"; do
  cat > "$root/bin/$b" <<EOF
#!/bin/sh
# $b with the bundle's libraries (scripts/gpu_bundle.sh), on the machine's
# glibc where it is $glibc or newer, else on the bundle's (MLC_BUNDLE_GLIBC=1: always).
here=\$(dirname "\$(readlink -f "\$0")")/..
have=\$(getconf GNU_LIBC_VERSION 2>/dev/null | sed 's/^glibc //')
if [ -z "\$MLC_BUNDLE_GLIBC" ] && [ -n "\$have" ] &&
   [ "\$(printf '%s\\n%s\\n' $glibc "\$have" | sort -V | head -1)" = $glibc ]; then
  LD_LIBRARY_PATH="\$here/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" exec "\$here/libexec/$b" "\$@"
fi
# Under the bundled loader /proc/self/exe is the loader, so mlc cannot
# re-execute itself for OpenBLAS's kernels (tools/main.cc): set what it would.
export MLC_NO_REEXEC=1
if [ -z "\$OPENBLAS_CORETYPE" ] && grep -qw avx512f /proc/cpuinfo 2>/dev/null; then export OPENBLAS_CORETYPE=SkylakeX; fi
exec "\$here/glibc/$(basename "$loader")" --library-path "\$here/lib:\$here/glibc" "\$here/libexec/$b" "\$@"
EOF
  chmod +x "$root/bin/$b"
done

# A short run of each way the wrappers start mlc, with nothing of this
# machine's environment; as root, also in a chroot that holds nothing but
# the bundle and the example: the bundled glibc through its loader.
selftest=$stage/selftest
mkdir -p "$selftest/examples"
cp -r examples/digits_mlp.json examples/data "$selftest/examples/"
for glibc_mode in "" 1; do
  (cd "$selftest" && env -i PATH=/usr/bin:/bin MLC_BUNDLE_GLIBC=$glibc_mode MLC_CACHE_DIR=off \
     "$root/bin/mlc" run examples/digits_mlp.json --steps 2 > "$stage/selftest.log" 2>&1) ||
    { cat "$stage/selftest.log"; echo "gpu_bundle: the bundled mlc fails to train digits_mlp${glibc_mode:+ on the bundled glibc}" >&2; exit 1; }
done
chroot=$(command -v chroot || true)
if [[ $(id -u) == 0 && -n "$chroot" ]]; then
  cp -a "$root" "$selftest/" && mkdir -p "$selftest/dev" && mknod -m 666 "$selftest/dev/null" c 1 3
  env -i MLC_NO_REEXEC=1 MLC_CACHE_DIR=off "$chroot" "$selftest" /mlc-gpu/glibc/"$(basename "$loader")" \
    --library-path /mlc-gpu/lib:/mlc-gpu/glibc /mlc-gpu/libexec/mlc run /examples/digits_mlp.json --steps 2 \
    > "$stage/selftest.log" 2>&1 ||
    { cat "$stage/selftest.log"; echo "gpu_bundle: the bundled mlc fails to train digits_mlp in a chroot of the bundle alone" >&2; exit 1; }
  echo "gpu_bundle: self-test passed (environment cleared; the system's glibc, the bundled one, a chroot of the bundle alone)"
else
  echo "gpu_bundle: self-test passed (environment cleared; the system's glibc and the bundled one)"
fi

rm -rf "$out"
mkdir -p "$out"
echo "gpu_bundle: compressing (xz -9) ..."
tar -C "$stage" --owner=0 --group=0 --numeric-owner -cf - mlc-gpu | xz -9 -T0 > "$out/mlc-gpu.tar.xz"
(cd "$out" && sha256sum mlc-gpu.tar.xz > mlc-gpu.tar.xz.sha256)

commit=$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . || echo "+changes")
unpacked=$(du -sb "$root" | cut -f1)
{
  echo "mlc GPU bundle (scripts/gpu_bundle.sh), unpacked and run by scripts/gpu_check.sh"
  echo "commit: $commit"
  echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(. /etc/os-release && echo "$PRETTY_NAME")"
  echo "glibc: $glibc or newer from the machine, else the bundled $(getconf GNU_LIBC_VERSION | sed 's/^glibc //')"
  echo "libstdc++: bundled (up to GLIBCXX_$glibcxx)"
  echo "from the GPU machine: the NVIDIA driver (libcuda.so.1), NVRTC and cuBLASLt (the CUDA toolkit), NCCL for a mesh, nvcc for runtime_tests"
  echo "$("$root/bin/mlc" --version 2>&1 | head -1)"
  echo
  echo "bytes, per file:"
  (cd "$root" && find . -type f -printf '%s %p\n' | sort -rn | awk '{printf "  %11d  %s\n", $1, substr($2, 3)}')
  echo "  $unpacked unpacked in all"
  echo "  $(stat -c %s "$out/mlc-gpu.tar.xz") mlc-gpu.tar.xz"
} > "$out/MANIFEST.txt"

bundle=$(du -sb "$out" | cut -f1)
tree=$(git ls-files -z --cached --others --exclude-standard | xargs -0 stat -c %s 2>/dev/null | awk '{s += $1} END {print s + 0}')
awk -v b="$bundle" -v u="$unpacked" -v t="$tree" -v l="$limit" -v o="$out" 'BEGIN {
  m = 1048576
  printf "gpu_bundle: %s/: %.1f MiB (%.1f MiB unpacked); working tree %.1f MiB; together %.1f MiB of %d MiB\n",
         o, b / m, u / m, t / m, (b + t) / m, l / m }'
if ((bundle + tree > limit)); then
  echo "gpu_bundle: too large to travel: 64 MiB with the working tree" >&2
  exit 1
fi
