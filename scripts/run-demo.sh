#!/usr/bin/env bash
# The main job on the embedded default, no cloud account: installs what is missing, builds the
# `amplify` tool, and checks the bundled embedded configuration through Amplify.configure().
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-dependencies.sh
swift build --product amplify 2>&1 | grep -Ev '^\[[0-9]+/[0-9]+\]' || true
exec "$(swift build --show-bin-path)/amplify" config check --config Examples/Configurations/embedded.json
