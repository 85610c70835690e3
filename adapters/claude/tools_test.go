package claude

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rs/zerolog"
	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

func TestDescribeTool(t *testing.T) {
	const cwd = "/home/u/proj"
	tests := []struct {
		name  string
		tool  string
		input string
		kind  acp.ToolKind
		title string
		loc   string // first location path, if any
	}{
		{"bash", "Bash", `{"command":"go test ./...","description":"Run tests"}`, acp.ToolKindExecute, "go test ./...", ""},
		{"bash streaming", "Bash", `{}`, acp.ToolKindExecute, "Terminal", ""},
		{"read whole", "Read", `{"file_path":"/home/u/proj/a/b.go"}`, acp.ToolKindRead, "Read a/b.go", "/home/u/proj/a/b.go"},
		{"read range", "Read", `{"file_path":"/etc/hosts","offset":5,"limit":3}`, acp.ToolKindRead, "Read /etc/hosts (5 - 7)", "/etc/hosts"},
		{"read from", "Read", `{"file_path":"/home/u/proj/x","offset":9}`, acp.ToolKindRead, "Read x (from line 9)", "/home/u/proj/x"},
		{"write", "Write", `{"file_path":"/home/u/proj/n.txt","content":"x"}`, acp.ToolKindEdit, "Write n.txt", "/home/u/proj/n.txt"},
		{"edit", "Edit", `{"file_path":"/home/u/proj/e.go","old_string":"a","new_string":"b"}`, acp.ToolKindEdit, "Edit e.go", "/home/u/proj/e.go"},
		{"multi edit", "MultiEdit", `{"file_path":"/home/u/proj/e.go","edits":[{"old_string":"a","new_string":"b"}]}`, acp.ToolKindEdit, "Edit e.go", "/home/u/proj/e.go"},
		{"outside cwd", "Edit", `{"file_path":"/home/u/projector/e.go"}`, acp.ToolKindEdit, "Edit /home/u/projector/e.go", "/home/u/projector/e.go"},
		{"glob", "Glob", `{"pattern":"**/*.go"}`, acp.ToolKindSearch, "Find `**/*.go`", ""},
		{"grep", "Grep", `{"pattern":"fo o","path":"/home/u/proj/pkg","-n":true,"-C":2,"glob":"*.go","output_mode":"count"}`,
			acp.ToolKindSearch, `grep -n -C 2 -c --include=*.go "fo o" pkg`, "/home/u/proj/pkg"},
		{"web fetch", "WebFetch", `{"url":"https://go.dev","prompt":"summarise"}`, acp.ToolKindFetch, "Fetch https://go.dev", ""},
		{"web search", "WebSearch", `{"query":"acp","allowed_domains":["a.dev"]}`, acp.ToolKindFetch, `"acp" (allowed: a.dev)`, ""},
		{"task", "Task", `{"description":"Find callers","prompt":"look"}`, acp.ToolKindThink, "Find callers", ""},
		{"agent", "Agent", `{}`, acp.ToolKindThink, "Task", ""},
		{"todo", "TodoWrite", `{"todos":[{"content":"a"},{"content":"b"}]}`, acp.ToolKindThink, "Update TODOs: a, b", ""},
		{"exit plan", "ExitPlanMode", `{"plan":"p"}`, acp.ToolKindSwitchMode, "Ready to code?", ""},
		{"notebook", "NotebookEdit", `{"notebook_path":"/home/u/proj/n.ipynb","new_source":"x"}`, acp.ToolKindEdit, "Edit Notebook n.ipynb", "/home/u/proj/n.ipynb"},
		{"mcp", "mcp__github__create_issue", `{"title":"x"}`, acp.ToolKindOther, "create_issue (github)", ""},
		{"unknown", "CronCreate", `{}`, acp.ToolKindOther, "CronCreate", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info := describeTool(tt.tool, gjson.Parse(tt.input), cwd)
			if info.kind != tt.kind || info.title != tt.title {
				t.Errorf("describeTool(%s) = %q %q, want %q %q", tt.tool, info.kind, info.title, tt.kind, tt.title)
			}
			loc := ""
			if len(info.locations) > 0 {
				loc = info.locations[0].Path
			}
			if loc != tt.loc {
				t.Errorf("location = %q, want %q", loc, tt.loc)
			}
		})
	}
}

func TestResultOutcome(t *testing.T) {
	tests := []struct {
		name   string
		result string
		auth   bool
		stop   acp.StopReason
		code   int // 0: no error
	}{
		{"end turn", `{"subtype":"success","is_error":false,"stop_reason":"end_turn"}`, false, acp.StopReasonEndTurn, 0},
		{"max tokens", `{"subtype":"success","stop_reason":"max_tokens"}`, false, acp.StopReasonMaxTokens, 0},
		{"refusal", `{"subtype":"success","stop_reason":"refusal"}`, false, acp.StopReasonRefusal, 0},
		// Claude Code 2.1.329 retries a refusal once, then reports it as an
		// error result that still says refusal: the stop reason wins.
		{"refusal with is_error", `{"subtype":"success","is_error":true,"stop_reason":"refusal","terminal_reason":"api_error","result":"API Error: Opus 5.5's safeguards flagged this message"}`, false, acp.StopReasonRefusal, 0},
		{"local command", `{"subtype":"success","stop_reason":null,"local_command":"compact"}`, false, acp.StopReasonEndTurn, 0},
		{"max turns", `{"subtype":"error_max_turns","is_error":true}`, false, acp.StopReasonMaxTurnRequests, 0},
		{"budget", `{"subtype":"error_max_budget_usd","is_error":true}`, false, acp.StopReasonMaxTurnRequests, 0},
		{"aborted", `{"subtype":"error_during_execution","is_error":true,"terminal_reason":"aborted_tools"}`, false, acp.StopReasonCancelled, 0},
		{"execution error", `{"subtype":"error_during_execution","is_error":true,"errors":["boom"]}`, false, "", acp.CodeInternalError},
		{"api error", `{"subtype":"success","is_error":true,"result":"API Error: 500"}`, false, "", acp.CodeInternalError},
		{"login text", `{"subtype":"success","is_error":true,"result":"Invalid API key · Please run /login"}`, false, "", acp.CodeAuthRequired},
		{"auth frame", `{"subtype":"success","is_error":true,"result":"Forbidden"}`, true, "", acp.CodeAuthRequired},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stop, err := resultOutcome(Claude(), gjson.Parse(tt.result), tt.auth)
			if stop != tt.stop {
				t.Errorf("stop = %q, want %q", stop, tt.stop)
			}
			var e *acp.Error
			switch {
			case tt.code == 0 && err != nil:
				t.Errorf("unexpected error %v", err)
			case tt.code != 0 && (err == nil || !asError(err, &e) || e.Code != tt.code):
				t.Errorf("error = %v, want code %d", err, tt.code)
			case tt.code == acp.CodeAuthRequired && (strings.Contains(e.Message, "/login") || !strings.Contains(e.Message, "ANTHROPIC_API_KEY")):
				t.Errorf("auth required says %q: an editor user cannot run /login, and must be told of the login method and the API key", e.Message)
			}
		})
	}
}

func asError(err error, e **acp.Error) bool {
	v, ok := err.(*acp.Error)
	*e = v
	return ok
}

// FuzzStreamJSONLine feeds arbitrary lines through the reader's
// classification and the translator: nothing may panic, unknown input is
// skipped, and every update produced must encode.
func FuzzStreamJSONLine(f *testing.F) {
	for _, s := range []string{
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}}`,
		`{"type":"stream_event","event":{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t","name":"Bash","input":{}}}}`,
		`{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"t","name":"Edit","input":{"file_path":"/a","old_string":"x","new_string":"y"}}]}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"ok"}]}]},"tool_use_result":{"filePath":"/a","structuredPatch":[{"newStart":1,"lines":["-x","+y"," z",""]}]}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"u","is_error":true,"content":"no"}]}}`,
		`{"type":"assistant","message":{"id":"m2","content":[{"type":"tool_use","id":"p","name":"TodoWrite","input":{"todos":[{"content":"a","status":"completed"}]}}]}}`,
		`{"type":"result","subtype":"success","modelUsage":{"m":{"contextWindow":1000}},"total_cost_usd":1}`,
		`{"type":"system","subtype":"status","permissionMode":"plan"}`,
		`{"type":"control_request","request_id":"r","request":{"subtype":"can_use_tool"}}`,
		`{"type":"control_response","response":{"request_id":"x"}}`,
		`{"type":"control_cancel_request","request_id":"r"}`,
		`{"type":"brand_new_frame","x":[1,2,3]}`,
		`not json`, `[]`, `{"type":7}`, `{"type":"user","message":{"content":"plain"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		c := newConn(nil, zerolog.Nop(), nil, 0)
		c.dispatch(line, nil, 0, false)
		tr := newTranslator("/w", zerolog.Nop())
		tr.emit = func(u acp.SessionUpdate) {
			if _, err := json.Marshal(u); err != nil {
				t.Fatalf("update from %q does not encode: %v", line, err)
			}
		}
		tr.onMode, tr.onModel = func(string) {}, func(string) {}
		for {
			ev, ok := c.pop()
			if !ok {
				break
			}
			tr.handle(ev)
			tr.handle(ev) // a repeated frame must be as harmless
			if ev.typ == "control_request" {
				parseCanUseTool(ev)
			}
		}
		tr.abandon()
	})
}

// The bridge's Adapter contract, spelled out here because this package may
// not import the bridge.
var _ interface {
	Info() acp.AgentInfo
	NewSession(context.Context, acp.NewSessionRequest, acp.Client) (acp.Session, error)
	Close() error
} = (*Adapter)(nil)
