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
out=build/misra-$mode
# A fresh cppcheck build dir each run: its cache can keep stale header analyses (duplicate
# 5.6/8.5 findings after a header changes); a full run takes seconds.
rm -rf "$out"
mkdir -p "$out"

# Rule texts are not distributed with cppcheck. Without them the addon gives every finding the
# same message, and cppcheck then drops all but one finding per source line; a generated file
# that names each rule keeps every finding (and says nothing beyond the rule number).
{
  echo "Appendix A Summary of guidelines"
  for chapter in $(seq 1 22); do
    for rule in $(seq 1 20); do
      printf 'Rule %s.%s\nMISRA C:2012 rule %s.%s\n' "$chapter" "$rule" "$chapter" "$rule"
    done
  done
  echo "Appendix B"
} >"$out/rule-texts.txt"
printf '{"script": "misra.py", "args": ["--rule-texts=%s"]}\n' "$PWD/$out/rule-texts.txt" \
  >"$out/misra.json"

# One preprocessor configuration (the default one: nibble CRC, default limits): checking
# several makes the addon report declarations seen in two configurations as duplicates.
args=(--addon="$out/misra.json" --max-configs=1 --std=c99 --platform=arm32-wchar_t4 --language=c
      "${includes[@]}" --suppress=missingIncludeSystem --suppress=toomanyconfigs --quiet
      --template='{file}:{line}: {id}: {message}')
strip_texts='s/: MISRA C:2012 rule [0-9.]*$//'
if [[ $mode == all ]]; then
  cppcheck "${args[@]}" --cppcheck-build-dir="$out" src 2>&1 | sed "$strip_texts" >"$out/findings.txt"
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
  --error-exitcode=1 src 2>&1 | sed "$strip_texts" >"$out/findings.txt"
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
