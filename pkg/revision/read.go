package revision

import (
	"bufio"
	"fmt"
	"io"
)

// Read reads a stream's lines until it ends, handing each revision to
// each; it stops at the first malformed line or error from each. A stream
// ends in an error only: a clean end returns io.EOF, since a revision
// stream is never supposed to end.
func Read(r io.Reader, each func(revision int64) error) error {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line, err := ParseLine(sc.Bytes())
		if err != nil {
			return fmt.Errorf("%w: %q", err, sc.Bytes())
		}
		if err := each(line.Revision); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return io.EOF
}
