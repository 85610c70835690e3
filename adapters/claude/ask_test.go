package claude

import (
	"encoding/json"
	"testing"

	"github.com/tidwall/gjson"
)

const twoQuestions = `{"questions":[
 {"question":"Which database?","header":"DB","multiSelect":false,"options":[{"label":"PostgreSQL","description":"server"},{"label":"SQLite","description":"file"}]},
 {"question":"Which features?","header":"Features","multiSelect":true,"options":[{"label":"Metrics","description":""},{"label":"Tracing","description":""}]}]}`

func sameJSON(t *testing.T, got any, want string) {
	t.Helper()
	gb, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	var g, w any
	if err := json.Unmarshal(gb, &g); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	g2, _ := json.Marshal(g)
	w2, _ := json.Marshal(w)
	if string(g2) != string(w2) {
		t.Errorf("(-want +got)\n-%s\n+%s", w2, g2)
	}
}

// TestQuestionForm pins the elicitation form of AskUserQuestion: a single
// choice is a string with titled options, a multi-select an array of them.
func TestQuestionForm(t *testing.T) {
	qs := parseQuestions(gjson.Parse(twoQuestions))
	sameJSON(t, questionForm(qs), `{"type":"object","required":["q1","q2"],"properties":{
	 "q1":{"type":"string","title":"DB","description":"Which database?","oneOf":[
	   {"const":"PostgreSQL","title":"PostgreSQL","description":"server"},{"const":"SQLite","title":"SQLite","description":"file"}]},
	 "q2":{"type":"array","title":"Features","description":"Which features?","minItems":1,"items":{"anyOf":[
	   {"const":"Metrics","title":"Metrics"},{"const":"Tracing","title":"Tracing"}]}}}}`)
}

// TestQuestionAnswers pins how the editor's answers become the tool input
// the CLI expects: the questions kept, answers keyed by question text.
func TestQuestionAnswers(t *testing.T) {
	qs := parseQuestions(gjson.Parse(twoQuestions))
	tests := []struct {
		name    string
		content map[string]any
		ok      bool
		want    string
	}{
		{"all answered", map[string]any{"q1": "SQLite", "q2": []any{"Metrics", "Tracing"}}, true,
			`{"Which database?":"SQLite","Which features?":"Metrics, Tracing"}`},
		{"one missing", map[string]any{"q1": "SQLite"}, false, `null`},
		{"empty multi-select", map[string]any{"q1": "SQLite", "q2": []any{}}, false, `null`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			answers, ok := formAnswers(qs, tt.content)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			sameJSON(t, answers, tt.want)
		})
	}
	a := answerQuestions([]byte(`{"questions":[]}`), map[string]string{"Which database?": "SQLite"})
	sameJSON(t, a, `{"behavior":"allow","updatedInput":{"questions":[],"answers":{"Which database?":"SQLite"}}}`)
}

// TestQuestionInfo pins how an AskUserQuestion call is shown.
func TestQuestionInfo(t *testing.T) {
	info := questionInfo(gjson.Parse(twoQuestions))
	if info.title != "2 questions" || len(info.content) != 1 {
		t.Fatalf("title %q, %d content blocks", info.title, len(info.content))
	}
	want := "**Which database?**\n- PostgreSQL: server\n- SQLite: file\n\n**Which features?** (choose any)\n- Metrics\n- Tracing"
	if got := info.content[0].Content.Text.Text; got != want {
		t.Errorf("content %q, want %q", got, want)
	}
}
