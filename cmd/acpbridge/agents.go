package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/acpbridge/acpbridge/adapters/native"
	"github.com/acpbridge/acpbridge/adapters/replay"
)

// agentReport is one line of `acpbridge agents`.
type agentReport struct {
	Name      string         `json:"name"`
	Title     string         `json:"title"`
	Installed bool           `json:"installed"`
	Path      string         `json:"path,omitempty"`
	Version   string         `json:"version,omitempty"`
	Problem   string         `json:"problem,omitempty"`
	Install   string         `json:"install"`
	Args      []string       `json:"args"`
	Zed       map[string]any `json:"zed"`
	JetBrains map[string]any `json:"jetbrains"`
	Acpx      map[string]any `json:"acpx"`
}

// agentsCommand is `acpbridge agents`: what the bridge can serve, what is
// installed here, and how to wire each into an editor. It writes to out
// (stdout: it serves no ACP, and users pipe it).
func agentsCommand(out io.Writer) *cli.Command {
	var (
		asJSON     bool
		editorName string
	)
	return &cli.Command{
		Name:  "agents",
		Usage: "list the agents the bridge knows (the TUIs of the built-in PTY profiles too), whether each is installed here, and editor configuration for each",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the list as JSON", Destination: &asJSON},
			&cli.StringFlag{Name: "editor", Usage: "print the configuration of `NAME` for the agents installed here (" + editorNames() + ")",
				Destination: &editorName},
		},
		Action: func(c *cli.Context) error {
			var ed editor
			if editorName != "" {
				var ok bool
				if ed, ok = findEditor(editorName); !ok {
					return usageError(c, fmt.Sprintf("--editor %q is not one of %s", editorName, editorNames()))
				}
			}
			self, err := os.Executable()
			if err != nil {
				self = "acpbridge"
			}
			reports := surveyAgents(c.Context, self,
				versionProbe{cache: defaultVersionCache(), timeout: versionTimeout, run: native.Version})
			for _, d := range adapters() {
				if d.reports != nil {
					reports = append(reports, d.reports(d, self)...)
				}
			}
			if editorName != "" {
				writeEditor(out, ed, self, reports)
				return nil
			}
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(reports)
			}
			fmt.Fprintf(out, "One entry for all of them: %s auto (each session picks an installed agent; editor \"args\": [\"auto\"])\n\n", self)
			installed := false
			for _, r := range reports {
				writeReport(out, r)
				installed = installed || r.Installed
			}
			if !installed {
				writeDemo(out, self)
			}
			return nil
		},
	}
}

// surveyAgents looks every installable agent of the table up and asks
// those installed their version (probe).
func surveyAgents(ctx context.Context, self string, probe versionProbe) []agentReport {
	all := installable()
	reports := make([]agentReport, len(all))
	var paths []string
	var found []int // the reports of paths
	for i, k := range all {
		r := &reports[i]
		*r = agentReport{Name: k.name, Title: k.title, Install: k.install, Args: []string{k.name}}
		want := k.exe
		if p := os.Getenv(k.env); p != "" {
			want = p
		}
		path, err := exec.LookPath(want)
		if err != nil {
			r.Problem = err.Error()
		} else {
			r.Installed, r.Path = true, path
			r.Args = append(r.Args, "--"+k.pathFlag, path)
			paths, found = append(paths, path), append(found, i)
		}
		label := k.title + " (acpbridge)"
		r.Zed = map[string]any{label: map[string]any{"type": "custom", "command": self, "args": r.Args}}
		r.JetBrains = map[string]any{label: map[string]any{"command": self, "args": r.Args}}
		r.Acpx = map[string]any{k.name + "-bridge": map[string]any{"command": shellJoin(append([]string{self}, r.Args...))}}
	}
	for j, v := range probe.versions(ctx, paths) {
		r := &reports[found[j]]
		r.Version, r.Problem = v.version, v.problem
	}
	return reports
}

func writeReport(w io.Writer, r agentReport) {
	fmt.Fprintf(w, "%s (%s)\n", r.Name, r.Title)
	switch {
	case r.Installed && r.Version != "":
		fmt.Fprintf(w, "  installed:  %s, version %s\n", r.Path, r.Version)
	case r.Installed && r.Problem != "":
		fmt.Fprintf(w, "  installed:  %s (%s)\n", r.Path, r.Problem)
	case r.Installed:
		// A TUI of a PTY profile: its version is not asked (see ptyReports).
		fmt.Fprintf(w, "  installed:  %s\n", r.Path)
	default:
		fmt.Fprintf(w, "  installed:  no\n")
	}
	fmt.Fprintf(w, "  install:    %s\n", r.Install)
	fmt.Fprintf(w, "  Zed:        in ~/.config/zed/settings.json under \"agent_servers\": %s\n", compact(r.Zed))
	fmt.Fprintf(w, "  JetBrains:  in ~/.jetbrains/acp.json under \"agent_servers\": %s\n", compact(r.JetBrains))
	fmt.Fprintf(w, "  acpx:       in ~/.config/acpx/config.json under \"agents\": %s\n", compact(r.Acpx))
	fmt.Fprintf(w, "  others:     acpbridge agents --editor NAME (%s)\n\n", editorNames())
}

// writeDemo offers the replay demo, which needs no agent CLI: it is built
// into the binary (replay.DemoName), so the command works wherever the
// binary is installed, not only in a clone of the repository.
func writeDemo(w io.Writer, self string) {
	args := []string{replayCommand, "--pace", "20ms", replay.DemoName}
	label := "acpbridge replay demo"
	fmt.Fprintf(w, "No agent CLI is installed here yet. To see in your editor what a session looks like without one,\n"+
		"serve the recorded Claude Code session built into acpbridge (no CLI and no account needed):\n")
	fmt.Fprintf(w, "  runs as:    %s (an ACP agent: the editor starts it)\n", shellJoin(append([]string{self}, args...)))
	fmt.Fprintf(w, "  Zed:        in ~/.config/zed/settings.json under \"agent_servers\": %s\n",
		compact(map[string]any{label: map[string]any{"type": "custom", "command": self, "args": args}}))
	fmt.Fprintf(w, "  JetBrains:  in ~/.jetbrains/acp.json under \"agent_servers\": %s\n",
		compact(map[string]any{label: map[string]any{"command": self, "args": args}}))
}

func compact(v map[string]any) string {
	b, _ := json.Marshal(v)
	s := string(b)
	return s[1 : len(s)-1] // the entry, to paste inside the object
}

// shellJoin quotes argv for acpx, which splits its command like a shell.
func shellJoin(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && !strings.ContainsAny(a, " \t\n'\"\\$`&|;<>()*?[]#~!{}") {
			q[i] = a
			continue
		}
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}
