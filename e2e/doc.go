// Package e2e holds the black-box tests of the shipped binary: the
// end-to-end tests of every command, the real-CLI tests (Claude Code,
// Codex, the native-ACP CLIs, the TUIs through a PTY), the interop tests
// with the official ACP TypeScript SDK (whose client scripts are in
// e2e/http), the hygiene checks (no process the bridge started outlives
// it), the start-up work and peak RSS checks, and the
// benchmarks that make bench, bench-claude, bench-codex and bench-qwen
// run. Its TestMain builds cmd/acpbridge as make build does (with the race
// detector under -race) and the dev stand-ins it drives (cmd/dev/fakeagent,
// acpagent, relayagent, initfloor), and the tests run them as child
// processes; cmd/acpbridge keeps only its unit tests, so that
// `go test ./cmd/acpbridge` takes seconds.
//
// The real-CLI tests find the pinned CLIs under .cache (make claude-cli,
// codex-cli, agent-clis) and skip without them, except under CI=true,
// where they fail.
//
// It ships nothing: this file is its only non-test file, and nothing
// imports it. Its tests may import anything in the module but
// cmd/acpbridge, which they reach only through the built binary.
package e2e
