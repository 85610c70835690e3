package claude

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"strconv"
	"sync"

	"github.com/rs/zerolog"
	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/adapters/internal/proc"
)

// maxLine bounds one stdout line. Tool results and the initialize answer can
// be large, and prompts carry base64 images, so the limit is generous.
const maxLine = 64 << 20

// errClosed is reported for host requests still waiting when the CLI's stdout
// ends.
var errClosed = errors.New("claude closed its output")

// event is one stdout line the turn owner has to look at. Control responses,
// cancel requests and keep-alives never become events: the reader settles them
// itself so that a turn blocked on the editor cannot stall them.
type event struct {
	typ, subtype string
	// line is the whole JSON line (a private copy).
	line []byte
	// reqID and abort are set for control requests from the CLI; abort is
	// done when the CLI withdraws the request (control_cancel_request).
	reqID string
	abort context.Context
	// exit is set on the last event of a process: its stdout ended and err
	// is what Wait returned.
	exit bool
	err  error
}

// reply is the CLI's answer to a host control request.
type reply struct {
	body    []byte // response.response (success)
	errText string // response.error (error)
	code    string // response.error_code
}

// conn speaks stream-JSON with one CLI process: it writes NDJSON to its stdin
// and turns its stdout into events. One reader goroutine per conn owns
// stdout; whoever runs the current turn consumes the events. The event queue
// is unbounded so that the reader never blocks on a slow consumer: the CLI's
// answers to host requests (set_permission_mode from another request, say)
// must get through while a turn waits on the editor.
type conn struct {
	p     proc.Process
	log   zerolog.Logger
	trace func(toAgent bool, line []byte)

	wmu sync.Mutex // serialises writes to stdin

	mu      sync.Mutex
	nextID  int                           // guarded by mu
	pending map[string]chan reply         // host requests awaiting an answer; guarded by mu
	inbound map[string]context.CancelFunc // CLI requests not yet answered; guarded by mu
	queue   []event                       // guarded by mu
	states  bool                          // a session_state_changed was seen; guarded by mu
	ended   bool                          // stdout has ended: no new pending requests; guarded by mu

	notify chan struct{} // 1-buffered: the queue grew
	done   chan struct{} // closed when the reader has exited
	err    error         // why the reader exited; written before done closes
}

func newConn(p proc.Process, log zerolog.Logger, trace func(bool, []byte)) *conn {
	return &conn{
		p:       p,
		log:     log,
		trace:   trace,
		pending: map[string]chan reply{},
		inbound: map[string]context.CancelFunc{},
		notify:  make(chan struct{}, 1),
		done:    make(chan struct{}),
	}
}

// start runs the reader; wg lets the owner wait for it.
func (c *conn) start(wg *sync.WaitGroup) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		c.read()
	}()
}

// read is the reader goroutine: it parses stdout until EOF, then reaps the
// process and queues the exit event.
func (c *conn) read() {
	br := bufio.NewReaderSize(c.p.Stdout(), 64<<10)
	var rerr error
	for {
		line, err := readLine(br)
		if len(bytes.TrimSpace(line)) > 0 {
			c.dispatch(line)
		}
		if err != nil {
			if err != io.EOF {
				rerr = err
			}
			break
		}
	}
	if rerr != nil {
		// Keep the pipe drained so the child can exit.
		_, _ = io.Copy(io.Discard, c.p.Stdout())
	}
	werr := c.p.Wait()
	if werr == nil {
		werr = rerr
	}
	c.mu.Lock()
	c.err = werr
	c.ended = true
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
	for id, cancel := range c.inbound {
		cancel()
		delete(c.inbound, id)
	}
	c.queue = append(c.queue, event{exit: true, err: werr})
	c.mu.Unlock()
	c.signal()
	close(c.done)
}

// readLine reads one '\n'-terminated line of at most maxLine bytes.
func readLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		frag, err := br.ReadSlice('\n')
		if len(buf)+len(frag) > maxLine {
			return nil, fmt.Errorf("reading claude output: line longer than %d bytes", maxLine)
		}
		buf = append(buf, frag...)
		if err != bufio.ErrBufferFull {
			return buf, err
		}
	}
}

// dispatch classifies one stdout line.
func (c *conn) dispatch(line []byte) {
	line = bytes.TrimSpace(line)
	if c.trace != nil {
		c.trace(false, line)
	}
	if !gjson.ValidBytes(line) {
		c.log.Debug().Bytes("line", line).Msg("skipping non-JSON output line")
		return
	}
	ev := event{
		typ:     gjson.GetBytes(line, "type").String(),
		subtype: gjson.GetBytes(line, "subtype").String(),
		line:    line,
	}
	switch ev.typ {
	case "control_response":
		c.settle(line)
		return
	case "control_cancel_request":
		c.withdraw(gjson.GetBytes(line, "request_id").String())
		return
	case "keep_alive", "":
		return
	case "control_request":
		ev.reqID = gjson.GetBytes(line, "request_id").String()
		ev.subtype = gjson.GetBytes(line, "request.subtype").String()
		ctx, cancel := context.WithCancel(context.Background())
		ev.abort = ctx
		c.mu.Lock()
		c.inbound[ev.reqID] = cancel
		c.mu.Unlock()
	case "system":
		if ev.subtype == "session_state_changed" {
			c.mu.Lock()
			c.states = true
			c.mu.Unlock()
		}
	}
	c.mu.Lock()
	c.queue = append(c.queue, ev)
	c.mu.Unlock()
	c.signal()
}

func (c *conn) signal() {
	select {
	case c.notify <- struct{}{}:
	default:
	}
}

// settle hands a control_response to the request waiting for it. Answers to
// ids we did not send (the CLI echoes the host's own answers with
// --replay-user-messages) are ignored.
func (c *conn) settle(line []byte) {
	r := gjson.GetBytes(line, "response")
	id := r.Get("request_id").String()
	c.mu.Lock()
	ch, ok := c.pending[id]
	delete(c.pending, id)
	c.mu.Unlock()
	if !ok {
		c.log.Debug().Str("request_id", id).Msg("ignoring control_response for an unknown request")
		return
	}
	rep := reply{}
	if r.Get("subtype").String() == "error" {
		rep.errText = r.Get("error").String()
		rep.code = r.Get("error_code").String()
		if rep.errText == "" {
			rep.errText = "request failed"
		}
	} else {
		rep.body = []byte(r.Get("response").Raw)
	}
	ch <- rep
}

// withdraw cancels the context of a CLI request the CLI no longer wants
// answered.
func (c *conn) withdraw(id string) {
	c.mu.Lock()
	cancel := c.inbound[id]
	delete(c.inbound, id)
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// answered forgets a CLI request once the host has answered it. It reports
// false when the CLI withdrew it first, in which case no answer may be sent.
func (c *conn) answered(id string) bool {
	c.mu.Lock()
	cancel, ok := c.inbound[id]
	delete(c.inbound, id)
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	return ok
}

// pop removes and returns the oldest queued event.
func (c *conn) pop() (event, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.queue) == 0 {
		return event{}, false
	}
	ev := c.queue[0]
	c.queue[0] = event{}
	c.queue = c.queue[1:]
	return ev, true
}

// sawStates reports whether this process emits session_state_changed.
func (c *conn) sawStates() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.states
}

// send writes one JSON message as a line on the CLI's stdin.
func (c *conn) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encoding message for claude: %w", err)
	}
	if c.trace != nil {
		c.trace(true, b)
	}
	b = append(b, '\n')
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := c.p.Stdin().Write(b); err != nil {
		return fmt.Errorf("writing to claude: %w", err)
	}
	return nil
}

// newRequestID returns the next host request id.
func (c *conn) newRequestID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextID++
	return "req_" + strconv.Itoa(c.nextID)
}

// notifyControl sends a control request whose answer nobody waits for (an
// interrupt: the turn learns the outcome from the events that follow).
func (c *conn) notifyControl(subtype string, fields map[string]any) error {
	return c.send(controlRequest(c.newRequestID(), subtype, fields))
}

// request sends a control request and waits for the CLI's answer.
func (c *conn) request(ctx context.Context, subtype string, fields map[string]any) ([]byte, error) {
	id := c.newRequestID()
	ch := make(chan reply, 1)
	c.mu.Lock()
	if c.ended {
		c.mu.Unlock()
		return nil, c.exitError()
	}
	c.pending[id] = ch
	c.mu.Unlock()
	if err := c.send(controlRequest(id, subtype, fields)); err != nil {
		c.forget(id)
		// A write fails when the process is gone; its exit says why.
		select {
		case <-c.done:
			return nil, c.exitError()
		case <-ctx.Done():
			return nil, err
		}
	}
	select {
	case rep, ok := <-ch:
		if !ok {
			return nil, c.exitError()
		}
		if rep.errText != "" {
			return nil, &controlError{subtype: subtype, msg: rep.errText, code: rep.code}
		}
		return rep.body, nil
	case <-ctx.Done():
		c.forget(id)
		return nil, ctx.Err()
	}
}

func (c *conn) forget(id string) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

func (c *conn) isDone() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// exitError is why the process went away; only valid once done.
func (c *conn) exitError() error {
	<-c.done
	if c.err != nil {
		return c.err
	}
	return errClosed
}

// controlFrame is a control_request on stdin; responseFrame a
// control_response.
type controlFrame struct {
	Type      string          `json:"type"`
	RequestID string          `json:"request_id"`
	Request   json.RawMessage `json:"request"`
}

type responseFrame struct {
	Type     string       `json:"type"`
	Response responseBody `json:"response"`
}

type responseBody struct {
	Subtype   string `json:"subtype"`
	RequestID string `json:"request_id"`
	Response  any    `json:"response,omitempty"`
	Error     string `json:"error,omitempty"`
}

// respond answers a control request from the CLI.
func (c *conn) respond(id string, body any) error {
	return c.send(responseFrame{Type: "control_response",
		Response: responseBody{Subtype: "success", RequestID: id, Response: body}})
}

// respondError refuses a control request from the CLI.
func (c *conn) respondError(id, msg string) error {
	return c.send(responseFrame{Type: "control_response",
		Response: responseBody{Subtype: "error", RequestID: id, Error: msg}})
}

// controlRequest builds a control request: {"subtype": ..., fields...}.
func controlRequest(id, subtype string, fields map[string]any) controlFrame {
	req := map[string]any{"subtype": subtype}
	maps.Copy(req, fields)
	body, err := json.Marshal(req)
	if err != nil {
		body = []byte(`{"subtype":` + strconv.Quote(subtype) + `}`)
	}
	return controlFrame{Type: "control_request", RequestID: id, Request: body}
}

// controlError is the CLI's refusal of a host control request.
type controlError struct {
	subtype, msg, code string
}

func (e *controlError) Error() string {
	return fmt.Sprintf("claude refused %s: %s", e.subtype, e.msg)
}
