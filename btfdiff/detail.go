package btfdiff

import "strings"

// keyDetail lists what differs between two keys of the same function,
// variable or named type: the key's outer part ("STRUCT foo size=8 {…}")
// and the items of its first bracketed list (members, parameters,
// enumerators, datasec entries) found on one side only. Lines start with
// "- " for A and "+ " for B.
func keyDetail(old, cur string) []string {
	oh, oi, ok1 := splitKey(old)
	nh, ni, ok2 := splitKey(cur)
	if !ok1 || !ok2 {
		return []string{"- " + old, "+ " + cur}
	}
	var lines []string
	if oh != nh {
		lines = append(lines, "- "+oh, "+ "+nh)
	}
	left := make(map[string]int, len(ni))
	for _, it := range ni {
		left[it]++
	}
	var plus []string
	for _, it := range oi {
		if left[it] > 0 {
			left[it]--
			continue
		}
		lines = append(lines, "- "+it)
	}
	for _, it := range ni {
		if left[it] > 0 {
			left[it]--
			plus = append(plus, "+ "+it)
		}
	}
	return append(lines, plus...)
}

// splitKey splits a key at its first top-level "{...}" or "(...)" list:
// head is the key with the list shown as "{…}" or "(…)", items its
// top-level elements. A FUNC_PROTO's first item is its return type and is
// labelled "return: ".
func splitKey(key string) (head string, items []string, ok bool) {
	open, close := -1, -1
	depth, start := 0, 0
	for i := 0; i < len(key) && close < 0; i++ {
		switch c := key[i]; c {
		case '"':
			i = skipQuoted(key, i)
		case '{', '(', '[':
			if depth == 0 && c != '[' && open < 0 {
				open, start = i, i+1
			}
			depth++
		case '}', ')', ']':
			depth--
			if depth == 0 && open >= 0 {
				close = i
			}
		case ',', ';':
			if depth == 1 && open >= 0 && i+1 < len(key) && key[i+1] == ' ' {
				items = append(items, key[start:i])
				start = i + 2
			}
		}
	}
	if open < 0 || close < 0 {
		return key, nil, false
	}
	if start < close {
		items = append(items, key[start:close])
	}
	if strings.HasSuffix(key[:open], "FUNC_PROTO") && len(items) > 0 {
		items[0] = "return: " + items[0]
	}
	head = key[:open+1] + "…" + key[close:]
	return head, items, true
}

// skipQuoted returns the index of the quote that closes the Go-quoted
// string starting at key[i].
func skipQuoted(key string, i int) int {
	for j := i + 1; j < len(key); j++ {
		switch key[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return len(key)
}
