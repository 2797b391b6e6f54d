#!/usr/bin/env bash
# Copies this checkout's working tree into a directory, without what builds leave (every target/) and
# without Git's data: a tree to build beside this one, uncommitted changes included. scripts/test.sh runs
# its second lane in such a copy, and scripts/release-check.sh its second build.
# Usage: scripts/copy-tree.sh DIRECTORY   (made if missing; files already there are overwritten)
set -euo pipefail
destination="${1:?Usage: scripts/copy-tree.sh DIRECTORY}"
mkdir -p "$destination"
destination="$(cd "$destination" && pwd)"
cd "$(dirname "$0")/.."
tar -c --exclude=./target --exclude='./*/target' --exclude=./.git . | tar -x -C "$destination"
