#!/bin/bash
# usage: expect_failure.sh REGEX COMMAND...
# Passes when COMMAND exits non-zero and its output matches REGEX: the way a
# user must be told about a bad setting or a corrupt message. With
# EXPECT_ONCE=1, exactly one line may match (one message per job, not per rank).
regex=$1
shift
out=$("$@" 2>&1)
rc=$?
if [ $rc -eq 0 ]; then
  echo "FAIL: command succeeded but should have failed"; echo "$out"; exit 1
fi
if ! grep -Eq -- "$regex" <<<"$out"; then
  echo "FAIL: output does not match /$regex/"; echo "$out"; exit 1
fi
if [ "${EXPECT_ONCE:-0}" = 1 ] && [ "$(grep -Ec -- "$regex" <<<"$out")" -ne 1 ]; then
  echo "FAIL: /$regex/ printed more than once"; echo "$out"; exit 1
fi
echo "ok: exit $rc with: $(grep -Em1 -- "$regex" <<<"$out")"
