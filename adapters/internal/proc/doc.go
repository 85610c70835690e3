// Package proc runs the wrapped agent CLIs: one child per session, in its own
// process group, on pipes (Start) or on a pseudo-terminal (StartPTY), plus an
// in-process stand-in over io.Pipe (InProcess) for replays and tests. It owns
// every child process group it starts: Stop escalates from asking (closing
// stdin, or ^C on a PTY) to SIGTERM and SIGKILL of the whole group, and no
// member of the group outlives Stop or a natural exit of the child.
//
// Nor does anything else the child started, on Linux: tool commands that
// the agent runs in process groups of their own (the Claude CLI does, for
// each Bash command), setsid'd commands and daemons. This process makes
// itself a child subreaper (prctl PR_SET_CHILD_SUBREAPER), so orphans are
// re-parented to it rather than to init, and tracks each child's tree in
// /proc: its descendants, scanned every second and before Stop signals,
// and any process whose environment carries the child's marker variable
// (ACPBRIDGE_PROCESS_TREE, inherited). When the child exits, however it
// ends (Stop, a crash, SIGKILL from outside, the ctx of Start), whatever is
// left of its tree is killed with SIGKILL, and the orphans this process
// adopted are waited for, by pid, so they leave no zombies; a blanket
// wait would steal the exit status of children os/exec waits for. What is
// not caught: a process that leaves the tree, drops the marker from its
// environment and is orphaned, all within one scan interval.
//
// On macOS (and other systems without /proc and a subreaper) only the
// child's process group is guaranteed to be stopped. A command the agent
// moved to another group or session and that outlives the agent is
// re-parented to launchd and is not found.
//
// This is the only package that uses creack/pty. It imports zerolog and
// creack/pty and nothing else outside the standard library; adapters import
// it, never the other way round.
package proc
