#!/usr/bin/env bash
# Installs the Debian packages the package builds against (and pkg-config, which SwiftPM uses
# to find them; libxml2 is what Foundation's XMLParser runs on). Skips apt-get entirely when
# everything is already installed. On a machine that cannot reach GitHub (CI, these machines),
# ../shared/swiftpm-mirrors/setup.sh, when it exists beside the project, points the Swift
# packages' GitHub URLs at local copies; Package.swift and Package.resolved keep the real URLs.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(pkg-config libuv1-dev libcurl4-openssl-dev libssl-dev libsqlite3-dev libhiredis-dev libxml2)

missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done

if [ ${#missing[@]} -gt 0 ]; then
    echo "Installing: ${missing[*]}"
    sudo_cmd=""
    [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ -x ../shared/swiftpm-mirrors/setup.sh ]; then
    ../shared/swiftpm-mirrors/setup.sh
fi
