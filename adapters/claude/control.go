package claude

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strconv"
)

// The writing side of the control protocol: messages and control requests
// on the CLI's stdin, and the answers to the CLI's own requests.

// send writes one JSON message as a line on the CLI's stdin.
func (c *conn) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encoding message for the CLI: %w", err)
	}
	if c.out != nil {
		b = c.out(b)
	}
	if c.trace != nil {
		c.trace(true, b)
	}
	b = append(b, '\n')
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := c.p.Stdin().Write(b); err != nil {
		return fmt.Errorf("writing to claude: %w", err)
	}
	return nil
}

// newRequestID returns the next host request id.
func (c *conn) newRequestID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextID++
	return "req_" + strconv.Itoa(c.nextID)
}

// notifyControl sends a control request whose answer nobody waits for (an
// interrupt: the turn learns the outcome from the events that follow).
func (c *conn) notifyControl(subtype string, fields map[string]any) error {
	return c.send(controlRequest(c.newRequestID(), subtype, fields))
}

// request sends a control request and waits for the CLI's answer.
func (c *conn) request(ctx context.Context, subtype string, fields map[string]any) ([]byte, error) {
	id := c.newRequestID()
	ch := make(chan reply, 1)
	c.mu.Lock()
	if c.ended {
		c.mu.Unlock()
		return nil, c.exitError()
	}
	c.pending[id] = ch
	c.room.Signal() // the answer may be behind a full queue's worth of events
	c.mu.Unlock()
	if err := c.send(controlRequest(id, subtype, fields)); err != nil {
		// A write fails when the process is gone; its exit says why. The
		// request stays pending meanwhile, so the reader reads on to EOF.
		defer c.forget(id)
		select {
		case <-c.done:
			return nil, c.exitError()
		case <-ctx.Done():
			return nil, err
		}
	}
	select {
	case rep, ok := <-ch:
		if !ok {
			return nil, c.exitError()
		}
		if rep.errText != "" {
			return nil, &controlError{subtype: subtype, msg: rep.errText, code: rep.code}
		}
		return rep.body, nil
	case <-ctx.Done():
		c.forget(id)
		return nil, ctx.Err()
	}
}

func (c *conn) forget(id string) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// controlFrame is a control_request on stdin; responseFrame a
// control_response.
type controlFrame struct {
	Type      string          `json:"type"`
	RequestID string          `json:"request_id"`
	Request   json.RawMessage `json:"request"`
}

type responseFrame struct {
	Type     string       `json:"type"`
	Response responseBody `json:"response"`
}

type responseBody struct {
	Subtype   string `json:"subtype"`
	RequestID string `json:"request_id"`
	Response  any    `json:"response,omitempty"`
	Error     string `json:"error,omitempty"`
}

// respond answers a control request from the CLI.
func (c *conn) respond(id string, body any) error {
	return c.send(responseFrame{Type: "control_response",
		Response: responseBody{Subtype: "success", RequestID: id, Response: body}})
}

// respondError refuses a control request from the CLI.
func (c *conn) respondError(id, msg string) error {
	return c.send(responseFrame{Type: "control_response",
		Response: responseBody{Subtype: "error", RequestID: id, Error: msg}})
}

// controlRequest builds a control request: {"subtype": ..., fields...}.
func controlRequest(id, subtype string, fields map[string]any) controlFrame {
	req := map[string]any{"subtype": subtype}
	maps.Copy(req, fields)
	body, err := json.Marshal(req)
	if err != nil {
		body = []byte(`{"subtype":` + strconv.Quote(subtype) + `}`)
	}
	return controlFrame{Type: "control_request", RequestID: id, Request: body}
}

// controlError is the CLI's refusal of a host control request.
type controlError struct {
	subtype, msg, code string
}

func (e *controlError) Error() string {
	return fmt.Sprintf("claude refused %s: %s", e.subtype, e.msg)
}
