#!/usr/bin/env bash
# Every C++ source and header tracked by git is formatted by .clang-format
# (clang-format 14, as CI installs it). Fix with:
#   git ls-files '*.cpp' '*.h' | xargs clang-format-14 -i
set -euo pipefail
cd "$(dirname "$0")/.."
CF=$(command -v clang-format-14 || command -v clang-format)
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  files=$(find apps lib tests -name '*.cpp' -o -name '*.h')
else
  files=$(git ls-files '*.cpp' '*.h')
fi
# shellcheck disable=SC2086
if ! "$CF" --dry-run --Werror $files 2>/tmp/osched-format.$$; then
  grep -E "^[^ ].*(warning|error):" /tmp/osched-format.$$ | cut -d: -f1 | sort -u | sed 's/^/not formatted: /'
  rm -f /tmp/osched-format.$$
  exit 1
fi
rm -f /tmp/osched-format.$$
echo "format: $(echo "$files" | wc -w) files clean"
