//go:build linux

package main_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"

	sdk "github.com/coder/acp-go-sdk"
)

// e2eClient is the editor of the end-to-end tests, built on the independent
// Go ACP SDK. It records every update in arrival order and every permission
// request; permission requests are answered by the permit func the test
// sets (none set: the request is cancelled). Tests wait for what they
// expect with waitFor, never for a fixed time.
type e2eClient struct {
	mu sync.Mutex // guards the fields below
	// updates are all session/update notifications, in arrival order.
	updates []sdk.SessionNotification
	asked   []sdk.RequestPermissionRequest
	// withdrawn counts permission requests whose context ended before the
	// client answered them ($/cancel_request from the agent).
	withdrawn int
	permit    func(ctx context.Context, r sdk.RequestPermissionRequest) sdk.RequestPermissionResponse
	// changed is closed and replaced on every change.
	changed chan struct{}
	// files, when set, are the editor's buffers: fs/read_text_file answers
	// them (else the disk) and fs/write_text_file replaces them; writes
	// lists the writes. Unset, both methods are not found.
	files  map[string]string
	writes []sdk.WriteTextFileRequest
}

var _ sdk.Client = (*e2eClient)(nil)

func newE2EClient() *e2eClient { return &e2eClient{changed: make(chan struct{})} }

// touch wakes waiters. Callers hold mu.
func (c *e2eClient) touch() {
	close(c.changed)
	c.changed = make(chan struct{})
}

func (c *e2eClient) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.updates = append(c.updates, n)
	c.touch()
	return nil
}

func (c *e2eClient) RequestPermission(ctx context.Context, r sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.asked = append(c.asked, r)
	permit := c.permit
	c.touch()
	c.mu.Unlock()
	if permit == nil {
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}, nil
	}
	resp := permit(ctx, r)
	if ctx.Err() != nil {
		c.mu.Lock()
		c.withdrawn++
		c.touch()
		c.mu.Unlock()
	}
	return resp, nil
}

// setPermit installs the permission answerer.
func (c *e2eClient) setPermit(f func(ctx context.Context, r sdk.RequestPermissionRequest) sdk.RequestPermissionResponse) {
	c.mu.Lock()
	c.permit = f
	c.mu.Unlock()
}

// e2eChoose answers the n-th permission request with the first option of
// kinds[n] (the last kind for later requests).
func e2eChoose(kinds ...sdk.PermissionOptionKind) func(context.Context, sdk.RequestPermissionRequest) sdk.RequestPermissionResponse {
	var mu sync.Mutex
	n := 0
	return func(_ context.Context, r sdk.RequestPermissionRequest) sdk.RequestPermissionResponse {
		mu.Lock()
		k := kinds[min(n, len(kinds)-1)]
		n++
		mu.Unlock()
		for _, o := range r.Options {
			if o.Kind == k {
				return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(o.OptionId)}
			}
		}
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}
	}
}

// mark is a position in the update log; since returns what came after it.
func (c *e2eClient) mark() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.updates)
}

func (c *e2eClient) since(mark int) []sdk.SessionUpdate {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]sdk.SessionUpdate, 0, len(c.updates)-mark)
	for _, n := range c.updates[mark:] {
		out = append(out, n.Update)
	}
	return out
}

// askedSince returns the permission requests after the first n.
func (c *e2eClient) askedSince(n int) []sdk.RequestPermissionRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]sdk.RequestPermissionRequest(nil), c.asked[n:]...)
}

func (c *e2eClient) askedCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.asked)
}

// waitFor blocks until cond holds (it is evaluated under the client's lock
// after every change) or ctx ends.
func (c *e2eClient) waitFor(ctx context.Context, what string, cond func() bool) error {
	for {
		c.mu.Lock()
		ok, ch := cond(), c.changed
		c.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w", what, ctx.Err())
		}
	}
}

// countLocked counts updates after mark that match. Callers hold mu (it is
// meant for waitFor conditions).
func (c *e2eClient) countLocked(mark int, match func(sdk.SessionUpdate) bool) int {
	n := 0
	for _, u := range c.updates[mark:] {
		if match(u.Update) {
			n++
		}
	}
	return n
}

func (c *e2eClient) ReadTextFile(_ context.Context, r sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.files == nil {
		return sdk.ReadTextFileResponse{}, sdk.NewMethodNotFound("fs/read_text_file")
	}
	if b, ok := c.files[r.Path]; ok {
		return sdk.ReadTextFileResponse{Content: b}, nil
	}
	data, err := os.ReadFile(r.Path)
	if err != nil {
		return sdk.ReadTextFileResponse{}, &sdk.RequestError{Code: -32002, Message: "Resource not found: " + r.Path}
	}
	return sdk.ReadTextFileResponse{Content: string(data)}, nil
}

func (c *e2eClient) WriteTextFile(_ context.Context, r sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.files == nil {
		return sdk.WriteTextFileResponse{}, sdk.NewMethodNotFound("fs/write_text_file")
	}
	c.writes = append(c.writes, r)
	c.files[r.Path] = r.Content
	c.touch()
	return sdk.WriteTextFileResponse{}, nil
}

func (c *e2eClient) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, sdk.NewMethodNotFound("terminal/create")
}

func (c *e2eClient) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, sdk.NewMethodNotFound("terminal/kill")
}

func (c *e2eClient) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, sdk.NewMethodNotFound("terminal/output")
}

func (c *e2eClient) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, sdk.NewMethodNotFound("terminal/release")
}

func (c *e2eClient) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, sdk.NewMethodNotFound("terminal/wait_for_exit")
}

// Helpers over update lists.

func e2eIsText(u sdk.SessionUpdate) bool    { return u.AgentMessageChunk != nil }
func e2eIsThought(u sdk.SessionUpdate) bool { return u.AgentThoughtChunk != nil }

// e2eAgentText joins the text of the agent message chunks.
func e2eAgentText(us []sdk.SessionUpdate) string {
	var b strings.Builder
	for _, u := range us {
		if u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil {
			b.WriteString(u.AgentMessageChunk.Content.Text.Text)
		}
	}
	return b.String()
}

// e2eThoughtText joins the text of the agent thought chunks.
func e2eThoughtText(us []sdk.SessionUpdate) string {
	var b strings.Builder
	for _, u := range us {
		if u.AgentThoughtChunk != nil && u.AgentThoughtChunk.Content.Text != nil {
			b.WriteString(u.AgentThoughtChunk.Content.Text.Text)
		}
	}
	return b.String()
}

// e2eUserText joins the text of the user message chunks (replayed history).
func e2eUserText(us []sdk.SessionUpdate) string {
	var b strings.Builder
	for _, u := range us {
		if u.UserMessageChunk != nil && u.UserMessageChunk.Content.Text != nil {
			b.WriteString(u.UserMessageChunk.Content.Text.Text)
		}
	}
	return b.String()
}

// e2eToolCall is what an editor knows about one tool call once every update
// has been applied: the tool_call, then each tool_call_update in order.
type e2eToolCall struct {
	id        sdk.ToolCallId
	title     string
	kind      sdk.ToolKind
	statuses  []sdk.ToolCallStatus // every status reported, in order
	content   []sdk.ToolCallContent
	locations []sdk.ToolCallLocation
	rawInput  any
	rawOutput any
}

func (tc *e2eToolCall) status() sdk.ToolCallStatus {
	if len(tc.statuses) == 0 {
		return ""
	}
	return tc.statuses[len(tc.statuses)-1]
}

// e2eToolCalls folds the tool call updates into one state per call, in the
// order the calls were announced.
func e2eToolCalls(us []sdk.SessionUpdate) []*e2eToolCall {
	var order []*e2eToolCall
	byID := map[sdk.ToolCallId]*e2eToolCall{}
	get := func(id sdk.ToolCallId) *e2eToolCall {
		if tc, ok := byID[id]; ok {
			return tc
		}
		tc := &e2eToolCall{id: id}
		byID[id] = tc
		order = append(order, tc)
		return tc
	}
	for _, u := range us {
		switch {
		case u.ToolCall != nil:
			tc := get(u.ToolCall.ToolCallId)
			tc.title, tc.kind = u.ToolCall.Title, u.ToolCall.Kind
			if u.ToolCall.Status != "" {
				tc.statuses = append(tc.statuses, u.ToolCall.Status)
			}
			tc.content, tc.locations = u.ToolCall.Content, u.ToolCall.Locations
			tc.rawInput, tc.rawOutput = u.ToolCall.RawInput, u.ToolCall.RawOutput
		case u.ToolCallUpdate != nil:
			v := u.ToolCallUpdate
			tc := get(v.ToolCallId)
			if v.Title != nil {
				tc.title = *v.Title
			}
			if v.Kind != nil {
				tc.kind = *v.Kind
			}
			if v.Status != nil {
				tc.statuses = append(tc.statuses, *v.Status)
			}
			if v.Content != nil {
				tc.content = v.Content
			}
			if v.Locations != nil {
				tc.locations = v.Locations
			}
			if v.RawInput != nil {
				tc.rawInput = v.RawInput
			}
			if v.RawOutput != nil {
				tc.rawOutput = v.RawOutput
			}
		}
	}
	return order
}

// e2eFindTool returns the tool call with id.
func e2eFindTool(us []sdk.SessionUpdate, id string) *e2eToolCall {
	for _, tc := range e2eToolCalls(us) {
		if string(tc.id) == id {
			return tc
		}
	}
	return nil
}

// e2eContentText returns the text of a tool call's plain content blocks.
func e2eContentText(cs []sdk.ToolCallContent) []string {
	var out []string
	for _, c := range cs {
		if c.Content != nil && c.Content.Content.Text != nil {
			out = append(out, c.Content.Content.Text.Text)
		}
	}
	return out
}

// e2eDiff is a diff as the editor shows it; noOld marks a new file.
type e2eDiff struct {
	path, old, new string
	noOld          bool
}

// e2eDiffs returns a tool call's diff contents.
func e2eDiffs(cs []sdk.ToolCallContent) []e2eDiff {
	var out []e2eDiff
	for _, c := range cs {
		if c.Diff == nil {
			continue
		}
		d := e2eDiff{path: c.Diff.Path, new: c.Diff.NewText, noOld: c.Diff.OldText == nil}
		if c.Diff.OldText != nil {
			d.old = *c.Diff.OldText
		}
		out = append(out, d)
	}
	return out
}

// e2eModeUpdates lists the current_mode_update mode ids, in order.
func e2eModeUpdates(us []sdk.SessionUpdate) []string {
	var out []string
	for _, u := range us {
		if u.CurrentModeUpdate != nil {
			out = append(out, string(u.CurrentModeUpdate.CurrentModeId))
		}
	}
	return out
}

// e2eConfigValues lists, for each config_option_update, the current value of
// option id.
func e2eConfigValues(us []sdk.SessionUpdate, id string) []string {
	var out []string
	for _, u := range us {
		if u.ConfigOptionUpdate == nil {
			continue
		}
		out = append(out, e2eConfigValue(u.ConfigOptionUpdate.ConfigOptions, id))
	}
	return out
}

// e2eConfigValue is the current value of the select option id ("" if none).
func e2eConfigValue(opts []sdk.SessionConfigOption, id string) string {
	for _, o := range opts {
		if o.Select != nil && string(o.Select.Id) == id {
			return string(o.Select.CurrentValue)
		}
	}
	return ""
}
