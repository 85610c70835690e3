package native

// WithServeHook returns o with a hook that runs in the goroutine answering
// each agent request, before it waits for the editor's answer: a test can
// hold that goroutine back to show what no longer depends on its timing.
func WithServeHook(o Options, hook func()) Options {
	o.serveHook = hook
	return o
}
