package report

import (
	"encoding/json"
	"io"
)

// WriteJSON prints r as one indented JSON object followed by a newline.
func WriteJSON(w io.Writer, r *Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// Write prints r in format "json" or, for anything else, text.
func Write(w io.Writer, r *Result, format string) error {
	if format == "json" {
		return WriteJSON(w, r)
	}
	return WriteText(w, r)
}
