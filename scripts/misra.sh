#!/usr/bin/env bash
# MISRA C:2012 check of src/ with cppcheck's MISRA addon (cppcheck 2.10 on Debian 12),
# configured for a 32-bit Arm target.
#
#   bash scripts/misra.sh         check: fails on any finding (MISRA or cppcheck error) that
#                                 scripts/misra-suppressions.txt does not cover
#   bash scripts/misra.sh --all   measure: every finding, suppressions ignored, counted per
#                                 rule and file (to review docs/MISRA.md)
#
# The suppressions file holds the deviations, each explained in docs/MISRA.md; rules that the
# code satisfies are not suppressed, so new violations of them fail the check.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

mode=check
if [[ ${1:-} == --all ]]; then
  mode=all
elif [[ $# -gt 0 ]]; then
  echo "usage: bash scripts/misra.sh [--all]" >&2
  exit 2
fi
command -v cppcheck >/dev/null || { echo "misra.sh: cppcheck not found" >&2; exit 1; }

includes=(-I include)
for dir in src/*/; do
  includes+=(-I "$dir")
done
args=(--addon=misra --std=c99 --platform=arm32-wchar_t4 --language=c "${includes[@]}"
      --suppress=missingIncludeSystem --quiet --template='{file}:{line}: {id}: {message}')
boilerplate=': misra violation (use --rule-texts=<file> to get proper output)'

out=build/misra-$mode
mkdir -p "$out"
if [[ $mode == all ]]; then
  cppcheck "${args[@]}" --cppcheck-build-dir="$out" src 2>&1 | sed "s/$boilerplate//" >"$out/findings.txt"
  echo "All findings over src/ (suppressions ignored): $(grep -c . "$out/findings.txt")"
  echo
  echo "per rule:"
  awk '{ print $2 }' "$out/findings.txt" | sed 's/:$//' | sort | uniq -c | sort -k1,1nr
  echo
  echo "per rule and file:"
  awk '{ split($1, loc, ":"); print $2, loc[1] }' "$out/findings.txt" | sed 's/: / /' |
    sort | uniq -c | sort -k2,2V -k1,1nr
  exit 0
fi

cppcheck "${args[@]}" --cppcheck-build-dir="$out" --suppressions-list=scripts/misra-suppressions.txt \
  --error-exitcode=1 src 2>&1 | sed "s/$boilerplate//" >"$out/findings.txt"
rc=${PIPESTATUS[0]}
findings=$(grep -c . "$out/findings.txt")
if ((findings > 0)); then
  cat "$out/findings.txt"
  echo
  echo "per rule:"
  awk '{ print $2 }' "$out/findings.txt" | sed 's/:$//' | sort | uniq -c | sort -k1,1nr
fi
echo "misra.sh: $findings finding(s) outside the deviations of docs/MISRA.md (cppcheck exit $rc)"
((rc == 0 && findings == 0))
