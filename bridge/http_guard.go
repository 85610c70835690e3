package bridge

import (
	"crypto/sha256"
	"crypto/subtle"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// Headers a browser client may send and read across origins.
const (
	corsAllowHeaders  = "Authorization, Content-Type, Accept, Last-Event-ID, Acp-Connection-Id, Acp-Session-Id"
	corsExposeHeaders = "Acp-Connection-Id"
	corsAllowMethods  = "GET, POST, DELETE"
)

// admit lets a request through, or answers it: 403 for a Host or Origin
// that is not the bridge's own (a page doing DNS rebinding, or another site
// in the user's browser), 401 for a missing or wrong token, and a CORS
// preflight for an allowed origin. It reports whether the request goes on.
func (h *HTTPHandler) admit(w http.ResponseWriter, r *http.Request) bool {
	if !h.hostAllowed(r.Host) {
		httpError(w, http.StatusForbidden, "forbidden: Host "+quote(r.Host)+" is not this bridge's (allow a proxy's name with --allowed-host)")
		return false
	}
	origin := r.Header.Get("Origin")
	if origin != "" {
		same, ok := h.originAllowed(origin, r.Host)
		if !ok {
			httpError(w, http.StatusForbidden, "forbidden: Origin "+quote(origin)+" is not allowed (allow it with --allowed-origin)")
			return false
		}
		if !same {
			setCORS(w, origin)
		}
		if r.Method == http.MethodOptions {
			// A preflight carries no credentials; the real request will.
			w.WriteHeader(http.StatusNoContent)
			return false
		}
	}
	if h.opts.Token != "" && !h.tokenOK(r.Header.Get("Authorization")) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="acpbridge"`)
		httpError(w, http.StatusUnauthorized, "unauthorized: send Authorization: Bearer TOKEN with the bridge's token")
		return false
	}
	return true
}

// hostAllowed accepts IP literals (a rebinding page always uses a name),
// "localhost" and the configured names. The port is not compared: the
// listener already decided which port was reached.
func (h *HTTPHandler) hostAllowed(hostport string) bool {
	host := hostport
	if hh, _, err := net.SplitHostPort(hostport); err == nil {
		host = hh
	}
	host = strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	if host == "" {
		return false
	}
	if net.ParseIP(host) != nil || host == "localhost" {
		return true
	}
	return slices.ContainsFunc(h.opts.AllowedHosts, func(a string) bool { return strings.EqualFold(a, host) })
}

// originAllowed accepts the bridge's own origin (the Origin's host and port
// equal the request's Host, which hostAllowed checked) and the configured
// origins. same reports the first case, which needs no CORS headers.
func (h *HTTPHandler) originAllowed(origin, host string) (same, ok bool) {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false, false
	}
	if strings.EqualFold(u.Host, host) {
		return true, true
	}
	norm := strings.ToLower(u.Scheme + "://" + u.Host)
	return false, slices.ContainsFunc(h.opts.AllowedOrigins, func(a string) bool {
		return strings.EqualFold(strings.TrimSuffix(a, "/"), norm)
	})
}

// tokenOK compares the bearer token in constant time: both sides are
// hashed first, so not even the token's length leaks through timing.
func (h *HTTPHandler) tokenOK(auth string) bool {
	scheme, tok, ok := strings.Cut(auth, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	got := sha256.Sum256([]byte(strings.TrimSpace(tok)))
	return subtle.ConstantTimeCompare(got[:], h.tokenHash[:]) == 1
}

func setCORS(w http.ResponseWriter, origin string) {
	hd := w.Header()
	hd.Set("Access-Control-Allow-Origin", origin)
	hd.Add("Vary", "Origin")
	hd.Set("Access-Control-Allow-Methods", corsAllowMethods)
	hd.Set("Access-Control-Allow-Headers", corsAllowHeaders)
	hd.Set("Access-Control-Expose-Headers", corsExposeHeaders)
	hd.Set("Access-Control-Max-Age", "600")
}

// quote shortens and quotes a client-supplied value for an error message.
func quote(s string) string {
	if len(s) > 100 {
		s = s[:100] + "..."
	}
	return `"` + strings.ToValidUTF8(strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '"' {
			return '?'
		}
		return r
	}, s), "?") + `"`
}
