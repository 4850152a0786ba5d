package storage

import (
	"encoding/json"
	"strconv"
)

// encode is an object's JSON as the cache keeps it: apiVersion and kind
// first, then the other fields in encoding/json's key order. It also
// returns where the fields after that leading `{"apiVersion":…,"kind":…,`
// run begin (0 when the object lacks either, or has no other field), so a
// list can send the object without them, as kube sends the items of a
// built-in list, by leaving those bytes out rather than encoding again.
func encode(m map[string]any) (data []byte, fields int, err error) {
	apiVersion, okV := m["apiVersion"].(string)
	kind, okK := m["kind"].(string)
	if !okV || !okK || !plain(apiVersion) || !plain(kind) {
		data, err = json.Marshal(m)
		return data, 0, err
	}
	rest := make(map[string]any, len(m))
	for k, v := range m {
		if k != "apiVersion" && k != "kind" {
			rest[k] = v
		}
	}
	body, err := json.Marshal(rest)
	if err != nil {
		return nil, 0, err
	}
	head := make([]byte, 0, len(body)+len(apiVersion)+len(kind)+32)
	head = append(head, `{"apiVersion":`...)
	head = strconv.AppendQuote(head, apiVersion)
	head = append(head, `,"kind":`...)
	head = strconv.AppendQuote(head, kind)
	if len(body) == 2 { // {}
		return append(head, '}'), 0, nil
	}
	head = append(head, ',')
	return append(head, body[1:]...), len(head), nil
}

// plain reports whether s is quoted alike by JSON and strconv: printable
// ASCII with no quote, backslash or character JSON escapes for HTML.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}
