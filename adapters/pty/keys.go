package pty

import (
	"strings"
)

// Keys is a sequence of keys to type: each element is a key name (enter,
// esc, tab, space, backspace, up, down, left, right, ctrl-a … ctrl-z) or
// literal text.
type Keys []string

var named = map[string]string{
	"enter":     "\r",
	"esc":       "\x1b",
	"tab":       "\t",
	"space":     " ",
	"backspace": "\x7f",
	"up":        "\x1b[A",
	"down":      "\x1b[B",
	"right":     "\x1b[C",
	"left":      "\x1b[D",
}

// Bytes is what the keys send, with "{key}" replaced by key.
func (k Keys) Bytes(key string) []byte {
	var b strings.Builder
	for _, s := range k {
		if v, ok := named[s]; ok {
			b.WriteString(v)
			continue
		}
		if c, ok := strings.CutPrefix(s, "ctrl-"); ok && len(c) == 1 && c[0] >= 'a' && c[0] <= 'z' {
			b.WriteByte(c[0] - 'a' + 1)
			continue
		}
		b.WriteString(strings.ReplaceAll(s, "{key}", key))
	}
	return []byte(b.String())
}
