package codex

import "encoding/json"

// The app-server types below are the subset the adapter uses, written by
// hand from `codex app-server generate-json-schema` (Codex 0.169.0). Unknown
// fields are ignored, so newer servers keep working.

// App-server methods.
const (
	mInitialize      = "initialize"
	mInitialized     = "initialized"
	mThreadStart     = "thread/start"
	mThreadResume    = "thread/resume"
	mThreadFork      = "thread/fork"
	mThreadUnsub     = "thread/unsubscribe"
	mThreadList      = "thread/list"
	mTurnStart       = "turn/start"
	mTurnInterrupt   = "turn/interrupt"
	nTurnCompleted   = "turn/completed"
	nTurnStarted     = "turn/started"
	nItemStarted     = "item/started"
	nItemCompleted   = "item/completed"
	nAgentDelta      = "item/agentMessage/delta"
	nReasoningDelta  = "item/reasoning/textDelta"
	nSummaryDelta    = "item/reasoning/summaryTextDelta"
	nCommandOutput   = "item/commandExecution/outputDelta"
	nPlanUpdated     = "turn/plan/updated"
	nTokenUsage      = "thread/tokenUsage/updated"
	nError           = "error"
	nResolved        = "serverRequest/resolved"
	rCommandApproval = "item/commandExecution/requestApproval"
	rFileApproval    = "item/fileChange/requestApproval"
	rUserInput       = "item/tool/requestUserInput"
	rPermissions     = "item/permissions/requestApproval"
)

type clientInfo struct {
	Name    string `json:"name"`
	Title   string `json:"title"`
	Version string `json:"version"`
}

type initializeParams struct {
	ClientInfo   clientInfo     `json:"clientInfo"`
	Capabilities map[string]any `json:"capabilities"`
}

// threadParams are the params of thread/start, thread/resume and
// thread/fork.
type threadParams struct {
	ThreadID       string         `json:"threadId,omitempty"`
	Cwd            string         `json:"cwd,omitempty"`
	Model          string         `json:"model,omitempty"`
	ApprovalPolicy string         `json:"approvalPolicy,omitempty"`
	Sandbox        string         `json:"sandbox,omitempty"`
	Config         map[string]any `json:"config,omitempty"`
	// ExcludeTurns (thread/fork) leaves the history out of the answer.
	ExcludeTurns bool `json:"excludeTurns,omitempty"`
}

type threadResult struct {
	Thread          thread `json:"thread"`
	Model           string `json:"model"`
	ReasoningEffort string `json:"reasoningEffort"`
}

// thread is a Thread: its metadata and, from thread/resume, its turns.
type thread struct {
	ID        string `json:"id"`
	Preview   string `json:"preview"`
	Name      string `json:"name"`
	Cwd       string `json:"cwd"`
	UpdatedAt int64  `json:"updatedAt"`
	Turns     []struct {
		Items []item `json:"items"`
	} `json:"turns"`
}

type threadListParams struct {
	Cwd    string `json:"cwd,omitempty"`
	Cursor string `json:"cursor,omitempty"`
}

type threadListResult struct {
	Data       []thread `json:"data"`
	NextCursor *string  `json:"nextCursor"`
}

// userInput is one item of turn/start's input.
type userInput struct {
	Type         string `json:"type"`
	Text         string `json:"text,omitempty"`
	TextElements *[]any `json:"text_elements,omitempty"` // required on text items
	URL          string `json:"url,omitempty"`
}

type turnStartParams struct {
	ThreadID string      `json:"threadId"`
	Input    []userInput `json:"input"`
	Model    string      `json:"model,omitempty"`
	Effort   string      `json:"effort,omitempty"`
	// CollaborationMode is experimental (initialize asks for
	// experimentalApi).
	CollaborationMode any    `json:"collaborationMode,omitempty"`
	ApprovalPolicy    string `json:"approvalPolicy,omitempty"`
	SandboxPolicy     any    `json:"sandboxPolicy,omitempty"`
}

type turnRef struct {
	ThreadID string `json:"threadId"`
	TurnID   string `json:"turnId"`
}

type turnInfo struct {
	ID     string      `json:"id"`
	Status string      `json:"status"`
	Error  *codexError `json:"error"`
}

// codexError is a TurnError: Codex's message, what caused it, and for a
// retry the failure being retried (additionalDetails).
type codexError struct {
	Message string          `json:"message"`
	Info    json.RawMessage `json:"codexErrorInfo"`
	Details string          `json:"additionalDetails"`
}

type turnResult struct {
	Turn turnInfo `json:"turn"`
}

// event is the params of any notification or server request the adapter
// handles: the union of the fields it reads.
type event struct {
	ThreadID   string      `json:"threadId"`
	TurnID     string      `json:"turnId"`
	ItemID     string      `json:"itemId"`
	Delta      string      `json:"delta"`
	Item       *item       `json:"item"`
	Turn       *turnInfo   `json:"turn"`
	TokenUsage *tokenUsage `json:"tokenUsage"`
	Plan       []planStep  `json:"plan"`
	Error      *codexError `json:"error"`
	WillRetry  bool        `json:"willRetry"`

	// Approval requests.
	Command            string            `json:"command"`
	Cwd                string            `json:"cwd"`
	Reason             string            `json:"reason"`
	AvailableDecisions []json.RawMessage `json:"availableDecisions"`
	Amendment          json.RawMessage   `json:"proposedExecpolicyAmendment"`

	// requestUserInput.
	Questions []userQuestion `json:"questions"`
	// permissions/requestApproval: the extra network and file-system
	// access asked for.
	Permissions json.RawMessage `json:"permissions"`
}

// userQuestion is one question of item/tool/requestUserInput.
type userQuestion struct {
	ID       string `json:"id"`
	Header   string `json:"header"`
	Question string `json:"question"`
	// IsOther: the user may answer in words of their own instead.
	IsOther bool `json:"isOther"`
	Options []struct {
		Label       string `json:"label"`
		Description string `json:"description"`
	} `json:"options"`
}

// item is a ThreadItem (the fields of the kinds the adapter translates).
type item struct {
	Type string `json:"type"`
	// Content is a userMessage's input ([]userInput) or a reasoning
	// item's raw text ([]string): decoded by kind.
	Content          json.RawMessage `json:"content"`
	Summary          []string        `json:"summary"`
	ID               string          `json:"id"`
	Text             string          `json:"text"`
	Command          string          `json:"command"`
	Cwd              string          `json:"cwd"`
	Status           string          `json:"status"`
	AggregatedOutput *string         `json:"aggregatedOutput"`
	ExitCode         *int            `json:"exitCode"`
	CommandActions   []commandAction `json:"commandActions"`
	Changes          []fileChange    `json:"changes"`
	Server           string          `json:"server"`
	Tool             string          `json:"tool"`
	Arguments        json.RawMessage `json:"arguments"`
	Result           json.RawMessage `json:"result"`
	Query            string          `json:"query"`
	Path             string          `json:"path"`

	// Sub-agents: subAgentActivity (multi-agent v2) and
	// collabAgentToolCall items (whose Tool names the collab tool).
	Kind              string                `json:"kind"`
	AgentThreadID     string                `json:"agentThreadId"`
	AgentPath         string                `json:"agentPath"`
	Prompt            *string               `json:"prompt"`
	ReceiverThreadIDs []string              `json:"receiverThreadIds"`
	AgentsStates      map[string]agentState `json:"agentsStates"`
}

// agentState is a CollabAgentState: a sub-agent's status as a collab tool
// call last saw it.
type agentState struct {
	Status  string  `json:"status"`
	Message *string `json:"message"`
}

type commandAction struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Path    string `json:"path"`
}

type fileChange struct {
	Path string `json:"path"`
	Kind struct {
		Type     string `json:"type"`
		MovePath string `json:"move_path"`
	} `json:"kind"`
	Diff string `json:"diff"`
}

type tokenUsage struct {
	Total struct {
		TotalTokens uint64 `json:"totalTokens"`
	} `json:"total"`
	Last struct {
		TotalTokens uint64 `json:"totalTokens"`
	} `json:"last"`
	ModelContextWindow *uint64 `json:"modelContextWindow"`
}

type planStep struct {
	Step   string `json:"step"`
	Status string `json:"status"`
}
