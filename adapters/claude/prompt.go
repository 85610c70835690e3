package claude

import (
	"fmt"
	"path"
	"strings"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// userFrame is a stream-JSON user message on the CLI's stdin.
type userFrame struct {
	Type            string      `json:"type"`
	Message         userMessage `json:"message"`
	ParentToolUseID *string     `json:"parent_tool_use_id"`
	SessionID       string      `json:"session_id"`
	// UUID and Priority are set on steering messages (steer.go).
	UUID     string `json:"uuid,omitempty"`
	Priority string `json:"priority,omitempty"`
}

type userMessage struct {
	Role    string `json:"role"`
	Content []any  `json:"content"`
}

type textPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type mediaPart struct {
	Type   string      `json:"type"` // "image" or "document"
	Source mediaSource `json:"source"`
}

type mediaSource struct {
	Type      string `json:"type"` // "base64" or "url"
	MediaType string `json:"media_type,omitempty"`
	Data      string `json:"data,omitempty"`
	URL       string `json:"url,omitempty"`
}

// promptFrame converts an ACP prompt into the user message the CLI reads.
// Text passes through; a resource link becomes a mention the model can
// follow with its tools; an embedded text resource is mentioned in place and
// its text appended as context tagged with its URI; images (and PDFs) become
// base64 blocks. Audio is not advertised and is dropped.
func promptFrame(blocks []acp.ContentBlock, log zerolog.Logger) (userFrame, error) {
	var content, context []any
	for _, b := range blocks {
		switch {
		case b.Text != nil:
			content = append(content, textPart{Type: "text", Text: b.Text.Text})
		case b.ResourceLink != nil:
			content = append(content, textPart{Type: "text", Text: mention(b.ResourceLink.Name, b.ResourceLink.URI)})
		case b.Image != nil:
			if p, ok := imagePart(b.Image); ok {
				content = append(content, p)
			}
		case b.Resource != nil:
			c, ctx := resourceParts(b.Resource.Resource, log)
			content = append(content, c...)
			context = append(context, ctx...)
		default:
			log.Debug().Msg("dropping unsupported prompt content")
		}
	}
	content = append(content, context...)
	if len(content) == 0 {
		return userFrame{}, fmt.Errorf("%w: the prompt has no content Claude can read", acp.ErrInvalidParams)
	}
	return userFrame{Type: "user", Message: userMessage{Role: "user", Content: content}}, nil
}

// mention is a markdown link the model reads as "look at this".
func mention(name, uri string) string {
	if name == "" {
		name = path.Base(strings.TrimPrefix(uri, "file://"))
	}
	return "[@" + name + "](" + uri + ")"
}

func imagePart(img *acp.ImageContent) (mediaPart, bool) {
	if img.Data != "" {
		return mediaPart{Type: "image", Source: mediaSource{Type: "base64", MediaType: img.MimeType, Data: img.Data}}, true
	}
	if img.URI != nil && (strings.HasPrefix(*img.URI, "http://") || strings.HasPrefix(*img.URI, "https://")) {
		return mediaPart{Type: "image", Source: mediaSource{Type: "url", URL: *img.URI}}, true
	}
	return mediaPart{}, false
}

// resourceParts returns the in-place parts and the trailing context parts of
// an embedded resource.
func resourceParts(r acp.EmbeddedResourceResource, log zerolog.Logger) (inPlace, context []any) {
	switch {
	case r.Text != nil:
		inPlace = []any{textPart{Type: "text", Text: mention("", r.Text.URI)}}
		context = []any{textPart{Type: "text",
			Text: "<context ref=\"" + r.Text.URI + "\">\n" + r.Text.Text + "\n</context>"}}
	case r.Blob != nil:
		mime := ""
		if r.Blob.MimeType != nil {
			mime = *r.Blob.MimeType
		}
		switch {
		case strings.HasPrefix(mime, "image/"):
			inPlace = []any{mediaPart{Type: "image", Source: mediaSource{Type: "base64", MediaType: mime, Data: r.Blob.Blob}}}
		case mime == "application/pdf":
			inPlace = []any{mediaPart{Type: "document", Source: mediaSource{Type: "base64", MediaType: mime, Data: r.Blob.Blob}}}
		default:
			log.Debug().Str("uri", r.Blob.URI).Str("mime", mime).Msg("dropping binary resource")
			inPlace = []any{textPart{Type: "text", Text: mention("", r.Blob.URI)}}
		}
	}
	return inPlace, context
}
