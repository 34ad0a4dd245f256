#!/usr/bin/env bash
# Fuzzes every parser that reads outside input with libFuzzer, SECONDS each (default 30):
#   scripts/fuzz.sh [SECONDS] [TARGET...]
# Targets: json configuration jwt jwks s3xml redirect redis websocket appsync cookies authform (Fuzz/AmplifyFuzz/Harnesses.swift).
# Builds the AmplifyFuzz product alone with -sanitize=fuzzer,address in its own scratch path
# (.build/fuzz), so the ordinary build is untouched. Each target starts from its committed seed
# corpus (Fuzz/Corpus/TARGET, read only); what it discovers goes to .build/fuzz/corpus/TARGET,
# and a crash to .build/fuzz/crashes/TARGET/ (then: copy the input into Fuzz/Corpus/TARGET and
# write a regression test; FuzzCorpusTests replays every committed input in the ordinary run).
# Exits non-zero when any target crashed.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-30}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(json configuration jwt jwks s3xml redirect redis websocket appsync cookies authform)
scratch=.build/fuzz
# The entry point finds libFuzzer's driver with dlsym, so the linker must export it.
flags=(--product AmplifyFuzz --scratch-path "$scratch" -Xswiftc -sanitize=fuzzer,address -Xswiftc -DAMPLIFY_FUZZING
    -Xlinker --export-dynamic-symbol=LLVMFuzzerRunDriver)

echo "== building AmplifyFuzz with -sanitize=fuzzer,address"
build_log=$(mktemp)
if ! swift build "${flags[@]}" >"$build_log" 2>&1; then
    grep -E "error" "$build_log" >&2 || cat "$build_log" >&2
    exit 1
fi
binary="$(swift build "${flags[@]}" --show-bin-path)/AmplifyFuzz"

failed=()
for target in "${targets[@]}"; do
    seeds="Fuzz/Corpus/$target"
    [ -d "$seeds" ] || { echo "no seed corpus $seeds" >&2; exit 1; }
    work="$scratch/corpus/$target"
    crashes="$scratch/crashes/$target"
    mkdir -p "$work" "$crashes"
    log="$scratch/$target.log"
    echo "== $target: ${seconds}s"
    # The Swift runtime's caches look like leaks to LeakSanitizer; memory errors are still caught.
    # Swift's own backtracer is off: a crash is reported by libFuzzer and AddressSanitizer. Leaks
    # are not checked: the Swift runtime's caches look like leaks to LeakSanitizer, and
    # Foundation's XMLParser leaks about 70 bytes per malformed document (s3xml's memory grows
    # by some 400 MB a minute, hence the 4 GiB limit and the smaller quarantine).
    if AMPLIFY_FUZZ_TARGET="$target" SWIFT_BACKTRACE=enable=no ASAN_OPTIONS="detect_leaks=0:allocator_may_return_null=1:quarantine_size_mb=64" \
        "$binary" "$work" "$seeds" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -max_len=65536 \
        -artifact_prefix="$crashes/" -print_final_stats=1 >"$log" 2>&1; then
        grep -E "^(stat::number_of_executed_units|stat::new_units_added|stat::peak_rss_mb)" "$log" | tr '\n' ' '
        echo
    else
        echo "!! $target crashed; input and log: $crashes/, $log" >&2
        grep -E "ERROR|Fatal error|SUMMARY|==[0-9]+==" "$log" | head -5 >&2 || true
        failed+=("$target")
    fi
done

if [ ${#failed[@]} -gt 0 ]; then
    echo "Crashed: ${failed[*]}" >&2
    exit 1
fi
echo "No crash in ${targets[*]}."
