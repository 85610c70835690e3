package pty

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestProfileErrorsNameTheLine(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"bad regex", "name = \"x\"\n\nidle = '(unclosed'\n", `x.toml:3: `},
		{"bad regex says why", "name = \"x\"\nidle = '(unclosed'\n", `bad regular expression "(unclosed": missing closing )`},
		{"unknown key", "name = \"x\"\nidle = 'a'\nidel = 'b'\n", `x.toml:3: unknown key "idel"`},
		{"unknown key in a dialog", "name = \"x\"\nidle = 'a'\n[[dialog]]\nname = \"d\"\nmatch = 'm'\nlabel = 'l'\n", `x.toml:6: unknown key "dialog.label"`},
		{"missing name", "idle = 'a'\n", `x.toml:1: missing "name" in the profile`},
		{"missing idle", "name = \"x\"\n", `x.toml:1: missing "idle" in the profile`},
		{"dialog without match", "name = \"x\"\nidle = 'a'\n\n[[dialog]]\nname = \"d\"\noption = [{label = \"Yes\", kind = \"allow_once\", keys = [\"y\"]}]\n", `x.toml:4: missing "match" in [[dialog]] "d"`},
		{"dialog without options", "name = \"x\"\nidle = 'a'\n[[dialog]]\nname = \"d\"\nmatch = 'm'\n", `x.toml:3: missing "option" in [[dialog]] "d" (or option_line)`},
		{"second dialog without name", "name = \"x\"\nidle = 'a'\n[[dialog]]\nname = \"d\"\nmatch = 'm'\noption_line = '(?P<key>\\d) (?P<label>.*)'\n\n[[dialog]]\nmatch = 'n'\n", `x.toml:8: missing "name" in [[dialog]]`},
		{"bad kind", "name = \"x\"\nidle = 'a'\n[[dialog]]\nname = \"d\"\nmatch = 'm'\noption = [{label = \"Yes\", kind = \"allow\", keys = [\"y\"]}]\n", `x.toml:6: option "Yes" of [[dialog]] "d" has kind "allow"`},
		{"the second option's error at its line", "name = \"x\"\nidle = 'a'\n[[dialog]]\nname = \"d\"\nmatch = 'm'\noption = [\n  { label = \"Yes\", kind = \"allow_once\", keys = [\"y\"] },\n  { label = \"No\", kind = \"no\", keys = [\"n\"] },\n]\n", `x.toml:8: option "No" of [[dialog]] "d" has kind "no"`},
		{"an option in its own table", "name = \"x\"\nidle = 'a'\n[[dialog]]\nname = \"d\"\nmatch = 'm'\n\n[[dialog.option]]\nlabel = \"Yes\"\nkind = \"allow_once\"\nkeys = [\"yes\"]\n", `x.toml:8: unknown key "yes" in option "Yes" of [[dialog]] "d"`},
		{"unknown interrupt key", "name = \"x\"\nidle = 'a'\ninterrupt = [\"ctrl+c\"]\n", `x.toml:3: unknown key "ctrl+c" in interrupt`},
		{"unknown submit key", "name = \"x\"\n\nsubmit = [\"return\"]\nidle = 'a'\n", `x.toml:3: unknown key "return" in submit`},
		{"unknown key in an option's keys", "name = \"x\"\nidle = 'a'\n[[dialog]]\nname = \"d\"\nmatch = 'm'\noption = [\n  { label = \"Yes\", kind = \"allow_once\", keys = [\"y\"] },\n  { label = \"No\", kind = \"reject_once\", keys = [\"escape\"] },\n]\n", `x.toml:8: unknown key "escape" in option "No" of [[dialog]] "d"`},
		{"unknown key in a start-up dialog", "name = \"x\"\nidle = 'a'\n[[startup]]\nname = \"trust\"\nmatch = 'm'\nkeys = [\"Enter\"]\n", `x.toml:6: unknown key "Enter" in [[startup]] "trust"`},
		{"unknown key in an answer", "name = \"x\"\nidle = 'a'\n[[dialog]]\nname = \"d\"\nmatch = 'm'\noption_line = '(?P<key>\\d) (?P<label>.*)'\nanswer = [\"{key}\", \"C-m\"]\n", `x.toml:7: unknown key "C-m" in answer of [[dialog]] "d"`},
		{"a caret key", "name = \"x\"\nidle = 'a'\ninterrupt = [\"^C\"]\n", `x.toml:3: unknown key "^C" in interrupt`},
		{"option line without groups", "name = \"x\"\nidle = 'a'\n[[dialog]]\nname = \"d\"\nmatch = 'm'\noption_line = '(\\d) (.*)'\n", `x.toml:6: option_line of [[dialog]] "d" needs the groups`},
		{"startup without keys", "name = \"x\"\nidle = 'a'\n[[startup]]\nname = \"trust\"\nmatch = 'm'\n", `x.toml:3: missing "keys" in [[startup]] "trust"`},
		{"login without match", "name = \"x\"\nidle = 'a'\n\n[login]\nhint = \"h\"\n", `x.toml:4: missing "match" in [login]`},
		{"bad duration", "name = \"x\"\nidle = 'a'\nquiet = \"soon\"\n", `x.toml:3: `},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseProfile("x.toml", []byte(tt.src))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("ParseProfile error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// Key names are typed as their keys, other text as it is; a word that
// looks like a key name and is none is an error above, and is typed as
// text when written "text:WORD".
func TestKeysBytes(t *testing.T) {
	tests := []struct {
		keys Keys
		want string
	}{
		{Keys{"esc"}, "\x1b"},
		{Keys{"ctrl-c"}, "\x03"},
		{Keys{"down", "enter"}, "\x1b[B\r"},
		{Keys{"shift-tab"}, "\x1b[Z"},
		{Keys{"y"}, "y"},
		{Keys{"{key}"}, "7"},
		{Keys{"text:yes", "enter"}, "yes\r"},
		{Keys{"/quit"}, "/quit"},
	}
	for _, tt := range tests {
		if err := checkKeys(1, "test", tt.keys); err != nil {
			t.Errorf("%q: %v", tt.keys, err)
		}
		if got := string(tt.keys.Bytes("7")); got != tt.want {
			t.Errorf("%q types %q, want %q", tt.keys, got, tt.want)
		}
	}
}

// TestBuiltinProfiles: every built-in profile names its TUI's version;
// the fake TUI's profile is built in (the binary replays the tests'
// recordings) but not listed to users.
func TestBuiltinProfiles(t *testing.T) {
	listed := map[string]bool{}
	var names []string
	for _, p := range Builtin() {
		listed[p.Name] = true
		names = append(names, p.Name)
	}
	for _, p := range allBuiltin() {
		if p.Version == "" {
			t.Errorf("profile %q does not name the TUI version it was written against", p.Name)
		}
	}
	for _, name := range []string{GenericProfile, "claude", "codex", "gemini"} {
		if !listed[name] {
			t.Errorf("built-in profile %q is not listed", name)
		}
	}
	if listed["faketui"] {
		t.Error("the test-only profile faketui is listed to users")
	}
	for _, name := range []string{"faketui", GenericProfile} {
		if p, err := BuiltinProfile(name); err != nil || p.Name != name {
			t.Errorf("BuiltinProfile(%q) = %v, %v", name, p, err)
		}
	}
	if _, err := FindProfile("nope", ""); err == nil || strings.Contains(err.Error(), "faketui") {
		t.Errorf("FindProfile(nope): %v; want an error naming the profiles for users only", err)
	}
	// BuiltinNames names them by file, unparsed: each file is named after
	// its profile.
	if fast := BuiltinNames(); !slices.Equal(fast, names) {
		t.Errorf("BuiltinNames() = %q, want the parsed profiles' names %q", fast, names)
	}
}

func TestFindProfile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "mine.toml")
	if err := os.WriteFile(file, []byte("name = \"mine\"\nidle = '> $'\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, flag, cmd, want, err string
	}{
		{"by command name", "", "/opt/bin/faketui", "faketui", ""},
		{"unknown command", "", "/usr/bin/aider", GenericProfile, ""},
		{"by profile name", "generic", "faketui", GenericProfile, ""},
		{"from a file", file, "x", "mine", ""},
		{"unknown name", "nope", "x", "", `no built-in profile "nope"`},
		{"missing file", "./nope.toml", "x", "", "reading profile"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := FindProfile(tt.flag, tt.cmd)
			switch {
			case tt.err != "":
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("FindProfile error = %v, want %q", err, tt.err)
				}
			case err != nil:
				t.Fatal(err)
			case p.Name != tt.want:
				t.Fatalf("FindProfile = %q, want %q", p.Name, tt.want)
			}
		})
	}
}

func TestGenericIdle(t *testing.T) {
	p, err := FindProfile(GenericProfile, "")
	if err != nil {
		t.Fatal(err)
	}
	for text, want := range map[string]bool{
		"answer\n> ":       true,
		"answer\naider> ":  true,
		"answer\n>>> ":     true,
		"answer\n> typed":  false,
		"working on it...": false,
		"multi\nline\n$":   true,
	} {
		if got := p.Idle.MatchString(render1(text)); got != want {
			t.Errorf("idle(%q) = %v, want %v", text, got, want)
		}
	}
}

// render1 right-trims lines as the screen does.
func render1(s string) string {
	lines := strings.Split(s, "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	return strings.Join(lines, "\n")
}

// start_quiet defaults to the quiet window, and is never shorter.
func TestStartQuietDefault(t *testing.T) {
	tests := []struct {
		name, toml string
		want       time.Duration
	}{
		{"default", ``, 300 * time.Millisecond},
		{"set", `start_quiet = "2s"`, 2 * time.Second},
		{"shorter than quiet", `start_quiet = "10ms"`, 300 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParseProfile("p.toml", []byte("name = \"p\"\nidle = '^> $'\nquiet = \"300ms\"\n"+tt.toml+"\n"))
			if err != nil {
				t.Fatal(err)
			}
			if got := time.Duration(p.StartQuiet); got != tt.want {
				t.Errorf("StartQuiet = %s, want %s", got, tt.want)
			}
		})
	}
}
