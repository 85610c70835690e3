package bridge

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"sync"
)

// outbox holds the messages of one SSE stream: a numbered log that a
// receiver reads from. Messages nobody has been given are kept up to limit
// bytes (but always the newest); past that the oldest are dropped, and a
// receiver that needed them is told (see batch.gap). Messages already
// given to a receiver are kept up to keepSent bytes, so that a client whose
// connection broke with messages in flight can reconnect with Last-Event-ID
// and get them again.
//
// Event ids are "GEN-SEQ": GEN is random per outbox, so an id from an
// earlier connection (or another client) is never mistaken for one of this
// stream, and knowing a valid id proves the caller has read this stream.
type outbox struct {
	gen      string
	limit    int
	keepSent int
	// strict marks a Streamable HTTP session stream: losing messages there
	// means the session must be re-attached (session/load or resume).
	strict bool

	mu       sync.Mutex
	events   []outEvent    // guarded by mu; retained messages, oldest first, consecutive seqs
	size     int           // guarded by mu; bytes in events
	sentSize int           // guarded by mu; bytes in events with seq <= sent
	last     uint64        // guarded by mu; seq of the newest message, 0 before the first
	base     uint64        // guarded by mu; every seq <= base is gone
	sent     uint64        // guarded by mu; newest seq handed to a receiver
	lost     uint64        // guarded by mu; strict only: messages lost since the last re-attach
	lease    *lease        // guarded by mu; the current receiver, nil when none
	closed   bool          // guarded by mu; no more messages will come
	wake     chan struct{} // 1-buffered; signalled on push, close and takeover
}

type outEvent struct {
	seq  uint64
	data []byte
}

// lease is one receiver's hold on an outbox.
type lease struct {
	kicked chan struct{} // closed when another receiver takes the stream over
}

// errStreamBusy means the stream already has a receiver and the newcomer
// did not prove it read this stream (a valid Last-Event-ID).
var errStreamBusy = errors.New("stream already has an active receiver")

// keptAfterSending bounds what a stream keeps of the messages it has sent:
// enough for what a broken connection can have had in flight.
const keptAfterSending = 256 << 10

func newOutbox(limit int, strict bool) *outbox {
	return &outbox{gen: randomID(8), limit: limit, keepSent: min(limit, keptAfterSending), strict: strict,
		wake: make(chan struct{}, 1)}
}

// randomID returns n random bytes in hex.
func randomID(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// push appends one message; it never blocks. data must not be modified
// afterwards.
func (o *outbox) push(data []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return
	}
	o.last++
	o.events = append(o.events, outEvent{seq: o.last, data: data})
	o.size += len(data)
	for o.size > o.limit && len(o.events) > 1 {
		o.dropFirst()
	}
	o.signal()
}

// dropFirst drops the oldest retained message. Called with mu held.
func (o *outbox) dropFirst() {
	ev := o.events[0]
	o.events[0] = outEvent{}
	o.events = o.events[1:]
	o.size -= len(ev.data)
	o.base = ev.seq
	switch {
	case ev.seq <= o.sent:
		o.sentSize -= len(ev.data)
	case o.strict:
		o.lost++
	}
}

// markSent records that every message up to seq has been handed out.
// Called with mu held.
func (o *outbox) markSent(seq uint64) {
	if seq <= o.sent {
		return
	}
	if len(o.events) > 0 {
		first := o.events[0].seq
		i := 0
		if o.sent >= first {
			i = int(o.sent + 1 - first)
		}
		for ; i < len(o.events) && o.events[i].seq <= seq; i++ {
			o.sentSize += len(o.events[i].data)
		}
	}
	o.sent = seq
}

// trimSent drops sent messages beyond keepSent. Called with mu held.
func (o *outbox) trimSent() {
	for o.sentSize > o.keepSent && len(o.events) > 0 && o.events[0].seq <= o.sent {
		o.dropFirst()
	}
}

func (o *outbox) signal() {
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// close ends the stream: a receiver gets what is queued, then the end.
func (o *outbox) close() {
	o.mu.Lock()
	o.closed = true
	o.mu.Unlock()
	o.signal()
}

// eventID formats the SSE id of seq.
func (o *outbox) eventID(seq uint64) string {
	return o.gen + "-" + strconv.FormatUint(seq, 10)
}

// attachment is where a new receiver starts.
type attachment struct {
	lease *lease
	from  uint64 // the receiver gets messages after this seq
	// reset is set by the caller when the Last-Event-ID is from a
	// connection that has ended: the stream then says so first.
	reset bool
}

// attach makes the caller the stream's receiver. Without lastID it starts
// after the last message handed to a receiver (it gets what nobody has
// been sent). With an id of this stream it starts after that id, taking the
// stream over from a receiver that is still attached (a reconnect that the
// server has not noticed yet), and what the id acknowledges is released.
// An id this stream never issued (another stream's, a made-up one) counts
// as no id: it proves nothing, and says nothing about what was lost, so
// the stream does not claim anything was.
func (o *outbox) attach(lastID string) (attachment, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	at := attachment{from: o.sent}
	seq, ours := o.parseID(lastID)
	if ours {
		// The client has everything up to seq: keep none of it.
		at.from = seq
		o.markSent(seq)
		for len(o.events) > 0 && o.events[0].seq <= seq {
			o.dropFirst()
		}
	}
	if o.lease != nil {
		if !ours {
			return attachment{}, errStreamBusy
		}
		close(o.lease.kicked)
	}
	at.lease = &lease{kicked: make(chan struct{})}
	o.lease = at.lease
	o.signal()
	return at, nil
}

// parseID reports the seq of an event id of this stream.
func (o *outbox) parseID(id string) (uint64, bool) {
	gen, n, ok := strings.Cut(strings.TrimSpace(id), "-")
	if !ok || gen != o.gen {
		return 0, false
	}
	seq, err := strconv.ParseUint(n, 10, 64)
	if err != nil || seq > o.last {
		return 0, false
	}
	return seq, true
}

// batch is what a receiver gets from next.
type batch struct {
	events []outEvent
	gap    uint64 // messages after the receiver's position that were dropped
	closed bool   // nothing more will come (after events)
}

// next returns the messages after from, and how many were dropped before
// them. It does not wait; wait on o.wake when the batch is empty.
func (o *outbox) next(l *lease, from uint64) batch {
	o.mu.Lock()
	defer o.mu.Unlock()
	var b batch
	if o.lease != l {
		b.closed = true
		return b
	}
	if from < o.base {
		b.gap = o.base - from
		from = o.base
	}
	if len(o.events) > 0 {
		i := int(from + 1 - o.events[0].seq)
		if i < len(o.events) {
			b.events = append(b.events, o.events[i:]...)
			// Taken is as good as sent: dropping these from now on loses
			// nothing the receiver will not write (a receiver that fails
			// to write them is what Last-Event-ID is for).
			o.markSent(o.last)
			o.trimSent()
		}
	}
	b.closed = o.closed && len(b.events) == 0
	return b
}

// release ends l's hold, if it still has it.
func (o *outbox) release(l *lease) {
	o.mu.Lock()
	if o.lease == l {
		o.lease = nil
	}
	o.mu.Unlock()
}

// mustReattach reports how many messages a strict stream lost since it was
// last re-attached; non-zero means its session must be re-attached.
func (o *outbox) mustReattach() uint64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.lost
}

// reattached clears the lost count after a session/load or resume.
func (o *outbox) reattached() {
	o.mu.Lock()
	o.lost = 0
	o.mu.Unlock()
}

// retained reports the bytes the outbox holds (for tests and benchmarks).
func (o *outbox) retained() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.size
}
