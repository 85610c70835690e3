#!/usr/bin/env bash
# Installs the Codex CLI (npm @openai/codex, pinned) into a cache directory,
# without a global install, and prints the path of the real native
# executable.
#
# Usage: scripts/install-codex.sh [CACHE_DIR]
#   CACHE_DIR defaults to .cache/codex; a relative CACHE_DIR is taken
#   relative to the repository root, not to the current directory.
#   CODEX_VERSION overrides the pinned version.
#
# The npm package is a JS launcher (bin/codex.js) that execs a static native
# binary shipped in a per-platform optional dependency
# (@openai/codex-<os>-<arch>, at vendor/<target triple>/bin/codex). The
# bridge runs that binary directly: no node process in between, and a signal
# to the process group reaches Codex itself.
#
# The run is idempotent: when the package is already installed at the pinned
# version, nothing is fetched. Everything except the final path goes to
# stderr, so callers can do: bin=$(scripts/install-codex.sh).
set -euo pipefail

version="${CODEX_VERSION:-0.169.0}"
pkg="@openai/codex"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=lib/npm-pin.sh
. "$root/scripts/lib/npm-pin.sh"
dir="${1:-.cache/codex}"
case "$dir" in
/*) ;;
*) dir="$root/$dir" ;;
esac


# find_binary prints the native executable: the platform package's vendored
# binary first, then whatever npm linked as the package's bin.
find_binary() {
	local cand
	for cand in "$dir"/node_modules/@openai/codex-*/vendor/*/bin/codex "$dir"/node_modules/@openai/codex-*/vendor/*/codex/codex; do
		if [ -f "$cand" ] && [ -x "$cand" ]; then
			printf '%s\n' "$cand"
			return 0
		fi
	done
	cand="$dir/node_modules/.bin/codex"
	if [ -x "$cand" ]; then
		readlink -f "$cand"
		return 0
	fi
	return 1
}

if [ "$(installed_version "$dir" "$pkg")" != "$version" ]; then
	npm_install_pinned install-codex "$dir" "$pkg@$version"
fi

if ! bin="$(find_binary)"; then
	echo "install-codex: no codex executable found under $dir" >&2
	exit 1
fi
printf '%s\n' "$bin"
