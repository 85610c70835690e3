package acp

import (
	"context"
	"errors"
)

// Steering: a message the user sends while the agent works, taken into the
// running turn instead of waiting for it to end. ACP v1 has no method for
// it; agents and editors agree on the extension request _session/steering,
// which an agent advertises in the top-level _meta of its initialize answer
// as {"steering": {"supported": true}} (the shape the Claude Code and Codex
// ACP adapters use). A plain session/prompt sent during a turn stays an
// error.

// MethodSessionSteering is the extension request that steers a session's
// running turn.
const MethodSessionSteering = "_session/steering"

// MetaSteering is the key, in initialize's top-level _meta and in a
// steering request's _meta, under which steering is described.
const MetaSteering = "steering"

// SteeringRequest is the params of _session/steering.
type SteeringRequest struct {
	SessionID SessionID      `json:"sessionId"`
	Prompt    []ContentBlock `json:"prompt"`
	// Meta may carry {"steering": {"idleBehavior": "promptRequired"}}; see
	// IdleBehavior.
	Meta map[string]any `json:"_meta,omitempty"`
}

// Steering outcomes: what happened to a steering message.
const (
	// SteeringInjected: the message joined the running turn, whose
	// session/prompt answer comes once the agent has dealt with it.
	SteeringInjected = "injected"
	// SteeringStartedNewTurn: no turn was running, so the message started
	// one, as a session/prompt would have; nobody is answered when it
	// ends, its updates are the editor's only news of it.
	SteeringStartedNewTurn = "startedNewTurn"
	// SteeringPromptRequired: no turn was running and the editor asked
	// (IdleBehaviorPromptRequired) to send the message itself as a
	// session/prompt; nothing ran.
	SteeringPromptRequired = "promptRequired"
)

// IdleBehaviorPromptRequired is the one idleBehavior an editor may ask for:
// with no turn running, run nothing and answer SteeringPromptRequired.
const IdleBehaviorPromptRequired = "promptRequired"

// SteeringReasonNoRunningTurn is the reason of a SteeringPromptRequired
// answer.
const SteeringReasonNoRunningTurn = "noRunningTurn"

// SteeringResponse is the result of _session/steering.
type SteeringResponse struct {
	Outcome string `json:"outcome"`
	// Reason says why, for SteeringPromptRequired.
	Reason string `json:"reason,omitempty"`
}

// IdleBehavior is the request's _meta.steering.idleBehavior, "" when not
// given.
func (r SteeringRequest) IdleBehavior() string {
	st, _ := r.Meta[MetaSteering].(map[string]any)
	b, _ := st["idleBehavior"].(string)
	return b
}

// Validate checks sessionId, that the prompt has content, and the
// idleBehavior: an editor that asks for a behaviour the agent does not
// have must not have its message run otherwise.
func (r SteeringRequest) Validate() error {
	if err := requireString("sessionId", r.SessionID); err != nil {
		return err
	}
	if len(r.Prompt) == 0 {
		return InvalidParams("prompt", "a steering message needs content")
	}
	st, ok := r.Meta[MetaSteering]
	if !ok || st == nil {
		return nil
	}
	m, ok := st.(map[string]any)
	if !ok {
		return InvalidParams("_meta.steering", "not an object")
	}
	if b, ok := m["idleBehavior"]; ok && b != nil && b != IdleBehaviorPromptRequired {
		return InvalidParams("_meta.steering.idleBehavior", "unsupported idleBehavior (only \"promptRequired\")")
	}
	return nil
}

// ErrNoRunningTurn is returned by Steerer.Steer when the session has no
// turn that can take the message (it ended, or is ending): the Server then
// does what steering an idle session does.
var ErrNoRunningTurn = errors.New("no turn is running")

// Steerer is implemented by Sessions that can add a message to their
// running turn (_session/steering). The Server advertises steering when
// the adapter declares it (AgentInfo.Steering), and decides what the
// message becomes: it calls Steer only while a turn of the session runs
// (its Prompt has not returned); with none running, it runs the message as
// a turn itself or refuses it, as the request asks.
type Steerer interface {
	// Steer hands req.Prompt to the session's running turn and returns
	// once the agent has it, without waiting for the turn. The turn then
	// goes on until the agent has answered the message too, its updates
	// and stop reason being those of one turn. It returns an error
	// wrapping ErrNoRunningTurn when the turn ended (or is being
	// cancelled) before the message could join it. It may be called
	// concurrently with Prompt, Close and other Steer calls.
	Steer(ctx context.Context, req SteeringRequest) error
}
