package audit

import (
	"bytes"
	"net/http"
)

// maxCapturedBytes bounds the response body kept for an event: a Status on
// an error, the object at RequestResponse level. kube-apiserver's request
// bodies are bounded at 3 MiB; a larger response is audited without it.
const maxCapturedBytes = 3 << 20

// recorder is the response writer the audit filter hands on: it notes the
// status, tells when the response starts, and keeps a copy of the body
// when asked to (a Status on an error, the object at RequestResponse).
type recorder struct {
	http.ResponseWriter
	status     int
	started    bool
	captureAll bool      // keep the body whatever the status
	onStart    func(int) // called once, when the headers go out
	body       bytes.Buffer
	overflow   bool
}

func (w *recorder) WriteHeader(code int) {
	if !w.started {
		w.started, w.status = true, code
		if w.onStart != nil {
			w.onStart(code)
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *recorder) Write(b []byte) (int, error) {
	if !w.started {
		w.WriteHeader(http.StatusOK)
	}
	if (w.captureAll || w.status >= http.StatusBadRequest) && !w.overflow {
		if w.body.Len()+len(b) > maxCapturedBytes {
			w.overflow = true
			w.body.Reset()
		} else {
			w.body.Write(b)
		}
	}
	return w.ResponseWriter.Write(b)
}

// Flush passes on, so that watches stream through the recorder.
func (w *recorder) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection (upgrades).
func (w *recorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// code is the status sent, 200 when nothing was written.
func (w *recorder) code() int {
	if !w.started {
		return http.StatusOK
	}
	return w.status
}

// captured is the body kept, nil when none was or it was too large.
func (w *recorder) captured() []byte {
	if w.overflow || w.body.Len() == 0 {
		return nil
	}
	return w.body.Bytes()
}
