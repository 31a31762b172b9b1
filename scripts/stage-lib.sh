#!/usr/bin/env bash
# The counts of one stage of scripts/test.sh, read from its log: sourced,
# not run.
#
#   stage_counts LOG    prints "PASSED FAILED" (0 0 when the log has no
#                       summary line)
#
# Only a summary line counts: a line that is nothing but counts, as pytest
# ("211 passed, 1 skipped in 378.75s (0:06:18)", "=== 1 failed, 2 passed
# in 3.1s ==="), the ctest restatement ("ctest: 22 passed, 0 failed") and
# the reliability lane ("512 passed, 0 failed") end a stage; the last such
# line wins. A count anywhere else is a test's output: Open MPI's
# "connect() to 198.19.0.7:1025 failed" in a warning once made the suite
# report 1025 failed tests and exit 1 with every stage passed. pytest's
# errors (a fixture that failed) count as failed.

_STAGE_WORD='(passed|failed|skipped|deselected|xfailed|xpassed|errors?|warnings?)'
_STAGE_SUMMARY="^(=+ |ctest: )?[0-9]+ $_STAGE_WORD(, [0-9]+ $_STAGE_WORD)*( in [0-9.]+s( \([0-9:]+\))?)?( =+)?\$"

stage_counts() {
    local line p f e
    line=$(grep -E "$_STAGE_SUMMARY" "$1" 2>/dev/null | tail -1)
    p=$(grep -Eo '[0-9]+ passed' <<<"$line" | grep -Eo '[0-9]+' || true)
    f=$(grep -Eo '[0-9]+ failed' <<<"$line" | grep -Eo '[0-9]+' || true)
    e=$(grep -Eo '[0-9]+ errors?' <<<"$line" | grep -Eo '[0-9]+' || true)
    echo "${p:-0} $(( ${f:-0} + ${e:-0} ))"
}
