package proc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"

	"github.com/creack/pty"
)

// Default PTY size: wide, so that the agent's output rewraps as little as
// possible.
const (
	DefaultCols = 200
	DefaultRows = 50
)

// Control bytes written to a PTY: ^C becomes SIGINT in cooked mode and a
// keypress for a raw-mode TUI; ^D is end of input in cooked mode.
const (
	ctrlC = 0x03
	ctrlD = 0x04
)

// StartPTY runs the agent on a new pseudo-terminal of cols x rows (0 means
// DefaultCols x DefaultRows). The child leads its own session and process
// group; its stdout and stderr are merged into Stdout, so StderrTail is
// empty. TERM defaults to xterm-256color when neither this process's
// environment nor s.Env sets it. The group is killed when ctx is done.
//
// Closing Stdin writes ^D; Stop starts by writing ^C.
func StartPTY(ctx context.Context, s Spec, cols, rows uint16) (Process, error) {
	name, grace := s.name(), s.grace()
	if cols == 0 {
		cols = DefaultCols
	}
	if rows == 0 {
		rows = DefaultRows
	}
	cmd := exec.CommandContext(ctx, s.Path, s.Args...)
	cmd.Env = append(interactiveEnv(os.Environ()), s.Env...)
	if !hasEnv(cmd.Env, "TERM") {
		cmd.Env = append(cmd.Env, "TERM=xterm-256color")
	}
	cmd.Dir = s.Dir
	marker := treeMarker()
	cmd.Env = append(cmd.Env, marker)
	becomeSubreaper(s.Logger)
	// No setProcessGroup here: StartWithSize sets Setsid (the child leads a
	// new session, hence a new group) and Setpgid on top fails with EPERM.
	cmd.Cancel = func() error { return signalGroup(cmd.Process.Pid, sigKill) }
	cmd.WaitDelay = grace
	master, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: cols, Rows: rows})
	if err != nil {
		return nil, fmt.Errorf("starting %s on a pty: %w", name, err)
	}

	pid := cmd.Process.Pid
	log := s.Logger.With().Str("adapter", name).Int("pid", pid).Logger()
	log.Debug().Str("path", s.Path).Strs("args", s.Args).Uint16("cols", cols).Uint16("rows", rows).Msg("agent started on a pty")
	in := &ptyInput{f: master}
	p := &osProc{
		name:  name,
		cmd:   cmd,
		pid:   pid,
		grace: grace,
		log:   log,
		stdin: in,
		out:   newOutput(master),
	}
	p.init()
	p.tree = newTree(pid, marker)
	p.ask = func() { in.control(ctrlC) }
	p.start(nil, nil)
	return p, nil
}

// interactiveEnv is the environment a terminal agent inherits: the
// bridge's, less the markers of a CI run (CI, CONTINUOUS_INTEGRATION,
// CI_*). An agent on a pty is driven as a person drives it, and TUIs that
// see such a marker stop being interactive: Gemini CLI reads no prompt
// and exits, Ink-based TUIs draw only their last frame. Spec.Env may set
// them again.
func interactiveEnv(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		key, _, _ := strings.Cut(kv, "=")
		if key == "CI" || key == "CONTINUOUS_INTEGRATION" || strings.HasPrefix(key, "CI_") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

func hasEnv(env []string, key string) bool {
	for _, kv := range env {
		if strings.HasPrefix(kv, key+"=") {
			return true
		}
	}
	return false
}

// ptyInput writes to the PTY master. Close sends ^D instead of closing the
// master, which also carries the output.
type ptyInput struct {
	f      *os.File
	mu     sync.Mutex
	closed bool // guarded by mu
}

func (w *ptyInput) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return 0, os.ErrClosed
	}
	return w.f.Write(b)
}

func (w *ptyInput) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	_, err := w.f.Write([]byte{ctrlD})
	return ignoreClosed(err)
}

// control writes one control byte even after Close.
func (w *ptyInput) control(c byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, _ = w.f.Write([]byte{c})
}

func ignoreClosed(err error) error {
	if err == nil || isEIO(err) || errors.Is(err, os.ErrClosed) {
		return nil
	}
	return err
}
