package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/internal/jsonrpc"
)

// conduit is the adapter's side of an open session as the Server's
// handlers see it, whichever way the adapter serves it: a typed
// acp.Session (typedConduit) or a Forwarder's acp.RawSession
// (rawConduit). The handlers call it and never ask which it is; what
// differs between the two is here, in one place.
//
// The methods keep the contract's rules: prompt runs on the turn's
// goroutine with the turn's ctx, one at a time; notify and cancelChild
// run in the read loop and must not block; Close is idempotent.
type conduit interface {
	// ID is the ACP session id.
	ID() acp.SessionID
	// state is the session's modes, config options and commands; a raw
	// session's are in its agent's answers, so it has none here.
	state() acp.SessionState
	// prompt runs one turn (ctx is the turn's; params are req as the
	// editor sent them) and returns the session/prompt answer, which is
	// "cancelled" when session/cancel ended the turn.
	prompt(ctx context.Context, req acp.PromptRequest, params json.RawMessage, log *zerolog.Logger) (any, error)
	// call answers a request about the session other than session/prompt:
	// a raw session's agent gets it with its params unchanged and answers
	// it itself; a typed session serves set_mode, set_config_option and
	// set_model from its state (acp.ServeSession) and leaves the others
	// (steering, extension methods) to typed, the Server's.
	call(ctx context.Context, method string, params json.RawMessage, typed func() (any, error)) (any, error)
	// notify passes a notification about the session (session/cancel with
	// no turn running included) to a raw session's agent; a typed session
	// has nothing under way but its turn, so otherwise (nil: nothing) is
	// done instead.
	notify(ctx context.Context, method string, params json.RawMessage, otherwise func() error) error
	// cancelChild stops the child session id (params are the editor's
	// session/cancel naming it), not the session's turn.
	cancelChild(ctx context.Context, id acp.SessionID, params json.RawMessage) error
	// steer adds a message to the running turn (acp.Steerer); only a
	// typed session's turn is run by the Server, so only it is asked.
	steer(ctx context.Context, req acp.SteeringRequest) error
	// Close ends the session.
	Close() error
}

// errChildNotRunning is cancelChild's report of a child that had nothing
// running (or a session that cancels no child alone).
var errChildNotRunning = errors.New("session/cancel for a child that is not running ignored")

// cancelledByClient reports whether the turn of ctx was ended by
// session/cancel, logging err, the adapter's way of unwinding, if any.
func cancelledByClient(ctx context.Context, err error, log *zerolog.Logger) bool {
	if !errors.Is(context.Cause(ctx), errCancelledByClient) {
		return false
	}
	if err != nil {
		log.Debug().Err(err).Msg("turn unwound with an error after session/cancel")
	}
	return true
}

// typedConduit serves a session through the typed contract: the Server
// decodes and checks each request and calls the Session.
type typedConduit struct{ s acp.Session }

func (t typedConduit) ID() acp.SessionID { return t.s.ID() }

func (t typedConduit) state() acp.SessionState { return t.s.State() }

func (t typedConduit) prompt(ctx context.Context, req acp.PromptRequest, _ json.RawMessage, log *zerolog.Logger) (any, error) {
	stop, err := t.s.Prompt(ctx, req)
	switch {
	case cancelledByClient(ctx, err, log):
		// ACP: a cancelled turn ends with stopReason "cancelled" as a
		// result, whatever the adapter's way of unwinding was.
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	case err != nil:
		return nil, err
	case stop == "":
		return nil, acp.NewError(int(jsonrpc.ErrInternal.Code), "Internal error: the agent ended the turn without a stop reason", nil)
	}
	return acp.PromptResponse{StopReason: stop}, nil
}

// call serves what the session's state answers (acp.ServeSession) and
// leaves the rest to the Server's typed.
func (t typedConduit) call(ctx context.Context, method string, params json.RawMessage, typed func() (any, error)) (any, error) {
	if res, served, err := acp.ServeSession(ctx, t.s, method, params); served {
		return res, err
	}
	if typed == nil {
		return nil, unsupported(method, "this session does not serve it")
	}
	return typed()
}

func (t typedConduit) notify(_ context.Context, _ string, _ json.RawMessage, otherwise func() error) error {
	if otherwise == nil {
		return nil
	}
	return otherwise()
}

func (t typedConduit) cancelChild(_ context.Context, id acp.SessionID, _ json.RawMessage) error {
	if cc, ok := t.s.(acp.ChildCanceller); ok && cc.CancelChild(id) {
		return nil
	}
	return errChildNotRunning
}

func (t typedConduit) steer(ctx context.Context, req acp.SteeringRequest) error {
	st, ok := t.s.(acp.Steerer)
	if !ok {
		return fmt.Errorf("%w: session %s takes no steering", acp.ErrInternal, t.s.ID())
	}
	return st.Steer(ctx, req)
}

func (t typedConduit) Close() error { return t.s.Close() }

// rawConduit serves a session whose agent speaks ACP itself: requests
// pass with their params unchanged and the agent's answers are written
// unchanged, the Server keeping only its turn rules.
type rawConduit struct{ s acp.RawSession }

func (r rawConduit) ID() acp.SessionID { return r.s.ID() }

func (r rawConduit) state() acp.SessionState { return acp.SessionState{} }

func (r rawConduit) prompt(ctx context.Context, _ acp.PromptRequest, params json.RawMessage, log *zerolog.Logger) (any, error) {
	raw, err := r.s.Forward(ctx, acp.MethodSessionPrompt, params)
	if cancelledByClient(ctx, err, log) {
		return cancelledAnswer(raw, err, log), nil
	}
	if err == nil && len(raw) == 0 {
		return nil, acp.NewError(int(jsonrpc.ErrInternal.Code), "Internal error: the agent ended the turn without an answer", nil)
	}
	return rawResult(raw, err)
}

func (r rawConduit) call(ctx context.Context, method string, params json.RawMessage, _ func() (any, error)) (any, error) {
	return rawResult(r.s.Forward(ctx, method, params))
}

func (r rawConduit) notify(ctx context.Context, method string, params json.RawMessage, _ func() error) error {
	return r.s.Notify(ctx, method, params)
}

// cancelChild hands the agent the editor's notification unchanged: the
// agent that announced the child is the one that stops it.
func (r rawConduit) cancelChild(ctx context.Context, _ acp.SessionID, params json.RawMessage) error {
	return r.s.Notify(ctx, acp.MethodSessionCancel, params)
}

func (r rawConduit) steer(context.Context, acp.SteeringRequest) error {
	return fmt.Errorf("%w: the agent steers its own turns", acp.ErrInternal)
}

func (r rawConduit) Close() error { return r.s.Close() }
