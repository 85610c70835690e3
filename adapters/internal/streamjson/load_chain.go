package streamjson

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/rs/zerolog"
	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// A transcript is a tree, not a list: every conversation entry names its
// parent (parentUuid), a resumed CLI appends to the same file, and a rewind
// or a fork starts a branch. Entries that are not part of the conversation
// (bookkeeping such as queue-operation or cost-state) have no uuid. The
// current conversation is found the way the Claude SDKs find it: take the
// leaves (entries nobody names as parent), resolve each to its nearest
// message, prefer main-thread messages, then the leaf latest in the file;
// walk parents from there to the root. A compaction boundary has no parent,
// so the walk stops at it and the compaction summary stands in for what
// came before.

// chainEntry is one conversation entry of a transcript.
type chainEntry struct {
	uuid, parent string
	message      bool   // a user or assistant entry
	hidden       bool   // sidechain, team or meta: not shown
	line         []byte // the entry (messages only)
}

// chainTypes are the entry types that are part of the conversation tree.
var chainTypes = map[string]bool{"user": true, "assistant": true, "progress": true, "system": true, "attachment": true}

// readChain reads a transcript and returns the messages of its current
// conversation, oldest first, without the hidden ones.
func readChain(r io.Reader) ([][]byte, error) {
	var entries []chainEntry
	byID := map[string]int{}
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if e, ok := parseEntry(bytes.TrimSpace(line)); ok {
			byID[e.uuid] = len(entries) // a repeated uuid: the last one wins
			entries = append(entries, e)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	leaf := pickLeaf(entries, byID)
	if leaf < 0 {
		return nil, nil
	}
	var chain [][]byte
	seen := map[int]bool{}
	for i := leaf; i >= 0 && !seen[i]; {
		seen[i] = true
		if e := entries[i]; e.message && !e.hidden {
			chain = append(chain, e.line)
		}
		next, ok := byID[entries[i].parent]
		if !ok {
			break
		}
		i = next
	}
	for i, j := 0, len(chain)-1; i < j; i, j = i+1, j-1 {
		chain[i], chain[j] = chain[j], chain[i]
	}
	return chain, nil
}

// parseEntry reads one line as a conversation entry.
func parseEntry(line []byte) (chainEntry, bool) {
	if len(line) == 0 || !validJSON(line) {
		return chainEntry{}, false
	}
	root := gjson.ParseBytes(line)
	typ := root.Get("type").String()
	id := root.Get("uuid")
	if !chainTypes[typ] || id.Type != gjson.String || id.String() == "" {
		return chainEntry{}, false
	}
	e := chainEntry{
		uuid:    id.String(),
		parent:  root.Get("parentUuid").String(),
		message: typ == "user" || typ == "assistant",
		hidden:  hiddenEntry(root),
	}
	if e.message {
		e.line = line
	}
	return e, true
}

// hiddenEntry reports entries the SDKs leave out of a conversation:
// sub-agent (sidechain) and team traffic, and meta messages the CLI
// injects (caveats, reminders).
func hiddenEntry(root gjson.Result) bool {
	return root.Get("isSidechain").Bool() || root.Get("isMeta").Bool() || root.Get("teamName").String() != ""
}

// pickLeaf returns the index of the message the current conversation ends
// with, or -1.
func pickLeaf(entries []chainEntry, byID map[string]int) int {
	parents := make(map[string]bool, len(entries))
	for _, e := range entries {
		parents[e.parent] = true
	}
	best, bestLeaf, bestHidden := -1, -1, true
	for i, e := range entries {
		if parents[e.uuid] || byID[e.uuid] != i {
			continue
		}
		m := nearestMessage(entries, byID, i)
		if m < 0 {
			continue
		}
		hidden := entries[m].hidden
		if best < 0 || (bestHidden && !hidden) || (hidden == bestHidden && i > bestLeaf) {
			best, bestLeaf, bestHidden = m, i, hidden
		}
	}
	return best
}

// nearestMessage walks up from entry i to the first message, or -1.
func nearestMessage(entries []chainEntry, byID map[string]int, i int) int {
	for steps := 0; steps <= len(entries); steps++ {
		if entries[i].message {
			return i
		}
		next, ok := byID[entries[i].parent]
		if !ok {
			return -1
		}
		i = next
	}
	return -1 // a cycle
}

// replayChain sends a conversation to the editor as session/update
// notifications. Assistant entries go through the same translator as a live
// turn (each entry is one complete content block), so tool calls, diffs,
// command output and plans look as they did live; user entries become user
// message chunks, or tool results. Tool calls left without a result (the
// CLI was stopped under them) are marked failed.
func replayChain(ctx context.Context, c acp.Client, id acp.SessionID, cwd string, chain [][]byte, log zerolog.Logger) error {
	var sendErr error
	send := func(u acp.SessionUpdate) {
		if sendErr == nil {
			sendErr = c.SessionUpdate(ctx, acp.SessionNotification{SessionID: id, Update: u})
		}
	}
	tr := newTranslator(cwd, log)
	tr.emit = send
	for _, line := range chain {
		root := gjson.ParseBytes(line)
		switch root.Get("type").String() {
		case "assistant":
			tr.assistant(root)
		case "user":
			replayUser(tr, root, send)
		}
		if sendErr != nil {
			return fmt.Errorf("replaying session %s: %w", id, sendErr)
		}
	}
	tr.abandon()
	if sendErr != nil {
		return fmt.Errorf("replaying session %s: %w", id, sendErr)
	}
	return nil
}

// replayUser shows one user entry: the results of tool uses, or what the
// user typed.
func replayUser(tr *translator, root gjson.Result, send func(acp.SessionUpdate)) {
	content := root.Get("message.content")
	if content.Type == gjson.String {
		if text, ok := typedText(content.String()); ok {
			send(acp.SessionUpdate{UserMessageChunk: &acp.ContentChunk{Content: acp.TextBlock(text)}})
		}
		return
	}
	blocks := content.Array()
	results := 0
	for _, b := range blocks {
		if b.Get("type").String() == "tool_result" {
			results++
		}
	}
	for _, b := range blocks {
		switch b.Get("type").String() {
		case "tool_result":
			r := toolResult{id: b.Get("tool_use_id").String(), failed: b.Get("is_error").Bool(), block: b}
			if results == 1 {
				r.structured = root.Get("toolUseResult")
			}
			tr.toolResult(r)
		case "text":
			if text, ok := typedText(b.Get("text").String()); ok {
				send(acp.SessionUpdate{UserMessageChunk: &acp.ContentChunk{Content: acp.TextBlock(text)}})
			}
		default:
			if cb, ok := promptBlock(b); ok {
				send(acp.SessionUpdate{UserMessageChunk: &acp.ContentChunk{Content: cb}})
			}
		}
	}
}

// Markers the CLI stores as user text that the user did not type.
var (
	interruptMarkers = []string{"[Request interrupted by user", "[Request cancelled by user"}
	localMarkers     = []string{"<local-command-", "<command-message>", "<bash-stdout>", "<bash-stderr>"}
)

// typedText returns the part of a stored user text the user typed: a slash
// command is shown as "/name args"; interrupt markers and the output of
// local commands are not shown.
func typedText(s string) (string, bool) {
	t := strings.TrimSpace(s)
	if name, ok := between(t, "<command-name>", "</command-name>"); ok {
		args, _ := between(t, "<command-args>", "</command-args>")
		return strings.TrimSpace(name + " " + args), true
	}
	for _, m := range append(interruptMarkers, localMarkers...) {
		if strings.HasPrefix(t, m) {
			return "", false
		}
	}
	if t == "" {
		return "", false
	}
	return s, true
}

// between returns the text between the first open and the next close.
func between(s, open, close string) (string, bool) {
	_, rest, ok := strings.Cut(s, open)
	if !ok {
		return "", false
	}
	in, _, ok := strings.Cut(rest, close)
	return strings.TrimSpace(in), ok
}

// promptText is the text of a stored user message as a session title: what
// the user typed, or "" for tool results and markers.
func promptText(content gjson.Result) string {
	if content.Type == gjson.String {
		t, _ := typedText(content.String())
		return t
	}
	for _, b := range content.Array() {
		switch b.Get("type").String() {
		case "tool_result":
			return ""
		case "text":
			if t, ok := typedText(b.Get("text").String()); ok {
				return t
			}
		}
	}
	return ""
}
