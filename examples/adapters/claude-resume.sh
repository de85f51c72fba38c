#!/bin/sh
# Vigil command adapter: resume a Claude Code session headlessly with the wake as the prompt.
#
#   vigil sessions set-adapter "$CLAUDE_SESSION_ID" --command -- /path/to/claude-resume.sh {session}
#
# Name the Vigil session after the Claude Code session id, so {session} is the session to resume.
# The wake text arrives on stdin and becomes the prompt (`claude -p` reads it from stdin); the wake
# JSON is in the file named by $VIGIL_WAKE_FILE. Exit 0 tells Vigil the wake was delivered.
set -eu
session="${1:?usage: claude-resume.sh SESSION_ID}"
exec "${CLAUDE_BIN:-claude}" --resume "$session" -p
