package codex

import (
	"context"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/codexenv"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/modelserver"
)

// noticeLog collects the notices of a session with the time each arrived.
type noticeLog struct {
	mu   sync.Mutex
	got  []acp.Notice
	at   []time.Time
	text strings.Builder
	one  chan struct{} // signalled at each notice
}

func (l *noticeLog) client() acp.Client {
	return &acptest.Client{Caps: acp.ClientCapabilities{Session: &acp.ClientSessionCapabilities{Notices: &acp.NoticeCapabilities{}}},
		Update: func(_ context.Context, n acp.SessionNotification) error {
			now := time.Now()
			l.mu.Lock()
			defer l.mu.Unlock()
			switch u := n.Update; {
			case u.Notice != nil:
				l.got, l.at = append(l.got, *u.Notice), append(l.at, now)
				select {
				case l.one <- struct{}{}:
				default:
				}
			case u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil:
				l.text.WriteString(u.AgentMessageChunk.Content.Text.Text)
			}
			return nil
		}}
}

// TestRealCodexProviderFailures: the real Codex, its provider failing.
// While Codex retries the turn's model request, each retry reaches the
// editor as a notice as soon as Codex announces it; when Codex gives up
// the turn ends with an error that names the failure; with no network at
// all (Codex retries for ever) the notices keep the turn from being silent
// until the editor cancels it. The notice latency (from the failed answer
// to the editor's notice) is logged.
func TestRealCodexProviderFailures(t *testing.T) {
	bin := codexenv.Require(t)
	tests := []struct {
		name    string
		fail    *modelserver.APIError // nil: nothing listens at the provider's address
		wantErr []string
	}{
		{"500", &modelserver.APIError{Status: 500, Message: "scripted upstream failure"}, []string{"internal server error", "after 2 retries"}},
		{"disconnect", &modelserver.APIError{Disconnect: true}, []string{"stream disconnected", "after 2 retries"}},
		{"no network", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var srv *modelserver.Server
			url := closedPort(t)
			if tt.fail != nil {
				srv = modelserver.New(&modelserver.Scenario{Turns: []modelserver.Turn{{Match: "fail", Times: 100, Error: tt.fail}}}, modelserver.Options{})
				url = srv.Start()
				defer srv.Close()
			}
			env, err := codexenv.New(t.TempDir(), url, "")
			if err == nil {
				err = env.UseConfig(codexenv.Retrying(url, 2))
			}
			if err != nil {
				t.Fatal(err)
			}
			a := New(Options{Path: bin, Env: env.Vars, Logger: zerolog.New(zerolog.NewTestWriter(t)), StopGrace: 500 * time.Millisecond,
				SpareCwd: env.Dir, NoSpare: true})
			defer a.Close()
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			l := &noticeLog{one: make(chan struct{}, 1)}
			s, err := a.NewSession(ctx, acp.NewSessionRequest{Cwd: env.Dir}, l.client())
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			// What Codex said at start (configuration warnings) is not
			// the turn's.
			l.mu.Lock()
			l.got, l.at = nil, nil
			l.mu.Unlock()
			select {
			case <-l.one:
			default:
			}
			pctx, stopPrompt := context.WithCancel(ctx)
			defer stopPrompt()
			if tt.fail == nil {
				// Codex waits for the network with no end: the editor
				// cancels once it has heard of it, or gives up on a
				// silent turn (its first retry comes within a second).
				go func() {
					silent := time.NewTimer(30 * time.Second)
					defer silent.Stop()
					select {
					case <-l.one:
						stopPrompt()
					case <-silent.C:
						stopPrompt()
					case <-pctx.Done():
					}
				}()
			}
			stop, err := s.Prompt(pctx, acp.PromptRequest{SessionID: s.ID(), Prompt: []acp.ContentBlock{acp.TextBlock("fail")}})
			l.mu.Lock()
			defer l.mu.Unlock()
			if tt.fail == nil {
				if err != nil || stop != acp.StopReasonCancelled {
					t.Errorf("Prompt = %q, %v; want cancelled", stop, err)
				}
				if len(l.got) == 0 || !strings.Contains(l.got[0].Title, "Reconnecting") || l.got[0].Description == nil {
					t.Errorf("notices %s; want Codex's reconnect with its reason", mustJSON(l.got))
				}
				return
			}
			if err == nil {
				t.Fatalf("Prompt = %q; want the provider's failure", stop)
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			var titles []string
			for _, n := range l.got {
				titles = append(titles, n.Title)
			}
			if want := []string{"Reconnecting... 1/2", "Reconnecting... 2/2"}; !slices.Equal(titles, want) {
				t.Fatalf("notices %q, want %q", titles, want)
			}
			if l.text.Len() > 0 {
				t.Errorf("agent text %q; the retries are notices only", l.text.String())
			}
			// Retry i follows the failure of request i.
			var failed []time.Time
			for _, r := range srv.MainRequests() {
				if !r.Failed.IsZero() {
					failed = append(failed, r.Failed)
				}
			}
			if len(failed) != 3 {
				t.Fatalf("%d failed model requests, want 3 (the first and two retries)", len(failed))
			}
			for i, at := range l.at {
				lat := at.Sub(failed[i])
				t.Logf("%s: retry notice %d reached the editor %v after the failed answer", tt.name, i+1, lat.Round(10*time.Microsecond))
				if lat < 0 || lat > 5*time.Second {
					t.Errorf("notice %d came %v after its failure", i+1, lat)
				}
			}
		})
	}
}

// closedPort is the URL of a local address nothing listens at: a provider
// that cannot be reached at all.
func closedPort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close()
	return url
}
