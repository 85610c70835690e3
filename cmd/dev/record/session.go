package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/acpbridge/acpbridge/internal/recording"
)

// cliSession is one running CLI and the transcript of what crossed its
// stdin and stdout, in order.
//
// Only the goroutine that runs the host script touches its fields; the
// reader goroutine hands lines over through lines.
type cliSession struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan []byte   // stdout lines; closed at EOF
	readDn chan struct{} // closed when the reader goroutine returns
	stderr *tailBuffer
	settle time.Duration // quiet time before each write
	logf   func(format string, args ...any)
	// noStates: the CLI sends no session state events (only Claude Code
	// does, when asked); a turn ends at its result.
	noStates bool

	steps      []recording.Step
	eof        bool
	closed     bool                       // stdin closed
	pending    []map[string]any           // can_use_tool requests not yet answered
	answers    map[string]json.RawMessage // control_response by request_id
	results    int                        // result frames seen
	idleSeen   int                        // idle states seen after the latest result
	turnsEnded int                        // results consumed by wait_turn_end
	nextReq    int
}

// startCLI starts the CLI in its own process group.
func startCLI(path string, args, env []string, dir string, settle time.Duration, logf func(string, ...any)) (*cliSession, error) {
	cmd := exec.Command(path, args...)
	cmd.Env = env
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 5 * time.Second
	s := &cliSession{
		cmd:     cmd,
		lines:   make(chan []byte, 1024),
		readDn:  make(chan struct{}),
		stderr:  &tailBuffer{max: 64 << 10},
		settle:  settle,
		logf:    logf,
		answers: map[string]json.RawMessage{},
	}
	cmd.Stderr = s.stderr
	var err error
	if s.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", path, err)
	}
	go s.read(stdout)
	return s, nil
}

// read forwards stdout lines until EOF. Lines can be large (tool results,
// the initialize response), so there is no line limit.
func (s *cliSession) read(r io.Reader) {
	defer close(s.readDn)
	defer close(s.lines)
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		line, err := br.ReadBytes('\n')
		if line = bytes.TrimSpace(line); len(line) > 0 {
			s.lines <- line
		}
		if err != nil {
			return
		}
	}
}

// stop ends the CLI: close stdin, record what it still writes until it
// exits or grace runs out, then SIGTERM and at last SIGKILL its process
// group. Anything the CLI left behind in its group (shells, tool processes)
// is killed too.
func (s *cliSession) stop(grace time.Duration) error {
	s.closeStdin()
	pgid := s.cmd.Process.Pid
	s.drainUntil(time.Now().Add(grace))
	if !s.eof {
		s.logf("CLI still running %v after stdin closed: SIGTERM", grace)
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		s.drainUntil(time.Now().Add(3 * time.Second))
	}
	if !s.eof {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		s.drainUntil(time.Now().Add(time.Minute))
	}
	<-s.readDn
	waited := make(chan error, 1)
	go func() { waited <- s.cmd.Wait() }()
	var err error
	select {
	case err = <-waited:
	case <-time.After(3 * time.Second):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		err = <-waited
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	return err
}

// drainUntil records stdout lines until EOF or the deadline.
func (s *cliSession) drainUntil(deadline time.Time) {
	for !s.eof && time.Now().Before(deadline) {
		s.nextTimeout(time.Until(deadline))
	}
}

func (s *cliSession) closeStdin() {
	if !s.closed {
		s.closed = true
		_ = s.stdin.Close()
	}
}

// next records the next stdout line, waiting until ctx ends. It returns
// false at EOF or when ctx ends.
func (s *cliSession) next(ctx context.Context) bool {
	if s.eof {
		return false
	}
	select {
	case line, ok := <-s.lines:
		return s.take(line, ok)
	case <-ctx.Done():
		return false
	}
}

// nextTimeout is next with a timeout.
func (s *cliSession) nextTimeout(d time.Duration) bool {
	if s.eof {
		return false
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case line, ok := <-s.lines:
		return s.take(line, ok)
	case <-t.C:
		return false
	}
}

func (s *cliSession) take(line []byte, ok bool) bool {
	if !ok {
		s.eof = true
		return false
	}
	s.steps = append(s.steps, recording.Step{Dir: recording.FromAgent, Line: line})
	s.observe(line)
	return true
}

// observe updates the host's view of the CLI from one stdout line.
func (s *cliSession) observe(line []byte) {
	var m struct {
		Type      string          `json:"type"`
		Subtype   string          `json:"subtype"`
		State     string          `json:"state"`
		RequestID string          `json:"request_id"`
		Request   map[string]any  `json:"request"`
		Response  json.RawMessage `json:"response"`
	}
	if err := json.Unmarshal(line, &m); err != nil {
		s.logf("stdout line is not JSON: %.200s", line)
		return
	}
	switch {
	case m.Type == "control_request" && m.Request["subtype"] == "can_use_tool":
		req := m.Request
		req["request_id"] = m.RequestID
		s.pending = append(s.pending, req)
		s.logf("< can_use_tool %v", req["tool_name"])
	case m.Type == "control_cancel_request":
		s.dropPending(m.RequestID)
	case m.Type == "control_response":
		var r struct {
			RequestID string `json:"request_id"`
		}
		if json.Unmarshal(m.Response, &r) == nil {
			s.answers[r.RequestID] = m.Response
		}
	case m.Type == "result":
		s.results++
		s.idleSeen = 0
		s.logf("< result %s", m.Subtype)
	case m.Type == "system" && m.Subtype == "session_state_changed" && m.State == "idle":
		s.idleSeen++
	}
}

func (s *cliSession) dropPending(id string) {
	for i, p := range s.pending {
		if p["request_id"] == id {
			s.pending = append(s.pending[:i], s.pending[i+1:]...)
			return
		}
	}
}

// quiet records stdout lines until none arrives for the settle time, so that
// everything the CLI writes on its own before waiting for the host lands in
// the transcript before the host's next line. Recordings are stable this
// way, and a replay sees the host's line where the CLI really waited for it.
func (s *cliSession) quiet() {
	for s.nextTimeout(s.settle) {
	}
}

// send settles, then writes one JSON line to the CLI's stdin and records it.
func (s *cliSession) send(v any) error {
	s.quiet()
	return s.write(v)
}

// write writes one JSON line to the CLI's stdin and records it.
func (s *cliSession) write(v any) error {
	if s.closed {
		return errors.New("stdin already closed")
	}
	line, err := json.Marshal(v)
	if err != nil {
		return err
	}
	s.steps = append(s.steps, recording.Step{Dir: recording.ToAgent, Line: line})
	if _, err := s.stdin.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("writing to the CLI: %w", err)
	}
	return nil
}

// waitFor records lines until cond holds. It fails at EOF or when ctx ends.
func (s *cliSession) waitFor(ctx context.Context, what string, cond func() bool) error {
	for !cond() {
		if !s.next(ctx) {
			if s.eof {
				return fmt.Errorf("CLI closed stdout while waiting for %s", what)
			}
			return fmt.Errorf("timed out waiting for %s", what)
		}
	}
	return nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
