package webhook

import (
	"mime"
	"net/http"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Negotiate picks the media type of an answer from the request's Accept
// header among supported, as kube-apiserver does: the highest q wins, the
// first listed on a tie, */* or application/* means JSON, and no header
// means JSON. A header naming nothing supported (a Table, a watch stream,
// text/html) is not ok: kube answers it 406 (NotAcceptable).
func Negotiate(accept string, supported []string) (string, bool) {
	if strings.TrimSpace(accept) == "" {
		return runtime.ContentTypeJSON, true
	}
	best, bestQ := "", 0.0
	for _, clause := range strings.Split(accept, ",") {
		mt, q, ok := parseAcceptClause(clause)
		if !ok || q <= bestQ {
			continue
		}
		if mt = match(mt, supported); mt != "" {
			best, bestQ = mt, q
		}
	}
	return best, best != ""
}

// NotAcceptable is kube's 406 for an Accept header naming nothing
// supported.
func NotAcceptable(supported []string) error {
	return apierrors.NewGenericServerResponse(http.StatusNotAcceptable, "", schema.GroupResource{}, "",
		"only the following media types are accepted: "+strings.Join(supported, ", "), 0, false)
}

// parseAcceptClause reads one media range of an Accept header and its q.
// A range asking for a conversion (as=Table) or a stream is not one these
// endpoints can give, so it is not ok, as it is not acceptable to kube's
// create handler either.
func parseAcceptClause(clause string) (string, float64, bool) {
	mt, params, err := mime.ParseMediaType(strings.TrimSpace(clause))
	if err != nil {
		return "", 0, false
	}
	if params["as"] != "" || params["stream"] != "" {
		return "", 0, false
	}
	q := 1.0
	if s, set := params["q"]; set {
		if q, err = strconv.ParseFloat(s, 64); err != nil || q < 0 || q > 1 {
			return "", 0, false
		}
	}
	return mt, q, true
}

// match returns the supported media type mt names, or "".
func match(mt string, supported []string) string {
	if mt == "*/*" || mt == "application/*" {
		return runtime.ContentTypeJSON
	}
	for _, s := range supported {
		if s == mt {
			return s
		}
	}
	return ""
}
