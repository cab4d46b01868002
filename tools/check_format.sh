#!/usr/bin/env bash
# Every C++ source of the project is laid out as .clang-format says. Prints the files that are
# not (and what clang-format would change, first lines), exits 1 if there are any.
# Usage: tools/check_format.sh [--fix | DIR | FILE...]   (--fix: rewrite them in place; DIR: the
# checkout to check, default this one; FILEs: check only those)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -eq 1 ] && [ -d "$1" ]; then
    cd "$1"
    set --
fi

formatter=$(command -v clang-format-14 || command -v clang-format || true)
if [ -z "$formatter" ]; then
    echo "check_format: clang-format not found (tools/setup-deps.sh installs it)" >&2
    exit 2
fi

if [ $# -gt 0 ] && [ "$1" != "--fix" ]; then
    files=("$@")
else
    mapfile -t files < <(git ls-files -- 'engine/*.h' 'engine/*.cpp' 'ui/*.h' 'ui/*.cpp' 'app/*.h' 'app/*.cpp' \
        'tests/*.h' 'tests/*.cpp' 2>/dev/null || find engine ui app tests -name '*.h' -o -name '*.cpp')
fi

if [ "${1:-}" = "--fix" ]; then
    "$formatter" -i "${files[@]}"
    echo "check_format: ${#files[@]} files formatted"
    exit 0
fi

bad=()
for f in "${files[@]}"; do
    if ! "$formatter" --dry-run --Werror "$f" >/dev/null 2>&1; then bad+=("$f"); fi
done
if [ ${#bad[@]} -eq 0 ]; then
    echo "check_format: ${#files[@]} files laid out as .clang-format says"
    exit 0
fi
for f in "${bad[@]}"; do
    echo "$f: not as .clang-format lays it out:"
    report=$("$formatter" --dry-run "$f" 2>&1 || true)
    head -6 <<<"$report" | sed 's/^/    /'
done
echo "check_format: ${#bad[@]} of ${#files[@]} files to format (tools/check_format.sh --fix)"
exit 1
