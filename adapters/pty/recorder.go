package pty

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/acpbridge/acpbridge/adapters/internal/proc"
	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/internal/recording"
)

// Recorder writes the first session of an Adapter (Options.Record) to a
// fixture file when that session closes: the agent section holds what
// crossed the terminal, the editor section the prompts, permission answers
// and cancels of the editor. Machine values (the session's directory, the
// home and temporary directories, the user and host names, dates and
// times) are replaced by fixed ones, so a recording says nothing about the
// machine it was made on. Later sessions of the adapter are not recorded.
// A Recorder is safe for concurrent use.
type Recorder struct {
	path    string
	comment string
	// machine returns the values to normalise; tests may replace it.
	machine func() machineValues

	mu  sync.Mutex
	rec *sessionRecording // guarded by mu: the session recorded, nil before
}

// NewRecorder returns a Recorder writing to path, with comment as the
// fixture's prose (a default one when empty).
func NewRecorder(path, comment string) *Recorder {
	return &Recorder{path: path, comment: comment, machine: thisMachine}
}

// begin claims the recorder for a new session, or returns nil when a
// session was already recorded (or r is nil).
func (r *Recorder) begin(p *Profile, o *Options, cwd string) *sessionRecording {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.rec != nil {
		return nil
	}
	r.rec = &sessionRecording{r: r, p: p, o: o, cwd: cwd, now: o.Now, last: o.Now()}
	return r.rec
}

// end stops recording the terminal: what the agent draws while it is
// stopped answers keys the recording does not have (Stop types its own),
// and a player stops at the end of its input instead.
func (r *Recorder) end() {
	if r == nil {
		return
	}
	r.mu.Lock()
	rec := r.rec
	r.mu.Unlock()
	if rec != nil {
		rec.mu.Lock()
		rec.ended = true
		rec.mu.Unlock()
	}
}

// flush saves the recorded session if it was not saved yet: the adapter
// closes its sessions itself at shutdown. Call it once the session's agent
// has ended.
func (r *Recorder) flush() error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	rec := r.rec
	r.mu.Unlock()
	if rec == nil {
		return nil
	}
	return rec.saved()
}

// saved saves the recording once and returns the result.
func (rec *sessionRecording) saved() error {
	rec.saveOnce.Do(func() { rec.saveErr = rec.save() })
	if rec.saveErr != nil {
		return fmt.Errorf("recording the session: %w", rec.saveErr)
	}
	return nil
}

// recording is one session being recorded.
type sessionRecording struct {
	r   *Recorder
	p   *Profile
	o   *Options
	cwd string
	now func() time.Time

	mu     sync.Mutex
	last   time.Time         // guarded by mu; when the previous step was taken
	steps  []termStep        // guarded by mu
	editor []json.RawMessage // guarded by mu
	asked  int               // guarded by mu; permission requests answered
	ended  bool              // guarded by mu; the session is closing: the agent's goodbye is not recorded
	want   [][]byte          // guarded by mu; what the bridge wrote the editor
	reply  strings.Builder   // guarded by mu; the reply text of the turn

	saveOnce sync.Once
	saveErr  error
}

// step appends what crossed the terminal.
func (rec *sessionRecording) step(dir recording.Dir, b []byte) {
	if len(b) == 0 {
		return
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.ended {
		return
	}
	now := rec.now()
	rec.steps = append(rec.steps, termStep{dir: dir, delay: now.Sub(rec.last), data: append([]byte(nil), b...)})
	rec.last = now
}

// recordedSession is the session id written in the editor section.
const recordedSession = "recorded"

// editorMessage appends a message of the editor.
func (rec *sessionRecording) editorMessage(msg map[string]any) {
	msg["jsonrpc"] = "2.0"
	b, err := json.Marshal(msg)
	if err != nil {
		return // the types marshalled here always do
	}
	rec.mu.Lock()
	rec.editor = append(rec.editor, b)
	rec.mu.Unlock()
}

// options are o with the agent's start wrapped to record its terminal.
func (rec *sessionRecording) options(o *Options) *Options {
	cp := *o
	start := o.start
	cp.start = func(ctx context.Context, s proc.Spec, cols, rows uint16) (proc.Process, error) {
		p, err := start(ctx, s, cols, rows)
		if err != nil {
			return nil, err
		}
		return &recProc{Process: p, in: &recInput{w: p.Stdin(), rec: rec}, out: &recOutput{r: p.Stdout(), rec: rec}}, nil
	}
	return &cp
}

// recProc is the agent with its terminal recorded.
type recProc struct {
	proc.Process
	in  *recInput
	out *recOutput
}

func (p *recProc) Stdin() io.WriteCloser { return p.in }
func (p *recProc) Stdout() io.Reader     { return p.out }

type recInput struct {
	w   io.WriteCloser
	rec *sessionRecording
}

// Write records b before typing it: the agent may answer before Write
// returns, and a player must wait for b before playing that answer.
func (w *recInput) Write(b []byte) (int, error) {
	w.rec.step(recording.ToAgent, b)
	return w.w.Write(b)
}

func (w *recInput) Close() error { return w.w.Close() }

type recOutput struct {
	r   io.Reader
	rec *sessionRecording
}

func (o *recOutput) Read(b []byte) (int, error) {
	n, err := o.r.Read(b)
	o.rec.step(recording.FromAgent, b[:n])
	return n, err
}

// client records the editor's answers to permission requests.
func (rec *sessionRecording) client(c acp.Client) acp.Client { return &recClient{Client: c, rec: rec} }

type recClient struct {
	acp.Client
	rec *sessionRecording
}

func (c *recClient) RequestPermission(ctx context.Context, req acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	c.rec.mu.Lock()
	c.rec.asked++
	id := "permission-" + strconv.Itoa(c.rec.asked)
	c.rec.mu.Unlock()
	c.rec.flushReply()
	wreq := req
	wreq.SessionID = recordedSession
	c.rec.wantMessage(map[string]any{"id": id, "method": acp.MethodSessionRequestPermission, "params": wreq})
	resp, err := c.Client.RequestPermission(ctx, req)
	if err == nil {
		c.rec.editorMessage(map[string]any{"id": id, "result": resp})
	}
	return resp, err
}

func (c *recClient) SessionUpdate(ctx context.Context, n acp.SessionNotification) error {
	switch u := n.Update; {
	case u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil:
		c.rec.mu.Lock()
		c.rec.reply.WriteString(u.AgentMessageChunk.Content.Text.Text)
		c.rec.mu.Unlock()
	case u.ToolCall != nil || u.ToolCallUpdate != nil:
		// A dialog's tool call: after the text before it.
		c.rec.flushReply()
		wn := n
		wn.SessionID = recordedSession
		c.rec.wantMessage(map[string]any{"method": acp.MethodSessionUpdate, "params": wn})
	}
	return c.Client.SessionUpdate(ctx, n)
}

// flushReply writes the reply text so far to want as one chunk: how a
// screen is cut into chunks depends on timing, the text does not.
func (rec *sessionRecording) flushReply() {
	rec.mu.Lock()
	text := rec.reply.String()
	rec.reply.Reset()
	rec.mu.Unlock()
	if text == "" {
		return
	}
	rec.wantMessage(map[string]any{"method": acp.MethodSessionUpdate, "params": acp.SessionNotification{SessionID: recordedSession,
		Update: acp.SessionUpdate{AgentMessageChunk: &acp.ContentChunk{Content: acp.TextBlock(text)}}}})
}

// wantMessage appends a message of the bridge to the editor.
func (rec *sessionRecording) wantMessage(msg map[string]any) {
	msg["jsonrpc"] = "2.0"
	b, err := json.MarshalIndent(msg, "", "  ")
	if err != nil {
		return
	}
	rec.mu.Lock()
	rec.want = append(rec.want, b)
	rec.mu.Unlock()
}

// session records the session's prompts and cancels, and saves the
// recording when it closes.
func (rec *sessionRecording) session(s acp.Session) acp.Session {
	return &recSession{Session: s, rec: rec}
}

type recSession struct {
	acp.Session
	rec    *sessionRecording
	prompt int // accessed only by Prompt (one at a time)
}

func (s *recSession) Prompt(ctx context.Context, req acp.PromptRequest) (acp.StopReason, error) {
	s.prompt++
	req.SessionID = recordedSession
	s.rec.editorMessage(map[string]any{"id": s.prompt, "method": acp.MethodSessionPrompt, "params": req})
	stop, err := s.Session.Prompt(ctx, req)
	if ctx.Err() != nil {
		s.rec.editorMessage(map[string]any{"method": acp.MethodSessionCancel,
			"params": acp.CancelNotification{SessionID: recordedSession}})
	}
	s.rec.flushReply()
	if err != nil {
		s.rec.wantMessage(map[string]any{"id": s.prompt, "error": map[string]any{"message": err.Error()}})
	} else {
		s.rec.wantMessage(map[string]any{"id": s.prompt, "result": acp.PromptResponse{StopReason: stop}})
	}
	return stop, err
}

func (s *recSession) Close() error {
	s.rec.r.end()
	err := s.Session.Close()
	if serr := s.rec.saved(); serr != nil {
		return serr
	}
	return err
}

// save writes the recording, normalised, to the recorder's file.
func (rec *sessionRecording) save() error {
	rec.mu.Lock()
	steps, editor, want := rec.steps, rec.editor, rec.want
	rec.mu.Unlock()
	norm := rec.r.machine().replacements(rec.cwd, rec.o.Env)
	var script []recording.Step
	for _, st := range normaliseSteps(steps, norm) {
		s, err := encodeStep(st)
		if err != nil {
			return err
		}
		script = append(script, s)
	}
	var ed strings.Builder
	for _, m := range editor {
		ed.WriteString(norm.literal(string(m)))
		ed.WriteByte('\n')
	}
	args := append([]string{rec.o.Name}, rec.o.Command[1:]...)
	meta := fmt.Sprintf("adapter: pty\nprofile: %s\nversion: %s\ncols: %d\nrows: %d\ncommand: %s\n",
		rec.p.Name, rec.p.Version, rec.o.Cols, rec.o.Rows, norm.literal(strings.Join(args, " ")))
	comment := rec.r.comment
	if comment == "" {
		comment = fmt.Sprintf("A session of %s through `acpbridge pty --record` (profile %s).\n", filepath.Base(rec.o.Name), rec.p.Name)
	}
	comment += "\n\"> \" steps are what the agent wrote on its terminal, \"< \" steps what the\n" +
		"bridge typed; t_ms is the time since the previous step. Machine values\n" +
		"(directories, user, host, dates, times) are replaced by fixed ones. The\n" +
		"want section joins the reply text of each turn (or up to a tool call)\n" +
		"into one chunk: how a screen is cut into chunks is timing.\n"
	sections := []recording.Section{{Name: recording.SectionMeta, Data: []byte(meta)}}
	if src := rec.p.Source(); len(src) > 0 {
		// The profile, so that the recording plays without its file.
		sections = append(sections, recording.Section{Name: recording.SectionProfile, Data: withNewline(src)})
	}
	f := &recording.File{Comment: comment, Sections: append(sections, []recording.Section{
		{Name: recording.SectionAgent, Data: recording.FormatScript(script)},
		{Name: recording.SectionEditor, Data: []byte(ed.String())},
		{Name: recording.SectionWant, Data: []byte(norm.literal(string(bytes.Join(want, []byte("\n\n")))) + "\n")},
	}...)}
	if err := recording.WriteFile(rec.r.path, f); err != nil {
		return fmt.Errorf("writing %s: %w", rec.r.path, err)
	}
	return nil
}

func withNewline(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] != '\n' {
		return append(bytes.Clone(b), '\n')
	}
	return b
}
