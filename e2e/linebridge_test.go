package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/bridgeproc"
)

// lineBridge is the built binary driven line by line, for tests that stop
// it in ways a client library does not survive (a signal, stdin closed
// mid-turn): they send raw frames and wait for the ones they need.
type lineBridge struct {
	*bridgeproc.Proc
	t      *testing.T
	frames chan map[string]any // every frame the bridge wrote, until its stdout ends
}

// startLineBridge starts the bridge with o on raw pipes. Its stderr is
// logged if the test fails, and the test's cleanup stops it if it still
// runs.
func startLineBridge(t *testing.T, o bridgeproc.Options) *lineBridge {
	t.Helper()
	o.Raw = true
	b := &lineBridge{t: t, Proc: bridgeproc.Start(t, binPath, o), frames: make(chan map[string]any, 1000)}
	go func() {
		defer close(b.frames)
		r := bufio.NewReader(b.Stdout)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				return
			}
			var m map[string]any
			json.Unmarshal(line, &m)
			b.frames <- m
		}
	}()
	return b
}

// send writes one frame.
func (b *lineBridge) send(frame string) { io.WriteString(b.Stdin, frame+"\n") }

// until reads frames until ok accepts one, which it returns; the test fails
// if the bridge's output ends or limit passes first.
func (b *lineBridge) until(what string, limit time.Duration, ok func(map[string]any) bool) map[string]any {
	b.t.Helper()
	deadline := time.After(limit)
	for {
		select {
		case m, open := <-b.frames:
			if !open {
				b.t.Fatalf("bridge output ended waiting for %s", what)
			}
			if ok(m) {
				return m
			}
		case <-deadline:
			b.t.Fatalf("no %s within %v", what, limit)
		}
	}
}

// drain discards the rest of the bridge's output, so that its writes never
// block while the test waits for it to exit.
func (b *lineBridge) drain() {
	go func() {
		for range b.frames {
		}
	}()
}
