package bridge

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// The Streamable HTTP wire shape, as the ACP TypeScript SDK
// (@agentclientprotocol/sdk, experimental/http-client) speaks it: one
// endpoint, /acp.
//
//   - POST initialize without Acp-Connection-Id opens a connection; the
//     answer is the response body (200) and the connection's id is in the
//     Acp-Connection-Id response header.
//   - Every other POST carries Acp-Connection-Id, and Acp-Session-Id when the
//     message concerns a session; it is answered 202 with no body, and the
//     answer to a request arrives on a stream.
//   - GET with Acp-Connection-Id is the connection's SSE stream (answers to
//     requests without a session); with Acp-Session-Id as well, that
//     session's stream (its updates, the answers to its requests and the
//     bridge's requests about it). Messages for a stream nobody reads yet are
//     kept until someone does.
//   - DELETE with Acp-Connection-Id ends the connection.
//
// A stream that already has a reader is refused with 409. So is any POST
// for a session whose stream lost messages while nobody read it, until the
// client re-attaches the session with session/load or session/resume.
const (
	headerConnectionID = "Acp-Connection-Id"
	headerSessionID    = "Acp-Session-Id"
)

// sessionScoped reports the methods that must carry Acp-Session-Id.
func sessionScoped(method string) bool {
	switch method {
	case acp.MethodSessionCancel, acp.MethodSessionClose, acp.MethodSessionDelete, "session/fork",
		acp.MethodSessionLoad, acp.MethodSessionPrompt, acp.MethodSessionResume,
		acp.MethodSessionSetConfigOption, acp.MethodSessionSetMode, acp.MethodSessionSetModel:
		return true
	}
	return false
}

// serveStreamable handles /acp.
func (h *HTTPHandler) serveStreamable(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
		h.streamablePost(w, r)
	case http.MethodGet:
		h.streamableGet(w, r)
	case http.MethodDelete:
		h.streamableDelete(w, r)
	default:
		methodNotAllowed(w, "GET, POST, DELETE")
	}
}

func (h *HTTPHandler) streamablePost(w http.ResponseWriter, r *http.Request) {
	msg, m, ok := h.readMessage(w, r, true)
	if !ok {
		return
	}
	connID := r.Header.Get(headerConnectionID)
	if m.Method == acp.MethodInitialize && m.isCall() {
		if connID != "" {
			httpError(w, http.StatusBadRequest, "initialize is not allowed on an existing connection")
			return
		}
		h.initialize(w, r, msg, m)
		return
	}
	c, ok := h.streamableConn(w, connID)
	if !ok {
		return
	}
	c.hold()
	defer c.release()
	if status, reason := c.admitPost(m, r.Header.Get(headerSessionID)); status != 0 {
		httpError(w, status, reason)
		return
	}
	if err := c.deliver(r.Context(), msg); err != nil {
		httpError(w, http.StatusNotFound, "Acp-Connection-Id: "+err.Error())
		return
	}
	w.WriteHeader(http.StatusAccepted)
}

// streamableConn returns the connection named by the header, or answers
// 400 (missing) or 404 (unknown or ended).
func (h *HTTPHandler) streamableConn(w http.ResponseWriter, connID string) (*httpConn, bool) {
	if connID == "" {
		httpError(w, http.StatusBadRequest, "missing Acp-Connection-Id header (a connection starts with POST initialize)")
		return nil, false
	}
	c := h.lookup(connKey{shapeStreamable, connID})
	if c == nil {
		httpError(w, http.StatusNotFound, "unknown Acp-Connection-Id")
		return nil, false
	}
	return c, true
}

// initialize opens a connection and answers initialize in the POST body.
func (h *HTTPHandler) initialize(w http.ResponseWriter, r *http.Request, msg []byte, m head) {
	c, _, err := h.open(connKey{shapeStreamable, randomID(16)})
	if err != nil {
		openStatus(w, err)
		return
	}
	c.hold()
	defer c.release()
	answer := c.expectInitial(idKey(m.ID))
	if err := c.deliver(r.Context(), msg); err != nil {
		c.end("initialize not delivered")
		httpError(w, http.StatusInternalServerError, "initialize failed: "+err.Error())
		return
	}
	select {
	case data := <-answer:
		hd := w.Header()
		hd.Set(headerConnectionID, c.key.id)
		hd.Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		w.Write(data)
	case <-c.eof:
		httpError(w, http.StatusInternalServerError, "initialize failed: the connection ended")
	case <-r.Context().Done():
		c.end("initialize abandoned by the client")
	}
}

// admitPost checks a POSTed message against the connection's routes and
// records where the answer to a request must go. It returns a status and
// reason to refuse it with, or 0.
func (c *httpConn) admitPost(m head, hdrSession string) (int, string) {
	key := idKey(m.ID)
	c.mu.Lock()
	defer c.mu.Unlock()
	if m.isResponse() {
		// An answer to the bridge's request must come with the session of
		// the stream that carried the request.
		if sid := c.asked[key]; sid != "" && hdrSession != sid {
			return http.StatusBadRequest, "missing or mismatched Acp-Session-Id: the request was for session " + quote(sid)
		}
		delete(c.asked, key)
		return 0, ""
	}
	sid := m.Params.SessionID
	switch {
	case (sessionScoped(m.Method) || sid != "") && hdrSession == "":
		return http.StatusBadRequest, "missing Acp-Session-Id header (" + quote(m.Method) + " concerns a session)"
	case hdrSession != "" && sid != "" && hdrSession != sid:
		return http.StatusBadRequest, "mismatched Acp-Session-Id: the header and params.sessionId differ"
	case hdrSession != "":
		sid = hdrSession
	}
	if o := c.sessions[sid]; sid != "" && o != nil {
		if n := o.mustReattach(); n > 0 {
			if m.Method != acp.MethodSessionLoad && m.Method != acp.MethodSessionResume {
				return http.StatusConflict, fmt.Sprintf("session %s lost %d messages while its stream was not read: "+
					"re-attach it with session/load or session/resume", quote(sid), n)
			}
			o.reattached()
		}
	}
	if m.isCall() {
		// session/load's answer goes on the connection stream, as in the
		// TypeScript SDK's server.
		if m.Method == acp.MethodSessionLoad {
			sid = ""
		}
		c.routes[key] = sid
	}
	return 0, ""
}

func (h *HTTPHandler) streamableGet(w http.ResponseWriter, r *http.Request) {
	if !strings.Contains(strings.ToLower(r.Header.Get("Accept")), "text/event-stream") {
		httpError(w, http.StatusNotAcceptable, "not acceptable: a stream needs Accept: text/event-stream")
		return
	}
	c, ok := h.streamableConn(w, r.Header.Get(headerConnectionID))
	if !ok {
		return
	}
	o := c.main
	if sid := r.Header.Get(headerSessionID); sid != "" {
		var err error
		if o, err = c.openSessionStream(sid); err != nil {
			httpError(w, http.StatusBadRequest, err.Error())
			return
		}
	}
	at, err := o.attach(lastEventID(r))
	if err != nil {
		httpError(w, http.StatusConflict, "outbound stream already has an active receiver")
		return
	}
	h.stream(w, r, c, o, at)
}

// openSessionStream returns the stream of session sid for a reader.
func (c *httpConn) openSessionStream(sid string) (*outbox, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sessions[sid] == nil && len(c.sessions) >= maxSessionStreams {
		return nil, fmt.Errorf("too many session streams on this connection (limit %d)", maxSessionStreams)
	}
	return c.sessionStream(sid), nil
}

func (h *HTTPHandler) streamableDelete(w http.ResponseWriter, r *http.Request) {
	c, ok := h.streamableConn(w, r.Header.Get(headerConnectionID))
	if !ok {
		return
	}
	c.end("DELETE")
	w.WriteHeader(http.StatusAccepted)
}
