package claude

import (
	"slices"

	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// todoPlan turns a TodoWrite input (the whole list, every time) into a plan.
func todoPlan(input gjson.Result) *acp.Plan {
	p := &acp.Plan{Entries: []acp.PlanEntry{}}
	for _, t := range input.Get("todos").Array() {
		p.Entries = append(p.Entries, acp.PlanEntry{
			Content:  t.Get("content").String(),
			Priority: acp.PlanEntryPriorityMedium,
			Status:   planStatus(t.Get("status").String()),
		})
	}
	return p
}

func planStatus(s string) acp.PlanEntryStatus {
	switch s {
	case "in_progress":
		return acp.PlanEntryStatusInProgress
	case "completed":
		return acp.PlanEntryStatusCompleted
	}
	return acp.PlanEntryStatusPending
}

// taskPlan accumulates the task list that newer CLIs keep with TaskCreate,
// TaskUpdate and TaskList (one task per call, addressed by id), so the editor
// can be sent the whole list each time, as ACP plans require.
type taskPlan struct {
	tasks []task
}

type task struct {
	id, subject, status string
}

// apply folds a finished task tool call into the list and returns the new
// plan, or nil when nothing changed.
func (p *taskPlan) apply(name string, input, out gjson.Result, failed bool) *acp.Plan {
	if failed {
		return nil
	}
	switch name {
	case "TaskCreate":
		id := out.Get("task.id").String()
		if id == "" {
			return nil
		}
		subject := orDefault(out.Get("task.subject").String(), input.Get("subject").String())
		p.tasks = append(p.tasks, task{id: id, subject: subject, status: "pending"})
	case "TaskUpdate":
		if !p.update(input) {
			return nil
		}
	case "TaskList":
		if !out.Get("tasks").IsArray() {
			return nil
		}
		p.tasks = p.tasks[:0]
		for _, t := range out.Get("tasks").Array() {
			p.tasks = append(p.tasks, task{id: t.Get("id").String(), subject: t.Get("subject").String(),
				status: t.Get("status").String()})
		}
	default:
		return nil
	}
	return p.current()
}

func (p *taskPlan) update(input gjson.Result) bool {
	id := input.Get("taskId").String()
	i := slices.IndexFunc(p.tasks, func(t task) bool { return t.id == id })
	if i < 0 {
		return false
	}
	if input.Get("status").String() == "deleted" {
		p.tasks = slices.Delete(p.tasks, i, i+1)
		return true
	}
	if s := input.Get("subject").String(); s != "" {
		p.tasks[i].subject = s
	}
	if s := input.Get("status").String(); s != "" {
		p.tasks[i].status = s
	}
	return true
}

func (p *taskPlan) current() *acp.Plan {
	plan := &acp.Plan{Entries: []acp.PlanEntry{}}
	for _, t := range p.tasks {
		plan.Entries = append(plan.Entries, acp.PlanEntry{
			Content:  t.subject,
			Priority: acp.PlanEntryPriorityMedium,
			Status:   planStatus(t.status),
		})
	}
	return plan
}
