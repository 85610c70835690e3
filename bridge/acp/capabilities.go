package acp

// Capabilities are declared one way: by what the adapter is. A method of
// the Adapter the Server may call is declared by implementing its optional
// interface (Authenticator, Loader, Resumer, Lister, Deleter, Forker),
// which a host learns from the type alone, without asking the adapter
// anything or starting its agent (adapters/auto relies on that for the
// agents it has not started); an adapter that serves a method for some of
// its configurations only is handed to the Server as a type with just the
// interfaces of that configuration. What has no method of the Adapter is
// in AgentInfo: the prompt content and MCP transports the sessions take,
// additional directories, steering (served by the sessions, see Steerer),
// auth methods, and _meta for agentCapabilities. An Initializer's answer
// is its agent's own declaration and replaces this one (see Initializer).

// Capabilities is the agentCapabilities the declaration of a and its info
// makes: every host of a typed adapter advertises these and serves them.
// session/close is served for every session.
func Capabilities(a Adapter, info AgentInfo) AgentCapabilities {
	_, loads := a.(Loader)
	caps := AgentCapabilities{
		LoadSession:        loads,
		PromptCapabilities: info.Prompt,
		McpCapabilities:    info.MCP,
		SessionCapabilities: SessionCapabilities{
			Close: &SessionCloseCapabilities{},
		},
	}
	if _, ok := a.(Lister); ok {
		caps.SessionCapabilities.List = &SessionListCapabilities{}
	}
	if _, ok := a.(Deleter); ok {
		caps.SessionCapabilities.Delete = &SessionDeleteCapabilities{}
	}
	if _, ok := a.(Resumer); ok {
		caps.SessionCapabilities.Resume = &SessionResumeCapabilities{}
	}
	if _, ok := a.(Forker); ok {
		caps.SessionCapabilities.Fork = &SessionForkCapabilities{}
	}
	if info.AdditionalDirectories {
		caps.SessionCapabilities.AdditionalDirectories = &SessionAdditionalDirectoriesCapabilities{}
	}
	if _, ok := a.(Authenticator); ok {
		caps.Auth = AgentAuthCapabilities{Logout: &LogoutCapabilities{}}
	}
	if len(info.Meta) > 0 {
		caps.Meta = info.Meta
	}
	return caps
}

// SteeringMeta is the top-level _meta of an initialize answer for info:
// steering is advertised there (not in agentCapabilities) by the agents
// and editors that use it; nil when info declares none.
func SteeringMeta(info AgentInfo) map[string]any {
	if !info.Steering {
		return nil
	}
	return map[string]any{MetaSteering: map[string]any{"supported": true}}
}
