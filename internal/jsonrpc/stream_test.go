package jsonrpc

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
)

// readAll reads s until a fatal error and describes each result: the
// message text, "parse", "too large N", or the final error.
func readAll(t *testing.T, s Stream) []string {
	t.Helper()
	var got []string
	for range 1000 {
		msg, err := s.Read(t.Context())
		var tl *TooLargeError
		switch {
		case err == nil:
			got = append(got, string(msg))
		case errors.As(err, &tl):
			got = append(got, fmt.Sprintf("too large %d/%d", tl.Size, tl.Limit))
		case errors.Is(err, ErrParse):
			got = append(got, "parse")
		default:
			return append(got, err.Error())
		}
	}
	t.Fatal("stream did not end")
	return nil
}

// TestStdioRead covers both framings' splitting, blank-line handling, size
// limit and resynchronisation, using a 32-byte limit.
func TestStdioRead(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []string
	}{
		{"ndjson", "{\"a\":1}\n{\"b\":2}\n", []string{`{"a":1}`, `{"b":2}`, "EOF"}},
		{"ndjson crlf and blanks", "\r\n\n  \n{\"a\":1}\r\n\r\n\t\n{\"b\":2}\r\n", []string{`{"a":1}`, `{"b":2}`, "EOF"}},
		{"ndjson unterminated last line", "{\"a\":1}\n{\"b\":2}", []string{`{"a":1}`, `{"b":2}`, "EOF"}},
		{"ndjson short garbage", "x\n{}\n", []string{"x", "{}", "EOF"}},
		{"ndjson exactly at limit", strings.Repeat("a", 32) + "\r\n{}\n", []string{strings.Repeat("a", 32), "{}", "EOF"}},
		{"ndjson over limit", strings.Repeat("a", 33) + "\n{}\n", []string{"too large 33/32", "{}", "EOF"}},
		{"ndjson far over limit crlf", strings.Repeat("a", 100000) + "\r\n{}\n", []string{"too large 100000/32", "{}", "EOF"}},
		{"ndjson over limit at eof", strings.Repeat("a", 40), []string{"too large 40/32", "EOF"}},
		{"empty", "", []string{"EOF"}},
		{"only blanks", "\n\r\n  ", []string{"EOF"}},
		{"content-length", "Content-Length: 7\r\n\r\n{\"a\":1}Content-Length: 2\r\n\r\n{}", []string{`{"a":1}`, "{}", "EOF"}},
		{"content-length any case, other headers, blanks", "\r\n  CONTENT-LENGTH: 2\r\nContent-Type: x\r\n\r\n{}\r\n\r\ncontent-length:2\n\n[]",
			[]string{"{}", "[]", "EOF"}},
		{"content-length body with newlines", "Content-Length: 9\r\n\r\n{\n\"a\":1\n}", []string{"{\n\"a\":1\n}", "EOF"}},
		{"content-length over limit", "Content-Length: 33\r\n\r\n" + strings.Repeat("a", 33) + "Content-Length: 2\r\n\r\n{}",
			[]string{"too large 33/32", "{}", "EOF"}},
		{"content-length no colon, resync", "Content-Length: 2\r\n\r\n{}Content-Length 2\r\n\r\n{}Content-Length: 2\r\n\r\n[]",
			[]string{"{}", "parse", "[]", "EOF"}},
		{"content-length missing, resync glued", "Content-Length: 2\r\n\r\n{}X-Foo: 1\r\n\r\n{\"a\":1}content-LENGTH: 2\r\n\r\n[]",
			[]string{"{}", "parse", "[]", "EOF"}},
		{"content-length bad value", "Content-Length: 2\r\n\r\n{}Content-Length: 1x\r\n\r\n{}", []string{"{}", "parse", "EOF"}},
		{"content-length conflicting", "Content-Length: 2\r\n\r\n{}Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}", []string{"{}", "parse", "EOF"}},
		{"content-length long header", "Content-Length: 2\r\n\r\n{}X: " + strings.Repeat("y", 5000) + "\r\n\r\nContent-Length: 2\r\n\r\n[]",
			[]string{"{}", "parse", "[]", "EOF"}},
		// Answered (the sender may still read), then the end.
		{"content-length truncated body", "Content-Length: 10\r\n\r\n{}", []string{"parse", "EOF"}},
		{"content-length truncated headers", "Content-Length: 10\r\n", []string{"parse", "EOF"}},
		{"content-length bogus length, then a frame", "Content-Length: 99999999999\r\n\r\nContent-Length: 2\r\n\r\n{}",
			[]string{"too large 99999999999/32", "{}", "EOF"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewStdio(strings.NewReader(tt.input), io.Discard, StdioOptions{MaxMessageSize: 32})
			got := readAll(t, s)
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestStdioReplyFraming checks that replies use the framing the client
// picked, and newline-delimited framing before anything was read.
func TestStdioReplyFraming(t *testing.T) {
	tests := []struct {
		name, input, want string
	}{
		{"ndjson", "{\"id\":1}\n", "{\"r\":1}\n"},
		{"ndjson despite a header later", "{}\nContent-Length: 2\r\n\r\n{}", "{\"r\":1}\n"},
		{"content-length", "Content-Length: 8\r\n\r\n{\"id\":1}", "Content-Length: 7\r\n\r\n{\"r\":1}"},
		{"content-length after blank lines", "\r\n\r\ncontent-length: 8\r\n\r\n{\"id\":1}", "Content-Length: 7\r\n\r\n{\"r\":1}"},
		{"nothing read yet", "", "{\"r\":1}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			s := NewStdio(strings.NewReader(tt.input), &out, StdioOptions{})
			// The reader may be blocked handing over a message read ahead.
			t.Cleanup(func() { s.Close() })
			if tt.input != "" {
				if _, err := s.Read(t.Context()); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Write(t.Context(), []byte(`{"r":1}`)); err != nil {
				t.Fatal(err)
			}
			if out.String() != tt.want {
				t.Errorf("wrote %q, want %q", out.String(), tt.want)
			}
		})
	}
}

// TestStdioDefaultLimit reads a message of exactly the default limit and
// rejects one byte more, then reads the next message, in both framings.
// The input is made up as it is read, so the test holds no copy of it.
func TestStdioDefaultLimit(t *testing.T) {
	const limit = DefaultMaxMessageSize
	tests := []struct {
		name  string
		frame func(body io.Reader, size int) io.Reader
		id    ID // of the refused message
	}{
		{"ndjson", func(body io.Reader, _ int) io.Reader { return io.MultiReader(body, strings.NewReader("\r\n")) }, Int64ID(1)},
		// The body comes in a later read than the header: the refusal,
		// which does not wait for it, cannot name its id.
		{"content-length", func(body io.Reader, size int) io.Reader {
			return io.MultiReader(strings.NewReader(fmt.Sprintf("Content-Length: %d\r\n\r\n", size)), body)
		}, ID{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const next = `{"jsonrpc":"2.0","id":2,"method":"next"}`
			in := io.MultiReader(tt.frame(bigReader(limit), limit), tt.frame(bigReader(limit+1), limit+1),
				strings.NewReader("\n"), tt.frame(strings.NewReader(next), len(next)))
			s := NewStdio(in, io.Discard, StdioOptions{})
			msg, err := s.Read(t.Context())
			if err != nil || len(msg) != limit || !bytes.HasSuffix(msg, []byte(`"}}`)) {
				t.Fatalf("first read: %d bytes, %v", len(msg), err)
			}
			_, err = s.Read(t.Context())
			var tl *TooLargeError
			if !errors.As(err, &tl) || tl.Size != limit+1 || tl.Limit != limit || tl.ID != tt.id {
				t.Fatalf("second read: %#v, want TooLargeError{%d, %d, id %v}", err, limit+1, limit, tt.id)
			}
			if got := err.Error(); got != "message of 67108865 bytes exceeds the 64 MiB limit" {
				t.Errorf("error text %q", got)
			}
			if msg, err := s.Read(t.Context()); err != nil || string(msg) != next {
				t.Fatalf("third read: %q, %v", msg, err)
			}
		})
	}
}

// bigReader returns a call to "big" of exactly size bytes, made up as it
// is read.
func bigReader(size int) io.Reader {
	head := `{"jsonrpc":"2.0","id":1,"method":"big","params":{"s":"`
	tail := `"}}`
	return io.MultiReader(strings.NewReader(head),
		io.LimitReader(filler{bytes.Repeat([]byte("x"), 64<<10)}, int64(size-len(head)-len(tail))),
		strings.NewReader(tail))
}

// filler reads as an endless run of its block's bytes, copied a block at
// a time (cheap under the race detector, unlike a byte loop).
type filler struct{ block []byte }

func (f filler) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		n += copy(p[n:], f.block)
	}
	return n, nil
}

// TestRefusingCostsNoMoreThanTheLimit reads a line eight times the limit:
// refusing it allocates about the limit, not the line, and not the several
// copies of a growing buffer (a 70 MiB line once took the peak RSS to
// 194 MB). Then the next line is read.
func TestRefusingCostsNoMoreThanTheLimit(t *testing.T) {
	const limit = 1 << 20
	r := reader{br: bufio.NewReaderSize(io.MultiReader(bigReader(8*limit), strings.NewReader("\n{\"next\":1}\n")), readBufferSize),
		limit: limit, framing: framingNDJSON}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := r.next()
	runtime.ReadMemStats(&after)
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Size != 8*limit {
		t.Fatalf("read: %v, want a TooLargeError for %d bytes", err, 8*limit)
	}
	got := after.TotalAlloc - before.TotalAlloc
	t.Logf("refusing a %d-byte line allocated %d bytes", 8*limit, got)
	if got > limit+limit/4 {
		t.Errorf("refusing a %d-byte line allocated %d bytes, want at most %d", 8*limit, got, limit+limit/4)
	}
	if msg, err := r.next(); err != nil || !bytes.Contains(msg, []byte(`"next"`)) {
		t.Fatalf("next read: %q, %v", msg, err)
	}
}

// TestStdioTrace sees every message read and written, without framing.
func TestStdioTrace(t *testing.T) {
	var trace []string
	var out bytes.Buffer
	s := NewStdio(strings.NewReader("Content-Length: 2\r\n\r\n{}"), &out, StdioOptions{
		Trace: func(in bool, msg []byte) { trace = append(trace, fmt.Sprintf("%v %s", in, msg)) },
	})
	if _, err := s.Read(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := s.Write(t.Context(), []byte(`[]`)); err != nil {
		t.Fatal(err)
	}
	if want := "[true {} false []]"; fmt.Sprint(trace) != want {
		t.Errorf("trace %q, want %q", trace, want)
	}
}

// TestStdioClose unblocks a pending Read, ends the read goroutine when the
// reader can be closed, and makes further calls fail.
func TestStdioClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, w := io.Pipe()
		s := newStdio(r, w, StdioOptions{}, framingUnknown)
		read := make(chan error, 1)
		go func() {
			_, err := s.Read(context.Background())
			read <- err
		}()
		synctest.Wait()
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if err := <-read; !errors.Is(err, errStreamClosed) {
			t.Errorf("Read = %v, want errStreamClosed", err)
		}
		<-s.pumpDone
		if err := s.Write(t.Context(), []byte("{}")); !errors.Is(err, errStreamClosed) {
			t.Errorf("Write after Close = %v", err)
		}
		if err := s.Close(); err != nil {
			t.Errorf("second Close = %v", err)
		}
	})
}

// TestStdioReadContext returns the ctx cause from a pending Read, and the
// stream stays usable.
func TestStdioReadContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, w := io.Pipe()
		s := NewStdio(r, io.Discard, StdioOptions{})
		defer s.Close()
		ctx, cancel := context.WithCancelCause(t.Context())
		stop := errors.New("stop")
		cancel(stop)
		if _, err := s.Read(ctx); !errors.Is(err, stop) {
			t.Errorf("Read = %v, want %v", err, stop)
		}
		go fmt.Fprint(w, "{}\n")
		if msg, err := s.Read(t.Context()); err != nil || string(msg) != "{}" {
			t.Errorf("Read = %q, %v", msg, err)
		}
	})
}

// TestStdioWriteRejectsNewline keeps newline-delimited framing intact.
func TestStdioWriteRejectsNewline(t *testing.T) {
	s := NewStdio(strings.NewReader(""), io.Discard, StdioOptions{})
	if err := s.Write(t.Context(), []byte("{\n}")); err == nil {
		t.Error("Write accepted a message with a newline")
	}
}

// TestIndexFoldASCII finds the header in any case wherever it starts,
// past decoys that share its first letter.
func TestIndexFoldASCII(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"content-length:", 0},
		{"xxCONTENT-LENGTH:", 2},
		{"cc Content-length:", 3},
		{"C c content-lengthContent-Length:", 18},
		{"content-length", -1},
		{"xx c", -1},
		{"", -1},
	}
	for _, tt := range tests {
		if got := indexFoldASCII([]byte(tt.in), clHeader); got != tt.want {
			t.Errorf("indexFoldASCII(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}
