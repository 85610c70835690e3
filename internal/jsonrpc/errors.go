package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// Error is a JSON-RPC error object. Its Is method compares only Code, so
// errors.Is(err, ErrInvalidParams) holds for any invalid-params error however
// it was built or wrapped. Add detail by wrapping a sentinel:
// fmt.Errorf("%w: missing cwd", ErrInvalidParams).
type Error struct {
	// Code is the JSON-RPC (or application) error code.
	Code int64 `json:"code"`
	// Message is a short description.
	Message string `json:"message"`
	// Data is optional structured detail, passed through as raw JSON.
	Data json.RawMessage `json:"data,omitempty"`
}

// The JSON-RPC 2.0 error codes, plus -32800 which ACP uses for
// "$/cancel_request". Each sentinel is the error a Conn sends for that case.
var (
	// ErrParse (-32700): the message was not valid JSON.
	ErrParse = &Error{Code: -32700, Message: "Parse error"}
	// ErrInvalidRequest (-32600): valid JSON, but not a request or response
	// object (batches included).
	ErrInvalidRequest = &Error{Code: -32600, Message: "Invalid request"}
	// ErrMethodNotFound (-32601): handlers return it for unknown methods.
	ErrMethodNotFound = &Error{Code: -32601, Message: "Method not found"}
	// ErrInvalidParams (-32602): the params did not fit the method.
	ErrInvalidParams = &Error{Code: -32602, Message: "Invalid params"}
	// ErrInternal (-32603): the handler failed (or panicked).
	ErrInternal = &Error{Code: -32603, Message: "Internal error"}
	// ErrRequestCancelled (-32800): the request was cancelled by
	// "$/cancel_request" or by the connection shutting down.
	ErrRequestCancelled = &Error{Code: -32800, Message: "Request cancelled"}
)

// Error returns the message.
func (e *Error) Error() string { return e.Message }

// Is reports whether target is an *Error with the same Code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// rpcError is how errors from packages that must stay unknown to this one
// (acp.Error) describe themselves on the wire.
type rpcError interface {
	RPCError() (code int64, message string, data any)
}

// toWireError turns whatever a handler returned into the error object that is
// sent. It is the only place where that mapping happens:
//   - context.Canceled, or anything carrying -32800, becomes exactly
//     ErrRequestCancelled (ACP: cancelled requests answer "Request cancelled");
//   - an *Error passes through; when it was wrapped, the message is the whole
//     chain's text so the added detail reaches the peer;
//   - an error with an RPCError method is converted the same way, its data
//     marshalled (dropped, with a note in the message, if that fails);
//   - anything else is -32603 with err.Error() as the message; so is a typed
//     nil *Error (a handler bug), with a message saying so.
func toWireError(err error) *Error {
	if e, ok := err.(*Error); ok && e == nil {
		return &Error{Code: ErrInternal.Code, Message: "handler returned a nil *Error"}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, ErrRequestCancelled) {
		return &Error{Code: ErrRequestCancelled.Code, Message: ErrRequestCancelled.Message}
	}
	if e, ok := err.(*Error); ok {
		return e
	}
	var e *Error
	if errors.As(err, &e) {
		return &Error{Code: e.Code, Message: err.Error(), Data: e.Data}
	}
	var r rpcError
	if errors.As(err, &r) {
		return fromRPCError(err, r)
	}
	return &Error{Code: ErrInternal.Code, Message: err.Error()}
}

// fromRPCError converts r, found in err's chain, to the wire form.
func fromRPCError(err error, r rpcError) *Error {
	code, msg, data := r.RPCError()
	if _, direct := err.(rpcError); !direct {
		msg = err.Error()
	}
	w := &Error{Code: code, Message: msg}
	if data != nil {
		raw, merr := json.Marshal(data)
		if merr != nil {
			w.Message = fmt.Sprintf("%s (error data dropped: %v)", msg, merr)
		} else {
			w.Data = raw
		}
	}
	return w
}
