package acp_test

import (
	"encoding/json"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// goldenCase is one wire shape: Value marshals to testdata/<name>.json, and
// that file validates against the schema's $defs/<Def> (Def "" = not in the
// schema).
type goldenCase struct {
	name  string
	def   string
	value any
}

func notify(u acp.SessionUpdate) acp.SessionNotification {
	return acp.SessionNotification{SessionID: "sess-1", Update: u}
}

func selectOption(options acp.SessionConfigSelectOptions) acp.SessionConfigOption {
	return acp.SessionConfigOption{
		ID:       "model",
		Name:     "Model",
		Category: acp.Ptr(acp.SessionConfigOptionCategoryModel),
		Select:   &acp.SessionConfigSelect{CurrentValue: "sonnet", Options: options},
	}
}

var (
	flatModels = acp.SessionConfigSelectOptions{Ungrouped: []acp.SessionConfigSelectOption{
		{Value: "sonnet", Name: "Sonnet", Description: acp.Ptr("Fast and capable")},
		{Value: "opus", Name: "Opus"},
	}}
	groupedModels = acp.SessionConfigSelectOptions{Grouped: []acp.SessionConfigSelectGroup{
		{Group: "anthropic", Name: "Anthropic", Options: []acp.SessionConfigSelectOption{{Value: "sonnet", Name: "Sonnet"}}},
		{Group: "local", Name: "Local", Options: []acp.SessionConfigSelectOption{{Value: "llama", Name: "Llama"}}},
	}}
	thinkingOption = acp.SessionConfigOption{
		ID:          "thinking",
		Name:        "Extended thinking",
		Description: acp.Ptr("Think before answering"),
		Category:    acp.Ptr(acp.SessionConfigOptionCategoryThoughtLevel),
		Boolean:     &acp.SessionConfigBoolean{CurrentValue: true},
	}
	modes = &acp.SessionModeState{
		CurrentModeID: "default",
		AvailableModes: []acp.SessionMode{
			{ID: "default", Name: "Default", Description: acp.Ptr("Ask before edits")},
			{ID: "plan", Name: "Plan"},
		},
	}
	stdioServer = acp.McpServer{Stdio: &acp.McpServerStdio{
		Name: "files", Command: "/usr/local/bin/mcp-files", Args: []string{"--root", "."},
		Env: []acp.EnvVariable{{Name: "LOG", Value: "debug"}},
	}}
	httpServer = acp.McpServer{HTTP: &acp.McpServerHttp{
		Name: "web", URL: "https://mcp.example.com/mcp",
		Headers: []acp.HttpHeader{{Name: "Authorization", Value: "Bearer x"}},
	}}
	sseServer = acp.McpServer{SSE: &acp.McpServerSse{Name: "events", URL: "https://mcp.example.com/sse", Headers: []acp.HttpHeader{}}}
	editTool  = acp.ToolCallUpdate{
		ToolCallID: "call-1",
		Kind:       acp.Ptr(acp.ToolKindEdit),
		Status:     acp.Ptr(acp.ToolCallStatusPending),
		Title:      acp.Ptr("Edit main.go"),
		Content:    []acp.ToolCallContent{acp.ToolContentDiff("/repo/main.go", acp.Ptr("old\n"), "new\n")},
		Locations:  []acp.ToolCallLocation{{Path: "/repo/main.go", Line: acp.Ptr(uint32(3))}},
	}
	permOptions = []acp.PermissionOption{
		{OptionID: "allow", Name: "Allow", Kind: acp.PermissionOptionKindAllowOnce},
		{OptionID: "always", Name: "Always allow", Kind: acp.PermissionOptionKindAllowAlways},
		{OptionID: "reject", Name: "Reject", Kind: acp.PermissionOptionKindRejectOnce},
		{OptionID: "never", Name: "Never", Kind: acp.PermissionOptionKindRejectAlways},
	}
)

func goldenCases() []goldenCase {
	return append(append(append(updateCases(), contentCases()...), sessionCases()...), clientCases()...)
}

func updateCases() []goldenCase {
	const def = "SessionNotification"
	return []goldenCase{
		{"update_user_message_chunk", def, notify(acp.UpdateUserText("Fix the bug"))},
		{"update_agent_message_chunk", def, notify(acp.SessionUpdate{AgentMessageChunk: &acp.ContentChunk{
			Content: acp.TextBlock("Done."), MessageID: acp.Ptr(acp.MessageID("msg-1"))}})},
		{"update_agent_thought_chunk", def, notify(acp.UpdateThought("Let me look at main.go"))},
		{"update_tool_call", def, notify(acp.SessionUpdate{ToolCall: &acp.ToolCall{
			ToolCallID: "call-1",
			Title:      "Run tests",
			Name:       acp.Ptr("Bash"),
			Kind:       acp.ToolKindExecute,
			Status:     acp.ToolCallStatusInProgress,
			Content: []acp.ToolCallContent{
				acp.ToolContentText("running go test"),
				{Terminal: &acp.TerminalRef{TerminalID: "term-1"}},
			},
			Locations: []acp.ToolCallLocation{{Path: "/repo"}},
			RawInput:  map[string]any{"command": "go test ./...", "timeout": float64(120)},
			Meta:      map[string]any{"claudeCode": map[string]any{"toolName": "Bash"}},
		}})},
		{"update_tool_call_update", def, notify(acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{
			ToolCallID: "call-1",
			Status:     acp.Ptr(acp.ToolCallStatusCompleted),
			Content:    []acp.ToolCallContent{},
			RawOutput:  "ok",
		}})},
		{"update_tool_call_update_failed", def, notify(acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{
			ToolCallID: "call-2",
			Status:     acp.Ptr(acp.ToolCallStatusFailed),
			Content:    []acp.ToolCallContent{acp.ToolContentText("permission denied")},
		}})},
		{"update_plan", def, notify(acp.SessionUpdate{Plan: &acp.Plan{Entries: []acp.PlanEntry{
			{Content: "Read the code", Priority: acp.PlanEntryPriorityHigh, Status: acp.PlanEntryStatusCompleted},
			{Content: "Write the fix", Priority: acp.PlanEntryPriorityMedium, Status: acp.PlanEntryStatusInProgress},
			{Content: "Run tests", Priority: acp.PlanEntryPriorityLow, Status: acp.PlanEntryStatusPending},
		}}})},
		{"update_plan_empty", def, notify(acp.SessionUpdate{Plan: &acp.Plan{Entries: []acp.PlanEntry{}}})},
		{"update_available_commands", def, notify(acp.SessionUpdate{AvailableCommandsUpdate: &acp.AvailableCommandsUpdate{
			AvailableCommands: []acp.AvailableCommand{
				{Name: "review", Description: "Review the diff", Input: &acp.AvailableCommandInput{Hint: "what to focus on"}},
				{Name: "compact", Description: "Compact the context"},
			}}})},
		{"update_current_mode", def, notify(acp.SessionUpdate{CurrentModeUpdate: &acp.CurrentModeUpdate{CurrentModeID: "plan"}})},
		{"update_config_option", def, notify(acp.SessionUpdate{ConfigOptionUpdate: &acp.ConfigOptionUpdate{
			ConfigOptions: []acp.SessionConfigOption{selectOption(groupedModels), thinkingOption}}})},
		{"update_session_info", def, notify(acp.SessionUpdate{SessionInfoUpdate: &acp.SessionInfoUpdate{
			Title: acp.Set("Fix flaky test"), UpdatedAt: acp.Null[string]()}})},
		{"update_usage", def, notify(acp.SessionUpdate{UsageUpdate: &acp.UsageUpdate{
			Used: 42000, Size: 200000, Cost: &acp.Cost{Amount: 0.125, Currency: "USD"}}})},
		{"update_notice", def, notify(acp.SessionUpdate{Notice: &acp.Notice{
			Severity: acp.NoticeSeverityWarning, Title: "Rate limited", Description: acp.Ptr("Retrying in 30s")}})},
		{"update_compaction", def, notify(acp.SessionUpdate{CompactionUpdate: &acp.CompactionUpdate{
			CompactionID: "cmp-1", Status: acp.CompactionStatusCompleted,
			Summary: acp.Set([]acp.ContentBlock{acp.TextBlock("Earlier: fixed the parser.")}),
			Error:   acp.Null[string](),
		}})},
		{"update_compaction_started", def, notify(acp.SessionUpdate{CompactionUpdate: &acp.CompactionUpdate{
			CompactionID: "cmp-2", Status: acp.CompactionStatusInProgress}})},
		{"update_compaction_summary_chunk", def, notify(acp.SessionUpdate{CompactionSummaryChunk: &acp.CompactionSummaryChunk{
			CompactionID: "cmp-1", Content: acp.TextBlock("The user asked for a fix.")}})},
	}
}

func contentCases() []goldenCase {
	return []goldenCase{
		{"content_text", "ContentBlock", acp.ContentBlock{Text: &acp.TextContent{
			Text: "hello", Annotations: &acp.Annotations{Audience: []acp.Role{acp.RoleUser}, Priority: acp.Ptr(0.5)}}}},
		{"content_image", "ContentBlock", acp.ContentBlock{Image: &acp.ImageContent{Data: "iVBORw0KGgo=", MimeType: "image/png"}}},
		{"content_audio", "ContentBlock", acp.ContentBlock{Audio: &acp.AudioContent{Data: "UklGRg==", MimeType: "audio/wav"}}},
		{"content_resource_link", "ContentBlock", acp.ContentBlock{ResourceLink: &acp.ResourceLink{
			Name: "main.go", URI: "file:///repo/main.go", MimeType: acp.Ptr("text/x-go"), Size: acp.Ptr(int64(1024))}}},
		{"content_resource_text", "ContentBlock", acp.ContentBlock{Resource: &acp.EmbeddedResource{
			Resource: acp.EmbeddedResourceResource{Text: &acp.TextResourceContents{
				URI: "file:///repo/main.go", Text: "package main\n", MimeType: acp.Ptr("text/x-go")}}}}},
		{"content_resource_blob", "ContentBlock", acp.ContentBlock{Resource: &acp.EmbeddedResource{
			Resource: acp.EmbeddedResourceResource{Blob: &acp.BlobResourceContents{
				URI: "file:///repo/logo.png", Blob: "iVBORw0KGgo=", MimeType: acp.Ptr("image/png")}}}}},
		{"tool_content_content", "ToolCallContent", acp.ToolContentText("3 files changed")},
		{"tool_content_diff", "ToolCallContent", acp.ToolContentDiff("/repo/main.go", acp.Ptr("a\n"), "b\n")},
		{"tool_content_diff_new_file", "ToolCallContent", acp.ToolContentDiff("/repo/new.go", nil, "package x\n")},
		{"tool_content_terminal", "ToolCallContent", acp.ToolCallContent{Terminal: &acp.TerminalRef{TerminalID: "term-1"}}},
		{"mcp_server_stdio", "McpServer", stdioServer},
		{"mcp_server_http", "McpServer", httpServer},
		{"mcp_server_sse", "McpServer", sseServer},
		{"error_invalid_params", "Error", acp.InvalidParams("cwd", "must be an absolute path")},
	}
}

func sessionCases() []goldenCase {
	return []goldenCase{
		{"initialize_request", "InitializeRequest", acp.InitializeRequest{
			ProtocolVersion: 1,
			ClientCapabilities: acp.ClientCapabilities{
				Fs:       acp.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true},
				Terminal: true,
				Session: &acp.ClientSessionCapabilities{
					ConfigOptions: &acp.SessionConfigOptionsCapabilities{Boolean: &acp.BooleanConfigOptionCapabilities{}},
					Notices:       &acp.NoticeCapabilities{},
				},
				Auth: acp.AuthCapabilities{Terminal: true},
				Meta: map[string]any{"terminal_output": true},
			},
			ClientInfo: &acp.Implementation{Name: "zed", Title: acp.Ptr("Zed"), Version: "0.200.0"},
		}},
		{"initialize_response", "InitializeResponse", acp.InitializeResponse{
			ProtocolVersion: 1,
			AgentCapabilities: acp.AgentCapabilities{
				LoadSession:        true,
				PromptCapabilities: acp.PromptCapabilities{Image: true, EmbeddedContext: true},
				McpCapabilities:    acp.McpCapabilities{HTTP: true},
				SessionCapabilities: acp.SessionCapabilities{
					List: &acp.SessionListCapabilities{}, Resume: &acp.SessionResumeCapabilities{},
					Close: &acp.SessionCloseCapabilities{},
				},
				Auth: acp.AgentAuthCapabilities{Logout: &acp.LogoutCapabilities{}},
			},
			AuthMethods: []acp.AuthMethod{
				{Agent: &acp.AuthMethodAgent{ID: "api-key", Name: "API key", Description: acp.Ptr("Use ANTHROPIC_API_KEY")}},
				{Terminal: &acp.AuthMethodTerminal{ID: "login", Name: "Log in", Args: []string{"/login"}, Env: map[string]string{"NO_COLOR": "1"}}},
			},
			AgentInfo: &acp.Implementation{Name: "acpbridge", Version: "0.1.0"},
		}},
		{"initialize_response_minimal", "InitializeResponse", acp.InitializeResponse{ProtocolVersion: 1}},
		{"authenticate_request", "AuthenticateRequest", acp.AuthenticateRequest{MethodID: "api-key"}},
		{"new_session_request", "NewSessionRequest", acp.NewSessionRequest{
			Cwd: "/repo", AdditionalDirectories: []string{"/libs"},
			McpServers: []acp.McpServer{stdioServer, httpServer, sseServer},
		}},
		{"new_session_request_no_servers", "NewSessionRequest", acp.NewSessionRequest{Cwd: "/repo"}},
		{"new_session_response", "NewSessionResponse", acp.NewSessionResponse{
			SessionID: "sess-1", Modes: modes,
			ConfigOptions: []acp.SessionConfigOption{selectOption(flatModels), thinkingOption},
		}},
		{"load_session_request", "LoadSessionRequest", acp.LoadSessionRequest{SessionID: "sess-1", Cwd: "/repo"}},
		{"load_session_response", "LoadSessionResponse", acp.LoadSessionResponse{Modes: modes}},
		{"resume_session_request", "ResumeSessionRequest", acp.ResumeSessionRequest{SessionID: "sess-1", Cwd: "/repo"}},
		{"resume_session_response", "ResumeSessionResponse", acp.ResumeSessionResponse{}},
		{"list_sessions_request", "ListSessionsRequest", acp.ListSessionsRequest{Cwd: acp.Ptr("/repo"), Cursor: acp.Ptr("page-2")}},
		{"list_sessions_response", "ListSessionsResponse", acp.ListSessionsResponse{
			Sessions:   []acp.SessionInfo{{SessionID: "sess-1", Cwd: "/repo", Title: acp.Ptr("Fix bug"), UpdatedAt: acp.Ptr("2025-01-02T03:04:05Z")}},
			NextCursor: acp.Ptr("page-3"),
		}},
		{"list_sessions_response_empty", "ListSessionsResponse", acp.ListSessionsResponse{}},
		{"close_session_request", "CloseSessionRequest", acp.CloseSessionRequest{SessionID: "sess-1"}},
		{"delete_session_request", "DeleteSessionRequest", acp.DeleteSessionRequest{SessionID: "sess-1"}},
		{"prompt_request", "PromptRequest", acp.PromptRequest{SessionID: "sess-1", Prompt: []acp.ContentBlock{
			acp.TextBlock("Explain this file"),
			{ResourceLink: &acp.ResourceLink{Name: "main.go", URI: "file:///repo/main.go"}},
		}}},
		{"prompt_response", "PromptResponse", acp.PromptResponse{StopReason: acp.StopReasonEndTurn}},
		{"prompt_response_cancelled", "PromptResponse", acp.PromptResponse{StopReason: acp.StopReasonCancelled}},
		{"cancel_notification", "CancelNotification", acp.CancelNotification{SessionID: "sess-1"}},
		{"cancel_request_notification", "CancelRequestNotification", acp.CancelRequestNotification{RequestID: json.RawMessage(`7`)}},
		{"set_mode_request", "SetSessionModeRequest", acp.SetSessionModeRequest{SessionID: "sess-1", ModeID: "plan"}},
		{"set_config_option_request", "SetSessionConfigOptionRequest", acp.SetSessionConfigOptionRequest{
			SessionID: "sess-1", ConfigID: "model", Value: acp.ConfigOptionValue{ID: acp.Ptr(acp.SessionConfigValueID("opus"))}}},
		{"set_config_option_request_boolean", "SetSessionConfigOptionRequest", acp.SetSessionConfigOptionRequest{
			SessionID: "sess-1", ConfigID: "thinking", Value: acp.ConfigOptionValue{Boolean: acp.Ptr(false)}}},
		{"set_config_option_response", "SetSessionConfigOptionResponse", acp.SetSessionConfigOptionResponse{
			ConfigOptions: []acp.SessionConfigOption{selectOption(flatModels)}}},
		{"set_model_request", "", acp.SetSessionModelRequest{SessionID: "sess-1", ModelID: "opus"}},
	}
}

func clientCases() []goldenCase {
	return []goldenCase{
		{"permission_request", "RequestPermissionRequest", acp.RequestPermissionRequest{
			SessionID: "sess-1", ToolCall: editTool, Options: permOptions}},
		{"permission_response_selected", "RequestPermissionResponse", acp.RequestPermissionResponse{Outcome: acp.PermissionSelected("allow")}},
		{"permission_response_cancelled", "RequestPermissionResponse", acp.RequestPermissionResponse{Outcome: acp.PermissionCancelled()}},
		{"read_text_file_request", "ReadTextFileRequest", acp.ReadTextFileRequest{
			SessionID: "sess-1", Path: "/repo/main.go", Line: acp.Ptr(uint32(10)), Limit: acp.Ptr(uint32(20))}},
		{"read_text_file_response", "ReadTextFileResponse", acp.ReadTextFileResponse{Content: "package main\n"}},
		{"write_text_file_request", "WriteTextFileRequest", acp.WriteTextFileRequest{SessionID: "sess-1", Path: "/repo/a.txt", Content: "hi\n"}},
		{"write_text_file_response", "WriteTextFileResponse", acp.WriteTextFileResponse{}},
		{"create_terminal_request", "CreateTerminalRequest", acp.CreateTerminalRequest{
			SessionID: "sess-1", Command: "go", Args: []string{"test", "./..."},
			Env: []acp.EnvVariable{{Name: "CGO_ENABLED", Value: "0"}}, Cwd: acp.Ptr("/repo"), OutputByteLimit: acp.Ptr(uint64(65536))}},
		{"create_terminal_response", "CreateTerminalResponse", acp.CreateTerminalResponse{TerminalID: "term-1"}},
		{"terminal_output_request", "TerminalOutputRequest", acp.TerminalOutputRequest{SessionID: "sess-1", TerminalID: "term-1"}},
		{"terminal_output_response", "TerminalOutputResponse", acp.TerminalOutputResponse{
			Output: "ok\n", Truncated: false, ExitStatus: &acp.TerminalExitStatus{ExitCode: acp.Ptr(uint32(0))}}},
		{"wait_for_terminal_exit_request", "WaitForTerminalExitRequest", acp.WaitForTerminalExitRequest{SessionID: "sess-1", TerminalID: "term-1"}},
		{"wait_for_terminal_exit_response", "WaitForTerminalExitResponse", acp.WaitForTerminalExitResponse{Signal: acp.Ptr("SIGTERM")}},
		{"kill_terminal_request", "KillTerminalRequest", acp.KillTerminalRequest{SessionID: "sess-1", TerminalID: "term-1"}},
		{"release_terminal_request", "ReleaseTerminalRequest", acp.ReleaseTerminalRequest{SessionID: "sess-1", TerminalID: "term-1"}},
	}
}
