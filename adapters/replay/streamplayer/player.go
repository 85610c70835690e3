package streamplayer

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/acpbridge/acpbridge/internal/recording"
)

// Message types and subtypes the player looks at.
const (
	typeControlRequest  = "control_request"
	typeControlResponse = "control_response"
	typeUser            = "user"
	typeResult          = "result"
	subtypeInterrupt    = "interrupt"
)

// lookahead is the player's second cursor over the script: it finds the '<'
// steps ahead, so that a stdin line arriving early can be matched while '>'
// lines are still being written, without holding those lines in memory.
type lookahead struct {
	r    recording.StepReader
	next int // index of the step r returns next
	eof  bool
	// group is the run of consecutive '<' steps whose first step is the
	// first '<' step at or after the player's position (or at or after a
	// later index while an interrupt looks for the next user step).
	group []expect
}

// player is the state of one Run. All fields are used by the Run goroutine
// only; the stdin reader talks to it through in.
type player struct {
	ctx   context.Context
	done  <-chan struct{} // ctx.Done()
	opts  Options
	src   recording.StepReader // plays the script
	cur   recording.Step       // the step at pos, unless end
	pos   int                  // index of the step to play next
	end   bool                 // the script is exhausted
	ahead lookahead

	inTurn      bool              // a user step passed and its result is not written yet
	queuedUsers int               // user messages waiting for a user step
	ids         map[string]string // recorded host request id -> live id (raw JSON)
	outstanding []string          // the CLI's own request ids not answered yet, in order
	toolUses    map[string]string // the CLI's can_use_tool request id -> its tool_use_id
	unanswered  []string          // live host request ids matched to the script, awaiting the recorded answer
	uuids       []uuidPair        // recorded user message uuids and the live ones (steer.go)

	w       *bufio.Writer
	in      <-chan []byte // nil after EOF
	eof     bool
	readErr func() error // valid once in is closed
	timer   *time.Timer  // for Pace

	sidOld, sidNew []byte // session id to replace, and its replacement (JSON-escaped, unquoted)
	sid            []byte // session id for synthesized lines, as a JSON string
	scratch        []byte
	endings        int // "no more turns" answers so far
}

func newPlayer(ctx context.Context, open func() (recording.StepReader, error), stdout io.Writer, opts Options) (*player, error) {
	p := &player{
		ctx:      ctx,
		done:     ctx.Done(),
		opts:     opts,
		ids:      map[string]string{},
		toolUses: map[string]string{},
		w:        bufio.NewWriterSize(stdout, 64<<10),
	}
	live := opts.SessionID
	if live == "" {
		live = opts.RecordedSessionID
	}
	p.sid = jsonString(live)
	if opts.SessionID != "" && opts.RecordedSessionID != "" && opts.SessionID != opts.RecordedSessionID {
		p.sidOld = unquote(jsonString(opts.RecordedSessionID))
		p.sidNew = unquote(jsonString(opts.SessionID))
	}
	var err error
	if p.src, err = open(); err != nil {
		return nil, err
	}
	if p.ahead.r, err = open(); err != nil {
		p.src.Close()
		return nil, err
	}
	if err := p.load(); err != nil {
		p.close()
		return nil, err
	}
	if opts.Pace > 0 {
		p.timer = time.NewTimer(opts.Pace)
		p.timer.Stop()
	}
	return p, nil
}

func (p *player) close() {
	p.src.Close()
	p.ahead.r.Close()
}

// load reads the step at pos into cur, or notes the end of the script.
func (p *player) load() error {
	st, err := p.src.Next()
	switch {
	case err == io.EOF:
		p.cur, p.end = recording.Step{}, true
		return nil
	case err != nil:
		return err
	}
	if err := checkDir(st, p.pos); err != nil {
		return err
	}
	p.cur = st
	return nil
}

// step moves on to the next step.
func (p *player) step() error {
	p.pos++
	return p.load()
}

// skipTo moves on to step target, or to the end when target < 0, without
// playing the steps in between.
func (p *player) skipTo(target int) error {
	for !p.end && (target < 0 || p.pos < target) {
		if err := p.step(); err != nil {
			return err
		}
	}
	return nil
}

func checkDir(st recording.Step, idx int) error {
	if st.Dir != recording.FromAgent && st.Dir != recording.ToAgent {
		return fmt.Errorf("script step %d: bad direction %v", idx+1, st.Dir)
	}
	return nil
}

// run plays the script, then answers user messages until stdin ends.
func (p *player) run() error {
	for !p.end {
		if err := p.poll(); err != nil {
			return err
		}
		if p.end { // an interrupt skipped to the end
			break
		}
		if p.cur.Dir == recording.FromAgent {
			if err := p.emit(p.cur.Line); err != nil {
				return err
			}
			if err := p.step(); err != nil {
				return err
			}
			if p.opts.Pace > 0 {
				if err := p.pause(); err != nil {
					return err
				}
			}
			continue
		}
		e, err := p.expected()
		if err != nil {
			return err
		}
		switch {
		case e.done:
		case e.typ == typeUser && p.queuedUsers > 0:
			p.queuedUsers--
		default:
			if err := p.wait(); err != nil {
				return err
			}
			if p.eof {
				return p.flush()
			}
			continue
		}
		if e.typ == typeUser {
			p.inTurn = true
		}
		if err := p.step(); err != nil {
			return err
		}
	}
	p.answerUnanswered()
	for ; p.queuedUsers > 0; p.queuedUsers-- {
		p.noMoreTurns()
	}
	for !p.eof {
		if err := p.wait(); err != nil {
			return err
		}
	}
	return p.flush()
}

// expected returns the expectation of the '<' step at pos.
func (p *player) expected() (*expect, error) {
	if err := p.sync(p.pos); err != nil {
		return nil, err
	}
	if g := p.ahead.group; len(g) > 0 && g[0].idx == p.pos {
		return &g[0], nil
	}
	return nil, fmt.Errorf("script step %d: the script changed while it was played", p.pos+1)
}

// sync drops the expectations of steps before pos and, when none is left,
// reads the next group of '<' steps at or after pos.
func (p *player) sync(pos int) error {
	a := &p.ahead
	i := 0
	for i < len(a.group) && a.group[i].idx < pos {
		i++
	}
	if i > 0 {
		a.group = append(a.group[:0], a.group[i:]...)
	}
	if len(a.group) > 0 || a.eof {
		return nil
	}
	for {
		st, err := a.nextStep()
		if err == io.EOF {
			a.eof = true
			return nil
		}
		if err != nil {
			return err
		}
		idx := a.next
		a.next++
		if err := checkDir(st, idx); err != nil {
			return err
		}
		if st.Dir == recording.FromAgent || idx < pos {
			if len(a.group) > 0 {
				return nil // the group is complete
			}
			continue
		}
		e, err := p.expectation(st.Line, idx)
		if err != nil {
			return err
		}
		a.group = append(a.group, e)
	}
}

// nextStep reads the next step. The lookahead needs the lines of '<' steps
// only: a reader that can passes over the others (the frame that repeats a
// long reply) without holding them.
func (a *lookahead) nextStep() (recording.Step, error) {
	if r, ok := a.r.(recording.DirReader); ok {
		return r.NextOf(recording.ToAgent)
	}
	return a.r.Next()
}

// expectation reduces the '<' step idx to what a live line must match.
func (p *player) expectation(line []byte, idx int) (expect, error) {
	var m msg
	if err := json.Unmarshal(line, &m); err != nil {
		return expect{}, fmt.Errorf("script step %d: %w", idx+1, err)
	}
	e := expect{idx: idx, typ: m.Type}
	switch m.Type {
	case typeControlRequest:
		e.sub, e.rid = m.Request.Subtype, idOrNull(m.RequestID)
	case typeControlResponse:
		e.sub, e.rid = m.Response.Subtype, string(p.replaceSID(m.Response.RequestID))
		e.behavior, e.interrupt = m.Response.Response.Behavior, m.Response.Response.Interrupt
	case typeUser:
		e.uuid = m.UUID
	}
	return e, nil
}

// nextUser returns the index of the first user step at or after pos, or -1.
func (p *player) nextUser() (int, error) {
	from := p.pos
	for {
		if err := p.sync(from); err != nil {
			return 0, err
		}
		g := p.ahead.group
		if len(g) == 0 {
			return -1, nil
		}
		for _, e := range g {
			if e.typ == typeUser {
				return e.idx, nil
			}
		}
		from = g[len(g)-1].idx + 1
	}
}

// poll handles a stdin line if one is waiting, without blocking.
func (p *player) poll() error {
	select {
	case line, ok := <-p.in:
		return p.take(line, ok)
	case <-p.done:
		return p.ctx.Err()
	default:
		return nil
	}
}

// wait blocks for one stdin line (or EOF, or ctx) and handles it.
func (p *player) wait() error {
	if p.eof {
		return nil
	}
	if err := p.flush(); err != nil {
		return err
	}
	select {
	case line, ok := <-p.in:
		return p.take(line, ok)
	case <-p.done:
		return p.ctx.Err()
	}
}

// pause waits Pace, handling stdin meanwhile.
func (p *player) pause() error {
	if err := p.flush(); err != nil {
		return err
	}
	p.timer.Reset(p.opts.Pace)
	defer p.timer.Stop()
	for {
		select {
		case <-p.timer.C:
			return nil
		case <-p.done:
			return p.ctx.Err()
		case line, ok := <-p.in:
			if err := p.take(line, ok); err != nil {
				return err
			}
		}
	}
}

func (p *player) take(line []byte, ok bool) error {
	if !ok {
		p.in, p.eof = nil, true
		if err := p.readErr(); err != nil {
			if p.ctx.Err() != nil {
				return p.ctx.Err()
			}
			return fmt.Errorf("reading stdin: %w", err)
		}
		return nil
	}
	if err := p.handle(line); err != nil {
		return err
	}
	return p.flush()
}

// handle deals with one live stdin line.
func (p *player) handle(line []byte) error {
	var m msg
	if err := json.Unmarshal(line, &m); err != nil {
		p.logf("ignoring a stdin line that is not a JSON object: %v", err)
		return nil
	}
	if ok, err := p.match(&m); ok || err != nil {
		return err
	}
	switch {
	case m.Type == typeControlRequest && m.Request.Subtype == subtypeInterrupt:
		return p.interrupt(&m)
	case m.Type == typeControlRequest:
		p.logf("answering unexpected control_request %q with success", m.Request.Subtype)
		p.writeRaw(p.controlSuccess(idOrNull(m.RequestID), "{}"))
	case m.Type == typeUser && p.end:
		p.logf("user message after the end of the recording")
		p.noMoreTurns()
	case m.Type == typeUser:
		p.logf("queueing a user message the script does not expect yet")
		p.queuedUsers++
	default:
		p.logf("ignoring unexpected %q line", m.Type)
	}
	return nil
}

// match marks the first unmatched step of the next group of '<' steps that
// m fits, and reports whether there was one.
func (p *player) match(m *msg) (bool, error) {
	if err := p.sync(p.pos); err != nil {
		return false, err
	}
	for j := range p.ahead.group {
		e := &p.ahead.group[j]
		if e.done || !e.matches(m) {
			continue
		}
		e.done = true
		switch m.Type {
		case typeControlRequest:
			live := idOrNull(m.RequestID)
			p.ids[e.rid] = live
			p.unanswered = append(p.unanswered, live)
		case typeUser:
			p.mapUUID(e.uuid, m.UUID)
		case typeControlResponse:
			p.outstanding = remove(p.outstanding, e.rid)
			if live := &m.Response.Response; p.opts.StopOnOtherAnswer && e.behavior != "" &&
				(live.Behavior != e.behavior || live.Interrupt && !e.interrupt) {
				return true, p.otherAnswer(e, live.Behavior, live.Message, live.Interrupt)
			}
		}
		return true, nil
	}
	return false, nil
}

// emit writes one '>' line, keeping track of turns and requests.
func (p *player) emit(line []byte) error {
	switch string(topType(line)) {
	case typeControlResponse:
		line = p.mapAnswer(line)
	case typeControlRequest:
		var m msg
		if json.Unmarshal(line, &m) == nil && len(m.RequestID) > 0 {
			rid := string(p.replaceSID(m.RequestID))
			p.outstanding = append(p.outstanding, rid)
			if m.Request.ToolUseID != "" {
				p.toolUses[rid] = m.Request.ToolUseID
			}
		}
	case typeResult:
		p.inTurn = false
	}
	return p.writeLine(line)
}
