package recording

import (
	"bytes"
	"reflect"
	"testing"
)

func TestParseFormatRoundTrip(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		comment string
		names   []string
		datas   []string
	}{
		{name: "empty", in: ""},
		{name: "comment only", in: "just prose\nmore\n", comment: "just prose\nmore\n"},
		{
			name:    "comment and sections",
			in:      "what it shows\n\n-- meta --\nadapter: claude\n-- agent --\n> {}\n< {}\n",
			comment: "what it shows\n\n",
			names:   []string{"meta", "agent"},
			datas:   []string{"adapter: claude\n", "> {}\n< {}\n"},
		},
		{
			name:  "no comment, empty sections",
			in:    "-- a --\n-- b --\n",
			names: []string{"a", "b"},
			datas: []string{"", ""},
		},
		{
			name:    "near misses are data",
			in:      "c\n-- x --\n--  y --\n-- z  --\n-- --\n---- w --\n-- v --x\n -- u --\n--x --\n",
			comment: "c\n",
			names:   []string{"x"},
			datas:   []string{"--  y --\n-- z  --\n-- --\n---- w --\n-- v --x\n -- u --\n--x --\n"},
		},
		{
			name:  "names with inner blanks and dashes",
			in:    "-- agent.stdout --\n-- a -- b --\nx\n-- - --\n",
			names: []string{"agent.stdout", "a -- b", "-"},
			datas: []string{"", "x\n", ""},
		},
		{
			name:  "crlf header is data",
			in:    "-- a --\n-- b --\r\n",
			names: []string{"a"},
			datas: []string{"-- b --\r\n"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if f.Comment != tt.comment {
				t.Errorf("comment = %q, want %q", f.Comment, tt.comment)
			}
			var names, datas []string
			for _, s := range f.Sections {
				names = append(names, s.Name)
				datas = append(datas, string(s.Data))
			}
			if !reflect.DeepEqual(names, tt.names) || !reflect.DeepEqual(datas, tt.datas) {
				t.Errorf("sections = %q %q, want %q %q", names, datas, tt.names, tt.datas)
			}
			if got := f.Format(); string(got) != tt.in {
				t.Errorf("Format() = %q, want %q", got, tt.in)
			}
		})
	}
}

func TestFormatAddsFinalNewline(t *testing.T) {
	f, err := Parse([]byte("c\n-- a --\nx"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(f.Format()), "c\n-- a --\nx\n"; got != want {
		t.Errorf("Format() = %q, want %q", got, want)
	}
	// A header at the very end without a newline is still a header.
	f, err = Parse([]byte("-- a --\nx\n-- b --"))
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := f.Section("b"); !ok || len(d) != 0 {
		t.Errorf("Section(b) = %q, %v; want empty, true", d, ok)
	}
}

func TestParseDuplicateSection(t *testing.T) {
	if _, err := Parse([]byte("-- a --\n-- a --\n")); err == nil {
		t.Fatal("Parse accepted a duplicate section")
	}
}

func TestSectionAndSetSection(t *testing.T) {
	f, err := Parse([]byte("c\n-- a --\n1\n-- b --\n2\n"))
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := f.Section("b"); !ok || string(d) != "2\n" {
		t.Errorf("Section(b) = %q, %v", d, ok)
	}
	if _, ok := f.Section("nope"); ok {
		t.Error("Section(nope) found")
	}
	f.SetSection("a", []byte("one\n"))
	f.SetSection("want", []byte("{}\n"))
	if got, want := string(f.Format()), "c\n-- a --\none\n-- b --\n2\n-- want --\n{}\n"; got != want {
		t.Errorf("Format() = %q, want %q", got, want)
	}
}

func TestSectionLine(t *testing.T) {
	f, err := Parse([]byte("l1\nl2\n-- a --\nl4\nl5\n-- b --\nl7\n"))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]int{"a": 4, "b": 7, "c": 0} {
		if got := f.sectionLine(name); got != want {
			t.Errorf("sectionLine(%q) = %d, want %d", name, got, want)
		}
	}
}

// FuzzParse checks that Parse never panics, that Format's output parses back
// to the same sections (with final newlines added) and is a fixed point, and
// that well-formed input round-trips byte for byte.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"",
		"comment\n-- a --\nx\n-- b --\n",
		"-- a --\nno newline",
		"-- a --",
		"--  a --\n-- b  --\n-- --\n",
		"x\r\n-- a --\r\n-- b --\n\n",
		"-- a --\n-- a --\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := Parse(data)
		if err != nil {
			return
		}
		out := a.Format()
		b, err := Parse(out)
		if err != nil {
			t.Fatalf("Parse(Format(Parse(%q))) failed: %v", data, err)
		}
		if b.Comment != string(appendNL(nil, []byte(a.Comment))) {
			t.Fatalf("comment %q became %q", a.Comment, b.Comment)
		}
		if len(a.Sections) != len(b.Sections) {
			t.Fatalf("%d sections became %d", len(a.Sections), len(b.Sections))
		}
		for i := range a.Sections {
			sa, sb := a.Sections[i], b.Sections[i]
			if sa.Name != sb.Name || !bytes.Equal(appendNL(nil, sa.Data), sb.Data) {
				t.Fatalf("section %q %q became %q %q", sa.Name, sa.Data, sb.Name, sb.Data)
			}
		}
		if again := b.Format(); !bytes.Equal(again, out) {
			t.Fatalf("Format is not a fixed point: %q then %q", out, again)
		}
		if (len(data) == 0 || data[len(data)-1] == '\n') && !bytes.Equal(out, data) {
			t.Fatalf("well-formed input %q formatted as %q", data, out)
		}
	})
}
