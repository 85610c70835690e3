package recording

import (
	"bytes"
	"fmt"
	"strings"
)

// File is a parsed fixture archive: a prose comment and named sections, in
// file order.
type File struct {
	// Comment is everything before the first header line, verbatim.
	Comment string
	// Sections are the sections in file order. Names are unique.
	Sections []Section
}

// Section is one "-- NAME --" section of a File.
type Section struct {
	// Name is the text between "-- " and " --" in the header line.
	Name string
	// Data is everything after the header line up to the next header line or
	// the end of the file, verbatim. It must not contain a header line.
	Data []byte
}

const (
	headerStart = "-- "
	headerEnd   = " --"
)

// Parse splits data into a comment and sections. It fails only when two
// sections share a name. Section data aliases data.
func Parse(data []byte) (*File, error) {
	i := nextHeader(data)
	f := &File{Comment: string(data[:i])}
	rest := data[i:]
	for len(rest) > 0 {
		name, hdrLen, _ := headerName(rest) // rest starts at a header line
		body := rest[hdrLen:]
		end := nextHeader(body)
		for _, s := range f.Sections {
			if s.Name == name {
				return nil, fmt.Errorf("duplicate section %q", name)
			}
		}
		f.Sections = append(f.Sections, Section{Name: name, Data: body[:end:end]})
		rest = body[end:]
	}
	return f, nil
}

// nextHeader returns the offset of the first header line in data, or
// len(data).
func nextHeader(data []byte) int {
	for i := 0; i < len(data); {
		if _, _, ok := headerName(data[i:]); ok {
			return i
		}
		nl := bytes.IndexByte(data[i:], '\n')
		if nl < 0 {
			break
		}
		i += nl + 1
	}
	return len(data)
}

// headerName reports whether line (data up to its first newline) is a header
// line, returning the section name and the header's length including its
// newline.
func headerName(data []byte) (name string, n int, ok bool) {
	if !bytes.HasPrefix(data, []byte(headerStart)) {
		return "", 0, false
	}
	line := data
	n = len(data)
	if nl := bytes.IndexByte(data, '\n'); nl >= 0 {
		line = data[:nl]
		n = nl + 1
	}
	if len(line) < len(headerStart)+len(headerEnd)+1 || !bytes.HasSuffix(line, []byte(headerEnd)) {
		return "", 0, false
	}
	name = string(line[len(headerStart) : len(line)-len(headerEnd)])
	if strings.TrimSpace(name) != name {
		return "", 0, false
	}
	return name, n, true
}

// Format returns the archive as bytes. The comment and each section's data
// get a final newline if they lack one.
func (f *File) Format() []byte {
	size := len(f.Comment) + 1
	for _, s := range f.Sections {
		size += len(headerStart) + len(s.Name) + len(headerEnd) + 1 + len(s.Data) + 1
	}
	buf := make([]byte, 0, size)
	buf = appendNL(buf, []byte(f.Comment))
	for _, s := range f.Sections {
		buf = append(buf, headerStart...)
		buf = append(buf, s.Name...)
		buf = append(buf, headerEnd...)
		buf = append(buf, '\n')
		buf = appendNL(buf, s.Data)
	}
	return buf
}

func appendNL(buf, data []byte) []byte {
	buf = append(buf, data...)
	if len(data) > 0 && data[len(data)-1] != '\n' {
		buf = append(buf, '\n')
	}
	return buf
}

// Section returns the data of the named section.
func (f *File) Section(name string) ([]byte, bool) {
	for _, s := range f.Sections {
		if s.Name == name {
			return s.Data, true
		}
	}
	return nil, false
}

// SetSection replaces the named section's data, or appends a new section
// when there is none of that name.
func (f *File) SetSection(name string, data []byte) {
	for i := range f.Sections {
		if f.Sections[i].Name == name {
			f.Sections[i].Data = data
			return
		}
	}
	f.Sections = append(f.Sections, Section{Name: name, Data: data})
}

// sectionLine returns the 1-based file line number of the first data line
// of the named section, or 0 when there is no such section.
func (f *File) sectionLine(name string) int {
	line := 1 + strings.Count(f.Comment, "\n")
	for _, s := range f.Sections {
		line++ // the header line
		if s.Name == name {
			return line
		}
		line += bytes.Count(s.Data, []byte("\n"))
	}
	return 0
}
