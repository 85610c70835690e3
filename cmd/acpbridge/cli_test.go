package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// TestCommandLine runs the command line in-process for the ways a user or
// an editor calls it, and checks exactly what goes to stdout, what to
// stderr, and the exit code. Help and the version are answers (stdout, exit
// 0); a mistake is said once on stderr, with a pointer to --help (exit 2).
func TestCommandLine(t *testing.T) {
	const (
		anyHelp   = "\x00help" // stdout is the app's help
		claudeUse = "\x00claude help"
	)
	hint := func(cmd string) string { return "Run '" + cmd + " --help' for usage.\n" }
	missing := filepath.Join(t.TempDir(), "no-such.txtar")
	tests := []struct {
		name           string
		args           []string
		code           int
		stdout, stderr string
	}{
		{"version", []string{"--version"}, 0, "acpbridge version v0.0.0-dev (commit unknown, built unknown)\n", ""},
		{"version short", []string{"-v"}, 0, "acpbridge version v0.0.0-dev (commit unknown, built unknown)\n", ""},
		{"help", []string{"--help"}, 0, anyHelp, ""},
		{"help short", []string{"-h"}, 0, anyHelp, ""},
		{"help command", []string{"help"}, 0, anyHelp, ""},
		{"help for a command", []string{"help", "claude"}, 0, claudeUse, ""},
		{"command help flag", []string{"claude", "--help"}, 0, claudeUse, ""},
		{"help for an unknown command", []string{"help", "bogus"}, 2, "",
			"acpbridge: unknown command \"bogus\"\n" + hint("acpbridge")},
		{"no command", nil, 2, "",
			"acpbridge: no command given (auto, claude, codex, stream-json, replay, pty, serve, agents, login, acp, gemini, qwen, opencode, copilot)\n" + hint("acpbridge")},
		{"unknown command", []string{"bogus"}, 2, "",
			"acpbridge: unknown command \"bogus\"\n" + hint("acpbridge")},
		{"unknown flag", []string{"--bogus"}, 2, "",
			"acpbridge: unknown flag --bogus\n" + hint("acpbridge")},
		{"unknown command flag, said once", []string{"claude", "--bogus"}, 2, "",
			"acpbridge: unknown flag --bogus\n" + hint("acpbridge claude")},
		{"bad log level", []string{"--log-level", "loud", "replay", "x"}, 2, "",
			"acpbridge: --log-level \"loud\" is not one of trace, debug, info, warn, error, disabled\n" + hint("acpbridge")},
		{"bad log format", []string{"--log-format", "xml", "replay", "x"}, 2, "",
			"acpbridge: --log-format \"xml\" is not json or console\n" + hint("acpbridge")},
		{"replay without a fixture", []string{"replay"}, 2, "",
			"acpbridge: replay takes exactly one FIXTURE: a recording file, or demo (the one built in)\n" + hint("acpbridge replay")},
		{"replay of a missing fixture", []string{"replay", missing}, 2, "",
			"\x00acpbridge: loading fixture: open " + missing + "\x00" + hint("acpbridge replay")},
		{"acp without a command", []string{"acp"}, 2, "",
			"acpbridge: acp needs the agent's command line after --, for example: acpbridge acp -- gemini --acp\n" + hint("acpbridge acp")},
		{"pty with an unknown profile", []string{"pty", "--profile", "nosuch", "--", "true"}, 2, "",
			"\x00acpbridge: --profile: no built-in profile \"nosuch\"\x00" + hint("acpbridge pty")},
		{"codex with an unknown mode", []string{"codex", "--mode", "silly"}, 2, "",
			"acpbridge: --mode \"silly\" is not one of read-only, auto, full-access\n" + hint("acpbridge codex")},
		{"a flag's bad value, named as typed, with an example", []string{"replay", "--pace", "abc", missing}, 2, "",
			"acpbridge: --pace \"abc\" is not a valid value (for example --pace 30ms)\n" + hint("acpbridge replay")},
		{"a flag's bad value, its default as the example", []string{"serve", "--port", "abc", "replay", missing}, 2, "",
			"acpbridge: --port \"abc\" is not a valid value (for example --port 8765)\n" + hint("acpbridge serve")},
		{"a flag without its value, named as typed, with an example", []string{"claude", "--model"}, 2, "",
			"acpbridge: --model needs a value (for example --model sonnet)\n" + hint("acpbridge claude")},
		{"a global flag without its value", []string{"--log-file"}, 2, "",
			"acpbridge: --log-file needs a value (for example --log-file FILE)\n" + hint("acpbridge")},
		{"stream-json with a missing dialect file", []string{"stream-json", "--dialect", missing, "--", "true"}, 2, "",
			"\x00acpbridge: --dialect: \x00" + hint("acpbridge stream-json")},
		{"an unknown dialect to print", []string{"stream-json", "--print-dialect", "nosuch"}, 2, "",
			"\x00acpbridge: --print-dialect: no built-in dialect \"nosuch\"\x00" + hint("acpbridge stream-json")},
		{"a bad start timeout", []string{"claude", "--start-timeout", "0s"}, 2, "",
			"acpbridge: --start-timeout 0s is not positive\n" + hint("acpbridge claude")},
		{"serve without an adapter", []string{"serve"}, 2, "",
			"acpbridge: serve needs an adapter to serve (auto, claude, codex, stream-json, replay, pty, acp, gemini, qwen, opencode, copilot)\n" + hint("acpbridge serve")},
		{"serve of an unknown adapter", []string{"serve", "bogus"}, 2, "",
			"acpbridge: serve: unknown adapter \"bogus\" (auto, claude, codex, stream-json, replay, pty, acp, gemini, qwen, opencode, copilot)\n" + hint("acpbridge serve")},
		{"serve on all interfaces without a token", []string{"serve", "--host", "0.0.0.0", "--token", "", "replay", "../../fixtures/claude/text.txtar"}, 2, "",
			"\x00--host \"0.0.0.0\" is not a loopback address: set --token\x00" + hint("acpbridge serve")},
		{"bad permission mode", []string{"claude", "--permission-mode", "yolo"}, 2, "",
			"\x00--permission-mode \"yolo\" is not one of\x00" + hint("acpbridge claude")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("ACPBRIDGE_TOKEN", "")
			var stdout, stderr bytes.Buffer
			code := run(t.Context(), append([]string{"acpbridge"}, tt.args...), &stdout, &stderr)
			if code != tt.code {
				t.Errorf("exit code %d, want %d", code, tt.code)
			}
			checkOutput(t, "stdout", stdout.String(), tt.stdout)
			checkOutput(t, "stderr", stderr.String(), tt.stderr)
		})
	}
}

// checkOutput compares got with want: exactly, or, when want starts with
// NUL, by what it must contain (help text, OS error messages) and, after a
// second NUL, how it must end.
func checkOutput(t *testing.T, name, got, want string) {
	t.Helper()
	switch want {
	case "\x00help":
		if !strings.HasPrefix(got, "NAME:\n   acpbridge - ") || !strings.Contains(got, "\n   serve ") ||
			strings.Contains(got, "\n   help") {
			t.Errorf("%s is not the app's help (without a help command):\n%s", name, got)
		}
		return
	case "\x00claude help":
		if !strings.HasPrefix(got, "NAME:\n   acpbridge claude - ") || !strings.Contains(got, "--claude-path") ||
			strings.Contains(got, "COMMANDS:") {
			t.Errorf("%s is not the claude command's help (without a help subcommand):\n%s", name, got)
		}
		return
	}
	if sub, ok := strings.CutPrefix(want, "\x00"); ok {
		// "\x00part\x00end": the end too, exactly.
		sub, end, _ := strings.Cut(sub, "\x00")
		if !strings.Contains(got, sub) || !strings.HasSuffix(got, end) || strings.Count(got, "acpbridge:") != 1 {
			t.Errorf("%s = %q, want one error containing %q and ending %q", name, got, sub, end)
		}
		return
	}
	if got != want {
		t.Errorf("%s = %q, want %q", name, got, want)
	}
}

// TestDefaultLogLevel: editors show the agent's stderr to the user, so a
// stdio bridge whose stderr is not a terminal logs warnings only, unless
// asked; a log file and serve (run by hand or by a service) get info.
func TestDefaultLogLevel(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		logFile bool
		want    zerolog.Level
	}{
		{"stdio to an editor", []string{"replay", "x"}, false, zerolog.WarnLevel},
		{"claude to an editor", []string{"claude"}, false, zerolog.WarnLevel},
		{"stdio with a log file", []string{"replay", "x"}, true, zerolog.InfoLevel},
		{"serve", []string{"serve", "replay", "x"}, false, zerolog.InfoLevel},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := &globals{stderr: &bytes.Buffer{}}
			if tt.logFile {
				g.logFile = "F"
			}
			got := g.defaultLevel(tt.args)
			if got != tt.want {
				t.Errorf("default level %v, want %v", got, tt.want)
			}
		})
	}
}

// fakeAddr is a net.Addr with a fixed string.
type fakeAddr string

func (a fakeAddr) Network() string { return "tcp" }
func (a fakeAddr) String() string  { return string(a) }

func TestListenURL(t *testing.T) {
	tests := []struct {
		host string
		addr net.Addr
		url  string
		all  bool
	}{
		{"0.0.0.0", &net.TCPAddr{IP: net.IPv6unspecified, Port: 8765}, "http://127.0.0.1:8765/acp", true},
		{"", &net.TCPAddr{IP: net.IPv6unspecified, Port: 8765}, "http://127.0.0.1:8765/acp", true},
		{"::", &net.TCPAddr{IP: net.IPv6unspecified, Port: 8765}, "http://[::1]:8765/acp", true},
		{"127.0.0.1", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 9}, "http://127.0.0.1:9/acp", false},
		{"::1", &net.TCPAddr{IP: net.IPv6loopback, Port: 9}, "http://[::1]:9/acp", false},
		{"fd00::2", fakeAddr("[fd00::2]:9"), "http://[fd00::2]:9/acp", false},
		{"localhost", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 9}, "http://localhost:9/acp", false},
		{"build.example.com", &net.TCPAddr{IP: net.IPv4(10, 0, 0, 2), Port: 9}, "http://build.example.com:9/acp", false},
	}
	for _, tt := range tests {
		url, all := listenURL(tt.host, tt.addr)
		if url != tt.url || all != tt.all {
			t.Errorf("listenURL(%q, %v) = %q, %v; want %q, %v", tt.host, tt.addr, url, all, tt.url, tt.all)
		}
	}
}

// lineWriter sends each line written to it on lines, dropping lines
// nobody has room for.
type lineWriter struct {
	mu    sync.Mutex
	buf   []byte // guarded by mu
	lines chan string
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		select {
		case w.lines <- string(w.buf[:i]):
		default:
		}
		w.buf = w.buf[i+1:]
	}
}

// TestServeAllInterfacesURL: on --host 0.0.0.0 the address line names a URL
// that can be opened (not http://[::]:PORT/acp) and says every interface
// listens; the URL is then dialled.
func TestServeAllInterfacesURL(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	stderr := &lineWriter{lines: make(chan string, 64)}
	var stdout bytes.Buffer
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, []string{"acpbridge", "--log-format", "json", "serve", "--host", "0.0.0.0", "--token", "t",
			"--port", "0", "replay", filepath.Join("..", "..", "fixtures", "claude", "text.txtar")}, &stdout, stderr)
	}()
	var m struct{ Message, URL, Addr, Interfaces string }
	deadline := time.After(10 * time.Second)
	for m.Message != "listening" {
		select {
		case line := <-stderr.lines:
			m.Message = ""
			json.Unmarshal([]byte(line), &m)
		case c := <-code:
			t.Fatalf("serve exited with %d before listening", c)
		case <-deadline:
			t.Fatal("serve did not log its address within 10s")
		}
	}
	_, port, err := net.SplitHostPort(m.Addr)
	if err != nil {
		t.Fatal(err)
	}
	if want := "http://127.0.0.1:" + port + "/acp"; m.URL != want || m.Interfaces != "all" {
		t.Errorf("logged url %q, interfaces %q; want %q, all", m.URL, m.Interfaces, want)
	}
	u, err := url.Parse(m.URL)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.DialTimeout("tcp", u.Host, 10*time.Second)
	if err != nil {
		t.Fatalf("the logged URL cannot be opened: %v", err)
	}
	conn.Close()
	cancel()
	select {
	case c := <-code:
		if c != 0 {
			t.Errorf("serve exited with %d after its context ended", c)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop within 10s of its context ending")
	}
	if stdout.Len() != 0 {
		t.Errorf("serve wrote to stdout: %q", stdout.String())
	}
}
