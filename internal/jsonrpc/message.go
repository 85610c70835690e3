package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// Message is a JSON-RPC 2.0 message: a *Request or a *Response. The set is
// closed; no other type can implement it.
type Message interface {
	isMessage()
}

// Request is a call (with an ID) or a notification (without one).
type Request struct {
	// ID is the zero ID for a notification.
	ID ID
	// Method is the method name.
	Method string
	// Params is the raw params value (object or array), nil when absent.
	Params json.RawMessage
}

// Response answers a call. Exactly one of Result and Error is meaningful:
// Error wins when it is set, and a nil Result encodes as null.
type Response struct {
	// ID is the id of the answered call; the zero ID encodes as null (for
	// errors about messages whose id could not be read).
	ID ID
	// Result is the raw result value.
	Result json.RawMessage
	// Error is the error object of a failed call.
	Error *Error
}

func (*Request) isMessage()  {}
func (*Response) isMessage() {}

// IsCall reports whether r expects a response (it has an id).
func (r *Request) IsCall() bool { return r.ID.IsValid() }

// DecodeError is the error DecodeMessage returns. It wraps ErrParse or
// ErrInvalidRequest with detail, and carries the id of the offending message
// when one could be recovered, so the error reply can name it.
type DecodeError struct {
	// ID is the recovered id, or the zero ID.
	ID ID
	// Err wraps ErrParse or ErrInvalidRequest.
	Err error
	// response is set when the message looked like a response (no method, a
	// result or error member): such a message must not be answered.
	response bool
}

// Error returns the underlying error's text.
func (e *DecodeError) Error() string { return e.Err.Error() }

// Unwrap returns the underlying error.
func (e *DecodeError) Unwrap() error { return e.Err }

// EncodeMessage encodes m as compact JSON on a single line, without a
// trailing newline. Raw values (params, result, error data) are compacted,
// since raw JSON passed through from elsewhere may span lines; an invalid raw
// value is an error.
func EncodeMessage(m Message) ([]byte, error) {
	return appendMessage(nil, m, opening, false)
}

// The openings of an encoded message: with the version member, and without
// it for peers whose protocol leaves it out (Options.OmitVersion). Members
// follow without a leading comma.
const (
	opening          = `{"jsonrpc":"2.0",`
	openingNoVersion = `{`
)

// appendMessage appends the encoding of m to dst. Error data is always
// compacted; params and results only unless trusted is set, which callers
// may set when those came from encoding/json (or a jsonAppender), whose
// output is compact already: compacting it again would only cost time.
// open is opening or openingNoVersion.
func appendMessage(dst []byte, m Message, open string, trusted bool) ([]byte, error) {
	start := len(dst)
	dst = append(dst, open...)
	var err error
	switch m := m.(type) {
	case *Request:
		dst, err = appendRequest(dst, m, trusted)
	case *Response:
		dst, err = appendResponse(dst, m, trusted)
	default:
		err = fmt.Errorf("unknown message type %T", m)
	}
	if err != nil {
		return dst[:start], fmt.Errorf("encoding message: %w", err)
	}
	return append(dst, '}'), nil
}

func appendRequest(dst []byte, r *Request, trusted bool) ([]byte, error) {
	if r.ID.IsValid() {
		dst = append(dst, `"id":`...)
		dst = appendID(dst, r.ID)
		dst = append(dst, ',')
	}
	dst = append(dst, `"method":`...)
	dst = appendString(dst, r.Method)
	if len(r.Params) > 0 {
		dst = append(dst, `,"params":`...)
		var err error
		if dst, err = appendRaw(dst, r.Params, trusted); err != nil {
			return dst, fmt.Errorf("params: %w", err)
		}
	}
	return dst, nil
}

func appendResponse(dst []byte, r *Response, trusted bool) ([]byte, error) {
	dst = append(dst, `"id":`...)
	dst = appendID(dst, r.ID)
	if e := r.Error; e != nil {
		dst = append(dst, `,"error":{"code":`...)
		dst = strconv.AppendInt(dst, e.Code, 10)
		dst = append(dst, `,"message":`...)
		dst = appendString(dst, e.Message)
		if len(e.Data) > 0 {
			dst = append(dst, `,"data":`...)
			var err error
			if dst, err = appendRaw(dst, e.Data, false); err != nil {
				return dst, fmt.Errorf("error data: %w", err)
			}
		}
		return append(dst, '}'), nil
	}
	dst = append(dst, `,"result":`...)
	if len(r.Result) == 0 {
		return append(dst, "null"...), nil
	}
	var err error
	if dst, err = appendRaw(dst, r.Result, trusted); err != nil {
		return dst, fmt.Errorf("result: %w", err)
	}
	return dst, nil
}

// appendRaw appends raw, compacted unless it is known to be compact.
func appendRaw(dst []byte, raw json.RawMessage, compact bool) ([]byte, error) {
	if compact {
		return append(dst, raw...), nil
	}
	b := bytes.NewBuffer(dst)
	if err := json.Compact(b, raw); err != nil {
		return dst, err
	}
	return b.Bytes(), nil
}

func appendID(dst []byte, id ID) []byte {
	switch id.kind {
	case idNumber:
		return strconv.AppendInt(dst, id.num, 10)
	case idString:
		return appendString(dst, id.str)
	}
	return append(dst, "null"...)
}

// appendString appends s as encoding/json encodes it. Method names and ids
// are plain ASCII in practice, which is copied as is; anything else goes
// through encoding/json for its escaping rules.
func appendString(dst []byte, s string) []byte {
	for i := range len(s) {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			raw, _ := json.Marshal(s) // strings always marshal
			return append(dst, raw...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

// DecodeMessage decodes one JSON-RPC 2.0 message. Errors are *DecodeError
// wrapping ErrParse when data is not JSON, or ErrInvalidRequest when it is
// JSON but not a request or response object: batch arrays (not supported), a
// "jsonrpc" member other than "2.0", members of the wrong type. Unknown
// members are ignored. Member names are matched exactly, as JSON-RPC is
// case-sensitive.
func DecodeMessage(data []byte) (Message, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return nil, &DecodeError{Err: fmt.Errorf("%w: %v", ErrParse, err)}
		}
		if t := trimSpace(data); len(t) > 0 && t[0] == '[' {
			return nil, invalid(ID{}, "batch requests are not supported")
		}
		return nil, invalid(ID{}, "message is not an object")
	}
	if fields == nil {
		return nil, invalid(ID{}, "message is not an object")
	}
	var id ID
	rawID, hasID := fields["id"]
	idErr := error(nil)
	if hasID {
		idErr = id.UnmarshalJSON(rawID)
	}
	if v, ok := fields["jsonrpc"]; !ok || string(trimSpace(v)) != `"2.0"` {
		return nil, invalidMsg(fields, id, `"jsonrpc" must be "2.0"`)
	}
	if _, ok := fields["method"]; ok {
		return decodeRequest(fields, id, hasID, idErr)
	}
	return decodeResponse(fields, id, hasID, idErr)
}

func decodeRequest(fields map[string]json.RawMessage, id ID, hasID bool, idErr error) (Message, error) {
	switch {
	case idErr != nil:
		return nil, invalid(ID{}, idErr.Error())
	case hasID && !id.IsValid():
		return nil, invalid(ID{}, "request id must not be null")
	}
	r := &Request{ID: id}
	if err := json.Unmarshal(fields["method"], &r.Method); err != nil || r.Method == "" {
		return nil, invalid(id, `"method" must be a non-empty string`)
	}
	if _, ok := fields["result"]; ok {
		return nil, invalid(id, `a request must not have "result"`)
	}
	if _, ok := fields["error"]; ok {
		return nil, invalid(id, `a request must not have "error"`)
	}
	if p, ok := fields["params"]; ok {
		p = trimSpace(p)
		switch {
		case string(p) == "null":
			// Treated as absent: some clients send "params": null.
		case p[0] == '{' || p[0] == '[':
			r.Params = p
		default:
			return nil, invalid(id, `"params" must be an object or an array`)
		}
	}
	return r, nil
}

func decodeResponse(fields map[string]json.RawMessage, id ID, hasID bool, idErr error) (Message, error) {
	result, hasResult := fields["result"]
	rawErr, hasErr := fields["error"]
	if hasErr && string(trimSpace(rawErr)) == "null" {
		hasErr = false // some peers send "error": null beside a result
	}
	bad := func(why string) error {
		return &DecodeError{ID: id, Err: fmt.Errorf("%w: %s", ErrInvalidRequest, why), response: true}
	}
	switch {
	case !hasResult && !hasErr:
		return nil, invalid(id, `message has neither "method", "result" nor "error"`)
	case idErr != nil:
		return nil, bad(idErr.Error())
	case !hasID:
		return nil, bad(`a response must have an "id"`)
	case hasResult && hasErr:
		return nil, bad(`a response must not have both "result" and "error"`)
	}
	r := &Response{ID: id}
	if hasResult {
		r.Result = trimSpace(result)
		return r, nil
	}
	r.Error = new(Error)
	if err := json.Unmarshal(rawErr, r.Error); err != nil {
		return nil, bad(fmt.Sprintf(`decoding "error": %v`, err))
	}
	if len(r.Error.Data) > 0 && string(trimSpace(r.Error.Data)) == "null" {
		r.Error.Data = nil
	}
	return r, nil
}

// invalidMsg is invalid for a message whose kind is not yet known: it is
// marked as a response when it has no method but a result or error.
func invalidMsg(fields map[string]json.RawMessage, id ID, why string) error {
	e := &DecodeError{ID: id, Err: fmt.Errorf("%w: %s", ErrInvalidRequest, why)}
	_, hasMethod := fields["method"]
	_, hasResult := fields["result"]
	_, hasError := fields["error"]
	e.response = !hasMethod && (hasResult || hasError)
	return e
}

func invalid(id ID, why string) error {
	return &DecodeError{ID: id, Err: fmt.Errorf("%w: %s", ErrInvalidRequest, why)}
}
