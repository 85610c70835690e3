package codex

import (
	"fmt"
	"strings"
	"sync"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// promptInput is turn/start's input for an ACP prompt: text as text,
// images as data URLs, resources and links as text the model can read.
func promptInput(blocks []acp.ContentBlock) []userInput {
	var in []userInput
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			in = append(in, userInput{Type: "text", Text: text.String(), TextElements: &[]any{}})
			text.Reset()
		}
	}
	for _, b := range blocks {
		switch {
		case b.Text != nil:
			text.WriteString(b.Text.Text)
		case b.Image != nil:
			flush()
			in = append(in, userInput{Type: "image", URL: "data:" + b.Image.MimeType + ";base64," + b.Image.Data})
		case b.ResourceLink != nil:
			fmt.Fprintf(&text, "\n[%s](%s)\n", b.ResourceLink.Name, b.ResourceLink.URI)
		case b.Resource != nil:
			if r := b.Resource.Resource.Text; r != nil {
				fmt.Fprintf(&text, "\n<context ref=%q>\n%s\n</context>\n", r.URI, r.Text)
			}
		}
	}
	flush()
	if len(in) == 0 {
		in = []userInput{{Type: "text", Text: "", TextElements: &[]any{}}}
	}
	return in
}

// queue holds the app-server's messages about one thread until the turn's
// goroutine takes them. push never blocks (the reader goroutine calls it).
type queue struct {
	mu     sync.Mutex
	items  []*message    // guarded by mu
	signal chan struct{} // 1-buffered: something was pushed
}

func newQueue() *queue { return &queue{signal: make(chan struct{}, 1)} }

func (q *queue) push(m *message) {
	q.mu.Lock()
	q.items = append(q.items, m)
	q.mu.Unlock()
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

func (q *queue) take() []*message {
	q.mu.Lock()
	defer q.mu.Unlock()
	items := q.items
	q.items = nil
	return items
}
