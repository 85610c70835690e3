//go:build linux

package proc

import (
	"bytes"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/rs/zerolog"
)

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER (linux/prctl.h), which the
// syscall package does not name.
const prSetChildSubreaper = 36

// becomeSubreaper makes this process the one that orphaned descendants are
// re-parented to, instead of init: a tool command whose parent (the agent)
// died then stays where the tree can find it. Setting it again is a no-op.
func becomeSubreaper(log zerolog.Logger) {
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		log.Debug().Err(errno).Msg("cannot become a child subreaper; orphans of the agent go to init")
	}
}

// tree keeps track of every process an agent started, however deep, and
// ends them. The agent's process group is not enough: the Claude CLI runs
// each tool command in a group of its own, and a command may setsid or
// daemonise. A process belongs to the tree when
//   - it descends from the agent (walking parent pids in /proc), seen at a
//     scan while its ancestors were alive; scans run periodically, when Stop
//     begins and when the agent has exited;
//   - it descends from a process seen before; or
//   - its environment carries the agent's marker (markerEnv), which
//     children inherit: that finds orphans whose parent died between scans
//     (re-parented to this process, a subreaper, or to init).
//
// Processes are identified by pid and start time, so a reused pid is never
// mistaken for a member.
type tree struct {
	root      int    // the agent; reaped by os/exec, never here
	rootStart uint64 // its start time: after it is reaped its pid may be reused
	self      int    // this process's pid
	marker    []byte // "NAME=VALUE" in /proc/PID/environ

	mu    sync.Mutex
	known map[int]uint64 // pid -> start time of members seen; guarded by mu
}

func newTree(root int, marker string) *tree {
	t := &tree{root: root, self: os.Getpid(), marker: []byte(marker), known: map[int]uint64{}}
	if pi, ok := readStat(root); ok {
		t.rootStart = pi.start
	}
	return t
}

// procInfo is what the tree needs from /proc/PID/stat.
type procInfo struct {
	ppid   int
	zombie bool
	start  uint64
}

// scanProcs reads every process's parent, state and start time.
func scanProcs() map[int]procInfo {
	dir, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	all := make(map[int]procInfo, len(dir))
	for _, e := range dir {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pi, ok := readStat(pid); ok {
			all[pid] = pi
		}
	}
	return all
}

func readStat(pid int) (procInfo, bool) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procInfo{}, false // exited meanwhile
	}
	// "pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt
	// majflt cmajflt utime stime cutime cstime priority nice threads
	// itrealvalue starttime ..."; comm may hold anything, so split after
	// its last ')'.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return procInfo{}, false
	}
	f := bytes.Fields(stat[i+1:])
	if len(f) < 20 {
		return procInfo{}, false
	}
	ppid, err1 := strconv.Atoi(string(f[1]))
	start, err2 := strconv.ParseUint(string(f[19]), 10, 64)
	if err1 != nil || err2 != nil {
		return procInfo{}, false
	}
	return procInfo{ppid: ppid, zombie: f[0][0] == 'Z' || f[0][0] == 'X', start: start}, true
}

// marked reports whether pid's environment carries the tree's marker.
// Other users' processes cannot be read and are not ours anyway.
func (t *tree) marked(pid int) bool {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	for kv := range bytes.SplitSeq(env, []byte{0}) {
		if bytes.Equal(kv, t.marker) {
			return true
		}
	}
	return false
}

// observe scans /proc and adds to the tree every descendant of the agent
// and of known members, and the marked orphans: those adopted by this
// process, or with everyMarked any marked process (a full environment scan,
// for when the tree is about to be killed). It returns the scan.
func (t *tree) observe(everyMarked bool) map[int]procInfo {
	all := scanProcs()
	children := make(map[int][]int, len(all))
	for pid, pi := range all {
		children[pi.ppid] = append(children[pi.ppid], pid)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	var queue []int
	if pi, ok := all[t.root]; ok && pi.start == t.rootStart {
		queue = append(queue, t.root)
	}
	for pid, start := range t.known {
		if pi, ok := all[pid]; ok && pi.start == start {
			queue = append(queue, pid)
		} else {
			delete(t.known, pid) // gone, and its pid may be reused
		}
	}
	for pid, pi := range all {
		if _, ok := t.known[pid]; ok || pid == t.root || pid == t.self {
			continue
		}
		if (everyMarked || pi.ppid == t.self) && t.marked(pid) {
			t.known[pid] = pi.start
			queue = append(queue, pid)
		}
	}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, c := range children[pid] {
			if _, ok := t.known[c]; ok || c == t.root || c == t.self {
				continue
			}
			t.known[c] = all[c].start
			queue = append(queue, c)
		}
	}
	t.reapLocked(all)
	return all
}

// reapLocked waits for members that died as children of this process
// (adopted orphans): a subreaper that never waits collects zombies. Only
// members are waited for, by pid, never the agent: a blanket wait would
// steal the exit status of children os/exec waits for. Callers hold mu.
func (t *tree) reapLocked(all map[int]procInfo) {
	for pid, start := range t.known {
		pi, ok := all[pid]
		if !ok || !pi.zombie || pi.ppid != t.self || pi.start != start {
			continue
		}
		var ws syscall.WaitStatus
		if n, _ := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil); n == pid {
			delete(t.known, pid)
		}
	}
}

// kill ends every member still alive with SIGKILL (the agent's own group
// has had its graceful stop already), until none is left or d has passed.
// It reports whether none is left.
func (t *tree) kill(d time.Duration, log zerolog.Logger) bool {
	deadline := time.Now().Add(d)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		all := t.observe(true)
		t.mu.Lock()
		var live []int
		for pid, start := range t.known {
			// A zombie this process adopted is not gone until it is
			// reaped (the next observe does it): until then it still
			// shows in /proc and to kill(pid, 0).
			if pi := all[pid]; pi.start == start && (!pi.zombie || pi.ppid == t.self) {
				live = append(live, pid)
			}
		}
		t.mu.Unlock()
		if len(live) == 0 {
			return true
		}
		if time.Now().After(deadline) {
			log.Warn().Ints("pids", live).Msg("processes the agent started survive SIGKILL")
			return false
		}
		log.Debug().Ints("pids", live).Msg("killing processes the agent started outside its group")
		for _, pid := range live {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		<-tick.C
	}
}
