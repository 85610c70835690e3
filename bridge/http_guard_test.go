package bridge_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/acpbridge/acpbridge/bridge"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
)

// TestHTTPBadRequests sends each kind of bad request to both wire shapes
// and checks the exact status and that the reason says what is wrong.
func TestHTTPBadRequests(t *testing.T) {
	v := acptest.Load(t)
	const token = "s3cret-token"
	ts, _ := startHTTP(t, &scriptAdapter{}, bridge.HTTPOptions{Token: token, MaxBodySize: 1024,
		AllowedHosts: []string{"acp.example.com"}, AllowedOrigins: []string{"https://ide.example.com"}})
	// A live client of each shape, for the requests that need one.
	cid := newClient(t, ts.URL, "client_id", v)
	cid.header.Set("Authorization", "Bearer "+token)
	cid.start()
	sc := newClient(t, ts.URL, "streamable", v)
	sc.header.Set("Authorization", "Bearer "+token)
	sc.start()
	sid := sc.newSession()

	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`
	const newSession = `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}`
	auth := "Bearer " + token
	rpc := "/acp/rpc?client_id=" + cid.id
	conn := sc.id
	big := `{"jsonrpc":"2.0","id":3,"method":"session/new","params":{"cwd":"` + strings.Repeat("x", 2000) + `"}}`
	tests := []struct {
		name, method, path, body string
		header                   map[string]string
		status                   int
		reason                   string
	}{
		{"no token", "POST", rpc, newSession, map[string]string{"Authorization": ""}, 401, "Authorization: Bearer"},
		{"wrong token", "POST", rpc, newSession, map[string]string{"Authorization": "Bearer nope"}, 401, "unauthorized"},
		{"token of another scheme", "POST", rpc, newSession, map[string]string{"Authorization": "Basic " + token}, 401, "unauthorized"},
		{"foreign Origin", "POST", rpc, newSession, map[string]string{"Origin": "https://evil.example"}, 403, "Origin"},
		{"null Origin", "GET", "/acp/sse?client_id=x", "", map[string]string{"Origin": "null"}, 403, "Origin"},
		{"foreign Host (DNS rebinding)", "POST", rpc, newSession, map[string]string{"Host": "evil.example:8765"}, 403, "Host"},
		{"unknown path", "GET", "/nope", "", nil, 404, "/acp"},

		{"client_id: none", "POST", "/acp/rpc", newSession, nil, 400, "missing client_id"},
		{"client_id: invalid", "POST", "/acp/rpc?client_id=a%20b", newSession, nil, 400, "invalid client_id"},
		{"client_id: unknown client", "POST", "/acp/rpc?client_id=nobody", newSession, nil, 404, "unknown client_id"},
		{"client_id: invalid JSON", "POST", rpc, `{"jsonrpc":`, nil, 400, "invalid JSON"},
		{"client_id: empty body", "POST", rpc, "", nil, 400, "empty body"},
		{"client_id: batch", "POST", rpc, "[" + newSession + "]", nil, 400, "batches"},
		{"client_id: not an object", "POST", rpc, `"hello"`, nil, 400, "JSON object"},
		{"client_id: oversized body", "POST", rpc, big, nil, 413, "1024-byte limit"},
		{"client_id: form body", "POST", rpc, newSession, map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, 415, "application/json"},
		{"client_id: GET on rpc", "GET", rpc, "", nil, 405, "POST"},
		{"client_id: stream without client_id", "GET", "/acp/sse", "", nil, 400, "missing client_id"},
		{"client_id: second reader", "GET", "/acp/sse?client_id=" + cid.id, "", nil, 409, "Last-Event-ID"},
		{"client_id: DELETE unknown", "DELETE", "/acp/sse?client_id=nobody", "", nil, 404, "unknown client_id"},

		{"streamable: no connection id", "POST", "/acp", newSession, nil, 400, "missing Acp-Connection-Id"},
		{"streamable: unknown connection", "POST", "/acp", newSession, map[string]string{"Acp-Connection-Id": "nope"}, 404, "unknown Acp-Connection-Id"},
		{"streamable: invalid JSON", "POST", "/acp", `{"id":`, map[string]string{"Acp-Connection-Id": conn}, 400, "invalid JSON"},
		{"streamable: no Content-Type", "POST", "/acp", newSession, map[string]string{"Acp-Connection-Id": conn, "Content-Type": ""}, 415, "application/json"},
		{"streamable: oversized body", "POST", "/acp", big, map[string]string{"Acp-Connection-Id": conn}, 413, "limit"},
		{"streamable: initialize on a connection", "POST", "/acp", initialize, map[string]string{"Acp-Connection-Id": conn}, 400, "existing connection"},
		{"streamable: prompt without session header", "POST", "/acp", `{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"` + sid + `","prompt":[]}}`,
			map[string]string{"Acp-Connection-Id": conn}, 400, "missing Acp-Session-Id"},
		{"streamable: mismatched session header", "POST", "/acp", `{"jsonrpc":"2.0","id":5,"method":"session/prompt","params":{"sessionId":"` + sid + `","prompt":[]}}`,
			map[string]string{"Acp-Connection-Id": conn, "Acp-Session-Id": "other"}, 400, "mismatched"},
		{"streamable: GET without Accept", "GET", "/acp", "", map[string]string{"Acp-Connection-Id": conn, "Accept": ""}, 406, "text/event-stream"},
		{"streamable: GET without connection id", "GET", "/acp", "", map[string]string{"Accept": "text/event-stream"}, 400, "missing Acp-Connection-Id"},
		{"streamable: GET of a connection stream that has a reader", "GET", "/acp", "",
			map[string]string{"Acp-Connection-Id": conn, "Accept": "text/event-stream"}, 409, "active receiver"},
		{"streamable: DELETE unknown", "DELETE", "/acp", "", map[string]string{"Acp-Connection-Id": "nope"}, 404, "unknown"},
		{"streamable: PUT", "PUT", "/acp", "", nil, 405, "GET, POST, DELETE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hdr := map[string]string{"Authorization": auth, "Content-Type": "application/json"}
			for k, v := range tt.header {
				hdr[k] = v
			}
			st, body, _ := do(t, tt.method, ts.URL+tt.path, tt.body, hdr)
			if st != tt.status || !strings.Contains(body, tt.reason) {
				t.Errorf("%s %s: got %d %q, want %d mentioning %q", tt.method, tt.path, st, body, tt.status, tt.reason)
			}
		})
	}
}

// do sends one request; an empty header value removes the header.
func do(t *testing.T, method, url, body string, hdr map[string]string) (int, string, http.Header) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, url, r)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		switch {
		case k == "Host":
			req.Host = v
		case v == "":
			req.Header.Del(k)
		default:
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

// TestHTTPAdmits checks what gets through the guard: the bridge's own
// names and origin, configured ones (with CORS), and a preflight.
func TestHTTPAdmits(t *testing.T) {
	ts, _ := startHTTP(t, &scriptAdapter{}, bridge.HTTPOptions{Token: "t",
		AllowedHosts: []string{"acp.example.com"}, AllowedOrigins: []string{"https://ide.example.com"}})
	host := strings.TrimPrefix(ts.URL, "http://")
	_, port, _ := strings.Cut(host, ":")
	del := `/acp/sse?client_id=nobody`
	tests := []struct {
		name   string
		method string
		header map[string]string
		status int
		cors   string // expected Access-Control-Allow-Origin
	}{
		{"IP host", "DELETE", map[string]string{}, 404, ""},
		{"localhost", "DELETE", map[string]string{"Host": "localhost:" + port}, 404, ""},
		{"allowed host", "DELETE", map[string]string{"Host": "ACP.example.com"}, 404, ""},
		{"same origin", "DELETE", map[string]string{"Origin": "http://" + host}, 404, ""},
		{"allowed origin", "DELETE", map[string]string{"Origin": "https://ide.example.com"}, 404, "https://ide.example.com"},
		{"preflight without token", "OPTIONS", map[string]string{"Origin": "https://ide.example.com", "Authorization": ""}, 204, "https://ide.example.com"},
		{"preflight from a foreign origin", "OPTIONS", map[string]string{"Origin": "https://evil.example", "Authorization": ""}, 403, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hdr := map[string]string{"Authorization": "Bearer t"}
			for k, v := range tt.header {
				hdr[k] = v
			}
			st, body, h := do(t, tt.method, ts.URL+del, "", hdr)
			if st != tt.status {
				t.Errorf("got %d %q, want %d", st, body, tt.status)
			}
			if got := h.Get("Access-Control-Allow-Origin"); got != tt.cors {
				t.Errorf("Access-Control-Allow-Origin %q, want %q", got, tt.cors)
			}
			if tt.cors != "" && !strings.Contains(h.Get("Access-Control-Allow-Headers"), "Acp-Session-Id") {
				t.Errorf("CORS headers lack Acp-Session-Id: %v", h)
			}
		})
	}
}
