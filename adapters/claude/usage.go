package claude

import (
	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// usageMeter is the context meter of the TUI: tokens in context now, the
// model's context window, and what the session has cost.
type usageMeter struct {
	model string // model of the last main-thread message
	size  uint64 // context window, once a result has named it
	sent  uint64 // used, as last sent
	// The CLI's total_cost_usd counts from its own start; a restarted
	// CLI (--resume after a crash) starts again at zero, so what the
	// earlier processes cost is kept in costBase.
	cost, costBase float64
}

// noteUsage takes the usage of a main-thread message. Once the window size
// is known (from an earlier result), the meter moves with every model call
// of a turn, as the TUI's does, not only at its end.
func (t *translator) noteUsage(msg gjson.Result) {
	u := msg.Get("usage")
	if !u.IsObject() {
		return
	}
	t.used = tokens(u)
	if m := msg.Get("model").String(); m != "" {
		t.meter.model = m
	}
	if t.meter.size > 0 && t.used != t.meter.sent {
		t.sendUsage(nil)
	}
}

// usageAtResult reports context usage and cost at the end of a CLI turn.
func (t *translator) usageAtResult(root gjson.Result) {
	mu := root.Get("modelUsage")
	size := mu.Get(gjson.Escape(t.meter.model) + ".contextWindow").Uint()
	if size == 0 { // the main model is not named: take the largest window
		mu.ForEach(func(_, v gjson.Result) bool {
			size = max(size, v.Get("contextWindow").Uint())
			return true
		})
	}
	if size == 0 {
		return
	}
	t.meter.size = size
	if t.used == 0 {
		t.used = tokens(root.Get("usage"))
	}
	var cost *acp.Cost
	if c := root.Get("total_cost_usd"); c.Exists() {
		if c.Float() < t.meter.cost {
			t.meter.costBase += t.meter.cost
		}
		t.meter.cost = c.Float()
		cost = &acp.Cost{Amount: t.meter.costBase + t.meter.cost, Currency: "USD"}
	}
	t.sendUsage(cost)
}

func (t *translator) sendUsage(cost *acp.Cost) {
	t.meter.sent = t.used
	t.send(acp.SessionUpdate{UsageUpdate: &acp.UsageUpdate{Used: t.used, Size: t.meter.size, Cost: cost}})
}
