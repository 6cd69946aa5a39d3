#!/bin/sh
# A FileCheck pass test: FILE's first line is `// passes: a,b,c`; the module
# in FILE goes through `mlc opt --passes a,b,c` and the output is matched
# against FILE's CHECK lines by LLVM's FileCheck (Debian: llvm-19-tools).
# Usage: run.sh MLC FILECHECK FILE
set -eu
mlc=$1 filecheck=$2 file=$3
if [ -z "$filecheck" ] || [ ! -x "$filecheck" ]; then
  echo "FileCheck not found: install llvm-19-tools (scripts/setup.sh does)" >&2
  exit 1
fi
passes=$(sed -n '1s|^// passes: *||p' "$file")
[ -n "$passes" ] || { echo "$file: the first line must be // passes: a,b,c" >&2; exit 1; }
"$mlc" opt "$file" --passes "$passes" | "$filecheck" --match-full-lines "$file"
