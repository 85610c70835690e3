#!/usr/bin/env bash
# Installs the native-ACP agent CLIs the end-to-end tests drive (pinned, npm
# only, no global install), one directory each under a cache directory, and
# prints one line per agent: its name, a tab, and the path of its launcher.
#
# Usage: scripts/install-agents.sh [NAME...]
#   NAME is gemini, qwen, opencode or copilot; none means all four.
#   ACPBRIDGE_AGENTS_DIR overrides the cache directory (default .cache/agents;
#   a relative path is taken relative to the repository root, not to the
#   current directory).
#
# Qwen Code 0.24.4 needs Node >= 22, so npm's node@22 package (a node binary
# from the registry) is installed beside it; its launcher starts with
# "#!/usr/bin/env node", so whoever runs it puts
# .cache/agents/qwen/node_modules/node/bin first on PATH (fixtures/testsupport/agentenv
# does). Copilot's native binary unpacks its runtime package on first start;
# the install does that once, into .cache/agents/copilot/pkg, so that tests
# with a fresh HOME do not repeat it.
#
# The run is idempotent: an agent already installed at its pinned version is
# not fetched again. Everything except the final lines goes to stderr, so
# callers can do: scripts/install-agents.sh | while read -r name path; ...
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=lib/npm-pin.sh
. "$root/scripts/lib/npm-pin.sh"
base="${ACPBRIDGE_AGENTS_DIR:-.cache/agents}"
case "$base" in
/*) ;;
*) base="$root/$base" ;;
esac

# The pins: npm package specs per agent (the first one is the CLI).
pins() {
	case "$1" in
	gemini) echo "@google/gemini-cli@0.61.0" ;;
	qwen) echo "@qwen-code/qwen-code@0.24.4 node@22.23.3" ;;
	opencode) echo "opencode-ai@1.18.33" ;;
	copilot) echo "@github/copilot@1.0.102" ;;
	*) return 1 ;;
	esac
}


# up_to_date reports whether every pinned package of agent $1 is installed.
up_to_date() {
	local dir="$base/$1" spec pkg ver
	for spec in $(pins "$1"); do
		pkg="${spec%@*}"
		ver="${spec##*@}"
		[ "$(installed_version "$dir" "$pkg")" = "$ver" ] || return 1
	done
}

# launcher prints the executable npm linked for agent $1.
launcher() {
	local bin
	case "$1" in
	gemini) bin=gemini ;;
	qwen) bin=qwen ;;
	opencode) bin=opencode ;;
	copilot) bin=copilot ;;
	esac
	bin="$base/$1/node_modules/.bin/$bin"
	[ -x "$bin" ] || { echo "install-agents: no $bin after install" >&2; return 1; }
	printf '%s\n' "$bin"
}

install_one() {
	local name="$1" dir="$base/$1"
	if ! up_to_date "$name"; then
		# shellcheck disable=SC2046
		npm_install_pinned install-agents "$dir" $(pins "$name")
	fi
	if [ "$name" = copilot ] && [ ! -e "$dir/pkg/.warm" ]; then
		# First start unpacks the runtime into COPILOT_PKG_CACHE_HOME.
		mkdir -p "$dir/pkg" "$dir/pkg-home"
		HOME="$dir/pkg-home" COPILOT_PKG_CACHE_HOME="$dir/pkg" COPILOT_OFFLINE=true \
			"$dir/node_modules/.bin/copilot" --version >&2 </dev/null
		touch "$dir/pkg/.warm"
	fi
	printf '%s\t%s\n' "$name" "$(launcher "$name")"
}

names=("$@")
[ ${#names[@]} -gt 0 ] || names=(gemini qwen opencode copilot)
for n in "${names[@]}"; do
	pins "$n" >/dev/null || { echo "install-agents: unknown agent $n (want gemini, qwen, opencode or copilot)" >&2; exit 2; }
done
for n in "${names[@]}"; do
	install_one "$n"
done
