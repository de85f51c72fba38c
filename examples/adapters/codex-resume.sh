#!/bin/sh
# Vigil command adapter: resume a Codex CLI session headlessly with the wake as the prompt.
#
#   vigil sessions set-adapter "$CODEX_SESSION_ID" --command -- /path/to/codex-resume.sh {session}
#
# `codex exec resume ID -` reads the prompt (the wake text) from stdin. Exit 0 = delivered.
set -eu
session="${1:?usage: codex-resume.sh SESSION_ID}"
exec "${CODEX_BIN:-codex}" exec resume "$session" -
