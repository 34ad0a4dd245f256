#!/usr/bin/env bash
# Installs what the integration tests talk to: the curl command-line tool (presigned URLs, the
# HTTP benchmark's baseline), redis-server (with redis-benchmark), wrk (the HTTP server benchmark's client) and chromium with
# chromium-driver (the browser tests') from Debian, and moto_server
# (the local AWS stand-in) with graphql-core and websockets (the AppSync stand-in's,
# Sources/AmplifyTestKit/AppSync) in a venv at .build/test-tools/venv. Idempotent, and safe to run from several test processes at once.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v curl >/dev/null 2>&1 || missing+=(curl)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v wrk >/dev/null 2>&1 || missing+=(wrk)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v chromedriver >/dev/null 2>&1 || missing+=(chromium-driver)
python3 -m venv --help >/dev/null 2>&1 || missing+=(python3-venv)
if [ ${#missing[@]} -gt 0 ]; then
    echo "Installing: ${missing[*]}"
    sudo_cmd=""
    [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi

tools=.build/test-tools
venv=$tools/venv
mkdir -p "$tools"
exec 9>"$tools/.lock"
flock 9
# The marker names the package set: a venv made for an older set is made again.
marker="$venv/.complete-moto-5.2.5-pyjwt-2.10.1-pycognito-2024.5.1-graphql-core-3.3.2-websockets-17.4-selenium-4.50.0"
if [ ! -x "$venv/bin/moto_server" ] || [ ! -f "$marker" ]; then
    echo "Creating $venv with moto (and PyJWT and pycognito, the Cognito benchmark's peers; graphql-core and websockets, the AppSync stand-in's; selenium, the browser tests')"
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check 'moto[cognitoidp,s3]==5.2.5' flask flask-cors \
        'pyjwt[crypto]==2.10.1' 'pycognito==2024.5.1' 'graphql-core==3.3.2' 'websockets==17.4' 'selenium==4.50.0'
    touch "$marker" "$venv/.complete"
fi
