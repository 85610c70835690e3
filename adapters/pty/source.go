package pty

import (
	"regexp"
	"strings"
	"sync"
)

// source finds where things are declared in a profile's TOML, for errors
// that name the line: the decoder says where a value it cannot read is,
// not where a value it did read came from.
type source struct{ lines []string }

func newSource(data []byte) source { return source{lines: strings.Split(string(data), "\n")} }

// header is a table's header line.
var header = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*\[\[?\s*[A-Za-z0-9_."' -]+\]\]?\s*(?:#.*)?$`)
})

// top is the line of key among the keys before the first table, or 0.
func (s source) top(key string) int {
	re, hdr := assignment(key), header()
	for i, l := range s.lines {
		if hdr.MatchString(l) {
			break
		}
		if re.MatchString(l) {
			return i + 1
		}
	}
	return 0
}

// in is the line of key in the table whose header is at line, or line.
func (s source) in(line int, key string) int {
	re, hdr := assignment(key), header()
	for i := line; i < len(s.lines); i++ {
		if hdr.MatchString(s.lines[i]) {
			break
		}
		if re.MatchString(s.lines[i]) {
			return i + 1
		}
	}
	return line
}

// option is the line of the option labelled label, the first after the
// header at line (an inline table in the table's array, or a table of its
// own below it), or line.
func (s source) option(line int, label string) int {
	q := regexp.QuoteMeta(label)
	re := regexp.MustCompile(`\blabel\s*=\s*(?:"` + regexp.QuoteMeta(strings.Trim(quoteTOML(label), `"`)) + `"|'` + q + `')`)
	for i := max(line-1, 0); i < len(s.lines); i++ {
		if re.MatchString(s.lines[i]) {
			return i + 1
		}
	}
	return line
}

func assignment(key string) *regexp.Regexp {
	return regexp.MustCompile(`^\s*` + regexp.QuoteMeta(key) + `\s*=`)
}

// quoteTOML is label as a basic TOML string.
func quoteTOML(label string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(label) + `"`
}

// table is the line of the header [name], or 1.
func (s source) table(name string) int {
	for i, l := range s.lines {
		if strings.TrimSpace(l) == "["+name+"]" {
			return i + 1
		}
	}
	return 1
}
