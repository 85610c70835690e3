package claude

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/adapters/claude/transcripts"
	"github.com/acpbridge/acpbridge/bridge/acp"
)

// Live shell output. The CLI reports a Bash command's output only when the
// command ends, but it writes that output, from the moment the command
// starts, to a file of its own:
//
//	$CLAUDE_CODE_TMPDIR/claude-<uid>/<project dir>/<session id>/tasks/<task id>.output
//
// ($TMPDIR, else /tmp, when CLAUDE_CODE_TMPDIR is unset; the project dir is
// the cwd named as for the transcripts, transcripts.ProjectDir). A foreground command
// names no task id anywhere before its result, so its file is the first new
// one in the tasks folder after the tool use was seen; a background command
// (run_in_background) names its task id in its result, and ends with a
// task_notification.
//
// The files are polled (every livePoll) by the goroutine that runs the
// turn, which alone sends updates, so live output keeps the turn's order and
// never follows the turn's answer. A background command that outlives the
// turn is tailed again during the next turn, from where it stopped: what it
// wrote in between arrives then.

// livePoll is how often running commands' output files are read.
const livePoll = 150 * time.Millisecond

// liveKeep bounds the output shown while a command runs: the last liveKeep
// bytes (the result shows the CLI's own, complete account).
const liveKeep = 64 << 10

// liveRead bounds one read of an output file.
const liveRead = 256 << 10

// liveShells is the translator's set of tailed commands.
type liveShells struct {
	dir      string // the session's tasks folder
	termMeta bool   // the editor wants _meta.terminal_output chunks
	tails    map[string]*tail
	claimed  map[string]bool // output files that belong to a tail
}

// tail follows one command's output file.
type tail struct {
	toolID string
	file   string          // "" until found
	before map[string]bool // files in the folder when the command was seen
	off    int64
	out    []byte // the last liveKeep bytes of output
	bg     bool   // a background command: tailed until its task ends
}

// tasksDir is where the CLI run with env in cwd keeps session id's task
// output files.
func tasksDir(env []string, cwd, session string) string {
	tmp := lookupEnv(env, "CLAUDE_CODE_TMPDIR")
	if tmp == "" {
		tmp = lookupEnv(env, "TMPDIR")
	}
	if tmp == "" {
		tmp = "/tmp"
	}
	return filepath.Join(tmp, "claude-"+strconv.Itoa(os.Getuid()), transcripts.ProjectDir(cwd), session, "tasks")
}

func newLiveShells(dir string, termMeta bool) *liveShells {
	return &liveShells{dir: dir, termMeta: termMeta, tails: map[string]*tail{}, claimed: map[string]bool{}}
}

// active reports whether a command is being tailed.
func (l *liveShells) active() bool { return l != nil && len(l.tails) > 0 }

// watch starts tailing the Bash tool use id: its file will be the first
// new one in the folder.
func (l *liveShells) watch(id string) {
	if l == nil || l.tails[id] != nil {
		return
	}
	l.tails[id] = &tail{toolID: id, before: l.names()}
}

func (l *liveShells) names() map[string]bool {
	names := map[string]bool{}
	entries, _ := os.ReadDir(l.dir)
	for _, e := range entries {
		names[e.Name()] = true
	}
	return names
}

// started binds a tailed tool use to its task (task_started names both,
// for background commands and for long foreground ones).
func (l *liveShells) started(id, task string, background bool) {
	if l == nil || l.tails[id] == nil || task == "" {
		return
	}
	l.bind(l.tails[id], task)
	l.tails[id].bg = l.tails[id].bg || background
}

func (l *liveShells) bind(tl *tail, task string) {
	name := task + ".output"
	if tl.file == name {
		return
	}
	if tl.file != "" {
		delete(l.claimed, tl.file)
	}
	tl.file, tl.before, tl.off, tl.out = name, nil, 0, nil
	l.claimed[name] = true
}

// finished handles the result of a tailed tool use: a foreground command
// is over; a background one goes on until its task ends.
func (l *liveShells) finished(id string, structured gjson.Result) {
	if l == nil || l.tails[id] == nil {
		return
	}
	tl := l.tails[id]
	if task := structured.Get("backgroundTaskId").String(); task != "" {
		l.bind(tl, task)
		tl.bg = true
	}
	if !tl.bg {
		l.drop(id)
	}
}

// taskEnded sends what a background task wrote last and stops tailing it.
func (l *liveShells) taskEnded(task string, send func(acp.SessionUpdate)) {
	if l == nil {
		return
	}
	for id, tl := range l.tails {
		if tl.bg && tl.file == task+".output" {
			l.send(tl, send)
			l.drop(id)
		}
	}
}

func (l *liveShells) drop(id string) {
	if l == nil {
		return
	}
	if tl := l.tails[id]; tl != nil && tl.file != "" {
		delete(l.claimed, tl.file)
	}
	delete(l.tails, id)
}

// poll reads what the tailed commands wrote since the last poll and sends
// it: the output so far as the tool call's content and, for editors that
// asked for it, the new bytes as a terminal_output chunk.
func (l *liveShells) poll(send func(acp.SessionUpdate)) {
	if !l.active() {
		return
	}
	for _, tl := range l.tails {
		if tl.file == "" && !l.find(tl) {
			continue
		}
		l.send(tl, send)
	}
}

// send reads what tl's command wrote since the last read and sends it.
// The status is left alone: a background command's call has completed
// (the command was started) while its output goes on.
func (l *liveShells) send(tl *tail, send func(acp.SessionUpdate)) {
	chunk := l.read(tl)
	if len(chunk) == 0 {
		return
	}
	u := &acp.ToolCallUpdate{
		ToolCallID: acp.ToolCallID(tl.toolID),
		Content:    consoleContent(strings.TrimRight(string(tl.out), "\n")),
	}
	if l.termMeta {
		u.Meta = map[string]any{"terminal_output": map[string]any{"terminal_id": tl.toolID, "data": string(chunk)}}
	}
	send(acp.SessionUpdate{ToolCallUpdate: u})
}

// find picks the command's output file: the first new, unclaimed one.
func (l *liveShells) find(tl *tail) bool {
	entries, err := os.ReadDir(l.dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		n := e.Name()
		if strings.HasSuffix(n, ".output") && !tl.before[n] && !l.claimed[n] {
			tl.file, tl.before = n, nil
			l.claimed[n] = true
			return true
		}
	}
	return false
}

// read returns the bytes added to tl's file since the last read, at most
// liveRead of them, and keeps the tail of the output.
func (l *liveShells) read(tl *tail) []byte {
	f, err := os.Open(filepath.Join(l.dir, tl.file))
	if err != nil {
		return nil
	}
	defer f.Close()
	// Most polls find nothing new: look before allocating.
	info, err := f.Stat()
	if err != nil || info.Size() <= tl.off {
		return nil
	}
	buf := make([]byte, min(info.Size()-tl.off, liveRead))
	n, err := f.ReadAt(buf, tl.off)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil
	}
	chunk := buf[:n]
	tl.off += int64(n)
	tl.out = append(tl.out, chunk...)
	if len(tl.out) > liveKeep {
		tl.out = append([]byte(nil), tl.out[len(tl.out)-liveKeep:]...)
	}
	return chunk
}

// terminalOutputMeta reports whether the editor asked for terminal output
// in _meta (clientCapabilities._meta.terminal_output: true, the convention
// of Zed and the leading Claude adapter).
func terminalOutputMeta(c acp.ClientCapabilities) bool {
	v, _ := c.Meta["terminal_output"].(bool)
	return v
}
