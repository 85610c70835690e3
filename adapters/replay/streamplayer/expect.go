package streamplayer

// What the player matches a line the host writes against.

import (
	"encoding/json"
)

// msg is the part of a JSON line that matching looks at. Ids stay raw JSON
// so that any id type round-trips unchanged.
type msg struct {
	Type      string          `json:"type"`
	UUID      string          `json:"uuid"` // a user message's, when the host gave one
	RequestID json.RawMessage `json:"request_id"`
	Request   struct {
		Subtype   string `json:"subtype"`
		ToolUseID string `json:"tool_use_id"`
	} `json:"request"`
	Response struct {
		Subtype   string          `json:"subtype"`
		RequestID json.RawMessage `json:"request_id"`
		Response  struct {
			Behavior  string `json:"behavior"`
			Message   string `json:"message"`
			Interrupt bool   `json:"interrupt"`
		} `json:"response"`
	} `json:"response"`
}

// expect is a '<' step reduced to what a live line must match.
type expect struct {
	idx int // the step's index in the script
	typ string
	sub string // request.subtype or response.subtype
	// rid is, for a control_request, the recorded request_id; for a
	// control_response, the request_id it answers as written on stdout.
	rid string
	// behavior and interrupt are, for a control_response, the recorded
	// answer's response.behavior ("allow", "deny"; "" for other answers)
	// and response.interrupt.
	behavior  string
	interrupt bool
	// uuid is, for a user step, the uuid the recorded host gave the
	// message ("" for none).
	uuid string
	done bool // matched by a live line
}

func (e *expect) matches(m *msg) bool {
	if e.typ != m.Type {
		return false
	}
	switch e.typ {
	case typeControlRequest:
		return e.sub == m.Request.Subtype
	case typeControlResponse:
		return e.sub == m.Response.Subtype && e.rid == string(m.Response.RequestID)
	}
	return true
}
