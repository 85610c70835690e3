package main_test

import (
	"bufio"
	"encoding/json"
	"io"
	"os/exec"
	"testing"
	"time"
)

// lineBridge is the built binary driven line by line, for tests that stop
// it in ways a client library does not survive (a signal, stdin closed
// mid-turn): they send raw frames and wait for the ones they need.
type lineBridge struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *lockedBuffer
	frames chan map[string]any // every frame the bridge wrote, until its stdout ends
}

// startLineBridge starts cmd (its Env and Dir set by the caller). The
// bridge's stderr is logged if the test fails, and it is killed at the end
// of the test if it still runs.
func startLineBridge(t *testing.T, cmd *exec.Cmd) *lineBridge {
	t.Helper()
	b := &lineBridge{t: t, cmd: cmd, stderr: &lockedBuffer{}, frames: make(chan map[string]any, 1000)}
	cmd.Stderr = b.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	b.stdin = stdin
	t.Cleanup(func() {
		cmd.Process.Kill()
		if t.Failed() {
			t.Logf("bridge stderr:\n%s", b.stderr.String())
		}
	})
	go func() {
		defer close(b.frames)
		r := bufio.NewReader(stdout)
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
func (b *lineBridge) send(frame string) { io.WriteString(b.stdin, frame+"\n") }

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
