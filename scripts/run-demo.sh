#!/usr/bin/env bash
# The main job on the embedded default, no cloud account: installs what is missing, builds the
# `amplify` tool, and runs `amplify demo` (sign-up, confirmation, sign-in, session expiry and
# sign-out on the local user pool, printing every Hub event and state change).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-dependencies.sh
swift build --product amplify 2>&1 | grep -Ev '^\[[0-9]+/[0-9]+\]' || true
exec "$(swift build --show-bin-path)/amplify" demo
