#!/bin/sh
# What the test suite needs beyond pip: Debian's chromium for the web table's browser tests
# (Playwright drives it through executable_path; Playwright's own browser download needs a
# network the test machines do not have), and Mosquitto (the broker, and its clients
# mosquitto_sub and mosquitto_pub) for the hall's tests, which start their own broker on a
# free loopback port (the service is not enabled). Debian and Raspberry Pi OS: apt. Only
# what is missing is installed, after one apt-get update. As root (CI, with no sudo
# installed) it runs apt-get directly; otherwise through sudo when there is one.
set -eu

missing=""
if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then
    echo "chromium is installed: $(command -v chromium || command -v chromium-browser)"
else
    missing="$missing chromium"
fi
# Debian puts the broker in /usr/sbin, which a user's PATH may not hold.
if command -v mosquitto >/dev/null 2>&1 || [ -x /usr/sbin/mosquitto ]; then
    echo "mosquitto is installed: $(command -v mosquitto || echo /usr/sbin/mosquitto)"
else
    missing="$missing mosquitto"
fi
if command -v mosquitto_sub >/dev/null 2>&1 && command -v mosquitto_pub >/dev/null 2>&1; then
    echo "mosquitto's clients are installed: $(command -v mosquitto_sub)"
else
    missing="$missing mosquitto-clients"
fi
if [ -z "$missing" ]; then
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-test-deps: no apt-get here; install$missing with your system's package" \
         "manager (the browser and hall tests need them)" >&2
    exit 2
fi
if [ "$(id -u)" -eq 0 ]; then
    run() { "$@"; }
elif command -v sudo >/dev/null 2>&1; then
    run() { sudo "$@"; }
else
    echo "install-test-deps:$missing missing and installing needs root: run this as" \
         "root, or install sudo" >&2
    exit 2
fi
export DEBIAN_FRONTEND=noninteractive
run apt-get update
packages=""
for name in $missing; do
    if [ "$name" = chromium ] && ! apt-cache show chromium >/dev/null 2>&1; then
        # Debian calls it chromium; older Raspberry Pi OS releases chromium-browser.
        name=chromium-browser
    fi
    packages="$packages $name"
done
# shellcheck disable=SC2086 # the package names are words, split on purpose
run apt-get install -y $packages
case "$missing" in
    *chromium*) command -v chromium || command -v chromium-browser ;;
esac
case "$missing" in
    *mosquitto*) command -v mosquitto_sub; command -v mosquitto || ls /usr/sbin/mosquitto ;;
esac
