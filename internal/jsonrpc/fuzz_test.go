package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"
)

// checkReencodes decodes msg and, if it is a message, checks that it
// encodes to one line of valid JSON that decodes to the same message.
func checkReencodes(t *testing.T, msg []byte) {
	t.Helper()
	m, err := DecodeMessage(msg)
	if err != nil {
		if !errors.Is(err, ErrParse) && !errors.Is(err, ErrInvalidRequest) {
			t.Fatalf("DecodeMessage(%q) = %v, wraps neither ErrParse nor ErrInvalidRequest", msg, err)
		}
		return
	}
	out, err := EncodeMessage(m)
	if err != nil {
		t.Fatalf("EncodeMessage(DecodeMessage(%q)): %v", msg, err)
	}
	if bytes.ContainsAny(out, "\r\n") || !json.Valid(out) {
		t.Fatalf("%q re-encoded to %q, not one line of JSON", msg, out)
	}
	m2, err := DecodeMessage(out)
	if err != nil {
		t.Fatalf("re-decoding %q: %v", out, err)
	}
	if out2, _ := EncodeMessage(m2); !bytes.Equal(out, out2) {
		t.Fatalf("not stable: %q then %q", out, out2)
	}
}

// fuzzRead reads data with the given framing until the end and checks
// every message; a small limit exercises the oversize paths.
func fuzzRead(t *testing.T, data []byte, f framing) {
	s := newStdio(bytes.NewReader(data), io.Discard, StdioOptions{MaxMessageSize: 64}, f)
	for range len(data) + 2 { // every Read consumes input or ends
		msg, err := s.Read(t.Context())
		var tl *TooLargeError
		switch {
		case err == nil:
			if f == framingNDJSON && bytes.IndexByte(msg, '\n') >= 0 {
				t.Fatalf("line %q contains a newline", msg)
			}
			if len(msg) > 64 {
				t.Fatalf("message of %d bytes passed the 64-byte limit", len(msg))
			}
			checkReencodes(t, msg)
		case errors.As(err, &tl), errors.Is(err, ErrParse):
		case err == io.EOF, err == io.ErrUnexpectedEOF:
			<-s.pumpDone
			return
		default:
			t.Fatalf("unexpected error %v", err)
		}
	}
	t.Fatalf("%d reads did not reach the end of %d bytes", len(data)+2, len(data))
}

var fuzzSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}` + "\n",
	`{"jsonrpc":"2.0","id":"x","result":{"a":[1,2,{"b":null}]}}` + "\r\n\r\n",
	`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error","data":"\u2028"}}`,
	"[1,2]\n{}\nnull\n\"s\"\n",
	"Content-Length: 44\r\n\r\n" + `{"jsonrpc":"2.0","method":"m","params":[ ]}` + "Content-Length: 2\r\n\r\n{}",
	"Content-Length 3\r\n\r\nabcContent-Length: 99999999999999999999\r\n\r\n",
	"content-length: 1\r\ncontent-length: 2\r\n\r\n{}",
}

func FuzzReadNDJSON(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, data, framingNDJSON) })
}

func FuzzReadContentLength(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, data, framingContentLength) })
}

func FuzzDecodeMessage(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"jsonrpc":"2.0","id":-0,"method":"\ud800","params":{"a":"\xff"}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","data":null}}`))
	f.Fuzz(func(t *testing.T, data []byte) { checkReencodes(t, data) })
}

// FuzzScanHead checks that the id read from the start of a valid message,
// at any cut, is never one the message does not have: it is the id
// DecodeMessage finds, or none. (With duplicate top-level ids, the last
// wins in DecodeMessage, so an early cut may see another one.)
func FuzzScanHead(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":7,"method":"x","params":{"id":8}}`), 30)
	f.Add([]byte(`{"jsonrpc":"2.0","method":"x","params":{"id":1,"a":[{"id":"2"}]},"id":"q"}`), 40)
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{"id":2}}`), 27)
	f.Add([]byte(`{"jsonrpc":"2.0","method":"x","params":{"s":"\"id\":5"},"id":-3}`), 44)
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		cut = min(max(cut, 0), len(data))
		h := scanHead(data[:cut])
		m, err := DecodeMessage(data)
		if !h.id.IsValid() || err != nil || topLevelIDs(data) > 1 {
			return
		}
		var want ID
		switch r := m.(type) {
		case *Request:
			want = r.ID
		case *Response:
			want = r.ID
		}
		if h.id != want {
			t.Fatalf("scanHead(%q) = %v, DecodeMessage found %v", data[:cut], h.id, want)
		}
	})
}

// topLevelIDs counts the "id" members of the JSON object data.
func topLevelIDs(data []byte) int {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return 0
	}
	n := 0
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return n
		}
		if key == "id" {
			n++
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return n
		}
	}
	return n
}
