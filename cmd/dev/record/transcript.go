package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// droppedTranscriptType reports bookkeeping lines of the CLI's session file
// that recordings leave out. The ones about API requests (api-request,
// api-request-shape, api-request-blob) carry whole request bodies (the
// CLI's system prompt and tool schemas) and digests of them that change
// with the temp paths of a run; cost-state carries wall-clock durations.
// None is part of the conversation and readers ignore them; without them a
// transcript is ten times smaller and re-recording gives the same bytes.
func droppedTranscriptType(typ string) bool {
	return strings.HasPrefix(typ, "api-request") || typ == "cost-state"
}

// transcriptPath is where the CLI keeps a session's transcript: the config
// dir ($CLAUDE_CONFIG_DIR, else $HOME/.claude) under projects/, in a
// directory named after the sanitized working directory.
func transcriptPath(env []string, project, session string) string {
	dir := lastEnv(env, "CLAUDE_CONFIG_DIR")
	if dir == "" {
		dir = filepath.Join(lastEnv(env, "HOME"), ".claude")
	}
	return filepath.Join(dir, "projects", sanitizePath(project), session+".jsonl")
}

// lastEnv is the value of key in env, where later entries win (os/exec).
func lastEnv(env []string, key string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val
		}
	}
	return v
}

// saveTranscript copies a session transcript to dst, normalized like the
// fixture's script (same placeholders and UUID numbering, so ids shared by
// the two still match) and without the bookkeeping lines above.
//
// UUIDs are numbered in the conversation entries first, in their order,
// and only then in the bookkeeping lines: the CLI writes some of those from
// timers, so where they fall varies from run to run, and a last-prompt line
// that lands early would otherwise take the next number from an entry.
func saveTranscript(norm *normalizer, src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return fmt.Errorf("reading the session transcript: %w", err)
	}
	var lines [][]byte
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		var head struct {
			Type string `json:"type"`
		}
		if len(line) == 0 || json.Unmarshal(line, &head) == nil && droppedTranscriptType(head.Type) {
			continue
		}
		line, err := elideSnapshot(line)
		if err != nil {
			return fmt.Errorf("transcript line %d: %w", n, err)
		}
		lines = append(lines, bytes.Clone(line))
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading the session transcript: %w", err)
	}
	if len(lines) == 0 {
		return fmt.Errorf("the session transcript %s is empty", src)
	}
	for _, entries := range []bool{true, false} {
		for i, line := range lines {
			if isEntry(line) != entries {
				continue
			}
			if lines[i], err = norm.line(line); err != nil {
				return fmt.Errorf("transcript line %d: %w", i+1, err)
			}
		}
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, append(bytes.Join(lines, []byte("\n")), '\n'), 0o644)
}

// isEntry tells a conversation entry of a transcript (it has a uuid) from a
// bookkeeping line.
func isEntry(line []byte) bool {
	return bytes.Contains(line, []byte(`"uuid":`))
}

// elidedSnapshot replaces the attachment of a prompt_snapshot entry.
const elidedSnapshot = `{"type":"prompt_snapshot","elided":"the CLI's system prompt and tool schemas, left out of recordings"}`

// elideSnapshot empties the prompt_snapshot attachments of a transcript:
// they hold the CLI's whole system prompt and tool schemas, which are not
// ours to copy and are most of a transcript's bytes. The entry itself stays,
// since it is a link of the conversation chain; the rest of the line keeps
// its bytes and key order.
func elideSnapshot(line []byte) ([]byte, error) {
	if !bytes.Contains(line, []byte(`"prompt_snapshot"`)) {
		return line, nil
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	if _, err := dec.Token(); err != nil { // {
		return nil, err
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, err
		}
		start := dec.InputOffset()
		var v struct {
			Type string `json:"type"`
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		if key != "attachment" || json.Unmarshal(raw, &v) != nil || v.Type != "prompt_snapshot" {
			continue
		}
		end := dec.InputOffset()
		// start is just after the key; the value follows a colon.
		colon := bytes.IndexByte(line[start:end], ':')
		out := append([]byte{}, line[:start+int64(colon)+1]...)
		out = append(out, elidedSnapshot...)
		return append(out, line[end:]...), nil
	}
	return line, nil
}
