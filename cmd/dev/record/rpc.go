package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/acpbridge/acpbridge/internal/recording"
)

// rpcHost drives a JSON-RPC agent (a native-ACP CLI or `codex app-server`)
// over its stdin and stdout and keeps every line in order as script steps.
// One goroutine reads stdout (started by newRPCHost, ended by the agent
// closing stdout; wait for it with done).
type rpcHost struct {
	stdin io.Writer
	logf  func(string, ...any)

	mu      sync.Mutex
	steps   []recording.Step        // guarded by mu
	nextID  int                     // guarded by mu
	pending map[string]chan rpcLine // guarded by mu; our calls by id
	lines   []rpcLine               // guarded by mu; everything the agent wrote
	changed chan struct{}           // guarded by mu; closed and replaced when lines grows
	last    time.Time               // guarded by mu; when the agent last wrote
	done    chan struct{}           // closed when stdout is at EOF
}

// rpcLine is one message the agent wrote.
type rpcLine struct {
	raw    []byte
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

func newRPCHost(stdin io.Writer, stdout io.Reader, logf func(string, ...any)) *rpcHost {
	h := &rpcHost{stdin: stdin, logf: logf, pending: map[string]chan rpcLine{}, changed: make(chan struct{}),
		done: make(chan struct{}), nextID: 1}
	go h.read(stdout)
	return h
}

func (h *rpcHost) read(stdout io.Reader) {
	defer close(h.done)
	br := bufio.NewReaderSize(stdout, 1<<20)
	for {
		line, err := br.ReadBytes('\n')
		if line = bytes.TrimSpace(line); len(line) > 0 {
			h.got(line)
		}
		if err != nil {
			return
		}
	}
}

func (h *rpcHost) got(line []byte) {
	var m rpcLine
	if line[0] != '{' || json.Unmarshal(line, &m) != nil {
		h.logf("agent wrote a line that is not JSON: %.120s", line)
		return
	}
	m.raw = line
	h.mu.Lock()
	defer h.mu.Unlock()
	h.steps = append(h.steps, recording.Step{Dir: recording.FromAgent, Line: line})
	h.lines = append(h.lines, m)
	h.last = time.Now()
	close(h.changed)
	h.changed = make(chan struct{})
	if m.Method == "" && len(m.ID) > 0 {
		if ch, ok := h.pending[string(m.ID)]; ok {
			delete(h.pending, string(m.ID))
			ch <- m
		}
	}
}

// send writes one message and records it.
func (h *rpcHost) send(msg map[string]any) error {
	line, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	h.mu.Lock()
	h.steps = append(h.steps, recording.Step{Dir: recording.ToAgent, Line: line})
	h.mu.Unlock()
	h.logf("< %.200s", line)
	_, err = h.stdin.Write(append(line, '\n'))
	return err
}

// start sends a request and returns the channel its answer arrives on.
func (h *rpcHost) start(jsonrpc bool, method string, params any) (<-chan rpcLine, error) {
	h.mu.Lock()
	id := h.nextID
	h.nextID++
	ch := make(chan rpcLine, 1)
	h.pending[fmt.Sprint(id)] = ch
	h.mu.Unlock()
	msg := map[string]any{"id": id, "method": method, "params": params}
	if jsonrpc {
		msg["jsonrpc"] = "2.0"
	}
	return ch, h.send(msg)
}

// await waits for an answer from start.
func await(ctx context.Context, ch <-chan rpcLine, what string) (rpcLine, error) {
	select {
	case m := <-ch:
		if len(m.Error) > 0 {
			return m, fmt.Errorf("%s: %s", what, m.Error)
		}
		return m, nil
	case <-ctx.Done():
		return rpcLine{}, fmt.Errorf("waiting for %s: %w", what, ctx.Err())
	}
}

// waitFor waits for a line the agent wrote, from index from on, that ok
// accepts, and returns it with the index after it.
func (h *rpcHost) waitFor(ctx context.Context, from int, what string, ok func(rpcLine) bool) (rpcLine, int, error) {
	for {
		h.mu.Lock()
		for i := from; i < len(h.lines); i++ {
			if ok(h.lines[i]) {
				m := h.lines[i]
				h.mu.Unlock()
				return m, i + 1, nil
			}
		}
		from = len(h.lines)
		changed := h.changed
		h.mu.Unlock()
		select {
		case <-changed:
		case <-h.done:
			return rpcLine{}, from, fmt.Errorf("waiting for %s: the agent closed its stdout", what)
		case <-ctx.Done():
			return rpcLine{}, from, fmt.Errorf("waiting for %s: %w", what, ctx.Err())
		}
	}
}

// mark is the number of lines the agent wrote so far.
func (h *rpcHost) mark() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.lines)
}

// settle waits until the agent has been quiet for d (it may still be
// announcing commands or usage after a turn), or ctx ends.
func (h *rpcHost) settle(ctx context.Context, d time.Duration) {
	for {
		h.mu.Lock()
		quiet := time.Since(h.last)
		h.mu.Unlock()
		if quiet >= d {
			return
		}
		t := time.NewTimer(d - quiet)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return
		}
	}
}

// recorded returns the steps so far.
func (h *rpcHost) recorded() []recording.Step {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]recording.Step(nil), h.steps...)
}

func contains(m rpcLine, s string) bool { return strings.Contains(string(m.raw), s) }
