package transcripts

import (
	"bufio"
	"bytes"
	"io"
	"strings"

	"github.com/tidwall/gjson"
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

// ReadChain reads a transcript and returns the messages of its current
// conversation, oldest first, without the hidden ones: each a line of the
// transcript, a user or assistant entry.
func (st Store) ReadChain(r io.Reader) ([][]byte, error) { return readConversation(r, false, st.valid) }

// readSidechain reads the transcript of a sub-agent (every entry of which
// is a sidechain entry) as ReadChain reads a session's.
func readSidechain(r io.Reader, valid func([]byte) bool) ([][]byte, error) {
	return readConversation(r, true, valid)
}

func readConversation(r io.Reader, sidechain bool, valid func([]byte) bool) ([][]byte, error) {
	var entries []chainEntry
	byID := map[string]int{}
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if e, ok := parseEntry(bytes.TrimSpace(line), sidechain, valid); ok {
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

// parseEntry reads one line as a conversation entry; in a sidechain
// (a sub-agent's transcript) sidechain entries are not hidden.
func parseEntry(line []byte, sidechain bool, valid func([]byte) bool) (chainEntry, bool) {
	if len(line) == 0 || !valid(line) {
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
		hidden:  hiddenEntry(root, sidechain),
	}
	if e.message {
		e.line = line
	}
	return e, true
}

// hiddenEntry reports entries the SDKs leave out of a conversation:
// sub-agent (sidechain) traffic, unless the transcript is a sub-agent's,
// team traffic, and meta messages the CLI injects (caveats, reminders).
func hiddenEntry(root gjson.Result, sidechain bool) bool {
	return root.Get("isSidechain").Bool() && !sidechain || root.Get("isMeta").Bool() || root.Get("teamName").String() != ""
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

// Markers the CLI stores as user text that the user did not type.
var (
	interruptMarkers = []string{"[Request interrupted by user", "[Request cancelled by user"}
	localMarkers     = []string{"<local-command-", "<command-message>", "<bash-stdout>", "<bash-stderr>",
		taskNotification} // the CLI's own turn after a background task ended
)

// TypedText returns the part of a stored user text the user typed, and
// whether there is one: a slash command is shown as "/name args";
// interrupt markers and the output of local commands are not shown.
func TypedText(s string) (string, bool) {
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

// PromptText is the text of a stored user message (its message.content)
// as a session title: what the user typed, or "" for tool results and
// markers.
func PromptText(content gjson.Result) string {
	if content.Type == gjson.String {
		t, _ := TypedText(content.String())
		return t
	}
	for _, b := range content.Array() {
		switch b.Get("type").String() {
		case "tool_result":
			return ""
		case "text":
			if t, ok := TypedText(b.Get("text").String()); ok {
				return t
			}
		}
	}
	return ""
}
