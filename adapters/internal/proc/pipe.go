package proc

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync"
)

// Start runs the agent on pipes, as the leader of a new process group. The
// group is killed when ctx is done, so pass a context that lives as long as
// the session, not a request's.
//
// Stderr is drained as it comes: each line is logged at debug and the last
// 8 KiB are kept for StderrTail and the exit error.
func Start(ctx context.Context, s Spec) (Process, error) {
	name, grace := s.name(), s.grace()
	cmd := exec.CommandContext(ctx, s.Path, s.Args...)
	cmd.Env = append(os.Environ(), s.Env...)
	cmd.Dir = s.Dir
	setProcessGroup(cmd)
	marker := treeMarker()
	cmd.Env = append(cmd.Env, marker)
	becomeSubreaper(s.Logger)
	// ctx done is the hard stop: the whole group, not just the leader, so
	// that a grandchild holding a pipe cannot outlive the session.
	cmd.Cancel = func() error { return signalGroup(cmd.Process.Pid, sigKill) }
	cmd.WaitDelay = grace

	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	// Own pipes rather than StdoutPipe/StderrPipe: exec closes those in Wait,
	// which would cut off a reader still draining output.
	outR, outW, err := stdoutPipe()
	if err != nil {
		stdin.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		stdin.Close()
		outR.Close()
		outW.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	err = cmd.Start()
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}

	pid := cmd.Process.Pid
	log := s.Logger.With().Str("adapter", name).Int("pid", pid).Logger()
	log.Debug().Str("path", s.Path).Strs("args", s.Args).Msg("agent started")
	p := &osProc{
		name:  name,
		cmd:   cmd,
		pid:   pid,
		grace: grace,
		log:   log,
		stdin: stdin,
		out:   newOutput(outR),
		tail:  &stderrTail{},
	}
	p.init()
	p.tree = newTree(pid, marker)
	p.ask = func() { stdin.Close() }

	drained := make(chan struct{})
	go func() {
		defer close(drained)
		p.tail.drain(errR, log)
	}()
	var closeErr sync.Once
	p.start(drained, func() { closeErr.Do(func() { errR.Close() }) })
	return p, nil
}
