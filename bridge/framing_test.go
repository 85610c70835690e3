package bridge_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/textproto"
	"strconv"
	"testing"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/bridge"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
)

// TestContentLengthFraming drives the server with LSP-style framing, as some
// clients do, and expects every reply in the same framing.
func TestContentLengthFraming(t *testing.T) {
	v := acptest.Load(t)
	check := v.NewChecker()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	srv := bridge.New(&scriptAdapter{}, bridge.Options{Logger: zerolog.New(zerolog.NewTestWriter(t))})
	done := make(chan error, 1)
	go func() { done <- srv.ServeStdio(context.Background(), inR, outW); outW.Close() }()
	defer func() {
		inW.Close()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	r := bufio.NewReader(outR)
	send := func(msg string) {
		check.ClientFrame([]byte(msg))
		fmt.Fprintf(inW, "Content-Length: %d\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n%s", len(msg), msg)
	}
	read := func() map[string]any {
		tp := textproto.NewReader(r)
		h, err := tp.ReadMIMEHeader()
		if err != nil {
			t.Fatalf("reading reply headers: %v", err)
		}
		n, err := strconv.Atoi(h.Get("Content-Length"))
		if err != nil {
			t.Fatalf("reply without Content-Length: %v", h)
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			t.Fatal(err)
		}
		if err := check.AgentFrame(body); err != nil {
			t.Error(err)
		}
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil {
			t.Fatalf("reply body is not JSON: %q", body)
		}
		return m
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
	if m := read(); m["id"] != float64(1) || m["result"] == nil {
		t.Fatalf("initialize reply: %v", m)
	}
	send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}`)
	if m := read(); m["id"] != float64(2) || m["result"] == nil {
		t.Fatalf("session/new reply: %v", m)
	}
	send(`{"jsonrpc":"2.0","id":3,"method":`) // truncated JSON inside a valid frame
	if m := read(); m["error"].(map[string]any)["code"] != float64(-32700) {
		t.Fatalf("parse error reply: %v", m)
	}
}
