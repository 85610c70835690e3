package acp

import (
	"fmt"
)

// Error is a JSON-RPC error object as ACP uses it. Its Is method compares
// only Code, so errors.Is(err, ErrInvalidParams) holds for any invalid-params
// error however it was built or wrapped.
type Error struct {
	// Code is the JSON-RPC or ACP error code.
	Code int `json:"code"`
	// Message is a short, single-sentence description.
	Message string `json:"message"`
	// Data is optional structured detail (for invalid params: the field).
	Data any `json:"data,omitempty"`
}

// Error codes defined by JSON-RPC 2.0 and by ACP (schema $defs/ErrorCode).
const (
	CodeParseError       = -32700
	CodeInvalidRequest   = -32600
	CodeMethodNotFound   = -32601
	CodeInvalidParams    = -32602
	CodeInternalError    = -32603
	CodeAuthRequired     = -32000
	CodeResourceNotFound = -32002
	CodeRequestCancelled = -32800
)

// Sentinel errors, one per code. Wrap them to add detail, e.g.
// fmt.Errorf("%w: unknown session %s", acp.ErrResourceNotFound, id); the
// code survives the wrapping.
var (
	// ErrParse is -32700: the message was not valid JSON.
	ErrParse = &Error{Code: CodeParseError, Message: "Parse error"}
	// ErrInvalidRequest is -32600: not a valid request object, or not
	// acceptable in the current state.
	ErrInvalidRequest = &Error{Code: CodeInvalidRequest, Message: "Invalid request"}
	// ErrMethodNotFound is -32601.
	ErrMethodNotFound = &Error{Code: CodeMethodNotFound, Message: "Method not found"}
	// ErrInvalidParams is -32602.
	ErrInvalidParams = &Error{Code: CodeInvalidParams, Message: "Invalid params"}
	// ErrInternal is -32603.
	ErrInternal = &Error{Code: CodeInternalError, Message: "Internal error"}
	// ErrAuthRequired is -32000: the agent needs authenticate first.
	ErrAuthRequired = &Error{Code: CodeAuthRequired, Message: "Authentication required"}
	// ErrResourceNotFound is -32002: e.g. an unknown session or file.
	ErrResourceNotFound = &Error{Code: CodeResourceNotFound, Message: "Resource not found"}
	// ErrRequestCancelled is -32800: the request was cancelled
	// ($/cancel_request).
	ErrRequestCancelled = &Error{Code: CodeRequestCancelled, Message: "Request cancelled"}
)

// NewError returns an *Error with the given code, message and data.
func NewError(code int, msg string, data any) *Error {
	return &Error{Code: code, Message: msg, Data: data}
}

// InvalidParams returns an invalid-params error naming the offending field,
// with message "Invalid params: <field>: <reason>" and data
// {"field": field, "reason": reason}, so an editor can point at the field.
func InvalidParams(field, reason string) error {
	return &Error{
		Code:    CodeInvalidParams,
		Message: fmt.Sprintf("Invalid params: %s: %s", field, reason),
		Data:    map[string]any{"field": field, "reason": reason},
	}
}

// Error implements error. It returns Message alone: detail belongs in
// Message (see InvalidParams) or in a wrapping error.
func (e *Error) Error() string { return e.Message }

// Is reports whether target is an *Error with the same Code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// RPCError returns the JSON-RPC error triple. The JSON-RPC layer looks for
// this method so that it can convert ACP errors without importing acp.
func (e *Error) RPCError() (code int64, message string, data any) {
	return int64(e.Code), e.Message, e.Data
}
