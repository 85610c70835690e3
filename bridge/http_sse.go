package bridge

import (
	"encoding/json"
	"errors"
	"net/http"
	"time"
)

// MethodMessagesLost is the extension notification (ACP reserves names
// starting with "_" for extensions) written on a stream in place of
// messages the client can no longer get: they were dropped while nobody
// read the stream, or its reconnect with Last-Event-ID found its
// connection ended (client_id streams only). A Last-Event-ID the stream
// never issued is ignored.
// Its params are {"count": N, "reason": "..."}; count is absent when
// unknown. The event carries no SSE id, so the client's Last-Event-ID is
// unchanged.
const MethodMessagesLost = "_acpbridge/messages_lost"

// Reasons given with MethodMessagesLost.
const (
	reasonDropped = "messages for this stream were dropped while it was not being read, " +
		"beyond what the bridge keeps for reconnects: what the client shows may be incomplete; " +
		"reload the session (session/load) to resync"
	reasonDroppedSession = "messages for this session were dropped while its stream was not being read: " +
		"re-attach the session with session/load or session/resume"
	reasonReset = "the connection this Last-Event-ID came from has ended with its sessions: " +
		"this is a new connection; start again with initialize"
)

// stream serves o to one receiver as Server-Sent Events until the stream
// is closed, the receiver goes away, or another receiver takes it over.
func (h *HTTPHandler) stream(w http.ResponseWriter, r *http.Request, c *httpConn, o *outbox, at attachment) {
	c.hold()
	defer c.release()
	defer func() {
		o.release(at.lease)
		o.signal() // a wake-up this receiver took may be its successor's
	}()
	sw := h.startStream(w, at)
	if sw.flush() != nil {
		return
	}
	keepAlive := time.NewTicker(h.opts.KeepAlive)
	defer keepAlive.Stop()
	from, first := at.from, true
	for {
		b := o.next(at.lease, from)
		if b.gap > 0 && !sw.reportGap(c, o, b.gap, first) {
			return
		}
		first = false
		for _, ev := range b.events {
			sw.event(o.eventID(ev.seq), ev.data)
		}
		if n := len(b.events); n > 0 {
			from = b.events[n-1].seq
			if sw.flush() != nil {
				return
			}
			continue
		}
		if sw.flush() != nil || b.closed {
			return
		}
		select {
		case <-o.wake:
		case <-at.lease.kicked:
			return
		case <-r.Context().Done():
			return
		case <-keepAlive.C:
			sw.buf = append(sw.buf, ": keep-alive\n\n"...)
		}
	}
}

// startStream answers with the SSE headers and, for a reset, the notice.
func (h *HTTPHandler) startStream(w http.ResponseWriter, at attachment) *sseWriter {
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-cache")
	hd.Set("X-Accel-Buffering", "no") // nginx: pass events on at once
	w.WriteHeader(http.StatusOK)
	sw := &sseWriter{w: w, rc: http.NewResponseController(w), timeout: h.opts.WriteTimeout}
	if at.reset {
		sw.notice(0, reasonReset)
	}
	return sw
}

// reportGap tells the receiver that n messages were lost. It reports
// whether the stream goes on: a Streamable HTTP session stream that loses
// messages while being read ends, since they may include answers its
// client waits for, and ending it makes the client fail them.
func (s *sseWriter) reportGap(c *httpConn, o *outbox, n uint64, first bool) bool {
	c.log.Warn().Uint64("lost", n).Msg("stream lost messages beyond its buffer")
	if !o.strict {
		s.notice(n, reasonDropped)
		return true
	}
	s.notice(n, reasonDroppedSession)
	if first {
		return true
	}
	s.flush()
	return false
}

// sseWriter frames events into a buffer and writes it in one call.
type sseWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	buf     []byte
}

// event frames one message. data is compact JSON: it has no line breaks.
func (s *sseWriter) event(id string, data []byte) {
	s.buf = append(s.buf, "id: "...)
	s.buf = append(s.buf, id...)
	s.buf = append(s.buf, "\ndata: "...)
	s.buf = append(s.buf, data...)
	s.buf = append(s.buf, "\n\n"...)
}

// notice frames a MethodMessagesLost notification, without an id.
func (s *sseWriter) notice(count uint64, reason string) {
	type params struct {
		Count  uint64 `json:"count,omitempty"`
		Reason string `json:"reason"`
	}
	msg, _ := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		Method  string `json:"method"`
		Params  params `json:"params"`
	}{"2.0", MethodMessagesLost, params{count, reason}})
	s.buf = append(s.buf, "data: "...)
	s.buf = append(s.buf, msg...)
	s.buf = append(s.buf, "\n\n"...)
}

// flush writes what is buffered and pushes it to the client, within the
// write timeout, so that a client that stopped reading cannot hold the
// handler forever.
func (s *sseWriter) flush() error {
	if err := s.rc.SetWriteDeadline(time.Now().Add(s.timeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	if len(s.buf) > 0 {
		_, err := s.w.Write(s.buf)
		s.buf = s.buf[:0]
		if cap(s.buf) > 1<<20 {
			s.buf = nil // one large batch should not pin its buffer
		}
		if err != nil {
			return err
		}
	}
	return s.rc.Flush()
}

// lastEventID is the request's Last-Event-ID header, or the lastEventId
// query parameter (for clients that cannot set headers on a reconnect).
func lastEventID(r *http.Request) string {
	if v := r.Header.Get("Last-Event-ID"); v != "" {
		return v
	}
	return r.URL.Query().Get("lastEventId")
}
