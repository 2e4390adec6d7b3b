#!/usr/bin/env bash
# Flash (text + data) of every object of the kernel library of one cross build, as a markdown
# table, largest first; an object whose source did not exist at BASE is marked "new" (default
# BASE: the commit before issue 25's operators, 0c193e6^). What a model links is less: only the
# functions it calls (--gc-sections); this is the cost of each kernel file in full.
#
#   bash bench/size/kernel_flash.sh build/cortex-m4 [BASE]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

build=${1:?usage: kernel_flash.sh <cross build dir> [base revision]}
base=${2:-0c193e6^}
lib=$build/src/kernels/libutvm_kernels.a
[[ -f $lib ]] || { echo "kernel_flash.sh: $lib not built" >&2; exit 1; }

echo "| object | flash (B) | since $base |"
echo "|---|---:|---|"
arm-none-eabi-size "$lib" | awk 'NR > 1 { print $1 + $2, $6 }' | sort -rn |
  while read -r bytes object; do
    source=src/kernels/${object%.obj}
    since=""
    git cat-file -e "$base:$source" 2>/dev/null || since=new
    echo "| ${object%.c.obj} | $bytes | $since |"
  done
total=$(arm-none-eabi-size -t "$lib" | awk '$NF == "(TOTALS)" { print $1 + $2 }')
echo "| **total** | **$total** | |"
