#!/usr/bin/env bash
# Runs a command in a copy of this repository placed in a new temporary directory, with nothing
# beside it: no ../shared (the design documents and the API reference the project was written
# from), no node_modules, no dist/. What the command needs it must get from the repository itself,
# as on a user's fresh clone. Used by .ci/run to run the test suite (issue 19: "a clone with no
# ../shared beside it passes npm ci && npm test").
#
# The copy holds the files Git tracks plus the untracked ones it does not ignore, as they are in
# the working tree (a local run over uncommitted edits tests those edits), committed in a new Git
# repository (some tests ask Git for the tracked files). Fails when the command fails, or when the
# command changed a tracked file of the copy (figures are recorded only with
# DRIFTLESS_WRITE_RESULTS=1). The copy is removed afterwards.
#
# Usage: scripts/in-clean-copy.sh COMMAND [ARG...]   (run with bash; COMMAND runs in the copy)
set -euo pipefail
if [ "$#" -eq 0 ]; then
  echo "usage: scripts/in-clean-copy.sh COMMAND [ARG...]" >&2
  exit 2
fi
repo="$(cd "$(dirname "$0")/.." && pwd)"
base="$(mktemp -d "${TMPDIR:-/tmp}/driftless-clean-copy.XXXXXX")"
trap 'rm -rf "$base"' EXIT
copy="$base/driftless"
mkdir "$copy"

# The files, through tar so that modes and symbolic links stay as they are; a file deleted in the
# working tree but still in the index is left out.
(cd "$repo" && git ls-files -z --cached --others --exclude-standard |
  while IFS= read -r -d '' f; do if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi; done |
  tar --null -T - -cf -) | tar -xf - -C "$copy"

if [ -e "$base/shared" ]; then
  echo "in-clean-copy: $base/shared exists beside the copy" >&2
  exit 1
fi

cd "$copy"
git init -q
git add -A
git -c user.name=in-clean-copy -c user.email=in-clean-copy@localhost -c commit.gpgsign=false commit -q --no-verify -m "the working tree of $repo"
echo "in-clean-copy: running '$*' in $copy, alone in a new directory" >&2

"$@"

changed="$(git status --porcelain --untracked-files=no)"
if [ -n "$changed" ]; then
  echo "the tests changed tracked files (run with DRIFTLESS_WRITE_RESULTS=1 and 'npm run reliability' only on purpose):" >&2
  echo "$changed" >&2
  exit 1
fi
