#!/usr/bin/env bash
# Builds the DocC documentation of every public module with the toolchain's `docc`: symbol
# graphs of the public API (`swift package dump-symbol-graph`), then `docc convert` of each
# module's catalog with warnings as errors, so every ``link`` in a `///` comment resolves.
# Output: .build/docs/<Module>.doccarchive. Pass module names to build only those.
set -euo pipefail
cd "$(dirname "$0")/.."

modules=("$@")
if [ ${#modules[@]} -eq 0 ]; then
    modules=(AmplifyConcurrency AmplifyEventLoop AmplifyCrypto AmplifySQLite Amplify AWSPluginsCore AmplifyAuthCore
        AmplifyAnalyticsCore AmplifyStorageCore AmplifyFleet AmplifyTestKit LocalAuthPlugin AWSCognitoAuthPlugin LocalStoragePlugin AWSS3StoragePlugin
        LocalAnalyticsPlugin AWSKinesisAnalyticsPlugin RedisHubBridgePlugin AppSyncEventsHubBridgePlugin AmplifyWebSocket AWSAPIPlugin AmplifyPlugins AmplifyServiceLifecycle
        AmplifyHummingbird AmplifyVapor)
fi

docc=$(command -v docc || true)
[ -n "$docc" ] || docc="$(dirname "$(command -v swift)")/docc"
[ -x "$docc" ] || { echo "docc is not in the toolchain next to swift" >&2; exit 1; }

echo "== symbol graphs"
swift package --enable-all-traits dump-symbol-graph --minimum-access-level public 2>&1 | grep -Ev '^-- Emitting' || true
graphs=$(swift build --enable-all-traits --show-bin-path)/../symbolgraph
[ -d "$graphs" ] || { echo "no symbol graphs in $graphs" >&2; exit 1; }

failed=0
for module in "${modules[@]}"; do
    catalog=$(find Sources Plugins -maxdepth 3 -type d -name "$module.docc" | head -n 1)
    if [ -z "$catalog" ]; then
        echo "error: $module has no $module.docc catalog" >&2
        failed=1
        continue
    fi
    dir=".build/docs/symbol-graphs/$module"
    rm -rf "$dir"
    mkdir -p "$dir"
    cp "$graphs/$module.symbols.json" "$dir/"
    for extension in "$graphs/$module"@*.symbols.json; do
        [ -e "$extension" ] && cp "$extension" "$dir/"
    done
    log=$(mktemp)
    if ! "$docc" convert "$catalog" --additional-symbol-graph-dir "$dir" --output-path ".build/docs/$module.doccarchive" \
        --fallback-display-name "$module" --fallback-bundle-identifier "amplify-linux.$module" --warnings-as-errors >"$log" 2>&1; then
        echo "== $module: DocC found problems" >&2
        grep -E "warning|error" "$log" >&2 || cat "$log" >&2
        failed=1
    else
        echo "== $module: ok"
    fi
    rm -f "$log"
done
exit $failed
