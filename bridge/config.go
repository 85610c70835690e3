package bridge

import (
	"context"
	"encoding/json"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// sessionRequest is the handler of a request about a session that the
// session's conduit serves whole: session/set_mode, set_config_option and
// set_model, which a typed session has checked against what it advertised
// (acp.ServeSession) and a raw one passes to its agent. It is reached
// through forwardable for a session not open here: a typed adapter's
// answer judges the params first, then reports the unknown session.
func sessionRequest(name string) method {
	return func(c *connection, ctx context.Context, params json.RawMessage) (any, error) {
		if _, _, err := acp.ServeSession(ctx, nil, name, params); err != nil {
			return nil, err
		}
		s, err := c.lookup(sessionIDOf(params))
		if err != nil {
			return nil, err
		}
		return s.agent.call(ctx, name, params, nil)
	}
}
