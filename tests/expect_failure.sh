#!/bin/bash
# usage: expect_failure.sh REGEX COMMAND...
# Passes when COMMAND exits non-zero and its output matches REGEX: the way a
# user must be told about a bad setting or a corrupt message.
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
echo "ok: exit $rc with: $(grep -Em1 -- "$regex" <<<"$out")"
