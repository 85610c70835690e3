package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/internal/jsonrpc"
)

// sessionClient is the editor as one session's adapter sees it. It writes the
// session's updates, holding them until the answer that opened the session
// has been written, and it tracks the session's pending permission requests
// so session/cancel can withdraw them.
type sessionClient struct {
	c   *connection
	log zerolog.Logger

	mu      sync.Mutex
	id      acp.SessionID                      // guarded by mu; set by bind
	isOpen  bool                               // guarded by mu; false until the opening answer is written
	held    []heldFrame                        // guarded by mu; notifications sent before open
	permSeq uint64                             // guarded by mu
	perms   map[uint64]context.CancelCauseFunc // guarded by mu; pending permission and elicitation requests
}

var _ acp.RawClient = (*sessionClient)(nil)

// heldFrame is a notification held until the session is open: a typed
// update (n) or a raw frame from a passthrough adapter.
type heldFrame struct {
	n      *acp.SessionNotification
	child  acp.SessionID // the child session n is of; "" for the session's own
	method string
	params json.RawMessage
}

// errPermissionWithdrawn is the cancel cause of a permission request that
// session/cancel withdrew.
var errPermissionWithdrawn = errors.New("permission request withdrawn by session/cancel")

func (c *connection) newSessionClient(open bool) *sessionClient {
	return &sessionClient{c: c, log: c.log, isOpen: open, perms: make(map[uint64]context.CancelCauseFunc)}
}

func (sc *sessionClient) bind(id acp.SessionID) {
	sc.mu.Lock()
	sc.id = id
	sc.log = sc.c.log.With().Str("session", string(id)).Logger()
	sc.mu.Unlock()
}

// open writes the held updates, in order, and lets later ones through.
func (sc *sessionClient) open() {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	for _, h := range sc.held {
		var err error
		if h.n != nil {
			// Stamped here: during session/new the id is bound only once
			// the adapter has returned the session.
			h.n.SessionID = sc.id
			if h.child != "" {
				h.n.SessionID = h.child
			}
			err = sc.c.conn.Notify(context.Background(), acp.MethodSessionUpdate, *h.n)
		} else {
			sc.noteChild(h.method, h.params)
			err = sc.c.conn.NotifyRaw(context.Background(), h.method, h.params)
		}
		if err != nil {
			sc.log.Debug().Err(err).Msg("writing held update")
		}
	}
	sc.held = nil
	sc.isOpen = true
}

// SessionUpdate writes one session/update. The session id is always the
// session's own, whatever the adapter put there.
func (sc *sessionClient) SessionUpdate(ctx context.Context, n acp.SessionNotification) error {
	return sc.update(ctx, "", n)
}

// update writes one session/update of the session, or of its child
// session child.
func (sc *sessionClient) update(ctx context.Context, child acp.SessionID, n acp.SessionNotification) error {
	sc.mu.Lock()
	n.SessionID = sc.id
	if child != "" {
		n.SessionID = child
	}
	if !sc.isOpen {
		held := n
		sc.held = append(sc.held, heldFrame{n: &held, child: child})
		sc.mu.Unlock()
		return nil
	}
	sc.mu.Unlock()
	return sc.c.notifyUpdate(ctx, &n)
}

// notifyUpdate writes one session/update, encoded here (n.AppendJSON is
// what Notify would call) into a buffer of the connection's. Handed to
// Notify as an interface value, n was copied to the heap: one allocation
// of ~300 bytes for every update of a turn.
func (c *connection) notifyUpdate(ctx context.Context, n *acp.SessionNotification) error {
	buf, _ := c.encodeBufs.Get().(*[]byte)
	if buf == nil {
		buf = new([]byte)
	}
	data, err := n.AppendJSON((*buf)[:0])
	if err == nil {
		err = c.conn.NotifyRaw(ctx, acp.MethodSessionUpdate, data)
	}
	if cap(data) <= maxPooledUpdate {
		*buf = data[:0]
		c.encodeBufs.Put(buf)
	}
	return err
}

// maxPooledUpdate bounds the encoding buffers kept for reuse: a rare huge
// update (a whole file's diff) is not held on to.
const maxPooledUpdate = 64 << 10

// RequestPermission asks the editor. When session/cancel withdraws the
// request (or the turn ends otherwise), the editor's request is cancelled
// ($/cancel_request) and the adapter gets the "cancelled" outcome, which the
// ACP spec says ends the turn, rather than an error it would have to map.
func (sc *sessionClient) RequestPermission(ctx context.Context, req acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	return sc.requestPermission(ctx, "", req)
}

// requestPermission is RequestPermission for the session, or for its child
// session child.
func (sc *sessionClient) requestPermission(ctx context.Context, child acp.SessionID, req acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	var res acp.RequestPermissionResponse
	err := sc.withdrawable(ctx, child, func(ctx context.Context, id acp.SessionID) error {
		req.SessionID = id
		return sc.c.conn.Call(ctx, acp.MethodSessionRequestPermission, req, &res)
	})
	if errors.Is(err, errWithdrawn) {
		// Withdrawn by session/cancel, or the turn or connection ended:
		// either way the question is moot and the turn is over.
		return acp.RequestPermissionResponse{Outcome: acp.PermissionCancelled()}, nil
	}
	return res, err
}

// CreateElicitation asks the editor to fill in a form. Like a permission
// request, session/cancel withdraws it; the adapter then gets the cancel
// action.
func (sc *sessionClient) CreateElicitation(ctx context.Context, req acp.CreateElicitationRequest) (acp.CreateElicitationResponse, error) {
	return sc.createElicitation(ctx, "", req)
}

// createElicitation is CreateElicitation for the session, or for its child
// session child.
func (sc *sessionClient) createElicitation(ctx context.Context, child acp.SessionID, req acp.CreateElicitationRequest) (acp.CreateElicitationResponse, error) {
	caps := sc.Capabilities().Elicitation
	if req.Mode == acp.ElicitationModeForm && (caps == nil || caps.Form == nil) {
		return call[acp.CreateElicitationResponse](ctx, sc, acp.MethodElicitationCreate, false, req)
	}
	var res acp.CreateElicitationResponse
	err := sc.withdrawable(ctx, child, func(ctx context.Context, id acp.SessionID) error {
		req.SessionID = id
		return sc.c.conn.Call(ctx, acp.MethodElicitationCreate, req, &res)
	})
	if errors.Is(err, errWithdrawn) {
		return acp.CreateElicitationResponse{Action: acp.ElicitationCancel}, nil
	}
	return res, err
}

// errWithdrawn reports that a question to the editor became moot before it
// was answered.
var errWithdrawn = errors.New("question withdrawn")

// withdrawable runs one question to the editor so that session/cancel can
// withdraw it (withdrawPermissions); it then returns errWithdrawn. ask gets
// the id of the session asking: the session's own, or child when set.
func (sc *sessionClient) withdrawable(ctx context.Context, child acp.SessionID, ask func(context.Context, acp.SessionID) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	sc.mu.Lock()
	id := sc.id
	if child != "" {
		id = child
	}
	sc.permSeq++
	key := sc.permSeq
	sc.perms[key] = cancel
	sc.mu.Unlock()
	defer func() {
		sc.mu.Lock()
		delete(sc.perms, key)
		sc.mu.Unlock()
		cancel(context.Canceled)
	}()
	err := ask(ctx, id)
	if err != nil && ctx.Err() != nil {
		return errWithdrawn
	}
	return err
}

// withdrawPermissions cancels every pending permission request.
func (sc *sessionClient) withdrawPermissions() {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	for _, cancel := range sc.perms {
		cancel(errPermissionWithdrawn)
	}
}

// Capabilities are what the editor advertised at initialize.
func (sc *sessionClient) Capabilities() acp.ClientCapabilities {
	sc.c.mu.Lock()
	defer sc.c.mu.Unlock()
	return sc.c.clientCaps
}

// call makes one request to the editor if it advertised the capability;
// ACP forbids calling fs/* or terminal/* otherwise.
func call[Res any](ctx context.Context, sc *sessionClient, method string, allowed bool, req any) (Res, error) {
	var res Res
	if !allowed {
		return res, acp.NewError(int(jsonrpc.ErrMethodNotFound.Code),
			fmt.Sprintf("Method not found: the editor did not advertise %s", method), nil)
	}
	err := sc.c.conn.Call(ctx, method, req, &res)
	return res, err
}

func (sc *sessionClient) ReadTextFile(ctx context.Context, req acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	req.SessionID = sc.sessionID()
	return call[acp.ReadTextFileResponse](ctx, sc, acp.MethodFsReadTextFile, sc.Capabilities().Fs.ReadTextFile, req)
}

func (sc *sessionClient) WriteTextFile(ctx context.Context, req acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	req.SessionID = sc.sessionID()
	return call[acp.WriteTextFileResponse](ctx, sc, acp.MethodFsWriteTextFile, sc.Capabilities().Fs.WriteTextFile, req)
}

func (sc *sessionClient) CreateTerminal(ctx context.Context, req acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	req.SessionID = sc.sessionID()
	return call[acp.CreateTerminalResponse](ctx, sc, acp.MethodTerminalCreate, sc.Capabilities().Terminal, req)
}

func (sc *sessionClient) TerminalOutput(ctx context.Context, req acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	req.SessionID = sc.sessionID()
	return call[acp.TerminalOutputResponse](ctx, sc, acp.MethodTerminalOutput, sc.Capabilities().Terminal, req)
}

func (sc *sessionClient) WaitForTerminalExit(ctx context.Context, req acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	req.SessionID = sc.sessionID()
	return call[acp.WaitForTerminalExitResponse](ctx, sc, acp.MethodTerminalWaitForExit, sc.Capabilities().Terminal, req)
}

func (sc *sessionClient) KillTerminal(ctx context.Context, req acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	req.SessionID = sc.sessionID()
	return call[acp.KillTerminalResponse](ctx, sc, acp.MethodTerminalKill, sc.Capabilities().Terminal, req)
}

func (sc *sessionClient) ReleaseTerminal(ctx context.Context, req acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	req.SessionID = sc.sessionID()
	return call[acp.ReleaseTerminalResponse](ctx, sc, acp.MethodTerminalRelease, sc.Capabilities().Terminal, req)
}

func (sc *sessionClient) sessionID() acp.SessionID {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return sc.id
}

// CallRaw forwards an agent's request to the editor. A permission request
// is withdrawn on session/cancel like RequestPermission's, and the agent
// gets the cancelled outcome.
func (sc *sessionClient) CallRaw(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	return sc.StartCallRaw(ctx, method, params)()
}

var _ acp.RawCallStarter = (*sessionClient)(nil)

// StartCallRaw queues the request now and returns the wait for its answer
// (acp.RawCallStarter); CallRaw is both at once.
func (sc *sessionClient) StartCallRaw(ctx context.Context, method string, params json.RawMessage) func() (json.RawMessage, error) {
	perm := method == acp.MethodSessionRequestPermission
	release := func() {}
	if perm {
		var cancel context.CancelCauseFunc
		ctx, cancel = context.WithCancelCause(ctx)
		sc.mu.Lock()
		sc.permSeq++
		key := sc.permSeq
		sc.perms[key] = cancel
		sc.mu.Unlock()
		release = func() {
			sc.mu.Lock()
			delete(sc.perms, key)
			sc.mu.Unlock()
			cancel(context.Canceled)
		}
	}
	p, err := sc.c.conn.Start(ctx, method, params)
	return func() (json.RawMessage, error) {
		defer release()
		var res json.RawMessage
		if err == nil {
			err = p.Await(ctx, &res)
		}
		if perm && err != nil && ctx.Err() != nil {
			return json.RawMessage(`{"outcome":{"outcome":"cancelled"}}`), nil
		}
		var je *jsonrpc.Error
		if errors.As(err, &je) {
			var data any
			if len(je.Data) > 0 {
				data = je.Data
			}
			return nil, acp.NewError(int(je.Code), je.Message, data)
		}
		return res, err
	}
}

// NotifyRaw forwards an agent's notification to the editor, held like
// SessionUpdate until the session is open. A child the frame announces is
// registered as the session's as the frame is written (noteChild).
func (sc *sessionClient) NotifyRaw(ctx context.Context, method string, params json.RawMessage) error {
	sc.mu.Lock()
	if !sc.isOpen {
		sc.held = append(sc.held, heldFrame{method: method, params: append(json.RawMessage(nil), params...)})
		sc.mu.Unlock()
		return nil
	}
	sc.noteChild(method, params)
	sc.mu.Unlock()
	return sc.c.conn.NotifyRaw(ctx, method, params)
}

// AuthenticateParams are the params of the last authenticate this
// connection's editor made that the agent accepted (nil before one, and
// after logout): a passthrough adapter logs in each session's agent
// process with them.
func (sc *sessionClient) AuthenticateParams() json.RawMessage {
	sc.c.mu.Lock()
	defer sc.c.mu.Unlock()
	return sc.c.authParams
}

// InitializeParams are the editor's initialize params.
func (sc *sessionClient) InitializeParams() json.RawMessage {
	sc.c.mu.Lock()
	defer sc.c.mu.Unlock()
	return sc.c.initParams
}
