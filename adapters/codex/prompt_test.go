package codex

import (
	"encoding/json"
	"testing"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

func TestPromptInput(t *testing.T) {
	got := promptInput([]acp.ContentBlock{
		acp.TextBlock("Look at "),
		{ResourceLink: &acp.ResourceLink{Name: "main.go", URI: "file:///p/main.go"}},
		{Resource: &acp.EmbeddedResource{Resource: acp.EmbeddedResourceResource{Text: &acp.TextResourceContents{URI: "file:///p/a.txt", Text: "alpha"}}}},
		{Image: &acp.ImageContent{MimeType: "image/png", Data: "iVBORw0K"}},
		acp.TextBlock("and this."),
	})
	want := `[{"type":"text","text":"Look at \n[main.go](file:///p/main.go)\n\n\u003ccontext ref=\"file:///p/a.txt\"\u003e\nalpha\n\u003c/context\u003e\n","text_elements":[]},` +
		`{"type":"image","url":"data:image/png;base64,iVBORw0K"},` +
		`{"type":"text","text":"and this.","text_elements":[]}]`
	if b, _ := json.Marshal(got); string(b) != want {
		t.Errorf("input = %s\nwant    %s", b, want)
	}
}
