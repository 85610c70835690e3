package main

import (
	"slices"
	"testing"

	"github.com/acpbridge/acpbridge/adapters/claude"
	"github.com/acpbridge/acpbridge/adapters/codex"
	"github.com/acpbridge/acpbridge/adapters/native"
	"github.com/acpbridge/acpbridge/adapters/pty"
	"github.com/acpbridge/acpbridge/adapters/replay"
	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/internal/recording"
)

// The replay of a Claude Code recording loads it through Claude's adapter
// (adapters never import each other, so this is where it can be said).
var _ replay.RecordedLoader = (*claude.Adapter)(nil)

// TestAdapterCapabilities: each adapter, as this binary builds it,
// implements exactly the optional interfaces of the contract it serves. The
// bridge finds them by type assertion, so a method that drifted from the
// contract, or a wrapper that hides one, would drop a capability without
// a build error; here it fails.
func TestAdapterCapabilities(t *testing.T) {
	t.Parallel()
	rec, err := recording.Open("../../fixtures/claude/text.txtar")
	if err != nil {
		t.Fatal(err)
	}
	claudeReplay, err := replay.Stream(rec, replay.Options{Wrap: claudeReplay(adapterEntry{exe: "claude"}, (&globals{}).wiring())})
	if err != nil {
		t.Fatal(err)
	}
	term, err := pty.New(pty.Builtin()[0], pty.Options{Command: []string{"sh"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		a    acp.Adapter
		want []string
	}{
		{"claude", claude.New(claude.Options{}), []string{"Loader", "Resumer", "Lister", "Deleter"}},
		{"codex", codex.New(codex.Options{}), []string{"Authenticator", "Loader", "Resumer", "Lister", "Deleter"}},
		{"native ACP", native.New(native.Options{Path: "agent"}), []string{"Initializer", "Forwarder"}},
		{"pty", term, nil},
		{"replay of claude", claudeReplay, []string{"Loader", "Lister"}},
	} {
		t.Cleanup(func() { tc.a.Close() })
		if got := capabilities(tc.a); !slices.Equal(got, tc.want) {
			t.Errorf("%s implements %q, want %q", tc.name, got, tc.want)
		}
	}
}

// capabilities lists the contract's optional interfaces a implements.
func capabilities(a acp.Adapter) []string {
	var out []string
	for _, c := range []struct {
		name string
		is   bool
	}{
		{"Initializer", is[acp.Initializer](a)},
		{"Authenticator", is[acp.Authenticator](a)},
		{"Loader", is[acp.Loader](a)},
		{"Resumer", is[acp.Resumer](a)},
		{"Lister", is[acp.Lister](a)},
		{"Deleter", is[acp.Deleter](a)},
		{"Forwarder", is[acp.Forwarder](a)},
	} {
		if c.is {
			out = append(out, c.name)
		}
	}
	return out
}

func is[T any](a acp.Adapter) bool {
	_, ok := a.(T)
	return ok
}
