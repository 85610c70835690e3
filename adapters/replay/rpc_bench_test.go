package replay_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"github.com/acpbridge/acpbridge/adapters/codex"
	"github.com/acpbridge/acpbridge/adapters/native"
	"github.com/acpbridge/acpbridge/adapters/replay"
	"github.com/acpbridge/acpbridge/bridge"
	"github.com/acpbridge/acpbridge/internal/recording"
)

// BenchmarkReplaySession replays a whole recorded text session (initialize,
// session/new, one prompt) of each JSON-RPC kind through its adapter and the
// bridge, in this process: what a replay costs per session, the player's
// start included.
func BenchmarkReplaySession(b *testing.B) {
	for _, name := range []string{"gemini/text.txtar", "copilot/text.txtar", "codex/text.txtar"} {
		b.Run(name, func(b *testing.B) {
			path := filepath.Join("..", "..", "fixtures", filepath.FromSlash(name))
			fx, err := recording.Load(path)
			if err != nil {
				b.Fatal(err)
			}
			rec, err := recording.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if err := playSession(b.Context(), rec, fx.Editor); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// playSession sends the editor's requests one by one, each after the
// previous one's answer.
func playSession(ctx context.Context, rec *recording.Recording, editor []json.RawMessage) error {
	launch, err := replay.Launcher(rec, replay.PlayerOptions{NewSessionID: func() string { return rec.Meta["session"] }})
	if err != nil {
		return err
	}
	var a bridge.Adapter = native.New(native.Options{Name: rec.Meta["agent"], Path: "agent", Launch: launch})
	if rec.Meta["adapter"] == "codex" {
		a = codex.New(codex.Options{Path: "codex", Launch: launch})
	}
	defer a.Close()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- bridge.New(a, bridge.Options{}).ServeStdio(ctx, inR, outW)
		outW.Close()
	}()
	stopped := false
	defer func() { // on an early return: stop the bridge and wait for it
		if !stopped {
			inW.Close()
			outR.Close()
			<-served
		}
	}()
	r := bufio.NewReader(outR)
	for _, msg := range editor {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(msg, &m)
		if _, err := inW.Write(append(bytes.Clone(msg), '\n')); err != nil {
			return err
		}
		for len(m.ID) > 0 {
			line, err := r.ReadBytes('\n')
			if err != nil {
				return fmt.Errorf("no answer to %s: %w", msg, err)
			}
			var got struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal(line, &got) == nil && got.Method == "" && bytes.Equal(got.ID, m.ID) {
				break
			}
		}
	}
	inW.Close()
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		io.Copy(io.Discard, r) // to EOF: the bridge closes outW when it is done
	}()
	err = <-served
	stopped = true
	<-drained
	return err
}
