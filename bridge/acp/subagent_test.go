package acp_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
)

// TestSubagentUpdateSchema: subagent_update is in the pinned unstable
// schema, in the shape this package writes, and not in the stable one (so
// it must never reach a client that did not ask for it).
func TestSubagentUpdateSchema(t *testing.T) {
	unstable, stable := acptest.LoadUnstable(t), acptest.Load(t)
	end := acp.StopReasonEndTurn
	for _, tt := range []struct {
		name string
		u    acp.SubagentUpdate
		want string
	}{
		{"announce", acp.SubagentUpdate{
			SessionID:    "child-1",
			Title:        acp.Ptr("Inspect project"),
			Description:  acp.Ptr("general-purpose"),
			Capabilities: &acp.SubagentSessionCapabilities{Cancel: &acp.SessionCancelCapabilities{}},
			State:        &acp.SubagentState{State: acp.SubagentRunning},
		}, `{"sessionUpdate":"subagent_update","sessionId":"child-1","title":"Inspect project","description":"general-purpose","capabilities":{"cancel":{}},"state":{"state":"running"}}`},
		{"idle", acp.SubagentUpdate{
			SessionID: "child-1",
			State:     &acp.SubagentState{State: acp.SubagentIdle, StopReason: &end},
		}, `{"sessionUpdate":"subagent_update","sessionId":"child-1","state":{"state":"idle","stopReason":"end_turn"}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			n := acp.SessionNotification{SessionID: "parent", Update: acp.SessionUpdate{SubagentUpdate: &tt.u}}
			raw, err := json.Marshal(n)
			if err != nil {
				t.Fatal(err)
			}
			var got, want any
			_ = json.Unmarshal(raw, &got)
			_ = json.Unmarshal([]byte(`{"sessionId":"parent","update":`+tt.want+`}`), &want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("marshal = %s\nwant %s", raw, tt.want)
			}
			if err := unstable.Validate("SessionNotification", raw); err != nil {
				t.Errorf("not in the unstable schema: %v", err)
			}
			if stable.Validate("SessionNotification", raw) == nil {
				t.Errorf("the stable schema accepts %s", raw)
			}
			var back acp.SessionNotification
			if err := json.Unmarshal(raw, &back); err != nil || !reflect.DeepEqual(*back.Update.SubagentUpdate, tt.u) {
				t.Errorf("unmarshal = %+v, %v", back.Update.SubagentUpdate, err)
			}
		})
	}
}

// TestClientSubagentsCapability: the capability is read from initialize.
func TestClientSubagentsCapability(t *testing.T) {
	var c acp.ClientCapabilities
	if err := json.Unmarshal([]byte(`{"fs":{"readTextFile":false,"writeTextFile":false},"terminal":false,"subagents":{}}`), &c); err != nil {
		t.Fatal(err)
	}
	if c.Subagents == nil {
		t.Error("subagents: {} not read")
	}
	var none acp.ClientCapabilities
	if err := json.Unmarshal([]byte(`{"fs":{"readTextFile":false,"writeTextFile":false},"terminal":false}`), &none); err != nil || none.Subagents != nil {
		t.Errorf("no subagents read as %+v, %v", none.Subagents, err)
	}
}
