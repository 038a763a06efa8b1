#!/bin/sh
# What the test suite needs beyond pip: Debian's chromium for the web table's browser tests
# (Playwright drives it through executable_path; Playwright's own browser download needs a
# network the test machines do not have). Debian and Raspberry Pi OS: apt. As root (CI, with
# no sudo installed) it runs apt-get directly; otherwise through sudo when there is one.
set -eu

if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then
    echo "chromium is installed: $(command -v chromium || command -v chromium-browser)"
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-test-deps: no apt-get here; install chromium with your system's package" \
         "manager (the browser tests need it)" >&2
    exit 2
fi
if [ "$(id -u)" -eq 0 ]; then
    run() { "$@"; }
elif command -v sudo >/dev/null 2>&1; then
    run() { sudo "$@"; }
else
    echo "install-test-deps: chromium is missing and installing it needs root: run this as" \
         "root, or install sudo" >&2
    exit 2
fi
export DEBIAN_FRONTEND=noninteractive
run apt-get update
# Debian calls it chromium; older Raspberry Pi OS releases chromium-browser.
if apt-cache show chromium >/dev/null 2>&1; then
    run apt-get install -y chromium
else
    run apt-get install -y chromium-browser
fi
command -v chromium || command -v chromium-browser
