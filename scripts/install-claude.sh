#!/usr/bin/env bash
# Installs the Claude Code CLI (npm @anthropic-ai/claude-code, pinned) into a
# cache directory, without a global install, and prints the path of the real
# native executable.
#
# Usage: scripts/install-claude.sh [CACHE_DIR]
#   CACHE_DIR defaults to .cache/claude; a relative CACHE_DIR is taken
#   relative to the repository root, not to the current directory.
#   CLAUDE_CODE_VERSION overrides the pinned version.
#
# The run is idempotent: when the package is already installed at the pinned
# version, nothing is fetched. Everything except the final path goes to stderr,
# so callers can do: bin=$(scripts/install-claude.sh).
set -euo pipefail

version="${CLAUDE_CODE_VERSION:-2.1.329}"
pkg="@anthropic-ai/claude-code"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=lib/npm-pin.sh
. "$root/scripts/lib/npm-pin.sh"
dir="${1:-.cache/claude}"
case "$dir" in
/*) ;;
*) dir="$root/$dir" ;;
esac


# find_binary prints the native executable. The wrapper package ships a small
# launcher; the binary itself lives in a per-platform optional dependency
# (@anthropic-ai/claude-code-<os>-<arch>[-musl]).
find_binary() {
	local cand
	for cand in "$dir"/node_modules/@anthropic-ai/claude-code-*/claude; do
		if [ -f "$cand" ] && [ -x "$cand" ]; then
			printf '%s\n' "$cand"
			return 0
		fi
	done
	# Fallback: whatever npm linked as the package's bin.
	cand="$dir/node_modules/.bin/claude"
	if [ -x "$cand" ]; then
		readlink -f "$cand"
		return 0
	fi
	return 1
}

if [ "$(installed_version "$dir" "$pkg")" != "$version" ]; then
	npm_install_pinned install-claude "$dir" "$pkg@$version"
fi

if ! bin="$(find_binary)"; then
	echo "install-claude: no claude executable found under $dir" >&2
	exit 1
fi
printf '%s\n' "$bin"
