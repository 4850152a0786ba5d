package webhook

import (
	"encoding/json"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubesplit/kubesplit/pkg/apierror"
)

// WriteJSON answers with code and v as JSON. Headers the caller set before
// are kept. If v cannot be encoded the answer is a 500 Status instead, so
// that a client never reads half an answer as a decision.
func WriteJSON(w http.ResponseWriter, code int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		apierror.Write(w, apierrors.NewInternalError(err))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(append(body, '\n'))
}
