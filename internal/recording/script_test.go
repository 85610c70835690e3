package recording

import (
	"errors"
	"reflect"
	"testing"
)

func TestParseScriptCompactsAndRoundTrips(t *testing.T) {
	in := "# c\n>\t{ \"a\" : [1, 2] }\r\n\n  < {\"b\":\"x y\"}  \n"
	steps, err := ParseScript([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []Step{
		{FromAgent, []byte(`{"a":[1,2]}`)},
		{ToAgent, []byte(`{"b":"x y"}`)},
	}
	if !reflect.DeepEqual(steps, want) {
		t.Fatalf("steps = %q, want %q", steps, want)
	}
	out := FormatScript(steps)
	if string(out) != "> {\"a\":[1,2]}\n< {\"b\":\"x y\"}\n" {
		t.Errorf("FormatScript = %q", out)
	}
	again, err := ParseScript(out)
	if err != nil || !reflect.DeepEqual(again, steps) {
		t.Errorf("ParseScript(FormatScript(s)) = %q, %v", again, err)
	}
	// Appending to one step's line must not clobber the next one.
	_ = append(steps[0].Line, "XXXX"...)
	if string(steps[1].Line) != `{"b":"x y"}` {
		t.Errorf("steps share spare capacity: %q", steps[1].Line)
	}
}

func TestParseScriptLineError(t *testing.T) {
	_, err := ParseScript([]byte("> {}\n\n> {\n"))
	var le *LineError
	if !errors.As(err, &le) || le.Line != 3 {
		t.Fatalf("error = %#v, want a *LineError on line 3", err)
	}
	if got := err.Error(); got != "line 3: invalid JSON: unexpected end of JSON input" {
		t.Errorf("error = %q", got)
	}
}

func TestDirString(t *testing.T) {
	if ToAgent.String() != "<" || FromAgent.String() != ">" || Dir('x').String() != "Dir('x')" {
		t.Errorf("got %s %s %s", ToAgent, FromAgent, Dir('x'))
	}
}
