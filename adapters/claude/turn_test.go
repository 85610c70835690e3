package claude

import (
	"errors"
	"reflect"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// resultFields keeps what decides a turn's outcome, so the outcome of the
// slimmed frame is the outcome of the whole one.
func TestResultFields(t *testing.T) {
	frames := []string{
		`{"type":"result","subtype":"success","is_error":false,"result":"a long reply","stop_reason":"end_turn","session_id":"s"}`,
		`{"type":"result","subtype":"success","is_error":false,"result":"cut","stop_reason":"max_tokens"}`,
		`{"type":"result","subtype":"success","is_error":false,"stop_reason":"refusal"}`,
		`{"type":"result","subtype":"error_max_turns","is_error":true,"num_turns":3}`,
		`{"type":"result","subtype":"error_during_execution","is_error":true,"terminal_reason":"aborted_streaming","errors":["x"]}`,
		`{"type":"result","subtype":"error_during_execution","is_error":true,"errors":["boom","bang"],"api_error_status":500,"api_error_type":"overloaded_error"}`,
		`{"type":"result","subtype":"success","is_error":true,"result":"Not logged in · Please run /login"}`,
		`{"type":"result","subtype":"success","is_error":true,"result":"API Error: 529","api_error_status":529}`,
		`{"type":"result","subtype":"success","is_error":true}`,
		`{"type":"result"}`,
	}
	for _, f := range frames {
		for _, auth := range []bool{false, true} {
			wantStop, wantErr := resultOutcome(Claude(), gjson.Parse(f), auth)
			gotStop, gotErr := resultOutcome(Claude(), resultFields([]byte(f)), auth)
			var we, ge *acp.Error
			errors.As(wantErr, &we)
			errors.As(gotErr, &ge)
			if gotStop != wantStop || (we == nil) != (ge == nil) || (we != nil && !reflect.DeepEqual(*we, *ge)) {
				t.Errorf("%s (auth %v): outcome %q, %v; want %q, %v", f, auth, gotStop, gotErr, wantStop, wantErr)
			}
		}
	}
	if got := resultFields([]byte(`{"type":"result","is_error":false,"result":"a long reply"}`)).Get("result"); got.Exists() {
		t.Errorf("a successful result's text was kept: %s", got.Raw)
	}
}
