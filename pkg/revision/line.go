package revision

import (
	"encoding/json"
	"errors"
)

// Path is where a stage streams its revisions.
const Path = "/kubesplit/v1/revisions"

// ErrBadLine is returned by ParseLine for a line that is not a revision.
var ErrBadLine = errors.New("revision: bad line")

// Line is one line of the stream: one JSON object {"revision":N}.
type Line struct {
	// Revision is the feed's value when the line was written.
	Revision int64 `json:"revision"`
}

// ParseLine decodes one line of the stream. A line without a revision is
// refused rather than read as 0, so that a reader does not take a
// malformed stream for a real (and perhaps older) revision.
func ParseLine(b []byte) (Line, error) {
	var raw struct {
		Revision *int64 `json:"revision"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return Line{}, errors.Join(ErrBadLine, err)
	}
	if raw.Revision == nil {
		return Line{}, ErrBadLine
	}
	return Line{Revision: *raw.Revision}, nil
}
