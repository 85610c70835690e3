package codex

// maxEarly bounds the messages kept for threads no session or spare has
// claimed yet.
const maxEarly = 64

// early holds notifications about a thread that arrive before anyone
// claims the thread: Codex may report on a thread (MCP server start-up,
// warnings) right after its thread/start answer, and the reader goroutine
// gets there before the goroutine that awaited the answer has published
// the thread. The oldest are dropped past maxEarly (a thread nobody
// claims, such as an unsubscribed one's stragglers, must not grow it).
// Guarded by Adapter.mu.
type early struct {
	msgs []earlyMsg
}

type earlyMsg struct {
	thread string
	m      *message
}

func (e *early) hold(thread string, m *message) {
	if len(e.msgs) == maxEarly {
		e.msgs = e.msgs[1:]
	}
	e.msgs = append(e.msgs, earlyMsg{thread, m})
}

// claim moves the thread's held messages, in order, into q.
func (e *early) claim(thread string, q *queue) {
	kept := e.msgs[:0]
	for _, x := range e.msgs {
		if x.thread == thread {
			q.push(x.m)
		} else {
			kept = append(kept, x)
		}
	}
	clear(e.msgs[len(kept):])
	e.msgs = kept
}
