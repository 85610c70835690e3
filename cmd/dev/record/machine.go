package main

import (
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Placeholders for values of the recording machine that the environment
// given to the CLI cannot hide (modelserver.ClaudeEnv fixes the user, locale,
// time zone and terminal; the kernel, host name and the recorder's own paths
// remain).
const (
	placeRelease  = "0.0.0"
	placeHost     = "host"
	placeUser     = "user"
	placePlatform = "linux"
)

// machine is what a recording must not depend on but the CLI can still see:
// the kernel (it tells the model "OS Version: Linux 6.1.0-42-amd64"), the
// host and user names (from the system, not the environment), and the
// recorder's own directories (home, working directory, temp dir, the CLI's
// install directory), which a tool's output or an error could quote.
type machine struct {
	osName, osRelease string
	host, user        string
	paths             []string
}

// thisMachine reads the values of the machine the recorder runs on. Any it
// cannot read are left empty and not scrubbed.
func thisMachine(cli string) machine {
	m := machine{osName: unameField("-s"), osRelease: unameField("-r")}
	m.host, _ = os.Hostname()
	if u, err := user.Current(); err == nil {
		m.user = u.Username
	}
	home, _ := os.UserHomeDir()
	wd, _ := os.Getwd()
	for _, p := range []string{home, wd, os.TempDir(), filepath.Dir(cli)} {
		if r, err := filepath.EvalSymlinks(p); err == nil && r != p {
			m.paths = append(m.paths, r)
		}
		m.paths = append(m.paths, p)
	}
	return m
}

func unameField(flag string) string {
	out, err := exec.Command("uname", flag).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// scrubber returns a function that replaces this machine's values in a
// string. Host and user names are replaced as whole words only, and not at
// all when authored (the scenario text, which is not machine-dependent)
// uses the same word: a user called "build" must not rewrite the model's
// "build" directory.
func (m machine) scrubber(authored string) func(string) string {
	var pairs []string
	// Longest paths first, so a path inside another is not cut in two.
	paths := slices.Clone(m.paths)
	slices.SortStableFunc(paths, func(a, b string) int { return len(b) - len(a) })
	for _, p := range paths {
		// "/", "/tmp" or a parent of the placeholders would mangle them. A
		// path the scenario writes itself is not this machine's: Codex
		// names its agents /root/NAME, which a home of /root would turn
		// into /home/user/NAME.
		if len(p) > 1 && p != placeTmp && !strings.HasPrefix(placeProject+"/", p+"/") && !strings.Contains(authored, p+"/") {
			pairs = append(pairs, p, placeHome)
		}
	}
	if m.osName != "" && m.osRelease != "" {
		pairs = append(pairs, m.osName+" "+m.osRelease, placeOS)
	}
	if m.osRelease != "" {
		pairs = append(pairs, m.osRelease, placeRelease)
	}
	repl := strings.NewReplacer(pairs...)
	var words []*regexp.Regexp
	var wordPlace []string
	for _, w := range []struct{ v, place string }{{m.host, placeHost}, {m.user, placeUser}} {
		if w.v == "" || w.v == w.place || wordIn(w.v, authored) {
			continue
		}
		words = append(words, regexp.MustCompile(`\b`+regexp.QuoteMeta(w.v)+`\b`))
		wordPlace = append(wordPlace, w.place)
	}
	return func(s string) string {
		s = repl.Replace(s)
		for i, re := range words {
			s = re.ReplaceAllLiteralString(s, wordPlace[i])
		}
		return s
	}
}

// wordIn reports whether w occurs in text as a whole word.
func wordIn(w, text string) bool {
	return regexp.MustCompile(`\b` + regexp.QuoteMeta(w) + `\b`).MatchString(text)
}
