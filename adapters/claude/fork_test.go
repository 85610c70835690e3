package claude

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
)

// TestForkStartsAForkOfTheStoredSession forks a stored session: the fork
// has a new id, and its CLI is started with the source's resume flag, the
// fork flag and the new id, so the source's transcript is only read. An
// unknown id is resource-not-found, and nothing is started for it.
func TestForkStartsAForkOfTheStoredSession(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(transcriptDir, "text.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	config := t.TempDir()
	id := storeSession(t, config, recordedCwd, data)
	l := &launches{answer: true}
	a := New(Options{Env: []string{"CLAUDE_CONFIG_DIR=" + config}, Launch: l.launch, Logger: testLogger(t),
		ModelWait: -1, AwaitStart: true})
	defer a.Close()
	c := &acptest.Client{Update: func(context.Context, acp.SessionNotification) error { return nil }}

	_, err = a.ForkSession(t.Context(), acp.ForkSessionRequest{SessionID: "no-such-session", Cwd: recordedCwd}, c)
	if !errors.Is(err, acp.ErrResourceNotFound) {
		t.Errorf("fork of an unknown session: %v, want resource-not-found", err)
	}
	if n := len(l.args()); n != 0 {
		t.Errorf("%d CLIs started for an unknown session", n)
	}

	s, err := a.ForkSession(t.Context(), acp.ForkSessionRequest{SessionID: id, Cwd: recordedCwd}, c)
	if err != nil {
		t.Fatal(err)
	}
	fork := s.ID()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if fork == id || fork == "" {
		t.Fatalf("the fork's id is %q, want a new one", fork)
	}
	args := l.args()
	if len(args) != 1 {
		t.Fatalf("CLI command lines %q, want one", args)
	}
	for _, want := range []string{"--resume=" + string(id), "--fork-session", "--session-id=" + string(fork)} {
		if !slices.Contains(args[0], want) {
			t.Errorf("CLI command line %q lacks %s", args[0], want)
		}
	}
}

// TestContractOffersForkOnlyWhereTheDialectCan: Claude Code's dialect is
// served with fork; a dialect that keeps Claude Code's transcripts but has
// no fork flag with load, resume, list and delete but not fork; one without
// transcripts with none of them.
func TestContractOffersForkOnlyWhereTheDialectCan(t *testing.T) {
	noFork := Claude()
	noFork.ForkArg = ""
	for _, tt := range []struct {
		name         string
		d            *Dialect
		forks, loads bool
	}{
		{"claude", Claude(), true, true},
		{"transcripts without fork_arg", noFork, false, true},
		{"qwen", Qwen(), false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := New(Options{Dialect: tt.d, Launch: (&launches{}).launch, Logger: testLogger(t), ModelCache: "-"})
			defer a.Close()
			c := a.Contract()
			_, forks := c.(acp.Forker)
			_, loads := c.(acp.Loader)
			_, lists := c.(acp.Lister)
			if forks != tt.forks || loads != tt.loads || lists != tt.loads {
				t.Errorf("fork %v, load %v, list %v; want fork %v, load and list %v", forks, loads, lists, tt.forks, tt.loads)
			}
		})
	}
}
