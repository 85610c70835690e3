package pty

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Keys is a sequence of keys to type: each element is a key name (enter,
// esc, tab, shift-tab, space, backspace, up, down, left, right, ctrl-a …
// ctrl-z) or literal text. A word that looks like a key name (letters,
// digits, "-" or "+") and is none is an error, not text: a misspelt
// "ctrl+c" typed as text would leave a turn that cannot be interrupted.
// Such a word is typed as text when written "text:WORD".
type Keys []string

var named = map[string]string{
	"enter":     "\r",
	"esc":       "\x1b",
	"tab":       "\t",
	"shift-tab": "\x1b[Z",
	"space":     " ",
	"backspace": "\x7f",
	"up":        "\x1b[A",
	"down":      "\x1b[B",
	"right":     "\x1b[C",
	"left":      "\x1b[D",
}

// textPrefix marks an element typed as text even if it looks like a key
// name.
const textPrefix = "text:"

// keyLike is what a key name looks like; "^C" is a control key written
// as some terminals show it.
var keyLike = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:[A-Za-z][A-Za-z0-9]*(?:[-+][A-Za-z0-9]+)*|\^[A-Za-z@\[\]\\^_?])$`)
})

// Bytes is what the keys send, with "{key}" replaced by key.
func (k Keys) Bytes(key string) []byte {
	var b strings.Builder
	for _, s := range k {
		if v, ok := named[s]; ok {
			b.WriteString(v)
			continue
		}
		if c, ok := ctrl(s); ok {
			b.WriteByte(c)
			continue
		}
		if t, ok := strings.CutPrefix(s, textPrefix); ok {
			b.WriteString(t)
			continue
		}
		b.WriteString(strings.ReplaceAll(s, "{key}", key))
	}
	return []byte(b.String())
}

// ctrl is the byte of a "ctrl-a" … "ctrl-z" key.
func ctrl(s string) (byte, bool) {
	if c, ok := strings.CutPrefix(s, "ctrl-"); ok && len(c) == 1 && c[0] >= 'a' && c[0] <= 'z' {
		return c[0] - 'a' + 1, true
	}
	return 0, false
}

// unknown is the first element that looks like a key name and is none.
func (k Keys) unknown() (string, bool) {
	for _, s := range k {
		if _, ok := named[s]; ok {
			continue
		}
		if _, ok := ctrl(s); ok || len(s) < 2 || !keyLike().MatchString(s) {
			continue
		}
		return s, true
	}
	return "", false
}

// checkKeys is the error of keys k declared at line, which names where
// they are, or nil.
func checkKeys(line int, where string, k Keys) error {
	name, ok := k.unknown()
	if !ok {
		return nil
	}
	return fmt.Errorf("%d: unknown key %q in %s (key names: %s, ctrl-a … ctrl-z; other text is typed as it is, and %q types %q as text)",
		line, name, where, keyNames(), textPrefix+name, name)
}

func keyNames() string {
	var n []string
	for k := range named {
		n = append(n, k)
	}
	sort.Strings(n)
	return strings.Join(n, ", ")
}
