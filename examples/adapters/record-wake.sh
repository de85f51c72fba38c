#!/bin/sh
# Vigil command adapter for trying things out: appends each turn to $1 (default ./wakes.log):
# the argv, the wake ids, the text from stdin and the JSON from $VIGIL_WAKE_FILE.
log="${1:-./wakes.log}"
{
  echo "=== turn for session $VIGIL_SESSION: $VIGIL_WAKE_IDS"
  cat
  echo
  cat "$VIGIL_WAKE_FILE"
  echo
} >> "$log"
