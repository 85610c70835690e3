package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// repoRoot is the repository, from this package's folder.
const repoRoot = "../../.."

// TestNPX makes the npm packages, installs them offline into an empty
// folder as a user's `npm install acpbridge` would, and runs the binary
// through npx: --version, then the replay demo. Without the platform
// package, npx acpbridge must say which package is missing and how to get
// it. The archives are those of make dist when ACPBRIDGE_DIST names its
// folder (make npm-check), else one for this machine built here.
func TestNPX(t *testing.T) {
	for _, tool := range []string{"npm", "npx"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s (Node.js) is needed to test the npm packages: %v", tool, err)
		}
	}
	dist := os.Getenv("ACPBRIDGE_DIST")
	if dist == "" {
		dist = hostDist(t, "0.0.0-npmtest")
	}
	written, err := pack(dist, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	wrapper, host, version := pickTarballs(t, written)
	cache := t.TempDir() // an empty npm cache: nothing can come from elsewhere

	app := t.TempDir()
	npm(t, app, cache, "install", wrapper, host)

	t.Run("version", func(t *testing.T) {
		out, errOut, err := npx(t, app, cache, "acpbridge", "--version")
		if err != nil {
			t.Fatalf("npx acpbridge --version: %v\n%s", err, errOut)
		}
		if want := "acpbridge version v" + version + " ("; !strings.HasPrefix(out, want) {
			t.Errorf("npx acpbridge --version printed %q, want it to start %q", out, want)
		}
	})

	t.Run("replay demo", func(t *testing.T) {
		demo := filepath.Join(t.TempDir(), "acpdemo")
		goBuild(t, demo, "./cmd/dev/acpdemo", "")
		fixture, _ := filepath.Abs(filepath.Join(repoRoot, "fixtures/claude/demo.txtar"))
		cmd := exec.Command(demo, "-plain", "-fixture", fixture, "--",
			"npx", "--offline", "acpbridge", "--log-level", "warn", "replay", "--pace", "0s", fixture)
		cmd.Dir, cmd.Env = app, npmEnv(cache)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("the demo through npx: %v\n%s", err, stderr.String())
		}
		golden, err := os.ReadFile(filepath.Join(repoRoot, "cmd/dev/acpdemo/testdata/demo.golden"))
		if err != nil {
			t.Fatal(err)
		}
		// The first line names the bridge's version; the rest is the
		// conversation, as make demo prints it.
		_, want, _ := strings.Cut(string(golden), "\n")
		_, got, _ := strings.Cut(stdout.String(), "\n")
		if got != want {
			t.Errorf("the demo through npx printed\n%s\nwant\n%s", got, want)
		}
	})

	t.Run("missing platform package", func(t *testing.T) {
		bare := t.TempDir()
		npm(t, bare, cache, "install", wrapper)
		_, errOut, err := npx(t, bare, cache, "acpbridge", "--version")
		if err == nil {
			t.Fatal("npx acpbridge ran without its platform package")
		}
		pkg := scope + "/" + npmOS[runtime.GOOS] + "-" + npmCPU[runtime.GOARCH]
		for _, want := range []string{"the package " + pkg + ", which holds the binary", "npm install " + pkg + "@" + version} {
			if !strings.Contains(errOut, want) {
				t.Errorf("stderr %q does not say %q", errOut, want)
			}
		}
	})
}

// pickTarballs finds, among the tarballs pack wrote, the wrapper and the
// package for this machine, and their version.
func pickTarballs(t *testing.T, written []string) (wrapper, host, version string) {
	t.Helper()
	hostName := tarballName(scope+"/"+npmOS[runtime.GOOS]+"-"+npmCPU[runtime.GOARCH], "")
	for _, w := range written {
		base := filepath.Base(w)
		switch {
		case strings.HasPrefix(base, strings.TrimSuffix(hostName, ".tgz")):
			host = w
		case strings.HasPrefix(base, "acpbridge-") && !strings.HasPrefix(base, "acpbridge-darwin") &&
			!strings.HasPrefix(base, "acpbridge-linux") && !strings.HasPrefix(base, "acpbridge-win32"):
			wrapper = w
			version = strings.TrimSuffix(strings.TrimPrefix(base, "acpbridge-"), ".tgz")
		}
	}
	if wrapper == "" || host == "" {
		t.Fatalf("no wrapper or no package for %s/%s among %v", runtime.GOOS, runtime.GOARCH, written)
	}
	return wrapper, host, version
}

func npmEnv(cache string) []string {
	return append(os.Environ(), "npm_config_cache="+cache, "npm_config_offline=true",
		"npm_config_audit=false", "npm_config_fund=false", "npm_config_update_notifier=false")
}

func npm(t *testing.T, dir, cache string, args ...string) {
	t.Helper()
	cmd := exec.Command("npm", args...)
	cmd.Dir, cmd.Env = dir, npmEnv(cache)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func npx(t *testing.T, dir, cache string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	cmd := exec.Command("npx", append([]string{"--offline"}, args...)...)
	cmd.Dir, cmd.Env = dir, npmEnv(cache)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return o.String(), e.String(), err
}

// goBuild builds pkg (a path from the repository root) into out.
func goBuild(t *testing.T, out, pkg, ldflags string) {
	t.Helper()
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", ldflags, "-o", out, pkg)
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
}

// hostDist builds acpbridge for this machine and puts it in an archive
// named and laid out as make dist does, in a new folder.
func hostDist(t *testing.T, version string) string {
	t.Helper()
	if npmOS[runtime.GOOS] == "" || npmCPU[runtime.GOARCH] == "" {
		t.Skipf("no release is made for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	dir := t.TempDir()
	exe := "acpbridge"
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	bin := filepath.Join(t.TempDir(), exe)
	goBuild(t, bin, "./cmd/acpbridge", "-s -w -X main.version=v"+version)
	files := map[string]string{exe: bin, "LICENSE": filepath.Join(repoRoot, "LICENSE"), "README.md": filepath.Join(repoRoot, "README.md")}
	name := filepath.Join(dir, "acpbridge_"+version+"_"+runtime.GOOS+"_"+runtime.GOARCH)
	var err error
	if runtime.GOOS == "windows" {
		err = writeZip(name+".zip", files)
	} else {
		err = writeTarGz(name+".tar.gz", files)
	}
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func writeTarGz(path string, files map[string]string) error {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, src := range files {
		b, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: int64(len(b)), ModTime: time.Unix(0, 0)}); err != nil {
			return err
		}
		if _, err := tw.Write(b); err != nil {
			return err
		}
	}
	tw.Close()
	zw.Close()
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

func writeZip(path string, files map[string]string) error {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, src := range files {
		b, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		w, err := zw.Create(name)
		if err != nil {
			return err
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	zw.Close()
	return os.WriteFile(path, buf.Bytes(), 0o644)
}
