#!/bin/sh
# Usage: verify_mlir.sh MLC MLIR_OPT MODEL.json
#
# `mlc ir --emit mlir MODEL.json` must print one func.func per function of the
# module after the whole pipeline, in MLIR that mlir-opt (LLVM 19) parses and
# verifies (--verify-each), and mlir-opt's own printing of it must parse and
# verify again. Fails, saying what to install, when mlir-opt is missing.
set -u
mlc=$1 opt=$2 model=$3
if [ ! -x "$opt" ]; then
  echo "error: mlir-opt-19 not found (got '$opt'): install mlir-19-tools (scripts/setup.sh does)" >&2
  exit 1
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

"$mlc" ir --emit mlir "$model" >"$tmp/emitted.mlir" || { echo "error: mlc ir --emit mlir $model failed" >&2; exit 1; }
"$mlc" ir "$model" --after canonicalize >"$tmp/mlc.txt" || { echo "error: mlc ir $model --after canonicalize failed" >&2; exit 1; }
want=$(grep -c '^  func @' "$tmp/mlc.txt")
got=$(grep -c '^  func\.func @' "$tmp/emitted.mlir")
if [ "$want" -lt 1 ] || [ "$got" != "$want" ]; then
  echo "error: $model has $want functions after the pipeline, the MLIR has $got func.func" >&2
  exit 1
fi
"$opt" --verify-each "$tmp/emitted.mlir" >"$tmp/printed.mlir" || {
  echo "error: mlir-opt rejects the MLIR of $model" >&2; exit 1; }
"$opt" --verify-each "$tmp/printed.mlir" >/dev/null || {
  echo "error: mlir-opt's printing of the MLIR of $model does not parse again" >&2; exit 1; }
echo "ok: $model: $got functions verified by $opt"
