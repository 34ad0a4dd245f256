#!/usr/bin/env bash
# The whole test suite: installs what is missing, checks the formatting (swift format lint),
# builds with every package trait on (the Hummingbird and Vapor integrations; warnings are errors), builds the DocC
# documentation of every public module (warnings are errors), runs every test target, then runs
# the suite again under ThreadSanitizer, then fuzzes every parser of outside input for 30 s each
# (scripts/fuzz.sh). Set AMPLIFY_SANITIZERS to choose the sanitizer runs ("thread", "address",
# "thread address", or "none"), and AMPLIFY_FUZZ_SECONDS to fuzz longer or shorter (0: not at all).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-dependencies.sh
scripts/install-test-tools.sh

# Every Swift file but the generated models under Tests/GeneratedModels*: they stay exactly as the
# Amplify CLI writes them, since compiling them unchanged is what they test.
swift_sources=$(ls -d Sources Plugins BuildPlugins Examples Benchmarks Fuzz Package.swift Tests/* | grep -v '^Tests/GeneratedModels')
echo "== swift format lint --strict (.swift-format; fix with: swift format format -i -r" $swift_sources")"
# shellcheck disable=SC2086 # the list splits on purpose
swift format lint --strict -r $swift_sources

echo "== swift build (warnings are errors here)"
build_log=$(mktemp)
swift build --build-tests --enable-all-traits 2>&1 | tee "$build_log" | grep -Ev '^\[[0-9]+/[0-9]+\]' || true
if grep -q "warning:" "$build_log"; then
    echo "The build printed warnings; fix them." >&2
    exit 1
fi
if grep -q "error:" "$build_log"; then
    exit 1
fi

echo "== documentation (DocC, warnings are errors)"
scripts/docs.sh

# At most 6 test cases run at once (swift-testing's SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH):
# unbounded, the suites' servers, loops and pipes held some 4,000 file descriptors at once, and
# Foundation's Process.run() crashes the test process in memcpy when /proc/self/fd fills glibc's
# 32 KiB readdir buffer (about 1,360 entries; swift-corelibs-foundation PR #5472). Bounded, the
# run peaks under 300 and takes as long.
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=6

echo "== swift test"
swift test --skip-build --enable-all-traits

# Under a sanitizer every test runs several times slower, so 3 at once: with 6, two cores were
# oversubscribed enough that calls bounded at seconds (an S3 call's 1 s low-speed limit, a Redis
# bridge noticing a restart) overran their tests' bounds of minutes in 2 of 4 fresh-clone runs.
# A sanitizer's reports go to files (log_path) and are summed up after the run, last, where a
# log cut to its tail still shows which code raced or leaked.
for sanitizer in ${AMPLIFY_SANITIZERS:-thread}; do
    [ "$sanitizer" = "none" ] && continue
    echo "== swift test --sanitize=$sanitizer"
    reports=$(mktemp -d)
    status=0
    SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=3 LSAN_OPTIONS="suppressions=$PWD/scripts/lsan-suppressions.txt" \
        TSAN_OPTIONS="log_path=$reports/report suppressions=$PWD/scripts/tsan-suppressions.txt" ASAN_OPTIONS="log_path=$reports/report" \
        swift test --enable-all-traits --sanitize="$sanitizer" --scratch-path ".build/sanitize-$sanitizer" || status=$?
    if compgen -G "$reports/report*" >/dev/null; then
        echo "== $sanitizer sanitizer reports (whole files: $reports)"
        for report in "$reports"/report*; do
            # Each report's heading, its first frames (demangled names with file:line), and its summary.
            grep -E '^(WARNING|ERROR|SUMMARY): |^    #[0-5] ' "$report" | swift demangle --simplified | cut -c1-240 | head -120
        done
        [ "$status" = "0" ] && status=1
    fi
    [ "$status" = "0" ] || exit "$status"
done

fuzz_seconds=${AMPLIFY_FUZZ_SECONDS:-30}
if [ "$fuzz_seconds" != "0" ]; then
    echo "== scripts/fuzz.sh $fuzz_seconds"
    scripts/fuzz.sh "$fuzz_seconds"
fi
