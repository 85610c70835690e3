package bridge

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
)

// msg30 is a 30-byte message numbered n.
func msg30(n int) []byte { return fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"m%02d"}`, n)[:30] }

func pushN(o *outbox, n int) {
	for i := 1; i <= n; i++ {
		o.push(msg30(i))
	}
}

func seqs(b batch) []uint64 {
	var s []uint64
	for _, ev := range b.events {
		s = append(s, ev.seq)
	}
	return s
}

// TestOutboxKeepsTheNewest checks that an outbox keeps the newest messages within its bound and counts the rest.
func TestOutboxKeepsTheNewest(t *testing.T) {
	o := newOutbox(100, false)
	pushN(o, 10)
	at, err := o.attach("")
	if err != nil {
		t.Fatal(err)
	}
	b := o.next(at.lease, at.from)
	if b.gap != 7 || fmt.Sprint(seqs(b)) != "[8 9 10]" {
		t.Fatalf("gap %d, events %v; want 7 and [8 9 10]", b.gap, seqs(b))
	}
	if o.retained() != 90 {
		t.Errorf("retained %d bytes, want 90", o.retained())
	}
}

// TestOutboxLastEventID checks that an outbox resumes after a Last-Event-ID and releases what it acknowledges.
func TestOutboxLastEventID(t *testing.T) {
	o := newOutbox(1<<20, false)
	pushN(o, 5)
	at, _ := o.attach("")
	if b := o.next(at.lease, at.from); len(b.events) != 5 {
		t.Fatalf("first reader got %v", seqs(b))
	}
	o.release(at.lease)
	at, err := o.attach(o.eventID(3))
	if err != nil {
		t.Fatal(err)
	}
	if b := o.next(at.lease, at.from); b.gap != 0 || fmt.Sprint(seqs(b)) != "[4 5]" {
		t.Fatalf("after id 3: gap %d, events %v", b.gap, seqs(b))
	}
	if o.retained() != 60 {
		t.Errorf("retained %d bytes after acknowledging 3 messages, want 60", o.retained())
	}
}

// TestOutboxUnknownID checks that an id the outbox never issued (another
// stream's, a made-up one, one from the future) counts as no id: it starts
// where a reader without an id would, with no gap to report, and cannot
// take the stream over.
func TestOutboxUnknownID(t *testing.T) {
	other := newOutbox(1<<20, false)
	other.push(msg30(1))
	for _, id := range []string{other.eventID(1), "garbage", "7"} {
		o := newOutbox(1<<20, false)
		pushN(o, 3)
		first, _ := o.attach("")
		if b := o.next(first.lease, first.from); len(b.events) != 3 {
			t.Fatalf("first reader got %v", seqs(b))
		}
		if _, err := o.attach(id); err != errStreamBusy {
			t.Errorf("attach(%q) while read = %v, want errStreamBusy", id, err)
		}
		o.release(first.lease)
		pushN(o, 1)
		at, err := o.attach(id)
		if err != nil || at.reset {
			t.Fatalf("attach(%q) = %+v, %v", id, at, err)
		}
		if b := o.next(at.lease, at.from); b.gap != 0 || fmt.Sprint(seqs(b)) != "[4]" {
			t.Errorf("after attach(%q): gap %d, events %v; want only what nobody was sent", id, b.gap, seqs(b))
		}
	}
	o := newOutbox(1<<20, false)
	pushN(o, 2)
	if at, err := o.attach(o.gen + "-99"); err != nil || at.from != 0 {
		t.Errorf("attach(an id past the last) = %+v, %v; want from the start", at, err)
	}
}

// TestOutboxTakeover checks that an outbox lets a reader with a valid id take the stream over.
func TestOutboxTakeover(t *testing.T) {
	o := newOutbox(1<<20, false)
	pushN(o, 2)
	first, _ := o.attach("")
	if _, err := o.attach(""); err != errStreamBusy {
		t.Fatalf("second reader without an id: %v, want busy", err)
	}
	second, err := o.attach(o.eventID(1))
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-first.lease.kicked:
	default:
		t.Fatal("the first reader was not told")
	}
	if b := o.next(first.lease, 0); !b.closed || len(b.events) != 0 {
		t.Errorf("the first reader still gets messages: %+v", b)
	}
	if b := o.next(second.lease, second.from); fmt.Sprint(seqs(b)) != "[2]" {
		t.Errorf("the new reader got %v", seqs(b))
	}
}

// TestOutboxKeepsLittleOfWhatWasSent checks that an outbox keeps only keepSent bytes of what it has sent.
func TestOutboxKeepsLittleOfWhatWasSent(t *testing.T) {
	o := newOutbox(1<<20, false)
	o.keepSent = 60
	pushN(o, 5)
	at, _ := o.attach("")
	if b := o.next(at.lease, at.from); len(b.events) != 5 {
		t.Fatalf("got %v", seqs(b))
	}
	if o.retained() != 60 {
		t.Fatalf("retained %d bytes after sending, want 60", o.retained())
	}
	o.release(at.lease)
	at, err := o.attach(o.eventID(1))
	if err != nil {
		t.Fatal(err)
	}
	if b := o.next(at.lease, at.from); b.gap != 2 || fmt.Sprint(seqs(b)) != "[4 5]" {
		t.Fatalf("reconnect after 1: gap %d, events %v; want 2 and [4 5]", b.gap, seqs(b))
	}
}

// TestOutboxStrictCountsLost checks that an outbox counts, when strict, the messages nobody was given.
func TestOutboxStrictCountsLost(t *testing.T) {
	o := newOutbox(50, true)
	o.push(msg30(1))
	at, _ := o.attach("")
	o.next(at.lease, at.from) // 1 is handed out: dropping it loses nothing
	pushN(o, 3)
	if n := o.mustReattach(); n != 2 {
		t.Fatalf("lost %d, want 2 (messages 2 and 3 were dropped before anyone got them)", n)
	}
	o.reattached()
	if n := o.mustReattach(); n != 0 {
		t.Fatalf("lost %d after re-attaching", n)
	}
}

// TestStreamFraming renders a stream that lost messages: the notice, with
// no id, then the kept messages with theirs, then the end.
func TestStreamFraming(t *testing.T) {
	h := New(nil, Options{}).NewHTTPHandler(HTTPOptions{MaxBuffered: 60})
	c := newHTTPConn(h, connKey{shapeContract, "x"})
	defer c.Close()
	pushN(c.main, 4)
	c.main.close()
	at, err := c.main.attach("")
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	h.stream(rec, httptest.NewRequest("GET", "/acp/sse?client_id=x", nil), c, c.main, at)
	want := `data: {"jsonrpc":"2.0","method":"_acpbridge/messages_lost","params":{"count":2,"reason":"` + reasonDropped + `"}}` + "\n\n" +
		"id: " + c.main.eventID(3) + "\ndata: " + string(msg30(3)) + "\n\n" +
		"id: " + c.main.eventID(4) + "\ndata: " + string(msg30(4)) + "\n\n"
	if got := rec.Body.String(); got != want {
		t.Errorf("stream body:\n%s\nwant:\n%s", got, want)
	}
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Errorf("Content-Type %q", ct)
	}
}
