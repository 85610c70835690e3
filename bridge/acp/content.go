package acp

import (
	"encoding/json"
)

// Role is the sender or recipient of content (Annotations.audience).
type Role string

// Roles.
const (
	RoleAssistant Role = "assistant"
	RoleUser      Role = "user"
)

// Annotations are optional display hints attached to content.
type Annotations struct {
	Audience     []Role         `json:"audience,omitempty"`
	LastModified *string        `json:"lastModified,omitempty"`
	Priority     *float64       `json:"priority,omitempty"`
	Meta         map[string]any `json:"_meta,omitempty"`
}

// ContentBlock is displayable content: in prompts, message chunks and tool
// call results. Exactly one variant is set; the wire discriminator is "type".
type ContentBlock struct {
	Text         *TextContent      // "text"
	Image        *ImageContent     // "image"
	Audio        *AudioContent     // "audio"
	ResourceLink *ResourceLink     // "resource_link"
	Resource     *EmbeddedResource // "resource"
}

// TextContent is text, plain or Markdown.
type TextContent struct {
	Annotations *Annotations   `json:"annotations,omitempty"`
	Text        string         `json:"text"`
	Meta        map[string]any `json:"_meta,omitempty"`
}

// ImageContent is a base64-encoded image.
type ImageContent struct {
	Annotations *Annotations   `json:"annotations,omitempty"`
	Data        string         `json:"data"`
	MimeType    string         `json:"mimeType"`
	URI         *string        `json:"uri,omitempty"`
	Meta        map[string]any `json:"_meta,omitempty"`
}

// AudioContent is base64-encoded audio.
type AudioContent struct {
	Annotations *Annotations   `json:"annotations,omitempty"`
	Data        string         `json:"data"`
	MimeType    string         `json:"mimeType"`
	Meta        map[string]any `json:"_meta,omitempty"`
}

// ResourceLink refers to a resource the agent can read itself.
type ResourceLink struct {
	Annotations *Annotations   `json:"annotations,omitempty"`
	Description *string        `json:"description,omitempty"`
	MimeType    *string        `json:"mimeType,omitempty"`
	Name        string         `json:"name"`
	Size        *int64         `json:"size,omitempty"`
	Title       *string        `json:"title,omitempty"`
	URI         string         `json:"uri"`
	Meta        map[string]any `json:"_meta,omitempty"`
}

// EmbeddedResource carries a resource's contents inline.
type EmbeddedResource struct {
	Annotations *Annotations             `json:"annotations,omitempty"`
	Resource    EmbeddedResourceResource `json:"resource"`
	Meta        map[string]any           `json:"_meta,omitempty"`
}

// EmbeddedResourceResource is the payload of an embedded resource: text or
// binary. The wire has no discriminator; the variant is chosen by shape
// ("text" or "blob" member).
type EmbeddedResourceResource struct {
	Text *TextResourceContents
	Blob *BlobResourceContents
}

// TextResourceContents is a text resource.
type TextResourceContents struct {
	MimeType *string        `json:"mimeType,omitempty"`
	Text     string         `json:"text"`
	URI      string         `json:"uri"`
	Meta     map[string]any `json:"_meta,omitempty"`
}

// BlobResourceContents is a binary resource, base64-encoded.
type BlobResourceContents struct {
	Blob     string         `json:"blob"`
	MimeType *string        `json:"mimeType,omitempty"`
	URI      string         `json:"uri"`
	Meta     map[string]any `json:"_meta,omitempty"`
}

// TextBlock returns a text content block.
func TextBlock(s string) ContentBlock {
	return ContentBlock{Text: &TextContent{Text: s}}
}

// MarshalJSON implements json.Marshaler.
func (c ContentBlock) MarshalJSON() ([]byte, error) {
	return c.appendJSON(nil)
}

// UnmarshalJSON implements json.Unmarshaler.
func (c *ContentBlock) UnmarshalJSON(data []byte) error {
	kind, _, err := probe(data, "type")
	if err != nil {
		return err
	}
	*c = ContentBlock{}
	switch kind {
	case "text":
		c.Text = new(TextContent)
		return json.Unmarshal(data, c.Text)
	case "image":
		c.Image = new(ImageContent)
		return json.Unmarshal(data, c.Image)
	case "audio":
		c.Audio = new(AudioContent)
		return json.Unmarshal(data, c.Audio)
	case "resource_link":
		c.ResourceLink = new(ResourceLink)
		return json.Unmarshal(data, c.ResourceLink)
	case "resource":
		c.Resource = new(EmbeddedResource)
		return json.Unmarshal(data, c.Resource)
	}
	return &UnknownVariantError{Union: "ContentBlock", Field: "type", Value: kind}
}

// MarshalJSON implements json.Marshaler.
func (r EmbeddedResourceResource) MarshalJSON() ([]byte, error) {
	if n := countSet(r.Text != nil, r.Blob != nil); n != 1 {
		return nil, variantCountError("EmbeddedResourceResource", n)
	}
	if r.Text != nil {
		return json.Marshal(r.Text)
	}
	return json.Marshal(r.Blob)
}

// UnmarshalJSON implements json.Unmarshaler.
func (r *EmbeddedResourceResource) UnmarshalJSON(data []byte) error {
	*r = EmbeddedResourceResource{}
	if ok, err := hasMember(data, "text"); err != nil {
		return err
	} else if ok {
		r.Text = new(TextResourceContents)
		return json.Unmarshal(data, r.Text)
	}
	if ok, _ := hasMember(data, "blob"); ok {
		r.Blob = new(BlobResourceContents)
		return json.Unmarshal(data, r.Blob)
	}
	return &UnknownVariantError{Union: "EmbeddedResourceResource", Field: `"text" or "blob"`}
}
