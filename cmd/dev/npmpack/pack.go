package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// scope is the npm scope of the platform packages; the wrapper is the
// unscoped acpbridge.
const scope = "@acpbridge"

//go:embed wrapper.js
var wrapperJS string

// archiveName matches the archives GoReleaser makes (.goreleaser.yaml
// name_template).
var archiveName = regexp.MustCompile(`^acpbridge_(.+)_(darwin|linux|windows)_(amd64|arm64)\.(tar\.gz|zip)$`)

// npmOS and npmCPU translate Go's names to Node's process.platform and
// process.arch, which npm's "os" and "cpu" fields use.
var (
	npmOS  = map[string]string{"darwin": "darwin", "linux": "linux", "windows": "win32"}
	npmCPU = map[string]string{"amd64": "x64", "arm64": "arm64"}
)

// npmTime is the date npm itself gives every entry of a package tarball.
var npmTime = time.Date(1985, 10, 26, 8, 15, 0, 0, time.UTC)

// platformPkg is one platform package to make.
type platformPkg struct {
	name    string // @acpbridge/linux-x64
	os, cpu string // npm's
	exe     string // acpbridge or acpbridge.exe
	binary  []byte
	license []byte
}

// pack makes the packages from the archives in dist and writes their
// tarballs to out, returning their paths.
func pack(dist, out string) ([]string, error) {
	entries, err := os.ReadDir(dist)
	if err != nil {
		return nil, err
	}
	var (
		version string
		pkgs    []platformPkg
		license []byte
	)
	for _, e := range entries {
		m := archiveName.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		if version != "" && m[1] != version {
			return nil, fmt.Errorf("archives of two versions in %s: %s and %s", dist, version, m[1])
		}
		version = m[1]
		p := platformPkg{os: npmOS[m[2]], cpu: npmCPU[m[3]], exe: "acpbridge"}
		if m[2] == "windows" {
			p.exe += ".exe"
		}
		p.name = scope + "/" + p.os + "-" + p.cpu
		files, err := readArchive(filepath.Join(dist, e.Name()), p.exe, "LICENSE")
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", e.Name(), err)
		}
		p.binary, p.license = files[p.exe], files["LICENSE"]
		license = p.license
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("no release archives (acpbridge_VERSION_OS_ARCH.tar.gz or .zip) in %s: run make dist", dist)
	}
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].name < pkgs[j].name })
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	var written []string
	for _, p := range pkgs {
		path := filepath.Join(out, tarballName(p.name, version))
		if err := writeTarball(path, platformFiles(p, version)); err != nil {
			return nil, err
		}
		written = append(written, path)
	}
	path := filepath.Join(out, tarballName("acpbridge", version))
	if err := writeTarball(path, wrapperFiles(pkgs, version, license)); err != nil {
		return nil, err
	}
	return append(written, path), nil
}

// tarballName is the file name npm pack gives a package: the scope's @
// dropped and its / made a dash.
func tarballName(name, version string) string {
	name = strings.ReplaceAll(strings.TrimPrefix(name, "@"), "/", "-")
	return name + "-" + version + ".tgz"
}

// file is one file of a package.
type file struct {
	path string
	mode int64
	data []byte
}

func platformFiles(p platformPkg, version string) []file {
	manifest := map[string]any{
		"name":        p.name,
		"version":     version,
		"description": fmt.Sprintf("The acpbridge binary for %s on %s (installed by the acpbridge package).", p.os, p.cpu),
		"license":     "Apache-2.0",
		"repository":  map[string]string{"type": "git", "url": "git+https://github.com/acpbridge/acpbridge.git"},
		"os":          []string{p.os},
		"cpu":         []string{p.cpu},
		"files":       []string{"bin/"},
		// A package manager that unpacks into an archive (Yarn PnP)
		// must give this one a real folder: its binary is executed.
		"preferUnplugged": true,
	}
	readme := fmt.Sprintf("# %s\n\nThe static acpbridge binary for %s on %s. Install and run `acpbridge` instead:\n"+
		"this package is one of its optional dependencies.\n\n    npx acpbridge@%s agents\n", p.name, p.os, p.cpu, version)
	return []file{
		{"package/LICENSE", 0o644, p.license},
		{"package/README.md", 0o644, []byte(readme)},
		{"package/bin/" + p.exe, 0o755, p.binary},
		{"package/package.json", 0o644, manifestJSON(manifest)},
	}
}

func wrapperFiles(pkgs []platformPkg, version string, license []byte) []file {
	optional := map[string]string{}
	platforms := map[string]string{}
	for _, p := range pkgs {
		optional[p.name] = version
		platforms[p.os+"-"+p.cpu] = p.name
	}
	table, _ := json.Marshal(platforms)
	manifest := map[string]any{
		"name":                 "acpbridge",
		"version":              version,
		"description":          "Use any command-line coding agent (Claude Code, Codex, Gemini CLI, ...) from any editor that speaks the Agent Client Protocol.",
		"license":              "Apache-2.0",
		"repository":           map[string]string{"type": "git", "url": "git+https://github.com/acpbridge/acpbridge.git"},
		"keywords":             []string{"acp", "agent-client-protocol", "zed", "claude-code", "codex", "gemini"},
		"bin":                  map[string]string{"acpbridge": "bin/acpbridge.js"},
		"files":                []string{"bin/"},
		"engines":              map[string]string{"node": ">=16"},
		"optionalDependencies": optional,
	}
	readme := "# acpbridge\n\nUse any command-line coding agent from any editor that speaks the Agent Client Protocol (ACP).\n\n" +
		"    npx acpbridge@" + version + " agents     # which agents are installed here, and editor settings for each\n" +
		"    npx acpbridge@" + version + " auto       # serve whichever are installed (what an editor runs)\n\n" +
		"This package runs the static acpbridge binary of the optional dependency that fits this machine\n" +
		"(" + scope + "/OS-CPU). Documentation: https://github.com/acpbridge/acpbridge\n"
	js := strings.Replace(wrapperJS, "__PLATFORMS__", string(table), 1)
	return []file{
		{"package/LICENSE", 0o644, license},
		{"package/README.md", 0o644, []byte(readme)},
		{"package/bin/acpbridge.js", 0o755, []byte(js)},
		{"package/package.json", 0o644, manifestJSON(manifest)},
	}
}

func manifestJSON(m map[string]any) []byte {
	b, _ := json.MarshalIndent(m, "", "  ")
	return append(b, '\n')
}

// writeTarball writes files as a gzipped tar, as npm pack would: no time
// in the gzip header, npm's date on every entry, the given order.
func writeTarball(path string, files []file) error {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	tw := tar.NewWriter(zw)
	for _, f := range files {
		hdr := &tar.Header{Name: f.path, Mode: f.mode, Size: int64(len(f.data)), ModTime: npmTime,
			Typeflag: tar.TypeReg, Format: tar.FormatUSTAR}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if _, err := tw.Write(f.data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// readArchive returns the named files at the top of a .tar.gz or .zip.
func readArchive(path string, names ...string) (map[string][]byte, error) {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	got := map[string][]byte{}
	keep := func(name string, r io.Reader) error {
		name = strings.TrimPrefix(name, "./")
		if !want[name] {
			return nil
		}
		b, err := io.ReadAll(r)
		got[name] = b
		return err
	}
	var err error
	if strings.HasSuffix(path, ".zip") {
		err = readZip(path, keep)
	} else {
		err = readTarGz(path, keep)
	}
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		if got[n] == nil {
			return nil, fmt.Errorf("no %s in the archive", n)
		}
	}
	return got, nil
}

func readZip(path string, keep func(string, io.Reader) error) error {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return err
	}
	defer zr.Close()
	for _, f := range zr.File {
		r, err := f.Open()
		if err != nil {
			return err
		}
		err = keep(f.Name, r)
		r.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

func readTarGz(path string, keep func(string, io.Reader) error) error {
	f, err := os.Open(path)
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
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if hdr.Typeflag == tar.TypeReg {
			if err := keep(hdr.Name, tr); err != nil {
				return err
			}
		}
	}
}
