package pty

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/adapters/internal/proc"
	"github.com/acpbridge/acpbridge/internal/recording"
)

// ReplayOptions configure Replay. The zero value plays at the recorded
// pace.
type ReplayOptions struct {
	// Logger receives diagnostics; the zero value discards them.
	Logger zerolog.Logger
	// Speed divides the recorded delays (default 1: as recorded).
	Speed float64
	// NoDelay plays without the recorded delays, as fast as the bridge
	// reads: for tests.
	NoDelay bool
	// Diverge is how long the player waits, when the bridge typed
	// something other than what the recording has next, before it gives up
	// with an error (default 3s).
	Diverge time.Duration
	// NewSessionID returns the id of a new session (default: random).
	NewSessionID func() string
	// Profile, if set, is the profile to play with: the one the recording
	// carries (its profile section), or another; default the built-in
	// profile the recording's meta names.
	Profile *Profile

	// waiting, if set, is called each time the player starts waiting for
	// the bridge to type want (tests cancel there, as the recording did).
	waiting func(want []byte)
}

// Replay returns an Adapter whose agent is a player of a PTY recording
// rather than a program: each session plays the recording's terminal
// output with its timing, and waits, at each "< " step, for the bridge to
// type what the recording says it typed before playing on. The engine
// reads the player exactly as it reads a PTY, so a replay drives the same
// code a live agent does. meta is the recording's meta section; script
// returns its agent section afresh for each session.
//
// What the bridge types must be what the recording has: a prompt other
// than the recorded one (a typed line, or a bracketed paste) at once, other
// keys (dialog answers, interrupts, terminal answers) after the diverge
// window. When it is not, the player writes what went wrong on the screen
// and ends, and the turn fails with that screen: a recording answers only
// the prompts it recorded.
func Replay(meta map[string]string, script func() (recording.StepReader, error), o ReplayOptions) (*Adapter, error) {
	if meta["adapter"] != "pty" {
		return nil, fmt.Errorf("not a PTY recording: meta says adapter %q", meta["adapter"])
	}
	p := o.Profile
	if p == nil {
		var err error
		p, err = BuiltinProfile(meta["profile"])
		if err != nil {
			return nil, fmt.Errorf("the recording's profile %q is not a built-in one and the recording does not carry it (a profile section): give it with --profile FILE", meta["profile"])
		}
	}
	cols, err1 := strconv.Atoi(meta["cols"])
	rows, err2 := strconv.Atoi(meta["rows"])
	if err1 != nil || err2 != nil || cols <= 0 || rows <= 0 {
		return nil, fmt.Errorf("the recording's terminal size is %q x %q: want two positive numbers", meta["cols"], meta["rows"])
	}
	if o.Speed <= 0 {
		o.Speed = 1
	}
	if o.Diverge <= 0 {
		o.Diverge = 3 * time.Second
	}
	name := "recording"
	if f := strings.Fields(meta["command"]); len(f) > 0 {
		name = f[0]
	}
	a, err := New(p, Options{Command: []string{name}, Name: name, Cols: cols, Rows: rows, Logger: o.Logger,
		NewSessionID: o.NewSessionID, StopGrace: 500 * time.Millisecond})
	if err != nil {
		return nil, err
	}
	a.opts.start = func(context.Context, proc.Spec, uint16, uint16) (proc.Process, error) {
		r, err := script()
		if err != nil {
			return nil, err
		}
		steps, err := decodeSteps(r)
		r.Close()
		if err != nil {
			return nil, err
		}
		return proc.InProcess(name, func(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
			return play(ctx, steps, o, stdin, stdout)
		}), nil
	}
	return a, nil
}

// play acts as the agent of steps on a terminal whose keyboard is stdin and
// whose screen is stdout. It returns nil at the end of stdin (the agent was
// asked to finish), after the recording if need be.
func play(ctx context.Context, steps []termStep, o ReplayOptions, stdin io.Reader, stdout io.Writer) error {
	kb := newKeyboard(stdin)
	defer kb.stop(stdin)
	for _, st := range steps {
		if st.dir == recording.ToAgent {
			if o.waiting != nil {
				o.waiting(st.data)
			}
			err := kb.wait(ctx, st.data, o.Diverge)
			var div *divergence
			if errors.As(err, &div) {
				fmt.Fprintf(stdout, "\r\n\x1b[0m[replay] %s\r\n", div)
			}
			if err != nil {
				return ignoreEOF(err)
			}
			continue
		}
		if d := time.Duration(float64(st.delay) / o.Speed); d > 0 && !o.NoDelay {
			t := time.NewTimer(d)
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-t.C:
			}
		}
		if _, err := stdout.Write(st.data); err != nil {
			return err
		}
	}
	// The recording is over; the agent stays until it is asked to finish.
	return ignoreEOF(kb.wait(ctx, nil, 0))
}

func ignoreEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// keyboard collects what the bridge types, on a goroutine that stop waits
// for.
type keyboard struct {
	mu    sync.Mutex
	buf   []byte        // guarded by mu; typed and not yet matched
	err   error         // guarded by mu; the end of stdin
	more  chan struct{} // 1-buffered: buf or err changed
	ended chan struct{} // closed when the reading goroutine returns
}

func newKeyboard(stdin io.Reader) *keyboard {
	kb := &keyboard{more: make(chan struct{}, 1), ended: make(chan struct{})}
	go func() {
		defer close(kb.ended)
		b := make([]byte, 4096)
		for {
			n, err := stdin.Read(b)
			kb.mu.Lock()
			kb.buf = append(kb.buf, b[:n]...)
			if err != nil {
				kb.err = io.EOF
			}
			kb.mu.Unlock()
			select {
			case kb.more <- struct{}{}:
			default:
			}
			if err != nil {
				return
			}
		}
	}()
	return kb
}

// stop ends the reading goroutine (closing stdin when it can be) and waits
// for it.
func (kb *keyboard) stop(stdin io.Reader) {
	if c, ok := stdin.(io.Closer); ok {
		c.Close()
	}
	<-kb.ended
}

// divergence is typing the recording does not have.
type divergence struct {
	got, want []byte
	prompt    bool // a prompt other than the recorded one
}

func (d *divergence) Error() string {
	if d.prompt {
		return fmt.Sprintf("the prompt differs from the recorded one: the bridge typed %q where the recording has %q; a recording answers only the prompts it recorded", d.got, d.want)
	}
	return fmt.Sprintf("the bridge typed %q where the recording has %q", d.got, d.want)
}

// wait returns once want has been typed (taking it out of what was typed),
// io.EOF at the end of stdin, and a *divergence when a prompt other than
// want was typed, or what was typed has not matched for the diverge
// window. A nil want waits for the end of stdin.
func (kb *keyboard) wait(ctx context.Context, want []byte, diverge time.Duration) error {
	var timer <-chan time.Time
	for {
		kb.mu.Lock()
		var ok bool
		var other *divergence
		if want != nil {
			ok, other = kb.take(want)
		}
		pending, err := len(kb.buf) > 0, kb.err
		got := append([]byte(nil), kb.buf...)
		kb.mu.Unlock()
		switch {
		case ok:
			return nil
		case other != nil:
			return other
		case err != nil:
			return err
		case pending && want != nil && diverge > 0 && timer == nil:
			timer = time.After(diverge)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-kb.more:
			timer = nil // new typing: the window starts again
		case <-timer:
			return &divergence{got: got, want: want}
		}
	}
}

// take removes want from buf if it was typed. When want is a prompt (a
// line ending in Enter, or a bracketed paste) and another whole one was
// typed instead, it says so. Called with mu held.
func (kb *keyboard) take(want []byte) (bool, *divergence) {
	if i := bytes.Index(kb.buf, want); i >= 0 {
		kb.buf = append(kb.buf[:i], kb.buf[i+len(want):]...)
		return true, nil
	}
	if i, j := pasted(want); i >= 0 {
		if k, l := pasted(kb.buf); k >= 0 {
			return false, &divergence{got: kb.buf[k:l], want: want[i:j], prompt: true}
		}
		return false, nil
	}
	if len(want) > 1 && want[len(want)-1] == '\r' {
		if i := bytes.IndexByte(kb.buf, '\r'); i >= 0 {
			return false, &divergence{got: kb.buf[:i+1], want: want, prompt: true}
		}
	}
	return false, nil
}

// pasted is where the first whole bracketed paste in b starts and ends, or
// -1.
func pasted(b []byte) (int, int) {
	i := bytes.Index(b, pasteStart)
	if i < 0 {
		return -1, -1
	}
	j := bytes.Index(b[i:], pasteEnd)
	if j < 0 {
		return -1, -1
	}
	return i, i + j + len(pasteEnd)
}

var (
	pasteStart = []byte("\x1b[200~")
	pasteEnd   = []byte("\x1b[201~")
)
