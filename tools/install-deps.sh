#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs the Debian/Ubuntu packages fastpsr builds with, if any are missing; silent when all
# are there. Uses sudo when not root.
set -eu
pkgs="build-essential cmake ninja-build pkg-config libfftw3-dev libcli11-dev libfmt-dev doctest-dev nlohmann-json3-dev"
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# shellcheck disable=SC2086
$sudo apt-get install -y -qq --no-install-recommends $missing
