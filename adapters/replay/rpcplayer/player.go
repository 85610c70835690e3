package rpcplayer

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/acpbridge/acpbridge/internal/recording"
)

// Options configure Play.
type Options struct {
	// Protocol is the recording's protocol (default ACP).
	Protocol Protocol
	// SessionID, when set, replaces RecordedSessionID in every line written.
	SessionID string
	// RecordedSessionID is the session (or thread) id in the recording
	// (fixture meta "session").
	RecordedSessionID string
	// Pace is a delay before each '>' line; 0 writes as fast as possible.
	Pace time.Duration
	// Logger, if set, receives one human-readable line per notable event
	// (unexpected input, a turn the replay cannot follow).
	Logger io.Writer
}

// maxLine bounds one stdin line; prompts may carry base64 images.
const maxLine = 64 << 20

// step is one script step, parsed once.
type step struct {
	index int // in the script
	dir   recording.Dir
	line  []byte
	msg   message
}

// turn is the recorded turn being played.
type turn struct {
	start message         // the recorded request that started it
	live  json.RawMessage // the live request's id
}

// Play plays the script open returns against a host that writes stdin and
// reads stdout; see the package documentation for the rules. It returns nil
// at stdin EOF, ctx.Err() when ctx ends first, or the error of reading the
// script or writing stdout.
func Play(ctx context.Context, open func() (recording.StepReader, error), stdin io.Reader, stdout io.Writer, opts Options) error {
	steps, err := load(open)
	if err != nil {
		return err
	}
	if opts.Protocol == nil {
		opts.Protocol = ACP{}
	}
	lines := make(chan []byte, 16)
	stop := make(chan struct{})
	var (
		wg      sync.WaitGroup
		readErr error // written before lines is closed
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(lines)
		readErr = readLines(stdin, lines, stop)
	}()
	p := &player{ctx: ctx, opts: opts, steps: steps, in: lines, out: stdout,
		live: map[string]json.RawMessage{}, asks: map[string]message{}, early: map[int]bool{}}
	err = p.run()
	if err == nil {
		// stdin is at EOF and the reader done; readErr is set.
		wg.Wait()
		return readErr
	}
	close(stop)
	if c, ok := stdin.(io.Closer); ok {
		c.Close()
	}
	wg.Wait()
	return err
}

// load reads the whole script, parsing each step's JSON once.
func load(open func() (recording.StepReader, error)) ([]step, error) {
	sr, err := open()
	if err != nil {
		return nil, err
	}
	defer sr.Close()
	var steps []step
	for {
		st, err := sr.Next()
		if err == io.EOF {
			return steps, nil
		}
		if err != nil {
			return nil, err
		}
		m, ok := parse(st.Line)
		if !ok {
			return nil, fmt.Errorf("script step %d: not a JSON-RPC message", len(steps)+1)
		}
		steps = append(steps, step{index: len(steps), dir: st.Dir, line: bytes.Clone(st.Line), msg: m})
	}
}

// player is the state of one Play; only its run goroutine touches it.
type player struct {
	ctx   context.Context
	opts  Options
	steps []step
	pos   int // the next step to play
	in    <-chan []byte
	out   io.Writer

	early map[int]bool               // '<' steps matched before the cursor got there
	live  map[string]json.RawMessage // recorded host request id -> live id
	asks  map[string]message         // the agent's requests written and not yet answered, by id
	turn  *turn                      // nil between turns
}

func (p *player) run() error {
	for {
		if p.early[p.pos] {
			delete(p.early, p.pos)
			p.pos++
			continue
		}
		if p.pos < len(p.steps) && p.steps[p.pos].dir == recording.FromAgent {
			// A host that is ahead of the recording is heard first.
			select {
			case line, ok := <-p.in:
				if !ok {
					return nil
				}
				if err := p.handle(line); err != nil {
					return err
				}
				continue
			default:
			}
			if err := p.pace(); err != nil {
				return err
			}
			st := p.steps[p.pos]
			p.pos++
			if err := p.play(st); err != nil {
				return err
			}
			continue
		}
		select {
		case <-p.ctx.Done():
			return p.ctx.Err()
		case line, ok := <-p.in:
			if !ok {
				return nil
			}
			if err := p.handle(line); err != nil {
				return err
			}
		}
	}
}

func (p *player) pace() error {
	if p.opts.Pace <= 0 {
		return p.ctx.Err()
	}
	t := time.NewTimer(p.opts.Pace)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-p.ctx.Done():
		return p.ctx.Err()
	}
}

// play writes one recorded '>' line, with the live id of the request it
// answers, and notes the agent's own requests and the turn's end.
func (p *player) play(st step) error {
	line := st.line
	switch m := st.msg; {
	case m.isResponse():
		if id, ok := p.live[idKey(m.ID)]; ok {
			var err error
			if line, err = withID(line, id); err != nil {
				return err
			}
		}
	case m.isRequest():
		p.asks[idKey(m.ID)] = m
	}
	if p.turn != nil && p.opts.Protocol.TurnEnd(st.msg, p.turn.start) {
		p.turn = nil
	}
	return p.write(line)
}

// write writes one line, with the live session id, in one Write.
func (p *player) write(line []byte) error {
	if p.opts.SessionID != "" && p.opts.RecordedSessionID != "" {
		line = bytes.ReplaceAll(line, []byte(p.opts.RecordedSessionID), []byte(p.opts.SessionID))
	}
	buf := make([]byte, 0, len(line)+1)
	buf = append(append(buf, line...), '\n')
	_, err := p.out.Write(buf)
	return err
}

func (p *player) logf(format string, args ...any) {
	if p.opts.Logger != nil {
		fmt.Fprintf(p.opts.Logger, "rpcplayer: "+format+"\n", args...)
	}
}

// readLines sends each non-blank line of r until EOF (nil), a read error,
// or stop is closed.
func readLines(r io.Reader, out chan<- []byte, stop <-chan struct{}) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > maxLine {
			return errors.New("stdin line too long")
		}
		if line = bytes.TrimSpace(line); len(line) > 0 {
			select {
			case out <- line:
			case <-stop:
				return nil
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
