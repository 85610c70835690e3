// Package transcripts reads Claude Code's on-disk session storage: where
// the CLI keeps a session's transcript ($CLAUDE_CONFIG_DIR, else
// ~/.claude, then projects/<sanitized cwd>/<session id>.jsonl), what a
// listing shows of it (working directory, title, paging cursors), the
// current conversation of that JSONL tree and of the sub-agent transcripts
// stored beside it, and the files a deleted session leaves behind. It only
// reads: the CLI writes all of it, and the adapter removes a deleted
// session's files itself.
//
// It hands package claude (the stream-JSON engine) the stored entries as
// the lines the CLI wrote; turning them into ACP session updates is the
// engine's. So it imports only bridge/acp, gjson and the standard library,
// never package claude, the bridge or another adapter.
package transcripts
