package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/internal/jsonrpc"
)

// method is the handler of one ACP method on a connection.
type method func(c *connection, ctx context.Context, params json.RawMessage) (any, error)

// methods maps every agent method of ACP v1 that the bridge serves. Which of
// them an adapter really supports, and through which of its interfaces, is
// decided per call (see acp.Adapter and acp.Forwarder).
var methods = map[string]method{
	acp.MethodInitialize:             (*connection).initialize,
	acp.MethodAuthenticate:           (*connection).authenticate,
	acp.MethodLogout:                 (*connection).logout,
	acp.MethodSessionNew:             (*connection).newSession,
	acp.MethodSessionLoad:            (*connection).loadSession,
	acp.MethodSessionResume:          (*connection).resumeSession,
	acp.MethodSessionList:            (*connection).listSessions,
	acp.MethodSessionClose:           (*connection).closeSession,
	acp.MethodSessionDelete:          (*connection).deleteSession,
	acp.MethodSessionFork:            (*connection).forkSession,
	acp.MethodSessionPrompt:          (*connection).prompt,
	acp.MethodSessionSetMode:         forwardable(acp.MethodSessionSetMode, sessionRequest(acp.MethodSessionSetMode)),
	acp.MethodSessionSetConfigOption: forwardable(acp.MethodSessionSetConfigOption, sessionRequest(acp.MethodSessionSetConfigOption)),
	acp.MethodSessionSetModel:        forwardable(acp.MethodSessionSetModel, sessionRequest(acp.MethodSessionSetModel)),
	acp.MethodSessionSteering:        forwardable(acp.MethodSessionSteering, (*connection).steer),
}

// handle is the connection's JSON-RPC handler: it routes calls and
// notifications (session/cancel never gets here; see preempt) and turns every
// error into its wire form. A method the bridge does not serve goes to a
// Forwarder, whose agent may serve it (extension methods).
func (c *connection) handle(ctx context.Context, req *jsonrpc.Request) (any, error) {
	<-c.ready
	log := c.log.With().Str("method", req.Method).Str("rpc_id", req.ID.String()).Logger()
	f, fw := c.srv.adapter.(acp.Forwarder)
	if !req.IsCall() {
		if fw && req.Method != acp.MethodSessionCancel && c.isInitialized() {
			c.notifyRaw(ctx, f, req)
			return nil, nil
		}
		c.notification(req)
		return nil, nil
	}
	m, ok := methods[req.Method]
	if !ok && fw {
		ok = true
		m = func(c *connection, ctx context.Context, params json.RawMessage) (any, error) {
			return c.forward(ctx, f, req.Method, params)
		}
	}
	if !ok {
		return nil, acp.NewError(int(jsonrpc.ErrMethodNotFound.Code),
			"Method not found", map[string]any{"method": req.Method})
	}
	if req.Method != acp.MethodInitialize && !c.isInitialized() {
		return nil, acp.NewError(int(jsonrpc.ErrInvalidRequest.Code),
			"Invalid request: initialize must be called before "+req.Method, nil)
	}
	if req.Method == acp.MethodSessionPrompt {
		// preempt noted the prompt; begin takes what a cancel read since
		// left for it.
		ctx = context.WithValue(ctx, promptKey{}, req.ID)
		defer c.arrived(req.ID, req.Params)
	}
	start := time.Now()
	res, err := m(c, ctx, req.Params)
	if err != nil {
		err = wireError(ctx, err)
		log.Debug().Err(err).Dur("took", time.Since(start)).Msg("request failed")
		return nil, err
	}
	log.Debug().Dur("took", time.Since(start)).Msg("request answered")
	return res, nil
}

// notification handles notifications other than session/cancel. Unknown
// extension notifications (leading underscore) are ignored, as ACP requires;
// other unknown ones are ignored too, since a notification cannot be answered,
// but logged.
func (c *connection) notification(req *jsonrpc.Request) {
	switch {
	case req.Method == acp.MethodSessionCancel:
		// Handled in preempt; reaching here means it was malformed.
	case strings.HasPrefix(req.Method, "_"):
		c.log.Debug().Str("method", req.Method).Msg("extension notification ignored")
	default:
		c.log.Warn().Str("method", req.Method).Msg("unknown notification ignored")
	}
}

func (c *connection) isInitialized() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.initialized
}

// decode reads params into v and validates them; every failure is an
// invalid-params error whose data names the field.
func decode(params json.RawMessage, v interface{ Validate() error }) error {
	return acp.DecodeParams(params, v)
}

// unsupported is the answer to a method the adapter does not implement; the
// capability behind it was never advertised.
func unsupported(method, why string) error {
	return acp.NewError(int(jsonrpc.ErrMethodNotFound.Code), "Method not found",
		map[string]any{"method": method, "reason": why})
}

// lookup finds a session of this connection or answers resource-not-found.
func (c *connection) lookup(id acp.SessionID) (*session, error) {
	if s := c.session(id); s != nil {
		return s, nil
	}
	return nil, acp.NewError(int(acp.ErrResourceNotFound.Code), "Resource not found",
		map[string]any{"sessionId": id, "reason": fmt.Sprintf("no session %q on this connection", id)})
}
