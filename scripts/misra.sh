#!/usr/bin/env bash
# MISRA C:2012 check of src/ with cppcheck's MISRA addon (cppcheck 2.10 on Debian 12),
# configured for a 32-bit Arm target, in two preprocessor configurations: the default one over
# src/, and the DSP one over src/kernels (the DSP fast paths, with the emulated intrinsics of the
# host tests). The MVE fast paths are not checked; the script says so and why (docs/MISRA.md).
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

# One cppcheck run per preprocessor configuration (checking several in one run makes the addon
# report declarations seen in two configurations as duplicates), findings merged:
#  - default: src/ as the default build compiles it (nibble CRC, default limits, no DSP, no MVE);
#  - dsp: src/kernels with UTVM_KERNELS_DSP_EMULATED, the host tests' configuration, which
#    compiles the DSP fast paths (UTVM_KERNELS_DSP_PATHS: <operator>_s8_dsp.c,
#    requant_s8_dsp.{h,c}) as __ARM_FEATURE_DSP does, except that the one-line intrinsic wrappers
#    of dsp_s8.h are their portable C emulation instead of ACLE built-ins and inline assembly.
configs=(default dsp)
declare -A config_files=([default]=src [dsp]=src/kernels)
declare -A config_defines=([default]="" [dsp]=-DUTVM_KERNELS_DSP_EMULATED)
# src/acl is C++ (the optional Arm Compute Library backend, docs/MISRA.md): not MISRA C's.
args=(--addon="$out/misra.json" --max-configs=1 --std=c99 --platform=arm32-wchar_t4 --language=c
      -i src/acl "${includes[@]}" --suppress=missingIncludeSystem --suppress=toomanyconfigs --quiet
      --template='{file}:{line}: {id}: {message}')
strip_texts='s/: MISRA C:2012 rule [0-9.]*$//'

# run_configs [cppcheck options...]: every configuration into $out/findings.txt (duplicates of
# one line and rule seen in both merged); returns the highest cppcheck exit status.
run_configs() {
  local rc=0 config status
  : >"$out/findings.txt"
  for config in "${configs[@]}"; do
    mkdir -p "$out/$config"
    # shellcheck disable=SC2086 # the defines are one word or none
    cppcheck "${args[@]}" "$@" --cppcheck-build-dir="$out/$config" ${config_defines[$config]} \
      "${config_files[$config]}" 2>&1 | sed "$strip_texts" >>"$out/findings.txt"
    status=${PIPESTATUS[0]}
    ((status > rc)) && rc=$status
  done
  sort -u -o "$out/findings.txt" "$out/findings.txt"
  return "$rc"
}

# What neither configuration checks (printed after the findings).
mve_note() {
  echo "misra.sh: not checked: the MVE fast paths (src/kernels/*_mve.c, mve_s8.h, mve_s8.c:"
  echo "  compiled only with __ARM_FEATURE_MVE). Their code is arm_mve.h's vector types and"
  echo "  intrinsics, GCC built-ins (__builtin_mve_*, __simd128_* types) that cppcheck 2.10 has no"
  echo "  model of: the header is the compiler's, not cppcheck's; given GCC's copy (42,000 lines)"
  echo "  every vector value has an unknown type, so the essential-type rules cannot judge them,"
  echo "  and the header adds thousands of findings of its own. The compiler (-Werror) and QEMU"
  echo "  (qemu_kernels_mps3-an547) check them; docs/MISRA.md, section D."
}

if [[ $mode == all ]]; then
  run_configs
  echo "All findings over src/ and the DSP configuration of src/kernels (suppressions ignored):" \
    "$(grep -c . "$out/findings.txt")"
  echo
  echo "per rule:"
  awk '{ print $2 }' "$out/findings.txt" | sed 's/:$//' | sort | uniq -c | sort -k1,1nr
  echo
  echo "per rule and file:"
  awk '{ split($1, loc, ":"); print $2, loc[1] }' "$out/findings.txt" | sed 's/: / /' |
    sort | uniq -c | sort -k2,2V -k1,1nr
  echo
  mve_note
  exit 0
fi

run_configs --suppressions-list=scripts/misra-suppressions.txt --error-exitcode=1
rc=$?
findings=$(grep -c . "$out/findings.txt")
if ((findings > 0)); then
  cat "$out/findings.txt"
  echo
  echo "per rule:"
  awk '{ print $2 }' "$out/findings.txt" | sed 's/:$//' | sort | uniq -c | sort -k1,1nr
fi
mve_note
echo "misra.sh: $findings finding(s) outside the deviations of docs/MISRA.md (cppcheck exit $rc)"
((rc == 0 && findings == 0))
