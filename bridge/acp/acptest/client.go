package acptest

import (
	"context"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// Client is an acp.Client test double whose behaviour is a set of optional
// funcs. Unset, SessionUpdate accepts the update, RequestPermission answers
// the "cancelled" outcome (no user is there to choose), the fs and terminal
// methods answer method-not-found, and Capabilities are Caps.
type Client struct {
	Update     func(context.Context, acp.SessionNotification) error
	Permission func(context.Context, acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error)
	Elicit     func(context.Context, acp.CreateElicitationRequest) (acp.CreateElicitationResponse, error)
	Caps       acp.ClientCapabilities
}

var _ acp.Client = (*Client)(nil)

// SessionUpdate calls Update.
func (c *Client) SessionUpdate(ctx context.Context, n acp.SessionNotification) error {
	if c.Update == nil {
		return nil
	}
	return c.Update(ctx, n)
}

// RequestPermission calls Permission.
func (c *Client) RequestPermission(ctx context.Context, r acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	if c.Permission == nil {
		return acp.RequestPermissionResponse{Outcome: acp.PermissionCancelled()}, nil
	}
	return c.Permission(ctx, r)
}

// CreateElicitation calls Elicit; unset, it answers the cancel action.
func (c *Client) CreateElicitation(ctx context.Context, r acp.CreateElicitationRequest) (acp.CreateElicitationResponse, error) {
	if c.Elicit == nil {
		return acp.CreateElicitationResponse{Action: acp.ElicitationCancel}, nil
	}
	return c.Elicit(ctx, r)
}

// ReadTextFile answers method-not-found.
func (c *Client) ReadTextFile(context.Context, acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	return acp.ReadTextFileResponse{}, acp.ErrMethodNotFound
}

// WriteTextFile answers method-not-found.
func (c *Client) WriteTextFile(context.Context, acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	return acp.WriteTextFileResponse{}, acp.ErrMethodNotFound
}

// CreateTerminal answers method-not-found.
func (c *Client) CreateTerminal(context.Context, acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	return acp.CreateTerminalResponse{}, acp.ErrMethodNotFound
}

// TerminalOutput answers method-not-found.
func (c *Client) TerminalOutput(context.Context, acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	return acp.TerminalOutputResponse{}, acp.ErrMethodNotFound
}

// WaitForTerminalExit answers method-not-found.
func (c *Client) WaitForTerminalExit(context.Context, acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	return acp.WaitForTerminalExitResponse{}, acp.ErrMethodNotFound
}

// KillTerminal answers method-not-found.
func (c *Client) KillTerminal(context.Context, acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	return acp.KillTerminalResponse{}, acp.ErrMethodNotFound
}

// ReleaseTerminal answers method-not-found.
func (c *Client) ReleaseTerminal(context.Context, acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	return acp.ReleaseTerminalResponse{}, acp.ErrMethodNotFound
}

// Capabilities returns Caps.
func (c *Client) Capabilities() acp.ClientCapabilities { return c.Caps }
