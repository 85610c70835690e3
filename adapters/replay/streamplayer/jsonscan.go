package streamplayer

// topType returns the top-level "type" member of the JSON object line as raw
// string bytes (escapes not decoded), or nil. It walks only as far as that
// member, which the CLI writes first, so classifying a '>' line costs next to
// nothing; the caller knows line is valid JSON.
func topType(line []byte) []byte {
	i := skipWS(line, 0)
	if i >= len(line) || line[i] != '{' {
		return nil
	}
	i++
	for {
		i = skipWS(line, i)
		if i >= len(line) || line[i] != '"' {
			return nil
		}
		end := skipString(line, i)
		if end < 0 {
			return nil
		}
		key := line[i+1 : end-1]
		i = skipWS(line, end)
		if i >= len(line) || line[i] != ':' {
			return nil
		}
		i = skipWS(line, i+1)
		if string(key) == "type" {
			if i >= len(line) || line[i] != '"' {
				return nil
			}
			if end = skipString(line, i); end < 0 {
				return nil
			}
			return line[i+1 : end-1]
		}
		if i = skipValue(line, i); i < 0 {
			return nil
		}
		i = skipWS(line, i)
		if i >= len(line) || line[i] != ',' {
			return nil
		}
		i++
	}
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i] == '"', or
// -1.
func skipString(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// skipValue returns the index after the value starting at b[i], or -1.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				k := skipString(b, j)
				if k < 0 {
					return -1
				}
				j = k - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' &&
		b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	return j
}
