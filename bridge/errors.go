package bridge

import (
	"context"
	"errors"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/internal/jsonrpc"
)

// wireError turns an adapter's or handler's error into what goes on the wire,
// in one place: ACP errors pass through with their code and data; a request
// cancelled by $/cancel_request or by the connection ending becomes -32800;
// anything else becomes -32603 carrying the error's text, which is what a
// user sees in the editor.
func wireError(ctx context.Context, err error) error {
	var ae *acp.Error
	if errors.As(err, &ae) {
		if error(ae) == err {
			return ae
		}
		// Keep the detail a wrapper added ("Invalid params: cwd: ...").
		return acp.NewError(ae.Code, err.Error(), ae.Data)
	}
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
		return acp.NewError(int(acp.ErrRequestCancelled.Code), "Request cancelled", map[string]any{"reason": err.Error()})
	}
	return acp.NewError(int(jsonrpc.ErrInternal.Code), "Internal error: "+err.Error(), nil)
}
