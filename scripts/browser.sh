#!/usr/bin/env bash
# Make sure Debian's Chromium is installed for the headless browser tests (Playwright drives it
# through executable_path; no browser download). Idempotent.
set -euo pipefail
if command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ]; then
  exit 0
fi
echo "browser: installing Debian's chromium" >&2
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null
