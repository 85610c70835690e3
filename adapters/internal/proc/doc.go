// Package proc runs the wrapped agent CLIs: one child per session, in its own
// process group, on pipes (Start) or on a pseudo-terminal (StartPTY), plus an
// in-process stand-in over io.Pipe (InProcess) for replays and tests. It owns
// every child process group it starts: Stop escalates from asking (closing
// stdin, or ^C on a PTY) to SIGTERM and SIGKILL of the whole group, and no
// member of the group outlives Stop or a natural exit of the child.
//
// This is the only package that uses creack/pty. It imports zerolog and
// creack/pty and nothing else outside the standard library; adapters import
// it, never the other way round.
package proc
