# Shared by the scripts/install-*.sh scripts: pinned npm packages installed
# into a directory of their own, without a global install. Source it; it
# defines functions only.

# installed_version prints the version of package $2 installed in $1, or
# nothing.
installed_version() {
	local pj="$1/node_modules/$2/package.json"
	[ -f "$pj" ] || return 0
	node -e 'process.stdout.write(String(require(process.argv[1]).version || ""))' "$pj"
}

# npm_install_pinned installs the package specs $3... into $2, saying so on
# stderr under the name $1 (the calling script's). Engines are not enforced:
# a package may run on a node installed beside it, not the one npm runs on.
npm_install_pinned() {
	local who="$1" dir="$2"
	shift 2
	command -v npm >/dev/null || { echo "$who: npm not found" >&2; exit 1; }
	mkdir -p "$dir"
	echo "$who: installing $* into $dir" >&2
	npm install --prefix "$dir" --no-audit --no-fund --loglevel=error \
		--engine-strict=false --save-exact "$@" >&2
}
