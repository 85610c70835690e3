package proc

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
)

// DefaultGrace is the wait between the steps of a graceful stop when
// Spec.Grace is zero.
const DefaultGrace = 2 * time.Second

// Spec describes a child process.
type Spec struct {
	// Name labels logs and errors (e.g. "claude"); it defaults to the base
	// name of Path.
	Name string
	// Path is the program; Args are its arguments, without the program name.
	Path string
	Args []string
	// Env holds "KEY=value" overrides appended to this process's
	// environment.
	Env []string
	// Dir is the working directory; empty means this process's.
	Dir string
	// Logger receives the child's stderr lines and lifecycle events at
	// debug, with adapter and pid fields. The zero value logs nothing.
	Logger zerolog.Logger
	// Grace is the wait between the steps of Stop; 0 means DefaultGrace.
	Grace time.Duration
}

func (s Spec) name() string {
	if s.Name != "" {
		return s.Name
	}
	return filepath.Base(s.Path)
}

func (s Spec) grace() time.Duration {
	if s.Grace > 0 {
		return s.Grace
	}
	return DefaultGrace
}

// Process is a running agent.
//
// Stdin and Stdout may be used from different goroutines, one each; Wait,
// Stop, Pid and StderrTail are safe to call from any goroutine, any number of
// times.
type Process interface {
	// Stdin is the agent's input. Closing it asks the agent to finish (on a
	// PTY it sends ^D).
	Stdin() io.WriteCloser
	// Stdout is the agent's output (on a PTY, stdout and stderr merged). It
	// returns io.EOF once the agent and everything it started have exited.
	// On pipes on Unix it is also a NowReader.
	Stdout() io.Reader
	// Wait blocks until the agent has exited and returns its error: nil for
	// a zero exit; for a non-zero exit "NAME exited: STATUS: STDERR TAIL".
	Wait() error
	// Stop ends the agent: it asks (closes stdin, or writes ^C on a PTY),
	// waits the grace period, sends SIGTERM to the process group, waits,
	// sends SIGKILL, waits, and reports an "unresponsive subprocess" error if
	// the agent still runs. A done ctx skips the remaining waits and goes
	// straight to SIGKILL. Otherwise Stop returns what Wait returns. When it
	// returns, no process of the group is left, nor, on Linux, any other
	// process the agent started (see the package doc). The same holds once
	// Wait has returned, however the agent ended.
	Stop(ctx context.Context) error
	// Pid is the agent's process id (and process group id); 0 in-process.
	Pid() int
	// StderrTail is the last 8 KiB of the agent's stderr, from a line start
	// where possible ("" on a PTY and in-process).
	StderrTail() string
}

// osProc is a child process (pipes or PTY), the leader of its own group.
type osProc struct {
	name  string
	cmd   *exec.Cmd
	pid   int
	grace time.Duration
	log   zerolog.Logger
	stdin io.WriteCloser
	out   *output
	tail  *stderrTail // nil on a PTY
	// ask is the polite first step of Stop.
	ask func()
	// tree tracks what the agent started outside its group; nil in
	// processes not made by Start or StartPTY.
	tree *tree

	done      chan struct{} // closed when err is set and the group is gone
	released  chan struct{} // closed when stdout is closed; the reaper has ended
	err       error         // written before done is closed
	hurry     chan struct{} // closed by a Stop whose ctx is done: skip the I/O waits
	hurryOnce sync.Once
}

func (p *osProc) init() {
	p.done = make(chan struct{})
	p.out.ended = p.done
	p.released = make(chan struct{})
	p.hurry = make(chan struct{})
}

// treeScan is how often the agent's process tree is scanned while it runs,
// so that a descendant whose parent dies later is still known.
const treeScan = time.Second

// killWait is the least time given to processes sent SIGKILL to die.
const killWait = 2 * time.Second

// start runs the reaper and the tree scanner. ioDone, if not nil, is closed
// when the stderr drain has finished; closeIO forces it.
func (p *osProc) start(ioDone <-chan struct{}, closeIO func()) {
	exited := make(chan struct{})
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		tick := time.NewTicker(treeScan)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				p.tree.observe(false)
			case <-exited:
				return
			}
		}
	}()
	go func() {
		werr := p.cmd.Wait()
		close(exited)
		<-scanned
		p.log.Debug().Err(werr).Msg("agent exited")
		p.reapGroup()
		// Nothing the agent started may outlive it, in its group or not.
		// SIGKILL cannot be refused, only delayed: a process the kernel
		// has not scheduled yet (a loaded machine) dies when it runs, so
		// the wait for it is at least killWait, and ends as it dies.
		p.tree.kill(max(p.grace, killWait), p.log)
		if ioDone != nil {
			if !p.waitIO(ioDone) {
				p.log.Debug().Msg("stderr still open after exit; closing it")
				closeIO()
				<-ioDone
			}
		}
		p.err = p.exitError(werr)
		close(p.done)
		// Let the reader take what is buffered before the read end goes.
		if !p.waitIO(p.out.eof) {
			p.log.Debug().Msg("stdout not read to the end; closing it")
		}
		p.out.close()
		close(p.released)
	}()
}

// waitIO waits up to the grace period for ch, less if Stop is in a hurry.
func (p *osProc) waitIO(ch <-chan struct{}) bool {
	t := time.NewTimer(p.grace)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	case <-p.hurry:
		select {
		case <-ch:
			return true
		default:
			return false
		}
	}
}

// reapGroup ends processes the leader left behind in its group (a
// background job that ignores stdin EOF, say).
func (p *osProc) reapGroup() {
	if !groupAlive(p.pid) {
		return
	}
	p.log.Debug().Msg("processes left in the group; sending SIGTERM")
	_ = signalGroup(p.pid, sigTerm)
	if waitGroupGone(p.pid, p.grace) {
		return
	}
	p.log.Debug().Msg("processes left in the group; sending SIGKILL")
	_ = signalGroup(p.pid, sigKill)
	if !waitGroupGone(p.pid, p.grace) {
		p.log.Warn().Msg("processes of the group survive SIGKILL")
	}
}

func (p *osProc) exitError(werr error) error {
	if werr == nil {
		return nil
	}
	var ee *exec.ExitError
	if !errors.As(werr, &ee) {
		return fmt.Errorf("waiting for %s: %w", p.name, werr)
	}
	if tail := strings.TrimSpace(p.StderrTail()); tail != "" {
		return fmt.Errorf("%s exited: %w: %s", p.name, werr, tail)
	}
	return fmt.Errorf("%s exited: %w", p.name, werr)
}

func (p *osProc) Stdin() io.WriteCloser { return p.stdin }
func (p *osProc) Stdout() io.Reader {
	if now, ok := p.out.f.(NowReader); ok {
		return nowOutput{p.out, now}
	}
	return p.out
}
func (p *osProc) Pid() int { return p.pid }

func (p *osProc) Wait() error {
	<-p.done
	return p.err
}

func (p *osProc) StderrTail() string {
	if p.tail == nil {
		return ""
	}
	return p.tail.String()
}

func (p *osProc) Stop(ctx context.Context) error {
	// Once ctx is done, nobody waits for a reader to drain stdout either.
	defer context.AfterFunc(ctx, func() { p.hurryOnce.Do(func() { close(p.hurry) }) })()
	// Note the whole tree while the agent is alive to link it: once it has
	// died its children's parent is this process (or init).
	p.tree.observe(false)
	p.ask()
	if waitCtx(ctx, p.done, p.grace) {
		return p.stopped()
	}
	if ctx.Err() == nil {
		p.log.Debug().Msg("agent still running; sending SIGTERM to its group")
		_ = signalGroup(p.pid, sigTerm)
		if waitCtx(ctx, p.done, p.grace) {
			return p.stopped()
		}
	}
	p.log.Debug().Msg("agent still running; sending SIGKILL to its group")
	_ = signalGroup(p.pid, sigKill)
	if waitFor(p.done, p.grace) {
		return p.stopped()
	}
	return fmt.Errorf("stopping %s: unresponsive subprocess (pid %d)", p.name, p.pid)
}

// stopped waits for the reaper to finish and returns the exit error.
func (p *osProc) stopped() error {
	<-p.released
	return p.err
}

// NowReader is implemented by the Stdout of an agent started on pipes
// (Start) on Unix. ReadNow returns what the pipe holds without waiting: 0
// and nil when it is empty. From then until the next Read the runtime no
// longer watches the pipe, so the agent's writes meanwhile wake nothing. A
// reader that batches a dense stream calls ReadNow(nil) to stop the
// watching, sleeps out its window, takes the batch with ReadNow, and goes
// back to Read when the pipe is empty.
type NowReader interface {
	ReadNow(b []byte) (int, error)
}

// output is the read side of the agent's stdout (a pipe or a PTY master).
// EIO from a PTY master whose child side has closed, and reads after the
// reaper closed the file, are reported as io.EOF, and not before the
// reaper has ended everything the agent started: a daemon that does not
// hold the terminal outlives the output's own end.
type output struct {
	f       io.ReadCloser
	ended   <-chan struct{} // closed when the agent's tree is gone; set by init
	eof     chan struct{}   // closed when a Read has met the end
	eofOnce sync.Once
	clOnce  sync.Once
}

func newOutput(f io.ReadCloser) *output { return &output{f: f, eof: make(chan struct{})} }

func (o *output) Read(b []byte) (int, error) {
	n, err := o.f.Read(b)
	return n, o.seen(err)
}

// seen maps the ends of the output to io.EOF and notes the first.
func (o *output) seen(err error) error {
	if err != nil && (err == io.EOF || errors.Is(err, os.ErrClosed) || isEIO(err)) {
		err = io.EOF
		o.eofOnce.Do(func() { close(o.eof) })
		if o.ended != nil {
			<-o.ended
		}
	}
	return err
}

func (o *output) close() { o.clOnce.Do(func() { o.f.Close() }) }

// nowOutput is an output whose pipe offers ReadNow.
type nowOutput struct {
	*output
	now NowReader
}

func (o nowOutput) ReadNow(b []byte) (int, error) {
	n, err := o.now.ReadNow(b)
	return n, o.seen(err)
}

// waitFor reports whether ch closed within d.
func waitFor(ch <-chan struct{}, d time.Duration) bool {
	return waitCtx(context.Background(), ch, d)
}

// waitCtx is waitFor that also gives up when ctx is done.
func waitCtx(ctx context.Context, ch <-chan struct{}, d time.Duration) bool {
	select {
	case <-ch:
		return true
	default:
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	case <-ctx.Done():
		return false
	}
}

// waitGroupGone polls until no live process is left in group pgid, for at
// most d. The kernel offers no notification for a group emptying, hence the
// polling.
func waitGroupGone(pgid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for groupAlive(pgid) {
		if time.Now().After(deadline) {
			return false
		}
		<-tick.C
	}
	return true
}

// markerEnv names the environment variable that marks every process an
// agent starts (see tree): its value is unique to the agent.
const markerEnv = "ACPBRIDGE_PROCESS_TREE"

// treeMarker returns a fresh "markerEnv=VALUE" entry.
func treeMarker() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return markerEnv + "=" + hex.EncodeToString(b[:])
}
