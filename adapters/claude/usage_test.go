package claude

import (
	"strconv"
	"testing"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// TestUsageMeter checks the context meter: the main model's window (not a
// sub-agent's larger one), live moves within a turn once the window is
// known, and a cost that keeps counting across a restart of the CLI.
func TestUsageMeter(t *testing.T) {
	var got []acp.UsageUpdate
	tr := newTranslator("/p", zerolog.Nop())
	tr.emit = func(u acp.SessionUpdate) {
		if u.UsageUpdate != nil {
			got = append(got, *u.UsageUpdate)
		}
	}
	assistant := func(model, parent string, in, cacheRead, out int) event {
		p := "null"
		if parent != "" {
			p = `"` + parent + `"`
		}
		return event{typ: "assistant", line: []byte(`{"type":"assistant","parent_tool_use_id":` + p +
			`,"message":{"id":"m","model":"` + model + `","content":[],"usage":{"input_tokens":` + strconv.Itoa(in) +
			`,"cache_read_input_tokens":` + strconv.Itoa(cacheRead) + `,"output_tokens":` + strconv.Itoa(out) + `}}}`)}
	}
	result := func(cost string) event {
		return event{typ: "result", subtype: "success", line: []byte(`{"type":"result","subtype":"success","total_cost_usd":` + cost +
			`,"usage":{"input_tokens":1},"modelUsage":{"claude-main":{"contextWindow":200000},"claude-big":{"contextWindow":1000000}}}`)}
	}
	steps := []event{
		assistant("claude-main", "", 10, 1000, 5),    // window not known yet: nothing
		assistant("claude-big", "toolu_1", 50, 0, 5), // a sub-agent's message: not the main context
		result("0.5"),
		assistant("claude-main", "", 10, 2000, 5), // next turn: the meter moves at once
		assistant("claude-main", "", 10, 2000, 5), // the same message's next block: no repeat
		result("0.75"),
		// The CLI was restarted (--resume): its own total starts again.
		assistant("claude-main", "", 10, 3000, 5),
		result("0.25"),
	}
	for _, ev := range steps {
		tr.handle(ev)
	}
	cost := func(v float64) *acp.Cost { return &acp.Cost{Amount: v, Currency: "USD"} }
	want := []acp.UsageUpdate{
		{Used: 1015, Size: 200000, Cost: cost(0.5)},
		{Used: 2015, Size: 200000},
		{Used: 2015, Size: 200000, Cost: cost(0.75)},
		{Used: 3015, Size: 200000},
		{Used: 3015, Size: 200000, Cost: cost(1.0)},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d usage updates %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Used != w.Used || g.Size != w.Size || (g.Cost == nil) != (w.Cost == nil) || (g.Cost != nil && (g.Cost.Amount != w.Cost.Amount || g.Cost.Currency != w.Cost.Currency)) {
			t.Errorf("update %d = %+v (cost %v), want %+v (cost %v)", i, g, g.Cost, w, w.Cost)
		}
	}
}
