package bridge

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"time"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// The client_id wire shape: POST /acp/rpc?client_id=ID carries one message
// from the client and is answered with a status only; GET
// /acp/sse?client_id=ID is the SSE stream of every message for that client
// (answers, notifications, and the bridge's own requests, whose answers come
// back by POST). The first GET, or a POSTed initialize, opens the client's
// connection; DELETE /acp/sse?client_id=ID ends it at once (otherwise it
// ends after the idle timeout).

// contractPost handles POST /acp/rpc.
func (h *HTTPHandler) contractPost(w http.ResponseWriter, r *http.Request) {
	id, ok := clientID(w, r)
	if !ok {
		return
	}
	msg, m, ok := h.readMessage(w, r, false)
	if !ok {
		return
	}
	k := connKey{shapeContract, id}
	c := h.lookup(k)
	if c == nil {
		if m.Method != acp.MethodInitialize {
			httpError(w, http.StatusNotFound, "unknown client_id "+quote(id)+": open GET /acp/sse?client_id=ID (or POST initialize) first")
			return
		}
		var err error
		if c, _, err = h.open(k); err != nil {
			openStatus(w, err)
			return
		}
	}
	c.hold()
	defer c.release()
	if err := c.deliver(r.Context(), msg); err != nil {
		httpError(w, http.StatusNotFound, "client_id "+quote(id)+": "+err.Error())
		return
	}
	w.WriteHeader(http.StatusAccepted)
}

// contractGet handles GET /acp/sse: the client's stream, opening its
// connection if it has none.
func (h *HTTPHandler) contractGet(w http.ResponseWriter, r *http.Request) {
	id, ok := clientID(w, r)
	if !ok {
		return
	}
	c, created, err := h.open(connKey{shapeContract, id})
	if err != nil {
		openStatus(w, err)
		return
	}
	lastID := lastEventID(r)
	at, err := c.main.attach(lastID)
	if err != nil {
		httpError(w, http.StatusConflict, "client_id "+quote(id)+": "+err.Error()+
			" (reconnect with the Last-Event-ID of the last event received)")
		return
	}
	// A reconnect that had to open the client's connection: the one its
	// Last-Event-ID came from has ended (idle timeout, DELETE, a restart),
	// and the client must be told. A Last-Event-ID the open connection
	// never issued says nothing of the kind, and gets no notice.
	at.reset = created && lastID != ""
	h.stream(w, r, c, c.main, at)
}

// contractDelete handles DELETE /acp/sse: the client leaves; its sessions
// are closed and their processes stopped.
func (h *HTTPHandler) contractDelete(w http.ResponseWriter, r *http.Request) {
	id, ok := clientID(w, r)
	if !ok {
		return
	}
	c := h.lookup(connKey{shapeContract, id})
	if c == nil {
		httpError(w, http.StatusNotFound, "unknown client_id "+quote(id))
		return
	}
	c.end("DELETE")
	w.WriteHeader(http.StatusAccepted)
}

// maxClientID bounds a client_id.
const maxClientID = 256

// clientID returns the client_id query parameter, or answers 400.
func clientID(w http.ResponseWriter, r *http.Request) (string, bool) {
	id := r.URL.Query().Get("client_id")
	switch {
	case id == "":
		httpError(w, http.StatusBadRequest, "missing client_id query parameter (for example "+r.URL.Path+"?client_id=ID)")
		return "", false
	case len(id) > maxClientID || !validClientID(id):
		httpError(w, http.StatusBadRequest, "invalid client_id: use up to "+strconv.Itoa(maxClientID)+" letters, digits and . _ - : ~")
		return "", false
	}
	return id, true
}

func validClientID(id string) bool {
	for _, r := range id {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case r == '.', r == '_', r == '-', r == ':', r == '~':
		default:
			return false
		}
	}
	return true
}

// readMessage reads one POSTed JSON-RPC message, or answers: 415 for a
// body that is not JSON (a missing Content-Type is accepted unless
// needType), 413 for one over the size limit, 400 for invalid JSON, a
// batch, or anything but an object. Whether the object is a valid JSON-RPC
// message is left to the connection, which answers like over stdio.
func (h *HTTPHandler) readMessage(w http.ResponseWriter, r *http.Request, needType bool) ([]byte, head, bool) {
	ct := r.Header.Get("Content-Type")
	if ct != "" || needType {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			httpError(w, http.StatusUnsupportedMediaType, "unsupported media type: send one JSON-RPC message as Content-Type: application/json")
			return nil, head{}, false
		}
	}
	limit := h.opts.MaxBodySize
	tooLarge := "request body exceeds the " + strconv.FormatInt(limit, 10) + "-byte limit"
	if r.ContentLength > limit {
		refuseBody(w, r.Body, tooLarge)
		return nil, head{}, false
	}
	body := r.Body
	data, err := io.ReadAll(http.MaxBytesReader(w, body, limit))
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		refuseBody(w, body, tooLarge)
		return nil, head{}, false
	case err != nil:
		httpError(w, http.StatusBadRequest, "reading request body: "+err.Error())
		return nil, head{}, false
	}
	data = bytes.TrimSpace(data)
	reason := ""
	switch {
	case len(data) == 0:
		reason = "empty body: send one JSON-RPC message"
	case !json.Valid(data):
		reason = "invalid JSON"
	case data[0] == '[':
		reason = "JSON-RPC batches are not supported: send one message per request"
	case data[0] != '{':
		reason = "invalid JSON-RPC message: expected a JSON object"
	}
	if reason != "" {
		httpError(w, http.StatusBadRequest, reason)
		return nil, head{}, false
	}
	m, _ := parseHead(data)
	return data, m, true
}

// Bounds on reading what a client still sends after its body was refused:
// enough for the client to finish a body a few times the size limit, not
// enough for a client to keep the handler busy.
const (
	refusedBodyMax     = 256 << 20
	refusedBodyTimeout = 10 * time.Second
)

// refuseBody answers 413 and then reads and discards the rest of the body,
// within refusedBodyMax and refusedBodyTimeout, before the connection closes. Closing
// a connection with unread input makes the kernel reset it, and a client
// that sends its whole body before it reads its answer (Python's
// http.client does) then saw a broken pipe or a reset instead of the 413
// (an 80 MB POST did). The answer is flushed first, so a client that reads
// while it sends has it at once; the connection is closed afterwards, as
// its input is not worth parsing.
func refuseBody(w http.ResponseWriter, body io.Reader, reason string) {
	rc := http.NewResponseController(w)
	// Without full duplex, the server may stop the body from being read
	// once the answer is written.
	_ = rc.EnableFullDuplex()
	w.Header().Set("Connection", "close")
	// A declared length makes the answer complete once flushed; a chunked
	// one would end only when the handler returns, after the drain, and
	// curl, seeing the answer unfinished, sends the whole body anyway.
	w.Header().Set("Content-Length", strconv.Itoa(len(reason)+1))
	httpError(w, http.StatusRequestEntityTooLarge, reason)
	_ = rc.Flush()
	_ = rc.SetReadDeadline(time.Now().Add(refusedBodyTimeout))
	_, _ = io.CopyN(io.Discard, body, refusedBodyMax)
}
