// Package registry_test checks the entries acpbridge would submit to the
// ACP registry (github.com/agentclientprotocol/registry): each
// registry/<id>/ holds agent.json and icon.svg, laid out as the registry
// wants them. The checks are the registry's own (its agent.schema.json,
// pinned in testdata; its build script's rules for ids, versions, URLs and
// icons; its verifier's launch and auth checks) and ours: every archive an
// entry names is one make dist makes, and its cmd is the binary inside.
package registry_test

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// release is where GoReleaser publishes a tag's archives.
const release = "https://github.com/acpbridge/acpbridge/releases/download/"

// platforms maps the registry's platform names to GoReleaser's.
var platforms = map[string]struct{ os, arch string }{
	"darwin-aarch64": {"darwin", "arm64"}, "darwin-x86_64": {"darwin", "amd64"},
	"linux-aarch64": {"linux", "arm64"}, "linux-x86_64": {"linux", "amd64"},
	"windows-aarch64": {"windows", "arm64"}, "windows-x86_64": {"windows", "amd64"},
}

// taken are ids the registry already has that are near ours (its listing
// of late 2026: acp-bridge is a bridge for local models, agent-bridge and
// codex-acp-bridge other bridges).
var taken = []string{"acp-bridge", "agent-bridge", "codex-acp-bridge", "claude-acp", "claude-code-acp", "codex-acp", "gemini", "qwen-code", "opencode", "github-copilot"}

type target struct {
	Archive string            `json:"archive"`
	Cmd     string            `json:"cmd"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

type entry struct {
	dir          string
	raw          []byte
	ID           string `json:"id"`
	Version      string `json:"version"`
	Distribution struct {
		Binary map[string]target `json:"binary"`
		NPX    *struct {
			Package string   `json:"package"`
			Args    []string `json:"args"`
		} `json:"npx"`
	} `json:"distribution"`
}

func entries(t *testing.T) []entry {
	t.Helper()
	dirs, err := filepath.Glob("*/agent.json")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no registry/<id>/agent.json: %v", err)
	}
	var out []entry
	for _, p := range dirs {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		e := entry{dir: filepath.Dir(p), raw: raw}
		if err := json.Unmarshal(raw, &e); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		out = append(out, e)
	}
	return out
}

// TestEntries checks each entry as the registry's CI would before
// accepting it, and that its archives are where a release puts ours.
func TestEntries(t *testing.T) {
	schemaDoc, err := os.ReadFile("testdata/agent.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaDoc))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("agent.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile("agent.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range entries(t) {
		t.Run(e.dir, func(t *testing.T) {
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(e.raw))
			if err != nil {
				t.Fatal(err)
			}
			if err := schema.Validate(inst); err != nil {
				t.Errorf("not valid against the registry's schema: %v", err)
			}
			if e.ID != e.dir {
				t.Errorf("id %q is not its folder's name", e.ID)
			}
			for _, id := range taken {
				if e.ID == id {
					t.Errorf("id %q is taken in the registry", id)
				}
			}
			if seen[e.ID] {
				t.Errorf("id %q used twice", e.ID)
			}
			seen[e.ID] = true
			checkDistribution(t, e)
			checkIcon(t, filepath.Join(e.dir, "icon.svg"))
		})
	}
}

func checkDistribution(t *testing.T, e entry) {
	t.Helper()
	bin := e.Distribution.Binary
	if len(bin) != len(platforms) {
		t.Errorf("binary archives for %d platforms, want all %d", len(bin), len(platforms))
	}
	for p, tg := range bin {
		want := release + "v" + e.Version + "/" + archiveName(e.Version, p)
		if tg.Archive != want {
			t.Errorf("%s: archive %s, want %s (GoReleaser's name for it, in the release of v%s)", p, tg.Archive, want, e.Version)
		}
		if strings.Contains(tg.Archive, "/latest/") {
			t.Errorf("%s: the registry refuses /latest/ URLs", p)
		}
		if exe := "./" + binaryName(p); tg.Cmd != exe {
			t.Errorf("%s: cmd %q, want %q", p, tg.Cmd, exe)
		}
	}
	npx := e.Distribution.NPX
	if npx == nil || npx.Package != "acpbridge@"+e.Version {
		t.Errorf("npx distribution %+v, want the package acpbridge@%s", npx, e.Version)
	} else if tg, ok := bin["linux-x86_64"]; ok && strings.Join(npx.Args, " ") != strings.Join(tg.Args, " ") {
		t.Errorf("npx args %q differ from the binaries' %q", npx.Args, tg.Args)
	}
}

// archiveName is the archive .goreleaser.yaml's name_template gives a
// platform.
func archiveName(version, platform string) string {
	p := platforms[platform]
	ext := ".tar.gz"
	if p.os == "windows" {
		ext = ".zip"
	}
	return "acpbridge_" + version + "_" + p.os + "_" + p.arch + ext
}

func binaryName(platform string) string {
	if platforms[platform].os == "windows" {
		return "acpbridge.exe"
	}
	return "acpbridge"
}

var (
	svgSize   = regexp.MustCompile(`<svg[^>]*\swidth=["'](\d+)["'][^>]*\sheight=["'](\d+)["']`)
	paintAttr = regexp.MustCompile(`(?i)\b(fill|stroke)\s*=\s*["']([^"']+)["']`)
	stylePart = regexp.MustCompile(`(?i)\b(fill|stroke)\s*:\s*([^;"']+)`)
)

// checkIcon applies the registry's icon rules: 16x16, and every fill and
// stroke currentColor (or none), so that it follows the editor's theme.
func checkIcon(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the registry wants an icon.svg: %v", err)
	}
	svg := string(b)
	if m := svgSize.FindStringSubmatch(svg); m == nil || m[1] != "16" || m[2] != "16" {
		t.Errorf("icon is not 16x16: %v", m)
	}
	if !strings.Contains(strings.ToLower(svg), "currentcolor") {
		t.Error("icon does not use currentColor")
	}
	for _, m := range append(paintAttr.FindAllStringSubmatch(svg, -1), stylePart.FindAllStringSubmatch(svg, -1)...) {
		switch strings.ToLower(strings.TrimSpace(m[2])) {
		case "currentcolor", "none", "inherit":
		default:
			t.Errorf("icon has a hard-coded %s %q", m[1], m[2])
		}
	}
}

// TestArchivesAreDist checks every archive an entry names against those
// make dist made (the folder ACPBRIDGE_DIST names, else the repository's
// dist/): one of that name, for the snapshot's version, holding the
// entry's cmd as an executable file with LICENSE and README.md. The
// archive for this machine is then run as the registry's verifier runs
// it: the entry's command must serve ACP and, asked as the verifier asks
// at initialize, offer an auth method of type agent or terminal.
func TestArchivesAreDist(t *testing.T) {
	dist := os.Getenv("ACPBRIDGE_DIST")
	if dist == "" {
		dist = "../dist"
	}
	snapshot := distVersion(t, dist)
	host := runtime.GOOS + "-" + map[string]string{"amd64": "x86_64", "arm64": "aarch64"}[runtime.GOARCH]
	for _, e := range entries(t) {
		t.Run(e.dir, func(t *testing.T) {
			for p, tg := range e.Distribution.Binary {
				name := archiveName(snapshot, p)
				files, err := archiveFiles(filepath.Join(dist, name))
				if err != nil {
					t.Errorf("%s: %s is not one make dist made: %v", p, name, err)
					continue
				}
				cmd := strings.TrimPrefix(tg.Cmd, "./")
				if mode, ok := files[cmd]; !ok || (platforms[p].os != "windows" && mode&0o111 == 0) {
					t.Errorf("%s: cmd %q is not an executable in %s (it holds %v)", p, tg.Cmd, name, files)
				}
				for _, f := range []string{"LICENSE", "README.md"} {
					if _, ok := files[f]; !ok {
						t.Errorf("%s: no %s in %s", p, f, name)
					}
				}
				if p == host {
					checkStamp(t, filepath.Join(dist, name), cmd, snapshot)
					runLikeVerifier(t, filepath.Join(dist, name), cmd, tg)
				}
			}
		})
	}
}

// distVersion is the version of the archives in dist (GoReleaser's
// metadata.json), failing when make dist has not run.
func distVersion(t *testing.T, dist string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dist, "metadata.json"))
	if err != nil {
		t.Skipf("no release archives to check the entries against (run make dist): %v", err)
	}
	var meta struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(b, &meta); err != nil || meta.Version == "" {
		t.Fatalf("%s/metadata.json names no version: %v", dist, err)
	}
	return meta.Version
}

// archiveFiles lists the regular files of a .tar.gz or .zip with their
// modes.
func archiveFiles(path string) (map[string]os.FileMode, error) {
	files := map[string]os.FileMode{}
	if strings.HasSuffix(path, ".zip") {
		zr, err := zip.OpenReader(path)
		if err != nil {
			return nil, err
		}
		defer zr.Close()
		for _, f := range zr.File {
			files[f.Name] = f.Mode()
		}
		return files, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files, nil
		}
		if err != nil {
			return nil, err
		}
		if h.Typeflag == tar.TypeReg {
			files[strings.TrimPrefix(h.Name, "./")] = os.FileMode(h.Mode)
		}
	}
}

// stamp is what --version prints of a release build: its version, a full
// commit id and a date.
var stamp = regexp.MustCompile(`^acpbridge version v(\S+) \(commit [0-9a-f]{40}, built (\d{4})-\d\d-\d\dT\d\d:\d\d:\d\dZ\)\n$`)

// checkStamp runs the archive's binary with --version: it must know the
// version of the archive's name, its commit and the commit's date.
func checkStamp(t *testing.T, archive, cmd, version string) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), cmd)
	if err := extract(archive, cmd, bin); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "--version").Output()
	m := stamp.FindStringSubmatch(string(out))
	if err != nil || m == nil || m[1] != version || m[2] < "2020" {
		t.Errorf("%s --version printed %q (%v), want version v%s with its commit and date", cmd, out, err, version)
	}
}

// runLikeVerifier extracts the archive's cmd and runs it with the entry's
// args and env, in an empty HOME, and sends the initialize the registry's
// auth check sends.
func runLikeVerifier(t *testing.T, archive, cmd string, tg target) {
	t.Helper()
	dir := t.TempDir()
	if err := extract(archive, cmd, filepath.Join(dir, cmd)); err != nil {
		t.Fatal(err)
	}
	c := exec.Command(filepath.Join(dir, cmd), tg.Args...)
	c.Dir = dir
	c.Env = append(os.Environ(), "HOME="+t.TempDir(), "TERM=dumb")
	for k, v := range tg.Env {
		c.Env = append(c.Env, k+"="+v)
	}
	stdin, _ := c.StdinPipe()
	stdout, _ := c.StdoutPipe()
	var stderr bytes.Buffer
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		done := make(chan error, 1)
		go func() { done <- c.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			c.Process.Kill()
			<-done
			t.Errorf("%s did not exit within 10 s of stdin closing", cmd)
		}
	}()
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientInfo":{"name":"ACP Registry Validator","version":"1.0.0"},"clientCapabilities":{"terminal":true,"fs":{"readTextFile":true,"writeTextFile":true},"_meta":{"terminal_output":true,"terminal-auth":true}}}}`)
	line := make(chan []byte, 1)
	go func() {
		b, _ := bufio.NewReader(stdout).ReadBytes('\n')
		line <- b
	}()
	var b []byte
	select {
	case b = <-line:
	case <-time.After(30 * time.Second):
		t.Fatalf("%s %v did not answer initialize; stderr:\n%s", cmd, tg.Args, stderr.String())
	}
	var res struct {
		Result struct {
			AuthMethods []struct {
				ID   string `json:"id"`
				Type string `json:"type"`
			} `json:"authMethods"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatalf("initialize answered %q: %v; stderr:\n%s", b, err, stderr.String())
	}
	for _, m := range res.Result.AuthMethods {
		if m.Type == "" || m.Type == "agent" || m.Type == "terminal" {
			return
		}
	}
	t.Errorf("%s %v offers no auth method of type agent or terminal: %s", cmd, tg.Args, b)
}

func extract(archive, name, to string) error {
	var data []byte
	if strings.HasSuffix(archive, ".zip") {
		zr, err := zip.OpenReader(archive)
		if err != nil {
			return err
		}
		defer zr.Close()
		for _, f := range zr.File {
			if f.Name == name {
				r, err := f.Open()
				if err != nil {
					return err
				}
				data, err = io.ReadAll(r)
				r.Close()
				if err != nil {
					return err
				}
			}
		}
	} else {
		f, err := os.Open(archive)
		if err != nil {
			return err
		}
		defer f.Close()
		zr, err := gzip.NewReader(f)
		if err != nil {
			return err
		}
		tr := tar.NewReader(zr)
		for {
			h, err := tr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return err
			}
			if strings.TrimPrefix(h.Name, "./") == name {
				if data, err = io.ReadAll(tr); err != nil {
					return err
				}
			}
		}
	}
	if data == nil {
		return fmt.Errorf("no %s in %s", name, archive)
	}
	return os.WriteFile(to, data, 0o755)
}
