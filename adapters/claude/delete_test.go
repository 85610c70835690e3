package claude

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
)

// TestDeleteSession checks that deleting a stored session removes its
// transcript and what the CLI keeps beside it under its id, and nothing of
// another session.
func TestDeleteSession(t *testing.T) {
	cfg := t.TempDir()
	const id, other = "aaaaaaaa-0000-4000-8000-000000000001", "bbbbbbbb-0000-4000-8000-000000000002"
	proj := filepath.Join(cfg, "projects", "-home-dev-project")
	gone := []string{
		filepath.Join(proj, id+".jsonl"),
		filepath.Join(proj, id, "subagents", "agent-1.jsonl"),
		filepath.Join(cfg, "file-history", id, "abc@v1"),
		filepath.Join(cfg, "session-env", id, "env"),
		filepath.Join(cfg, "todos", id+"-agent-"+id+".json"),
	}
	kept := []string{
		filepath.Join(proj, other+".jsonl"),
		filepath.Join(proj, other, "subagents", "agent-2.jsonl"),
		filepath.Join(cfg, "file-history", other, "abc@v1"),
		filepath.Join(cfg, "todos", other+"-agent-"+other+".json"),
	}
	for _, p := range append(append([]string{}, gone...), kept...) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(`{"type":"user","cwd":"/home/dev/project","uuid":"u1"}`+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	a := New(Options{Env: []string{"CLAUDE_CONFIG_DIR=" + cfg}, Logger: testLogger(t), Launch: (&launches{answer: true}).launch})
	t.Cleanup(func() { _ = a.Close() })

	// Open elsewhere (the bridge closes its own connection's session
	// first): refused, and nothing is removed.
	s, err := a.OpenSession(OpenOptions{ID: id, Cwd: "/home/dev/project", Resume: true}, &acptest.Client{})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.DeleteSession(t.Context(), acp.DeleteSessionRequest{SessionID: id}); !errors.Is(err, acp.ErrInvalidRequest) {
		t.Errorf("delete of an open session = %v, want invalid request", err)
	}
	if _, err := os.Stat(gone[0]); err != nil {
		t.Fatalf("refused delete removed the transcript: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	if err := a.DeleteSession(t.Context(), acp.DeleteSessionRequest{SessionID: id}); err != nil {
		t.Fatal(err)
	}
	for _, p := range gone {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still there after delete (%v)", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(proj, id)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the session's folder is still there (%v)", err)
	}
	for _, p := range kept {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("another session's %s was removed: %v", p, err)
		}
	}
	err = a.DeleteSession(t.Context(), acp.DeleteSessionRequest{SessionID: id})
	if !errors.Is(err, acp.ErrResourceNotFound) {
		t.Errorf("second delete = %v, want resource not found", err)
	}
	err = a.DeleteSession(t.Context(), acp.DeleteSessionRequest{SessionID: "../" + other})
	if !errors.Is(err, acp.ErrResourceNotFound) {
		t.Errorf("delete of a path = %v, want resource not found", err)
	}
}
