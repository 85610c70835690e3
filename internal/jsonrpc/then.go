package jsonrpc

// Then wraps a handler's result so that after is called once the answer
// carrying result has been queued for writing (or failed to be); the queue
// is FIFO, so whatever after sends goes out behind the answer. ACP needs this:
// available_commands_update must follow the session/new answer, because
// clients drop updates for sessions they do not know yet, and a handler
// cannot write after its own return.
//
// No message read after the answer is handled before after has returned:
// a peer acts on the answer at once (a session/prompt right after
// session/new), and the bridge opens the session in after. So after must
// be quick and must not make a Call, whose answer the read loop could not
// deliver.
func Then(result any, after func()) any {
	return thenResult{result: result, after: after}
}

type thenResult struct {
	result any
	after  func()
}
