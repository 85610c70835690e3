package pty

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// The guide names every key a profile may have: a key the parser takes
// and the guide does not explain is one a user cannot find.
func TestGuideNamesEveryKey(t *testing.T) {
	b, err := os.ReadFile("../../docs/terminal-agents.md")
	if err != nil {
		t.Fatal(err)
	}
	guide := string(b)
	for _, typ := range []reflect.Type{
		reflect.TypeFor[Profile](), reflect.TypeFor[Dialog](), reflect.TypeFor[Option](),
		reflect.TypeFor[Startup](), reflect.TypeFor[Transcript](), reflect.TypeFor[Signal](), reflect.TypeFor[Login](),
	} {
		for i := range typ.NumField() {
			f := typ.Field(i)
			key, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
			if key == "" || key == "-" {
				continue
			}
			if !strings.Contains(guide, "`"+key+"`") && !strings.Contains(guide, "`["+key+"]`") && !strings.Contains(guide, "`[["+key+"]]`") {
				t.Errorf("docs/terminal-agents.md does not name the key `%s` (%s.%s)", key, typ.Name(), f.Name)
			}
		}
	}
}

// The profiles in the guide parse.
func TestGuideProfilesParse(t *testing.T) {
	b, err := os.ReadFile("../../docs/terminal-agents.md")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, block := range strings.Split(string(b), "```toml\n")[1:] {
		src, _, _ := strings.Cut(block, "```")
		if !strings.Contains(src, "\nidle = ") {
			continue // a snippet, not a profile
		}
		n++
		if _, err := ParseProfile("guide.toml", []byte(src)); err != nil {
			t.Errorf("a profile of the guide: %v\n%s", err, src)
		}
	}
	if n == 0 {
		t.Error("the guide shows no profile")
	}
}
