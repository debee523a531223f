#!/usr/bin/env bash
# t/e2e/install.sh DEST [SRC]: install the pinned npm clients (package-lock.json beside this
# file, or in the folder SRC: t/e2e/ui for the browser tests) into DEST/node_modules with
# `npm ci` (and copy the client scripts *.mjs to DEST), unless the same lock file is installed there already.
# The npm cache is DEST/.npm-cache and HOME is DEST/.home: nothing outside DEST is written.
# Concurrent callers (tests run in parallel) wait for each other on DEST/.lock.
set -eu
src=$(cd "${2:-$(dirname "$0")}" && pwd)
dest=$1
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
exec 9>"$dest/.lock"
flock 9
if [ "$src" != "$dest" ]; then
	cp "$src"/*.mjs "$dest/"
fi
if [ -d "$dest/node_modules" ] && cmp -s "$src/package-lock.json" "$dest/node_modules/.ctxd-lock"; then
	exit 0
fi
if [ "$src" != "$dest" ]; then
	cp "$src/package.json" "$src/package-lock.json" "$dest/"
fi
mkdir -p "$dest/.home"
# (its summary line and the registry's update notice are noise to the caller: errors only)
HOME=$dest/.home npm ci --prefix "$dest" --cache "$dest/.npm-cache" --no-audit --no-fund \
    --no-update-notifier --ignore-scripts --loglevel=error >/dev/null
cp "$src/package-lock.json" "$dest/node_modules/.ctxd-lock"
