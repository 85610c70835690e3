//go:build windows

package proc

import (
	"sync"
	"time"
	"unsafe"

	"github.com/rs/zerolog"
	"golang.org/x/sys/windows"
)

// becomeSubreaper is Linux only; on Windows the Job Object of tree holds
// what the agent starts instead.
func becomeSubreaper(zerolog.Logger) {}

// tree is, on Windows, a Job Object holding the agent and every process it
// starts (children join their parent's job). Windows has no process groups
// to signal, and orphans are not reparented to anyone who could find them:
// the job is what can stop them all. It is made with the kill-on-close
// limit, so that when its last handle closes everything in it ends: when
// kill closes it after the agent exits, and when the bridge exits however
// it exits (the system closes its handles). A process the agent starts in
// the moment between its start and its joining the job escapes it.
type tree struct {
	job   windows.Handle // 0 when no job could be made
	close sync.Once
}

// jobBasicAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION, which
// x/sys/windows does not declare.
type jobBasicAccounting struct {
	TotalUserTime, TotalKernelTime                     int64
	ThisPeriodTotalUserTime, ThisPeriodTotalKernelTime int64
	TotalPageFaultCount, TotalProcesses                uint32
	ActiveProcesses, TotalTerminatedProcesses          uint32
}

// newTree puts the started process pid in a new kill-on-close job. If the
// system refuses (an old Windows that does not nest jobs, say), the agent
// runs without one and only it is stopped.
func newTree(pid int, _ string) *tree {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return &tree{}
	}
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return &tree{}
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		windows.CloseHandle(job)
		return &tree{}
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		windows.CloseHandle(job)
		return &tree{}
	}
	return &tree{job: job}
}

func (*tree) observe(bool) {}

// active is the number of live processes in the job.
func (t *tree) active() uint32 {
	var info jobBasicAccounting
	if err := windows.QueryInformationJobObject(t.job, windows.JobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil); err != nil {
		return 0
	}
	return info.ActiveProcesses
}

// kill terminates what is left in the job once the agent has exited,
// waits up to grace for it to be gone, and releases the job. It reports
// whether nothing is left.
func (t *tree) kill(grace time.Duration, log zerolog.Logger) bool {
	if t.job == 0 {
		return true
	}
	defer t.close.Do(func() { windows.CloseHandle(t.job) })
	if t.active() == 0 {
		return true
	}
	log.Debug().Uint32("processes", t.active()).Msg("processes the agent started outlive it; terminating its job")
	if err := windows.TerminateJobObject(t.job, 1); err != nil {
		log.Warn().Err(err).Msg("terminating the agent's job")
		return false
	}
	deadline := time.Now().Add(grace)
	for t.active() > 0 {
		if time.Now().After(deadline) {
			log.Warn().Msg("processes of the agent's job survive its termination")
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}
