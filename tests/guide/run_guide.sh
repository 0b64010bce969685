#!/usr/bin/env bash
# run_guide.sh GUIDE SOURCE_DIR BUILD_DIR WORK
# Runs every ```sh block of GUIDE (not ```bash, which needs root, nor ```shell, which needs what the
# guide cannot provide), in order, each in a fresh bash (-e: the first failing command
# fails the block), in WORK/root: a copy of the repository root's layout (links to the source
# tree's entries, build/ = BUILD_DIR), with HOME=WORK/home so nothing outside WORK changes.
set -euo pipefail
guide=$1 source_dir=$2 build_dir=$3 work=$4
rm -rf "$work"
mkdir -p "$work/root" "$work/home" "$work/blocks"
for entry in "$source_dir"/*; do
    name=$(basename "$entry")
    [[ $name == build* ]] || ln -s "$entry" "$work/root/$name"
done
ln -s "$build_dir" "$work/root/build"

# One file per block: a line that is exactly ```sh opens a block, a line that is exactly ``` ends it.
awk -v dir="$work/blocks" '
    inside && /^```[ ]*$/ { inside = 0; close(file); next }
    inside { print > file; next }
    /^```sh[ ]*$/ { inside = 1; n++; file = sprintf("%s/%02d.sh", dir, n) }
' "$guide"
blocks=("$work"/blocks/*.sh)
[[ -e ${blocks[0]} ]] || { echo "$guide has no \`\`\`sh blocks" >&2; exit 1; }

for block in "${blocks[@]}"; do
    echo "=== $(basename "$block" .sh): $(head -n 1 "$block")"
    if ! (cd "$work/root" && HOME="$work/home" bash -e "$block"); then
        echo "FAILED: this block of $guide:" >&2
        cat "$block" >&2
        exit 1
    fi
done
echo "all ${#blocks[@]} shell blocks of $guide ran"
