package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/acpclient"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/codexenv"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/modelserver"
)

// TestSDKClientLogsCodexIn: an editor on the independent SDK meets, through
// the built binary, a Codex with no login but an API key in the bridge's
// environment: initialize lists the login methods, the bridge logs Codex
// in with the key without being asked, so session/new opens at once (and
// authenticate with the API-key method is accepted too), and the session
// answers with the key.
func TestSDKClientLogsCodexIn(t *testing.T) {
	bin := codexenv.Require(t)
	srv := modelserver.New(&modelserver.Scenario{Turns: []modelserver.Turn{
		{Match: "say hi", Blocks: []modelserver.Block{modelserver.Text("Hi after login.")}},
	}}, modelserver.Options{})
	url := srv.Start()
	defer srv.Close()
	env, err := codexenv.New(t.TempDir(), url, "")
	if err != nil {
		t.Fatal(err)
	}
	// Codex's own OpenAI provider (the one a login is for), at the
	// scripted server.
	if err := os.WriteFile(filepath.Join(env.Home, "config.toml"), []byte(codexenv.OpenAIConfig(url)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, kv := range append(env.Vars, "OPENAI_API_KEY=sk-sdk-login", "CODEX_API_KEY=") {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	b := startBridge(t, "codex", "--codex-path", bin)
	cl := acpclient.New("")
	conn := cl.Connect(b.Stdin, b.Stdout)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()

	init, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber})
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	var ids []string
	for _, m := range init.AuthMethods {
		if m.Agent != nil {
			ids = append(ids, m.Agent.Id)
		}
	}
	if strings.Join(ids, ",") != "openai-api-key,chatgpt" {
		t.Errorf("authMethods = %v; want the API key and ChatGPT", ids)
	}
	newSession := func() (sdk.NewSessionResponse, error) {
		return conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: env.Dir, McpServers: []sdk.McpServer{}})
	}
	// The key of the bridge's environment logs Codex in without the
	// editor asking; authenticate with it is then accepted too.
	sess, err := newSession()
	if err != nil {
		t.Fatalf("session/new with a key in the environment: %v", err)
	}
	if _, err := conn.Authenticate(ctx, sdk.AuthenticateRequest{MethodId: "openai-api-key"}); err != nil {
		t.Fatalf("authenticate: %v", err)
	}
	res, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("say hi")}})
	if err != nil || res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt = %+v, %v; want end_turn", res, err)
	}
	if got := agentText(cl); got != "Hi after login." {
		t.Errorf("agent text = %q", got)
	}
	reqs := srv.MainRequests()
	if len(reqs) == 0 || reqs[len(reqs)-1].Header.Get("Authorization") != "Bearer sk-sdk-login" {
		t.Error("the model request did not carry the key of the bridge's environment")
	}
	if b.Tap.Checker().Checked() == 0 {
		t.Error("no frame was schema-checked")
	}
}
